"""Options shared by the everyday commands (search, show, upgrades, validate, catalog check), so
each one spells ``--catalog``, the cluster versions and ``-o`` the same way as ``deppy resolve``."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from deppy.catalog.catalog_set import BundleSource
from deppy.cli.text_table import columns
from deppy.resolution.request import ClusterFacts
from deppy.resolution.request_parsing import parse_catalog, parse_version
from deppy.workflows.catalog_loading import Report, load_catalogs

F = TypeVar("F", bound=Callable[..., Any])
__all__ = ["columns"]  # re-exported: commands import the table helper from here too


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
