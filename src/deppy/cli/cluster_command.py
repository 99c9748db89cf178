"""``deppy cluster export``: what a cluster holds for resolution, as one file (read only)."""

from __future__ import annotations

from pathlib import Path

import click
import orjson

from deppy.cli.data_output import emit, say, write_file
from deppy.cli.main import cli
from deppy.errors import InputError


@cli.group("cluster")
def cluster_group() -> None:
    """Read a cluster (never writes to it)."""


@cluster_group.command("export")
@click.option("--kubeconfig", metavar="FILE", help="Default: $KUBECONFIG, else ~/.kube/config.")
@click.option("--context", "kube_context", metavar="NAME", help="The kubeconfig context.")
@click.option(
    "-o",
    "--output",
    type=click.Choice(["yaml", "json"]),
    default="yaml",
    show_default=True,
    help="The export's format (deppy reads either).",
)
@click.option(
    "-f",
    "--file",
    "target",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to this file instead of standard output.",
)
def export_cmd(
    kubeconfig: str | None, kube_context: str | None, output: str, target: Path | None
) -> None:
    """Export ClusterServiceVersions, Subscriptions, CatalogSources (with priority),
    OperatorGroups, OLM v1 ClusterCatalogs and ClusterExtensions, the Kubernetes version and the
    OpenShift version, for 'deppy resolve --cluster FILE' (list/get requests only).

    Exit 0 exported (what could not be read is listed as warnings), 2 the cluster cannot be read.
    """
    from deppy.cluster import export_document
    from deppy.cluster.live import read_live

    state = read_live(kubeconfig, kube_context)
    document = export_document(state)
    if output == "json":
        text = orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n"
    else:
        from deppy.input_limits.yaml_writer import yaml_text

        text = yaml_text(document, allow_unicode=True)
    for problem in state.problems:
        say(f"deppy: warning: {problem}", err=True)
    if target is None:
        emit(text, nl=False)
    else:
        try:
            write_file(target, text.encode())  # whole or not at all (Ctrl-C, a full disk)
        except OSError as error:
            raise InputError(str(target), f"cannot write: {error.strerror}") from None
    say(f"deppy: exported {state.counts()} from {state.where}", err=True)
