"""``deppy validate BUNDLE_DIR``: would this bundle install from these catalogs, and with what?"""

from __future__ import annotations

from pathlib import Path

import click

from deppy.catalog.bundle_dir import load_bundle_dir
from deppy.cli.answer_output import render
from deppy.cli.data_output import say
from deppy.cli.main import EXIT_UNRESOLVABLE, cli
from deppy.cli.workflow_options import (
    catalog_options,
    catalog_source,
    cluster_facts,
    cluster_options,
    output_option,
    warn,
)
from deppy.workflows.validate import validate_bundle


@cli.command("validate")
@click.argument("bundle_dir", type=click.Path(path_type=Path))
@catalog_options
@cluster_options
@output_option("text", "json", "yaml", "table")
@click.option("-v", "--verbose", is_flag=True, help="Also show the solver-level constraints.")
def validate_cmd(
    bundle_dir: Path,
    catalogs: tuple[str, ...],
    sources: tuple[str, ...],
    ocp_version: str | None,
    kube_version: str | None,
    output: str,
    verbose: bool,
) -> None:
    """Resolve a bundle directory (manifests/ + metadata/) against catalogs, as a cluster
    would: the bundle counts as required, as if published in a catalog of its own that is
    preferred to the others. Prints what would be installed, in order, or why it cannot be.

    Exit 0 installable, 1 not installable (with an explanation), 2 bad input.
    """
    cluster = cluster_facts(ocp_version, kube_version)
    loaded = load_bundle_dir(bundle_dir)
    for problem in loaded.problems:
        warn(str(problem))
    text = output in ("text", "table")
    source = catalog_source(catalogs, quiet=not text, sources=sources)
    resolution = validate_bundle(loaded, str(bundle_dir), source, cluster)
    for warning in resolution.warnings:
        warn(warning)
    if text and loaded.bundle is not None:
        bundle = loaded.bundle
        verdict = "installs" if resolution.resolved else "cannot be installed"
        say(f"{bundle.name} ({bundle.package} {bundle.version}) {verdict}\n")
    render(resolution, output, verbose=verbose)
    raise SystemExit(0 if resolution.resolved else EXIT_UNRESOLVABLE)
