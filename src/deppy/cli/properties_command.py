"""``deppy properties CSV``: the CSV with its ``operatorframework.io/properties`` annotation."""

from __future__ import annotations

from pathlib import Path

import click

from deppy.cli.data_output import emit, say
from deppy.cli.main import cli
from deppy.cli.workflow_options import catalog_option, catalog_source


@cli.command("properties")
@click.argument("csv_file", metavar="CSV", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--bundle",
    metavar="NAME",
    help="Project this catalog bundle's properties (those a resolution uses); default: "
    "synthesise them from the CSV's spec.",
)
@catalog_option
@click.option(
    "--package",
    metavar="NAME",
    help="The package, when synthesising (default: the operators.coreos.com label, else the "
    "CSV name without its version).",
)
@click.option(
    "-o",
    "--output",
    type=click.Choice(["csv", "annotation"]),
    default="csv",
    show_default=True,
    help="The whole CSV (YAML, or JSON if the file is JSON), or the annotation value alone.",
)
def properties_cmd(
    csv_file: Path,
    bundle: str | None,
    catalogs: tuple[str, ...],
    package: str | None,
    output: str,
) -> None:
    """Print the CSV with the operatorframework.io/properties annotation set (an existing one
    is overwritten, with a warning): the properties of --bundle in the catalogs, else those
    synthesised from the CSV (package, version, owned and required APIs). Byte-stable."""
    from deppy.workflows.properties import annotate_csv, bundle_properties, read_csv_file

    csv, as_json = read_csv_file(csv_file)
    properties = None
    if bundle is not None:
        properties = bundle_properties(catalog_source(catalogs, quiet=True), bundle)
    elif catalogs:
        raise click.UsageError("--catalog is used with --bundle NAME")
    result = annotate_csv(csv, properties, package=package, as_json=as_json)
    for warning in result.warnings:
        say(f"deppy: warning: {warning}", err=True)
    emit(result.annotation if output == "annotation" else result.text, nl=output != "csv")
