"""Where the CLI's catalogs come from: --catalog paths, else the store, else the embedded example.

Imports are deferred to the branch that needs them: resolving against the store must not pay for
the file loader (and YAML), and loading files must not pay for SQLite.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from deppy.olm.request_parsing import CatalogSpec

if TYPE_CHECKING:
    from deppy.olm.catalogs import BundleSource
    from deppy.olm.model import Catalog

EMBEDDED = "embedded"
SHOWN_PROBLEMS = 5


def embedded_catalog_path() -> Path:
    from deppy.data import data_path

    return data_path("catalog")


def embedded_request_path() -> Path:
    from deppy.data import data_path

    return data_path("request.yaml")


def load_catalogs(specs: list[CatalogSpec], *, quiet: bool = False) -> BundleSource:
    """The catalogs to resolve against; report (never hide) objects skipped as invalid.

    With no spec, the stored catalogs (``deppy catalog add``) with their priorities; only when
    the store is empty, the embedded example catalog — said on stderr.
    """
    if not specs:
        from deppy.store import Store

        stored = Store().source()
        if stored is not None:
            return stored
        specs = [CatalogSpec(str(embedded_catalog_path()), EMBEDDED, 0)]
        if not quiet:
            click.echo(
                "deppy: no --catalog given and no stored catalogs (see 'deppy catalog add'); "
                "using the embedded example catalog",
                err=True,
            )
    from deppy.olm.bundle_tree import load_any_catalog
    from deppy.olm.catalogs import CatalogSet

    catalogs: list[Catalog] = []
    for spec in specs:
        catalog = load_any_catalog(spec.path, name=spec.name, priority=spec.priority)
        if not quiet:
            report_problems(catalog)
        catalogs.append(catalog)
    return CatalogSet(catalogs)


def report_problems(catalog: Catalog) -> None:
    """The objects a load skipped, on stderr: a count and the first few."""
    if not catalog.problems:
        return
    click.echo(
        f"deppy: warning: catalog {catalog.name}: skipped {len(catalog.problems)} invalid objects:",
        err=True,
    )
    for problem in catalog.problems[:SHOWN_PROBLEMS]:
        click.echo(f"  {problem}", err=True)
    if len(catalog.problems) > SHOWN_PROBLEMS:
        click.echo(f"  … and {len(catalog.problems) - SHOWN_PROBLEMS} more", err=True)
