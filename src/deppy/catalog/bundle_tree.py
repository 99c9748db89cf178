"""Catalogs made of older-format bundle directories (manifests/ + metadata/).

Before File-Based Catalogs, an index was built from bundle directories: the annotations name
the package, its channels and default channel; the CSV carries the upgrade edges (replaces,
skips, olm.skipRange). This module turns one bundle directory, or a tree of them, into the same
``Catalog`` the FBC loader returns, so every command accepts either kind of path.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from deppy.catalog.bundle_dir import BundleDir, load_bundle_dir, looks_like_bundle_dir
from deppy.catalog.model import Bundle, Catalog, Channel, ChannelEntry, LoadProblem, Package
from deppy.catalog.properties import parse_range
from deppy.catalog.semver import VersionError
from deppy.errors import InputError

if TYPE_CHECKING:
    from deppy.catalog.fbc.cache import ParsedCache


def bundle_dirs_in(path: str | os.PathLike[str]) -> list[Path]:
    """Bundle directories at or below ``path``, in sorted order (none inside another)."""
    root = Path(path)
    if looks_like_bundle_dir(root):
        return [root]
    found: list[Path] = []
    for current, dirs, _ in os.walk(root):
        dirs.sort()
        for name in list(dirs):
            child = Path(current) / name
            if looks_like_bundle_dir(child):
                found.append(child)
                dirs.remove(name)
    return found


def is_bundle_tree(path: str | os.PathLike[str]) -> bool:
    return Path(path).is_dir() and bool(bundle_dirs_in(path))


def channel_entry(bundle: Bundle) -> ChannelEntry:
    """The bundle's place in its channels, from the edges its CSV declares."""
    skip_range = None
    if bundle.skip_range:
        try:
            skip_range = parse_range(bundle.skip_range)
        except VersionError:
            skip_range = None
    return ChannelEntry(bundle.name, bundle.replaces, bundle.skips, skip_range, bundle.skip_range)


def catalog_of_bundle_dirs(
    loaded: Sequence[tuple[BundleDir, str]], name: str, priority: int, path: str
) -> Catalog:
    """A catalog of loaded bundle directories (each with the place it came from)."""
    problems: list[LoadProblem] = []
    bundles: dict[tuple[str, str], Bundle] = {}
    channel_entries: dict[tuple[str, str], list[ChannelEntry]] = {}
    defaults: dict[str, tuple[Bundle, str | None]] = {}
    for directory, where in loaded:
        problems.extend(directory.problems)
        bundle = directory.bundle
        if bundle is None:
            continue
        if not directory.channels:
            problems.append(
                LoadProblem(
                    where,
                    bundle.name,
                    "metadata/annotations.yaml names no "
                    "channel, so no catalog can offer it; it is skipped",
                )
            )
            continue
        if bundle.key in bundles:
            problems.append(
                LoadProblem(
                    where,
                    bundle.name,
                    "duplicate bundle, first defined at "
                    f"{bundles[bundle.key].source}; it is skipped",
                )
            )
            continue
        bundle = _in_catalog(bundle, name)
        bundles[bundle.key] = bundle
        for channel in directory.channels:
            channel_entries.setdefault((bundle.package, channel), []).append(channel_entry(bundle))
        known = defaults.get(bundle.package)
        if known is None or bundle.version > known[0].version:
            # as an index built from bundles does: the newest bundle's annotation wins
            defaults[bundle.package] = (bundle, directory.default_channel)
    if not bundles:
        first = f" (first problem: {problems[0]})" if problems else ""
        raise InputError(path, f"no bundle could be loaded from these bundle directories{first}")
    channels = {
        key: Channel(key[0], key[1], tuple(entries), path)
        for key, entries in sorted(channel_entries.items())
    }
    packages: dict[str, Package] = {}
    for package in sorted(defaults):
        offered = sorted(c for p, c in channels if p == package)
        default = defaults[package][1]
        packages[package] = Package(
            package, default if default in offered else offered[0], "", path
        )
    return Catalog(
        name=name,
        priority=priority,
        path=path,
        packages=packages,
        channels=channels,
        bundles=dict(sorted(bundles.items())),
        problems=tuple(problems),
    )


def _in_catalog(bundle: Bundle, catalog: str) -> Bundle:
    from dataclasses import replace

    return bundle if bundle.catalog == catalog else replace(bundle, catalog=catalog)


def load_bundle_tree(
    path: str | os.PathLike[str], *, name: str | None = None, priority: int = 0
) -> Catalog:
    """A catalog of every bundle directory at or below ``path``."""
    root = Path(path)
    catalog = name or root.resolve().name
    loaded = [(load_bundle_dir(d, catalog=catalog), str(d)) for d in bundle_dirs_in(root)]
    return catalog_of_bundle_dirs(loaded, catalog, priority, str(root))


def load_any_catalog(
    path: str | os.PathLike[str],
    *,
    name: str | None = None,
    priority: int = 0,
    cache: ParsedCache | None = None,
    file_backed: bool = False,
) -> Catalog:
    """A File-Based Catalog (read through the parsed-catalog ``cache`` when given; CSV
    metadata left in its files with ``file_backed``), a tree of older-format bundle
    directories, or an operator-registry SQLite index file (told by SQLite's header)."""
    from deppy.catalog.sqlite_index.header import is_sqlite_file

    if is_sqlite_file(path):
        from deppy.catalog.sqlite_index import load_sqlite_catalog

        label = Path(path).stem if name is None else name
        return load_sqlite_catalog(path, name=label, priority=priority, where=str(path))
    if is_bundle_tree(path):
        return load_bundle_tree(path, name=name, priority=priority)
    from deppy.catalog.fbc import load_catalog

    return load_catalog(path, name=name, priority=priority, cache=cache, file_backed=file_backed)
