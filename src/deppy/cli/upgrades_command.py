"""``deppy upgrades --installed SPEC…``: the updates each installed bundle has, and how to get
there."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from deppy.cli.data_output import say
from deppy.cli.exit_codes import EXIT_UNRESOLVABLE
from deppy.cli.main import cli
from deppy.cli.workflow_options import (
    catalog_options,
    catalog_source,
    cluster_facts,
    cluster_input_options,
    cluster_options,
    dump,
    output_option,
    read_cluster_option,
    rules_option,
    stderr,
    warn,
    warn_problems,
)
from deppy.errors import InputError
from deppy.explain.render import text_order
from deppy.resolution.answer import path_text
from deppy.resolution.request_parsing import parse_installed
from deppy.workflows.upgrades import (
    READ_FROM_CLUSTER,
    ChannelUpdates,
    UpgradeReport,
    upgrade_reports,
)

if TYPE_CHECKING:
    from deppy.cluster import ClusterState

SHOWN_UPDATES = 10


@cli.command("upgrades")
@click.option(
    "--installed",
    "installed",
    multiple=True,
    metavar="SPEC",
    help="PACKAGE@VERSION[,channel=C][,catalog=NAME][,bundle=NAME] (repeatable).",
)
@click.option(
    "-f",
    "--file",
    "extension_file",
    type=click.Path(path_type=Path),
    help="Installed ClusterExtensions (status.install.bundle): what OLM v1 moves each to under "
    "its upgradeConstraintPolicy, and the path over reconciliations; '-' reads standard "
    "input.",
)
@catalog_options
@cluster_options
@cluster_input_options
@output_option("text", "json", "yaml")
@rules_option
def upgrades_cmd(
    extension_file: Path | None,
    installed: tuple[str, ...],
    catalogs: tuple[str, ...],
    sources: tuple[str, ...],
    ocp_version: str | None,
    kube_version: str | None,
    cluster_path: Path | None,
    kubeconfig: str | None,
    kube_context: str | None,
    cluster_namespace: str | None,
    output: str,
    rules: str | None,
) -> None:
    """List the updates of installed bundles: in their channel (those deppy resolve chooses from),
    and those available only by switching channel (CrossChannelUpdateFound), each with the
    step-by-step path to the newest.

    With --cluster/--kubeconfig, the installed bundles are the cluster's Subscriptions (and
    ClusterExtensions); operators installed without a Subscription stay as they are.

    With --ocp-version/--kube-version, updates the cluster cannot run are marked and the path
    leads to the newest one it can run.

    Under --rules olm-v0 (the default for a cluster with Subscriptions) each also lists the
    InstallPlans OLM v0 would make, one per approval.

    Exit 0 listed, 1 OLM v1 finds no bundle for a ClusterExtension (-f; with the ways out
    deppy resolve offers), 2 bad input.
    """
    state = read_cluster_option(cluster_path, kubeconfig, kube_context, cluster_namespace)
    if extension_file is not None:
        if rules not in (None, "deppy"):
            from deppy.cli.resolve_command import rules_for_extensions

            raise rules_for_extensions(rules, str(extension_file))
        raise SystemExit(_extension_upgrades(extension_file, catalogs, output, state))
    specs = [parse_installed(spec) for spec in installed]
    cluster = cluster_facts(ocp_version, kube_version)
    notes: tuple[str, ...] = ()
    if state is None:
        if not specs:
            raise click.UsageError("give --installed SPEC, or a cluster (--cluster/--kubeconfig)")
        source = catalog_source(
            catalogs, quiet=output != "text", sources=sources, problems_later=True
        )
    else:
        from deppy.resolution.request import ResolutionRequest
        from deppy.resolution.request_parsing import parse_catalog
        from deppy.workflows.cluster_input import cluster_input

        found = cluster_input(
            state,
            [parse_catalog(spec) for spec in catalogs],
            namespace=cluster_namespace,
            report=stderr(quiet=output != "text"),
        )
        asked = ResolutionRequest(installed=tuple(specs), cluster=cluster)
        merged = found.request(asked, upgradable_only=True)
        rules = found.rules(rules, merged)
        source, specs, cluster, notes = (
            found.catalogs,
            list(merged.installed),
            merged.cluster,
            found.warnings,
        )
        if sources:
            source = source.restricted(list(sources))
    try:
        reports, warnings = upgrade_reports(source, specs, cluster, rules=rules or "deppy")
    except InputError as error:
        if state is None or not error.where.startswith(READ_FROM_CLUSTER):
            raise
        # "Subscription ns/name" is read from the cluster: say which (the export file)
        raise InputError(f"{state.where}: {error.where}", error.what, error.fix) from None
    if state is None:  # a cluster's catalogs said their problems as they were read
        warn_problems(source, (c for s in specs for c in source.catalogs_with(s.package)))
    for warning in dict.fromkeys([*notes, *warnings]):
        warn(warning)
    if output != "text":
        dump([r.as_dict() for r in reports], output)
        return
    # the whole answer worked out before a line of it is written (no half answer on a failure)
    say("\n\n".join("\n".join(_report_lines(report)) for report in reports), nl=bool(reports))


def _extension_upgrades(
    path: Path, catalogs: tuple[str, ...], output: str, state: ClusterState | None
) -> int:
    from deppy.resolution.request_parsing import parse_catalog
    from deppy.workflows.catalog_loading import load_catalogs
    from deppy.workflows.olmv1 import (
        RESOLVED_CATALOG_WAY_OUT,
        extension_request,
        extension_request_on,
        extension_upgrades,
        olmv1_documents,
        with_ways_out,
    )

    documents = olmv1_documents(path)
    if documents is None:
        raise InputError(str(path), "no ClusterExtension in the file", "give OLM v1 objects")
    warnings_to = stderr(quiet=output != "text")
    given = [parse_catalog(c) for c in catalogs]
    if state is None and not given:  # the stored catalogs, as they are
        source = load_catalogs([], report=warnings_to)
        found = extension_request_on(documents, str(path), source)
        request, notes = found.request, found.warnings
    elif state is None:
        found, specs = extension_request(documents, str(path), given)
        source = load_catalogs(specs, report=warnings_to)
        request, notes = found.request, found.warnings
    else:
        from deppy.workflows.cluster_input import cluster_input
        from deppy.workflows.olmv1 import extension_request_on_cluster

        read = cluster_input(state, given, report=warnings_to)
        found, request = extension_request_on_cluster(documents, str(path), state, read)
        source, notes = read.catalogs, found.warnings + read.warnings
    for note in notes:
        warn(note)
    reports = with_ways_out(source, request, extension_upgrades(source, request))
    status = EXIT_UNRESOLVABLE if any(r.error is not None for r in reports) else 0  # as resolve
    if output != "text":
        dump([r.as_dict() for r in reports], output)
        return status
    lines: list[str] = []  # written once, whole (no half answer on a failure)
    if not reports:
        lines.append("no ClusterExtension has an installed bundle (status.install.bundle)")
    for n, report in enumerate(reports):
        if n:
            lines.append("")
        lines.append(
            f"ClusterExtension {report.extension}: {report.package} {report.installed_version} "
            f"({report.installed}; {report.policy})"
        )
        if report.error is not None:
            lines.append(f"  OLM v1 finds no bundle: {report.error}")
            if report.ways_out:
                lines.append("  try:")
            for way in text_order(report.ways_out):
                lines.append(f"    - {way.text}")
        elif report.fell_back:
            lines.append(
                "  no ClusterCatalog its selector matches exists: OLM v1 keeps it (its fallback)"
            )
        elif report.next is None and report.refusal is None:
            lines.append("  up to date: OLM v1 keeps it")
        elif report.next is not None:
            versions = [report.installed_version, *(str(b.version) for b in report.path)]
            lines.append(
                f"  next: {report.next.version} ({report.next.name}, catalog {report.next.catalog})"
            )
            lines.append(
                f"  path: {path_text(tuple(versions))} ({len(report.path)} reconciliation"
                f"{'s' if len(report.path) != 1 else ''})"
            )
        if report.refused is not None and report.refusal is not None:
            where = f"after {report.path[-1].version}" if report.path else "now"
            lines.append(
                f"  stops {where}: OLM v1 chooses {report.refused.version} and refuses it: "
                f"{report.refusal.message}"
            )
            lines.append(f"  way out: {RESOLVED_CATALOG_WAY_OUT}")
    say("\n".join(lines))
    return status


def _report_lines(report: UpgradeReport) -> list[str]:
    installed = report.installed
    here = report.channel
    where = f"channel {here.channel}, catalog {here.catalog}" if here else "no channel"
    lines = [f"{installed.package} {installed.version} ({report.bundle.name}; {where})"]
    if not report.in_catalog:
        lines.append("  not in any catalog: only bundles whose upgrade edges name it can follow")
    if here is None or not here.updates:
        lines.append("  up to date in its channel")
    else:
        lines += _channel_lines(here, "  ")
    plans = report.install_plans
    if plans is not None:
        if plans.steps:
            versions = [str(installed.version), *(str(b.version) for b in plans.steps)]
            count = len(plans.steps)
            plural = "InstallPlans" if count > 1 else "InstallPlan"
            lines.append(
                f"  OLM v0 (rules olm-v0): next InstallPlan {plans.steps[0].name}; "
                f"{path_text(versions, count=False)} in {count} {plural}"
            )
        elif plans.refused is None:
            lines.append("  OLM v0 (rules olm-v0): no InstallPlan, it stays")
        last = plans.steps[-1] if plans.steps else report.bundle
        newest = here.newest if here is not None else None
        if plans.refused is None and newest is not None and newest.version > last.version:
            lines.append(
                f"  OLM v0 stops at {last.version}: no next InstallPlan (nothing on its "
                "channel walk, skipped entries left out, replaces it that the cluster can run); "
                f"deppy's rules reach {newest.version}"
            )
        if plans.refused is not None:
            lines.append(f"  {plans.refused}")
    if report.cross_channel_update_found:
        lines.append("  only by switching channel (CrossChannelUpdateFound):")
        for other in report.other_channels:
            lines.append(f"    channel {other.channel} (catalog {other.catalog}):")
            lines += _channel_lines(other, "      ")
    return lines


def _channel_lines(found: ChannelUpdates, indent: str) -> list[str]:
    shown = found.updates[:SHOWN_UPDATES]
    versions = ", ".join(
        f"{u.bundle.version}{' (cannot run here)' if u.blocked else ''}" for u in shown
    )
    more = len(found.updates) - len(shown)
    lines = [f"{indent}updates: {versions}" + (f" and {more} older" if more > 0 else "")]
    newest = found.newest
    if newest is None:
        lines.append(f"{indent}none of them can run on this cluster:")
    else:
        steps = len(found.path) - 1
        plural = "step" if steps == 1 else "steps"
        path = path_text([str(b.version) for b in found.path], count=False)
        lines.append(f"{indent}newest {newest.version} in {steps} {plural}: {path}")
        passing = found.blocked_steps()
        if passing:
            listed = ", ".join(str(u.bundle.version) for u in passing)
            lines.append(
                f"{indent}the path passes through versions this cluster cannot run: {listed}"
            )
    newer = [u for u in found.updates if newest is None or u.bundle.version > newest.version]
    for update in newer:
        lines += [f"{indent}  {update.bundle.version}: {reason}" for reason in update.blocked]
    return lines
