"""Catalogs read from images (``docker://…``, ``oci:DIR[:TAG]``): pulled into deppy's cache
directory by :mod:`deppy.oci.pull`, then loaded as the directory (or SQLite index) they hold.

The pull options (``--tls-verify``, ``--registry-timeout``, ``--platform``, ``--offline``)
are the process's: the front door sets them once (:func:`use_pull_options`) and every read
of an image in that command uses them, wherever in the command a catalog is taken.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from deppy.oci.options import PullOptions

if TYPE_CHECKING:
    from deppy.catalog.fbc.cache import ParsedCache
    from deppy.catalog.model import Catalog
    from deppy.oci.pull import PulledImage

_OPTIONS: list[PullOptions] = [PullOptions()]


def use_pull_options(options: PullOptions) -> None:
    """The options every later image read of this process uses."""
    _OPTIONS[0] = options


def pull_options() -> PullOptions:
    return _OPTIONS[0]


def pulled_image(
    text: str,
    cache_dir: Path,
    *,
    where: str = "--catalog",
    report: Callable[[str], None] | None = None,
    options: PullOptions | None = None,
) -> PulledImage:
    """The image ``text`` names, in ``cache_dir`` (read when not there); its warnings told
    to ``report``."""
    from deppy.oci.pull import pull_catalog  # HTTP, TLS and tar: only when an image is read

    pulled = pull_catalog(text, cache_dir=cache_dir, options=options or pull_options(), where=where)
    if report is not None:
        for line in pulled.warnings:
            report(line)
    return pulled


def load_pulled(
    pulled: PulledImage,
    *,
    name: str | None,
    priority: int = 0,
    cache: ParsedCache | None = None,
    file_backed: bool = False,
) -> Catalog:
    """The catalog of an image read into the cache."""
    if pulled.kind == "sqlite":
        from deppy.catalog.sqlite_index import load_sqlite_catalog

        return load_sqlite_catalog(
            pulled.path, name=name or pulled.name, priority=priority, where=pulled.reference
        )
    from deppy.catalog.bundle_tree import load_any_catalog

    return load_any_catalog(
        pulled.path,
        name=name or pulled.name,
        priority=priority,
        cache=cache,
        file_backed=file_backed,
    )


def load_image_catalog(
    text: str,
    *,
    name: str | None,
    priority: int = 0,
    cache_dir: Path,
    cache: ParsedCache | None = None,
    report: Callable[[str], None] | None = None,
    where: str = "--catalog",
    options: PullOptions | None = None,
) -> Catalog:
    """The catalog of the image ``text`` names (read into ``cache_dir`` when not there)."""
    pulled = pulled_image(text, cache_dir, where=where, report=report, options=options)
    return load_pulled(pulled, name=name, priority=priority, cache=cache)


__all__ = ["load_image_catalog", "load_pulled", "pull_options", "pulled_image", "use_pull_options"]
