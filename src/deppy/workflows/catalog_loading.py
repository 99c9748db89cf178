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


def load_catalogs(specs: list[CatalogSpec], *, report: Report | None = None) -> BundleSource:
    """The catalogs to resolve against; ``report`` hears (never hides) objects skipped as invalid.

    With no spec, the stored catalogs (``deppy catalog add``) with their priorities; only when
    the store is empty, the embedded example catalog — and ``report`` hears that too.
    """
    if not specs:
        from deppy.store import Store

        stored = Store().source()
        if stored is not None:
            return stored
        specs = [CatalogSpec(str(embedded_catalog_path()), EMBEDDED, 0)]
        if report is not None:
            report(
                "deppy: no --catalog given and no stored catalogs (see 'deppy catalog add'); "
                "using the embedded example catalog"
            )
    from deppy.catalog.bundle_tree import load_any_catalog
    from deppy.catalog.catalog_set import CatalogSet

    catalogs: list[Catalog] = []
    for spec in specs:
        catalog = load_any_catalog(spec.path, name=spec.name, priority=spec.priority)
        if report is not None:
            report_problems(catalog, report)
        catalogs.append(catalog)
    return CatalogSet(catalogs)


def report_problems(catalog: Catalog, report: Report) -> None:
    """The objects a load skipped: a count and the first few; an empty catalog in one line."""
    if not catalog.bundles and not catalog.problems:
        report(f"deppy: warning: catalog {catalog.name}: no packages (loaded as empty)")
    if not catalog.problems:
        return
    report(
        f"deppy: warning: catalog {catalog.name}: skipped {len(catalog.problems)} invalid objects:"
    )
    for problem in catalog.problems[:SHOWN_PROBLEMS]:
        report(f"  {problem}")
    if len(catalog.problems) > SHOWN_PROBLEMS:
        report(f"  … and {len(catalog.problems) - SHOWN_PROBLEMS} more")


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
