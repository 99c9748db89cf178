"""``deppy catalog render SOURCE``: a catalog source printed as File-Based Catalog objects, as
``opm render`` prints them (an older SQLite index turned into FBC, or a look inside any
catalog deppy reads).

A plain command attached lazily by ``catalog_command``'s group, as ``check`` and ``diff`` are.
"""

from __future__ import annotations

import sys

import click

from deppy.cli.data_output import SETTINGS
from deppy.cli.workflow_options import output_option, quiet_option, registry_options, to_stderr


@click.command("render")
@click.argument("source", metavar="SOURCE")
@output_option("json", "yaml")
@quiet_option
@registry_options
def catalog_render(source: str, output: str) -> None:
    """Print the catalog SOURCE as File-Based Catalog objects, as 'opm render' prints them:
    a JSON object after another (-o yaml: YAML documents), per package the package, its
    channels, bundles and deprecations.

    SOURCE is anything --catalog takes: a catalog directory, an operator-registry SQLite
    index (index.db of an older index image), a catalog image (docker://HOST/REPO[:TAG|
    @sha256:DIGEST] or oci:DIR[:TAG], FBC or SQLite), a stored catalog NAME or NAME@N, or a
    URL (grpc://HOST:PORT, http(s)://.../api/v1/all). The same source prints the same bytes.
    """
    from deppy.workflows.catalog_render import render_source, rendered

    objects = render_source(source, _warn)
    out = sys.stdout
    for text in rendered(objects, output):
        out.write(text)
    out.flush()


def _warn(line: str) -> None:
    if not SETTINGS.quiet:
        to_stderr(line)
