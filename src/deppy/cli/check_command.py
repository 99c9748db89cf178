"""``deppy catalog check NAME|PATH``: the bundles of a catalog that cannot be installed alone.

``catalog_check`` is a plain command: the ``catalog`` group belongs to the store's
``catalog_command`` module, which attaches it (commands are imported lazily, by group name, so
this module could not reach the group on its own).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from deppy.catalog.bundle_tree import load_any_catalog as load_catalog
from deppy.catalog.catalog_set import BundleSource, CatalogSet
from deppy.cli.data_output import SETTINGS, say
from deppy.cli.workflow_options import (
    cluster_facts,
    cluster_options,
    dump,
    output_option,
    quiet_option,
    registry_options,
)
from deppy.errors import InputError
from deppy.oci.reference import is_image_reference
from deppy.store.schema import is_history_name
from deppy.workflows.catalog_check import BundleCheck, CatalogCheck, check_catalog
from deppy.workflows.catalog_loading import load_catalogs

EXIT_FAILURES = 1
LEAF_KINDS = ("missing", "openshift", "kubernetes", "excluded")
VERSIONS_SHOWN = 6


@click.command("check")
@click.argument("target", metavar="NAME|PATH")
@cluster_options
@output_option("text", "json", "yaml")
@quiet_option
@registry_options
def catalog_check(
    target: str, ocp_version: str | None, kube_version: str | None, output: str
) -> None:
    """List every bundle of a catalog that cannot be installed on its own (that exact bundle
    required from that catalog), with the reason, and a summary by reason.

    NAME is a stored catalog, PATH a File-Based Catalog directory. Exit 0 when every bundle
    can be installed, 1 when some cannot, 2 on bad input.
    """
    cluster = cluster_facts(ocp_version, kube_version)
    started = time.perf_counter()
    source, name = _open(target)
    loaded = time.perf_counter()
    with _progress() as advance:
        report = check_catalog(source, name, cluster, advance)
    checked = time.perf_counter()
    if output != "text":
        dump(report.as_dict(), output)
    else:
        for line in report_lines(report, len(source.package_names())):
            say(line)
    if not SETTINGS.quiet:
        say(
            f"deppy: checked {report.bundles} bundles in {checked - loaded:.2f} s "
            f"(catalog opened in {loaded - started:.2f} s)",
            err=True,
        )
    raise SystemExit(EXIT_FAILURES if report.failures or report.invalid_channels else 0)


def _open(target: str) -> tuple[BundleSource, str]:
    """A catalog directory or image, else a stored catalog of that name."""
    path = Path(target)
    if is_image_reference(target):
        from deppy.resolution.request_parsing import CatalogSpec

        loaded = load_catalogs([CatalogSpec(target, None, 0)], one_shot=False)
        (name,) = loaded.names()
        return loaded, name
    if path.exists():
        catalog = load_catalog(path)
        return CatalogSet([catalog]), catalog.name
    if is_history_name(target):  # a stored catalog's earlier contents: the store says it
        from deppy.store import Store

        store = Store()
        if store.find(target) is None:
            raise store.missing(target)
        return CatalogSet([store.load_catalog(target)]), target
    stored = load_catalogs([])
    if target not in stored.names():
        known = ", ".join(stored.names()) or "none"
        raise InputError(
            target,
            "neither a catalog directory nor a stored catalog",
            f"give a File-Based Catalog directory or one of: {known}",
        )
    return stored.restricted([target]), target


@contextmanager
def _progress() -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on a terminal (stderr), nothing otherwise."""
    if not sys.stderr.isatty():
        yield None
        return
    columns = (BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(
        "checking bundles", *columns, console=Console(stderr=True), transient=True
    ) as bar:
        task = bar.add_task("check", total=None)

        def advance(done: int, total: int) -> None:
            if done == total or done % 50 == 0:
                bar.update(task, completed=done, total=total)

        yield advance


def report_lines(report: CatalogCheck, packages: int) -> list[str]:
    failing = len(report.failures)
    lines = [
        f"Catalog {report.catalog}: {report.bundles} bundles in {packages} packages; "
        f"{report.resolved} have dependencies or cluster limits and were resolved; "
        f"{failing} cannot be installed on their own.",
    ]
    groups: dict[tuple[str, tuple[str, ...], tuple[str, ...]], list[BundleCheck]] = {}
    for failure in report.failures:
        key = (failure.bundle.package, failure.reasons, _leaf_texts(failure, shared=True))
        groups.setdefault(key, []).append(failure)
    for (package, reasons, texts), members in groups.items():
        lines += ["", f"{package} {_versions(members)}: {', '.join(reasons)}"]
        shown = texts if len(members) > 1 else _leaf_texts(members[0], shared=False)
        lines += [f"  - {text}" for text in shown]
    if report.invalid_channels:
        lines += ["", f"Invalid channels ({len(report.invalid_channels)}; opm validate fails):"]
        lines += [f"  - {problem}" for problem in report.invalid_channels]
    lines += ["", "By reason (bundles; a bundle may have more than one reason):"]
    by_reason = report.by_reason()
    width = max(len(reason) for reason in by_reason)
    lines += [f"  {reason.ljust(width)}  {count}" for reason, count in by_reason.items()]
    lines += [
        "",
        f"Total: {failing} of {report.bundles} bundles ({len(report.packages())} of {packages} "
        "packages) cannot be installed on their own.",
    ]
    return lines


def _leaf_texts(failure: BundleCheck, *, shared: bool) -> tuple[str, ...]:
    """What the bundle lacks, else the causes at the bottom of the failure; ``shared`` leaves
    the bundle's own version out, so that the bundles of a package failing the same way group
    together under one text."""
    own = f"{failure.bundle.package} {failure.bundle.version}"
    if failure.unmet:
        texts = [f"{own} {text}" for text in failure.unmet]
    else:
        causes = failure.explanation.causes
        texts = [c.text for c in causes if c.kind in LEAF_KINDS] or [c.text for c in causes]
    if shared:
        texts = [text.replace(own, failure.bundle.package) for text in texts]
    return tuple(texts)


def _versions(members: list[BundleCheck]) -> str:
    versions = [str(m.bundle.version) for m in members]
    if len(versions) <= VERSIONS_SHOWN:
        return ", ".join(versions)
    head = ", ".join(versions[: VERSIONS_SHOWN - 1])
    return f"{head} … {versions[-1]} ({len(versions)} bundles)"
