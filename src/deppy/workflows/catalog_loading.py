"""Where a front door's catalogs come from: given paths, else the store, else the embedded example.

Imports are deferred to the branch that needs them: resolving against the store must not pay for
the file loader (and YAML), and loading files must not pay for SQLite.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from deppy.errors import InputError
from deppy.resolution.request_parsing import CatalogSpec

if TYPE_CHECKING:
    from deppy.catalog.catalog_set import BundleSource
    from deppy.catalog.fbc.cache import ParsedCache
    from deppy.catalog.model import Catalog

EMBEDDED = "embedded"
SHOWN_PROBLEMS = 5


def embedded_catalog_path() -> Path:
    from deppy.data import data_path

    return data_path("catalog")


def embedded_request_path() -> Path:
    from deppy.data import data_path

    return data_path("request.yaml")


Report = Callable[[str], None]


def load_catalogs(
    specs: list[CatalogSpec], *, report: Report | None = None, store: Path | None = None
) -> BundleSource:
    """The catalogs to resolve against; ``report`` hears (never hides) objects skipped as invalid.

    A spec's path may be a URL (``grpc://HOST:PORT``, ``http(s)://…/api/v1/all``), read live,
    or the name of a stored catalog (a word that is no path on disk). With no spec, the stored
    catalogs (``deppy catalog add``; the store in ``store``, default ``$DEPPY_HOME`` or the
    user's) with their priorities; only when the store is empty, the embedded example catalog —
    and ``report`` hears that too.
    """
    if not specs:
        from deppy.store import Store

        stored_store = Store(store)
        stored = stored_store.source()
        if stored is not None:
            if report is not None:  # listed when added or refreshed; now one line each
                for summary in stored_store.list():
                    if summary.problems:
                        report(problems_line(summary.name, summary.problems, summary.name))
            return stored
        specs = [CatalogSpec(str(embedded_catalog_path()), EMBEDDED, 0)]
        if report is not None:
            report(
                "deppy: no --catalog given and no stored catalogs (see 'deppy catalog add'); "
                "using the embedded example catalog"
            )
    stored_names = [s.path for s in specs if _stored_name(s, store)]
    if stored_names and len(stored_names) == len(specs):
        from deppy.store import Store

        named_store = Store(store)
        source = named_store.source(stored_names)  # the store reads only what is asked: fast
        if source is not None:
            if report is not None:
                for summary in named_store.list():
                    if summary.problems and summary.name in stored_names:
                        report(problems_line(summary.name, summary.problems, summary.name))
            return source
    from deppy.catalog.bundle_tree import load_any_catalog
    from deppy.catalog.catalog_set import CatalogSet

    catalogs: list[Catalog] = []
    for spec in specs:
        if spec.path in stored_names:  # beside catalog directories: the whole stored catalog
            from deppy.store import Store

            catalogs.append(Store(store).load_catalog(spec.path))
            continue
        if _is_url(spec.path):
            from deppy.cluster.remote import load_url_catalog

            name = spec.name or spec.path.split("://", 1)[1].split("/", 1)[0]
            catalog = load_url_catalog(spec.path, name=name, priority=spec.priority)
        else:
            catalog = load_any_catalog(
                spec.path, name=spec.name, priority=spec.priority, cache=parsed_cache(store)
            )
        if report is not None:
            report_problems(catalog, report, listed=False, where=spec.path)
        catalogs.append(catalog)
    return CatalogSet(catalogs)


def parsed_cache(home: Path | None = None) -> ParsedCache | None:
    """The parsed-catalog cache beside the store in ``home`` (default ``$DEPPY_HOME``), or
    None when ``$DEPPY_CACHE=off``; whole catalogs are written in the background (a command
    answers without waiting for it)."""
    from deppy.catalog.fbc.cache import ParsedCache
    from deppy.store.location import cache_path

    directory = cache_path(home)
    return ParsedCache(directory, background=True) if directory is not None else None


def _is_url(path: str) -> bool:
    # grpc://HOST:PORT or http(s)://…/api/v1/all (deppy.cluster.remote), checked without it
    return path.lower().startswith(("grpc://", "http://", "https://"))


def _stored_name(spec: CatalogSpec, store: Path | None) -> bool:
    """``--catalog NAME``: a word that is no path on disk (nor a URL) names a stored catalog."""
    if spec.name is not None or spec.priority or _is_url(spec.path) or Path(spec.path).exists():
        return False
    from deppy.store import Store

    return Store(store).find(spec.path) is not None


def problems_line(name: str, count: int, where: str) -> str:
    """The one line a command prints for a catalog whose invalid objects were skipped."""
    objects = "object" if count == 1 else "objects"
    return (
        f"deppy: warning: catalog {name}: {count} invalid {objects} skipped: "
        f"deppy catalog problems {where}"
    )


def report_problems(
    catalog: Catalog, report: Report, *, listed: bool = True, where: str | None = None
) -> None:
    """The objects a load skipped: when a catalog is added or refreshed (``listed``), a count
    and the first few; otherwise one line naming the command that lists them (``where`` is
    the catalog's name or path for that command). An empty catalog is said in one line."""
    if not catalog.bundles and not catalog.problems:
        report(f"deppy: warning: catalog {catalog.name}: no packages (loaded as empty)")
    if not catalog.problems:
        return
    count = len(catalog.problems)
    if not listed:
        report(problems_line(catalog.name, count, where or catalog.name))
        return
    report(f"deppy: warning: catalog {catalog.name}: skipped {count} invalid objects:")
    for problem in catalog.problems[:SHOWN_PROBLEMS]:
        report(f"  {problem}")
    if count > SHOWN_PROBLEMS:
        more = count - SHOWN_PROBLEMS
        report(f"  … and {more} more: deppy catalog problems {where or catalog.name}")


def unknown_package(source: BundleSource, package: str, where: str) -> InputError:
    """The error for a package no catalog has: which catalogs were searched, the closest names
    and how to look further."""
    import difflib

    close = difflib.get_close_matches(package, source.package_names(), n=3)
    hint = f"did you mean {', '.join(close)}? " if close else ""
    return InputError(
        where,
        f"no catalog ({', '.join(source.names())}) has this package",
        f"{hint}try deppy search {package}",
    )
