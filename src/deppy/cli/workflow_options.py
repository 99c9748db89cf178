"""Options shared by the everyday commands (search, show, upgrades, validate, catalog check), so
each one spells ``--catalog``, the cluster versions and ``-o`` the same way as ``deppy resolve``."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from deppy.catalog.catalog_set import BundleSource
from deppy.resolution.request import ClusterFacts
from deppy.resolution.request_parsing import parse_catalog, parse_version
from deppy.workflows.catalog_loading import Report, load_catalogs

if TYPE_CHECKING:
    from deppy.cluster import ClusterState

F = TypeVar("F", bound=Callable[..., Any])


def catalog_option(function: F) -> F:
    return click.option(
        "--catalog",
        "catalogs",
        multiple=True,
        metavar="PATH[=NAME[:PRIORITY]]",
        help="A File-Based Catalog directory (repeatable); default: the stored catalogs.",
    )(function)


def cluster_options(function: F) -> F:
    function = click.option(
        "--kube-version", help="The cluster's Kubernetes version (e.g. 1.31.0)."
    )(function)
    return click.option("--ocp-version", help="The cluster's OpenShift version (e.g. 4.18).")(
        function
    )


def cluster_input_options(function: F) -> F:
    """``--cluster``/``--kubeconfig``/``--context``/``--namespace``: a cluster as input."""
    function = click.option(
        "--namespace",
        "cluster_namespace",
        metavar="NS",
        help="Only the operators installed in this namespace (and ClusterExtensions).",
    )(function)
    function = click.option(
        "--context", "kube_context", metavar="NAME", help="The kubeconfig context (live)."
    )(function)
    function = click.option(
        "--kubeconfig",
        metavar="FILE",
        help="Read the installed operators, versions and catalogs from this live cluster "
        "(read only).",
    )(function)
    return click.option(
        "--cluster",
        "cluster_path",
        type=click.Path(path_type=Path),
        metavar="FILE|DIR",
        help="Read them from a 'deppy cluster export' file or 'kubectl get -o yaml' output.",
    )(function)


def output_option(*choices: str) -> Callable[[F], F]:
    def decorate(function: F) -> F:
        return click.option(
            "-o",
            "--output",
            type=click.Choice(list(choices)),
            default=choices[0],
            show_default=True,
        )(function)

    return decorate


def cluster_facts(ocp_version: str | None, kube_version: str | None) -> ClusterFacts:
    return ClusterFacts(
        parse_version(ocp_version, "--ocp-version", tolerant=True) if ocp_version else None,
        parse_version(kube_version, "--kube-version", tolerant=True) if kube_version else None,
    )


def catalog_source(catalogs: tuple[str, ...], *, quiet: bool) -> BundleSource:
    """The ``--catalog`` catalogs, else what ``load_catalogs`` offers (the stored ones)."""
    return load_catalogs([parse_catalog(spec) for spec in catalogs], report=stderr(quiet=quiet))


def to_stderr(message: str) -> None:
    click.echo(message, err=True)


def stderr(*, quiet: bool) -> Report | None:
    """Where load warnings go: stderr, unless the output is for a program (json, yaml, dot)."""
    return None if quiet else to_stderr


def interactive() -> bool:
    return sys.stdout.isatty()


def columns(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> list[str]:
    """Plain aligned columns: byte-identical output whatever the terminal (the last column is
    not padded)."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    return [
        "  ".join([*(cell.ljust(w) for cell, w in zip(row, widths, strict=False)), row[-1]])
        for row in [header, *rows]
    ]


def read_cluster_option(
    path: Path | None, kubeconfig: str | None, context: str | None, namespace: str | None
) -> ClusterState | None:
    """The cluster the options name (None if none); ``--namespace`` needs one."""
    if path is None and kubeconfig is None and context is None:
        if namespace is not None:
            raise click.UsageError("--namespace needs a cluster: give --cluster or --kubeconfig")
        return None  # no cluster: the cluster modules are not even imported
    from deppy.workflows.cluster_input import read_cluster

    state = read_cluster(path, kubeconfig, context)
    if state is None and namespace is not None:
        raise click.UsageError("--namespace needs a cluster: give --cluster or --kubeconfig")
    return state
