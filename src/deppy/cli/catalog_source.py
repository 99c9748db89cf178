"""Where the CLI's catalogs come from: --catalog paths, else the embedded example catalog."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import click

from deppy.olm.catalogs import BundleSource, CatalogSet
from deppy.olm.fbc import load_catalog
from deppy.olm.model import Catalog
from deppy.olm.request_parsing import CatalogSpec

EMBEDDED = "embedded"


def embedded_catalog_path() -> Path:
    return Path(str(resources.files("deppy") / "data" / "catalog"))


def embedded_request_path() -> Path:
    return Path(str(resources.files("deppy") / "data" / "request.yaml"))


def load_catalogs(specs: list[CatalogSpec], *, quiet: bool = False) -> BundleSource:
    """Load every catalog; report (never hide) the objects that were skipped as invalid."""
    if not specs:
        specs = [CatalogSpec(str(embedded_catalog_path()), EMBEDDED, 0)]
        if not quiet:
            click.echo("deppy: no --catalog given; using the embedded example catalog", err=True)
    catalogs: list[Catalog] = []
    for spec in specs:
        catalog = load_catalog(spec.path, name=spec.name, priority=spec.priority)
        if catalog.problems and not quiet:
            click.echo(
                f"deppy: warning: catalog {catalog.name}: skipped {len(catalog.problems)} "
                "invalid objects:",
                err=True,
            )
            for problem in catalog.problems[:5]:
                click.echo(f"  {problem}", err=True)
            if len(catalog.problems) > 5:
                click.echo(f"  … and {len(catalog.problems) - 5} more", err=True)
        catalogs.append(catalog)
    return CatalogSet(catalogs)
