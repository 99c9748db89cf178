"""``deppy resolve``: which bundles to install or upgrade to, and why — or why not."""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path

import click

from deppy.catalog.catalog_set import BundleSource
from deppy.cli.answer_output import MIN_LINES, dump, render, rules_line
from deppy.cli.data_output import SETTINGS, emit, say, warn_within
from deppy.cli.deadline import timeout_option, whole_command
from deppy.cli.exit_codes import EXIT_OLMV1_REFUSES
from deppy.cli.main import EXIT_UNRESOLVABLE, cli
from deppy.cli.spinner import spinner
from deppy.cli.workflow_options import (
    CATALOG_HELP,
    cluster_facts,
    cluster_input_options,
    output_option,
    quiet_option,
    read_cluster_option,
    registry_options,
    rules_option,
    source_option,
    stderr,
    trace_option,
    warn,
    warn_problems,
)
from deppy.errors import InputError
from deppy.explain.render import SCREEN_LINES, explanation_as_short_text
from deppy.resolution.answer import Resolution
from deppy.resolution.request import ClusterFacts, ResolutionRequest, known_rules
from deppy.resolution.request_parsing import (
    load_request_file,
    parse_catalog,
    parse_exclude,
    parse_installed,
    parse_require,
)
from deppy.solver import SolveTimeout
from deppy.workflows.catalog_loading import (
    catalogs_used,
    load_catalogs,
    only_stored_names,
    problem_notes,
)
from deppy.workflows.olmv1 import (
    extension_request,
    extension_request_on,
    extension_request_on_cluster,
    olmv1_documents,
)
from deppy.workflows.resolve import check_pipeline, resolve_with_options

TYPE_CHECKING = False
if TYPE_CHECKING:
    from deppy.workflows.olmv1 import OLMv1Plan, Publisher

SPEC_HELP = """
\b
SPEC grammar:
  --require   PACKAGE[@RANGE][,channel=C][,catalog=NAME][,ignore=V1|V2][,within=LEVEL:VERSION]
  --installed PACKAGE@VERSION[,channel=C][,catalog=NAME][,bundle=NAME]
  --exclude   TYPE=VALUE                      (e.g. olm.label=beta)
  --catalog   PATH[=NAME[:PRIORITY]]          (higher priority preferred)
  --catalog   NAME                            (a stored catalog: deppy catalog add)
\b
RANGE is blang/semver as in catalogs: '>=1.0.0 <2.0.0', '1.x', '!=1.2.3', '||';
'latest' (or nothing) means any version. within=major|minor|patch:VERSION keeps the
versions sharing that part of VERSION (latest within the minor of 1.4.2: within=minor:1.4.2).
\b
Examples:
  deppy resolve --catalog ./catalog=community --require 'etcd@>=0.9.0,channel=alpha'
  deppy resolve --catalog ./catalog --installed etcd@0.9.2,channel=alpha --require etcd
  deppy resolve -f request.yaml -o json
  deppy resolve -f clusterextension.yaml --catalog ./catalog=operatorhubio
  deppy resolve --kubeconfig ~/.kube/config --require cert-manager
  deppy resolve --cluster cluster.yaml --dry-run-next
"""


@cli.command("resolve", epilog=SPEC_HELP)
@click.option(
    "--catalog",
    "catalogs",
    multiple=True,
    metavar="PATH[=NAME[:PRIORITY]]|NAME",
    help=CATALOG_HELP,
)
@click.option(
    "--require", "required", multiple=True, metavar="SPEC", help="A package you want (repeatable)."
)
@click.option(
    "--installed",
    "installed",
    multiple=True,
    metavar="SPEC",
    help="A bundle already installed (repeatable).",
)
@click.option(
    "--exclude",
    "exclude",
    multiple=True,
    metavar="TYPE=VALUE",
    help="Exclude bundles having this property value (repeatable).",
)
@source_option
@click.option("--ocp-version", help="The cluster's OpenShift version (e.g. 4.18).")
@click.option("--kube-version", help="The cluster's Kubernetes version (e.g. 1.31.0).")
@click.option(
    "-f",
    "--file",
    "request_file",
    type=click.Path(path_type=Path),
    help="An ActiveResolution YAML file (spec.sources, spec.constraints, ...), or OLM v1 "
    "ClusterExtension documents (with ClusterCatalog documents for labels and priorities); "
    "'-' reads standard input.",
)
@output_option("text", "json", "yaml", "html", "table", "clusterextensions")
@click.option(
    "--install-namespace",
    metavar="NS",
    help="-o clusterextensions: the namespace of a ClusterExtension whose request names none "
    "(a dependency deppy adds takes its requester's).",
)
@click.option(
    "--service-account",
    metavar="NAME",
    help="-o clusterextensions: a service account for ClusterExtensions whose request names "
    "none (optional: OLM v1 ignores spec.serviceAccount).",
)
@click.option(
    "--resolved-catalog",
    "resolved_catalog",
    metavar="DEST",
    help="Publish the plan's bundles that declare dependencies (which OLM v1 refuses) as a "
    "resolved catalog image, and make the plan install them from it: docker://HOST[:PORT]/"
    "REPO[:TAG] pushes, oci:DIR[:TAG] writes an OCI layout.",
)
@registry_options
@quiet_option
@rules_option
@timeout_option("Give up after this many seconds (loading and output included).")
@click.option(
    "--one-step",
    is_flag=True,
    help="Move installed bundles at most one upgrade edge (as OLM v0 does per resolution); "
    "by default they go to the highest version their channel reaches, path shown.",
)
@click.option(
    "-v", "--verbose", is_flag=True, help="The long explanation, with the solver-level constraints."
)
@trace_option("Record the execution as JSON lines (see `deppy trace`, `deppy replay`).")
@click.option(
    "--pipeline",
    "pipeline_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Run this pipeline file instead of the default one (deppy/data/pipelines/default.yaml).",
)
@cluster_input_options
@click.option(
    "--dry-run-next",
    "dry_run_next",
    is_flag=False,
    flag_value="next",
    default=None,
    metavar="[ocp=V,kube=V]",
    help="Compare with the next cluster version (OpenShift 4.18 -> 4.19, Kubernetes 1.31 -> "
    "1.32, from --ocp-version/--kube-version), or with the versions given: per package "
    "unchanged, changes version or breaks, and why. Exit 1 if it breaks.",
)
def resolve_cmd(
    catalogs: tuple[str, ...],
    required: tuple[str, ...],
    installed: tuple[str, ...],
    exclude: tuple[str, ...],
    sources: tuple[str, ...],
    ocp_version: str | None,
    kube_version: str | None,
    request_file: Path | None,
    output: str,
    timeout: float | None,
    verbose: bool,
    trace: Path | None,
    pipeline_file: Path | None,
    cluster_path: Path | None,
    kubeconfig: str | None,
    kube_context: str | None,
    cluster_namespace: str | None,
    dry_run_next: str | None,
    one_step: bool,
    install_namespace: str | None,
    service_account: str | None,
    resolved_catalog: str | None,
    rules: str | None,
) -> None:
    """Resolve which bundles to install or upgrade to.

    Exit 0 resolved, 1 unresolvable (with an explanation), 2 bad input, 3 resolved but OLM v1
    refuses part of the plan as written (ClusterExtension requests; see --resolved-catalog).
    """
    with whole_command(timeout) as deadline:
        catalog_specs = [parse_catalog(spec) for spec in catalogs]
        if resolved_catalog is not None:  # a bad DEST is bad input before any work
            from deppy.oci.destination import parse_destination

            parse_destination(resolved_catalog)
        request = ResolutionRequest()
        extension_notes: tuple[str, ...] = ()
        documents = olmv1_documents(request_file) if request_file is not None else None
        if documents is not None and rules not in (None, "deppy"):
            raise rules_for_extensions(rules, str(request_file))
        state = read_cluster_option(cluster_path, kubeconfig, kube_context, cluster_namespace)
        if documents is not None and (state is not None or not catalog_specs):
            request = ResolutionRequest(rules="olmv1")  # the catalogs come first
        elif documents is not None and request_file is not None:
            olm, catalog_specs = extension_request(documents, str(request_file), catalog_specs)
            request, extension_notes = olm.request, olm.warnings
        elif request_file is not None:
            request, from_file = load_request_file(request_file)
            catalog_specs = catalog_specs or from_file
        request = replace(
            request,
            required=request.required + tuple(parse_require(s) for s in required),
            installed=request.installed + tuple(parse_installed(s) for s in installed),
            cluster=cluster_facts(ocp_version, kube_version).or_else(request.cluster),
            sources=request.sources + sources,
            exclude=request.exclude + tuple(parse_exclude(s) for s in exclude),
            one_step=one_step or request.one_step,
            rules=rules if rules is not None and documents is None else request.rules,
        )
        empty = not request.required and not request.installed
        # OLM v0 resolves a namespace with no Subscription to no InstallPlan: a request file
        # under its rules may state one; anything else with nothing in it is a mistake
        olm_v0_namespace = request_file is not None and request.rules == "olm-v0"
        if state is None and documents is None and empty and not olm_v0_namespace:
            raise click.UsageError(
                "nothing to resolve: give --require/--installed, -f FILE or a cluster "
                "(--cluster/--kubeconfig)"
            )
        if resolved_catalog is not None and documents is None:
            raise click.UsageError(
                "--resolved-catalog needs ClusterExtension documents (-f FILE): it publishes "
                "the bundles of an OLM v1 plan that OLM v1 would refuse"
            )
        pipeline = check_pipeline(pipeline_file)
        text = output in ("text", "table")
        report = stderr(quiet=not text)
        notes: tuple[str, ...] = extension_notes
        if state is None:
            named = only_stored_names(catalog_specs)
            if named:  # the whole store, read in part: a way out may add another of its catalogs
                request = replace(request, sources=tuple(dict.fromkeys([*named, *request.sources])))
                catalog_specs = []
            with spinner("loading catalogs…"):
                catalog_set = load_catalogs(
                    catalog_specs, report=report, sources=request.sources, problems_later=True
                )
            if documents is not None and not catalog_specs:  # the stored catalogs, as they are
                olm = extension_request_on(documents, str(request_file), catalog_set)
                request = replace(request, required=olm.request.required + request.required)
                notes = notes + olm.warnings
        else:
            from deppy.workflows.cluster_input import cluster_input

            with spinner("reading the cluster and its catalogs…"):
                found = cluster_input(
                    state, catalog_specs, namespace=cluster_namespace, report=report
                )
            catalog_set = found.catalogs
            if documents is not None:
                olm, request = extension_request_on_cluster(
                    documents, str(request_file), state, found, request
                )
                notes = notes + olm.warnings
            else:
                request = found.request(request)
                request = replace(request, rules=found.rules(rules, request))
                request = found.with_pending(request)
            notes = notes + found.warnings
            if not request.required and not request.installed:
                raise click.UsageError(
                    f"nothing to resolve: {state.where} has no installed operator; give --require"
                )
        if dry_run_next is not None:
            from deppy.workflows.whatif import parse_next

            for note in notes:
                warn(note)
            raise SystemExit(
                dry_run(catalog_set, request, parse_next(dry_run_next, request.cluster), output)
            )
        started = time.perf_counter()
        try:
            with spinner("resolving…"):
                resolution = resolve_with_options(
                    catalog_set,
                    request,
                    timeout=deadline.remaining(),
                    pipeline=pipeline,
                    trace=trace,
                )
        except SolveTimeout:
            raise deadline.error() from None
        elapsed = time.perf_counter() - started
        used = catalogs_used(resolution, request, catalog_set)
        wanted = trace is not None or not text  # the answer's warnings, or the trace's notes
        problems = tuple(problem_notes(catalog_set, used)) if wanted else ()
        if trace is not None:  # for a replay, which reads no catalog, to say them too
            from deppy.pipeline.trace import append_notes

            append_notes(trace, notes + problems)
        if text:  # once, before the answer, as wide as a screen
            warn_problems(catalog_set, used)
        else:  # always in the answer's warnings
            notes = notes + problems
        if notes:
            resolution = replace(
                resolution, warnings=tuple(dict.fromkeys(notes + resolution.warnings))
            )
        if text and not verbose and resolution.explanation is not None:
            # one screen: the explanation first takes what it needs, the warnings the rest
            # (at least a line saying how many there are)
            room = max(SCREEN_LINES - SETTINGS.warned - bool(resolution.warnings), MIN_LINES)
            short = explanation_as_short_text(resolution.explanation, lines=room)
            warn_within(resolution.warnings, SCREEN_LINES - SETTINGS.warned - short.count("\n") - 1)
        else:
            for warning in resolution.warnings:
                warn(warning)
        plan = None
        if request.rules == "olmv1" and resolution.selection is not None:
            from deppy.workflows.olmv1 import build_plan, refusal_notes

            plan = build_plan(
                resolution,
                namespace=install_namespace,
                service_account=service_account,
                publish=publisher(resolved_catalog, catalog_set),
            )
            for note in refusal_notes(plan.extensions):
                warn(note)
            if plan.published is not None and plan.published.note:
                warn(plan.published.note)
        if output == "clusterextensions":
            raise SystemExit(print_clusterextensions(resolution, plan))
        facts: list[tuple[str, str]] = []
        if output == "html":
            from deppy.workflows.report_facts import report_facts

            facts = report_facts(request, catalog_set)
        render(
            resolution,
            output,
            verbose=verbose,
            facts=facts,
            olmv1=plan.summary() if plan is not None else None,
        )
        if text and plan is not None and resolution.selection is not None:
            published = plan.published_lines()  # --resolved-catalog: what went where
            if published:
                say("\n" + "\n".join(published))
        if text and os.environ.get("DEPPY_TIMING"):
            say(f"resolved in {elapsed * 1000:.1f} ms", err=True)
        raise SystemExit(exit_status(resolution, plan))


def rules_for_extensions(rules: str, where: str) -> InputError:
    """``--rules olm-v0`` for ClusterExtension documents: OLM v1 installs them, by its rules."""
    return InputError(
        f"--rules {rules}",
        f"{where} holds ClusterExtension documents, which OLM v1 resolves by its own rules",
        known_rules(),
    )


def publisher(dest: str | None, catalogs: BundleSource) -> Publisher | None:
    """How ``--resolved-catalog DEST`` publishes a plan's resolved catalog (None: not asked),
    with the registry options every image read of the command uses."""
    if dest is None:
        return None
    from deppy.catalog.image_catalog import pull_options
    from deppy.workflows.olmv1 import cli_publisher

    options = pull_options()
    return cli_publisher(dest, catalogs, tls_verify=options.tls_verify, timeout=options.timeout)


def exit_status(resolution: Resolution, plan: OLMv1Plan | None) -> int:
    """0 resolved (and, for OLM v1, installed as written), 1 no answer, 3 resolved but OLM v1
    refuses part of the plan as written."""
    if not resolution.resolved:
        return EXIT_UNRESOLVABLE
    if plan is not None and not plan.installs_as_written:
        return EXIT_OLMV1_REFUSES
    return 0


def print_clusterextensions(resolution: Resolution, plan: OLMv1Plan | None) -> int:
    """The plan as YAML (a resolved catalog's ClusterCatalog first, then the ClusterExtensions
    in install order), or the explanation on stderr."""
    if resolution.explanation is not None or plan is None:
        if resolution.explanation is not None:
            say(explanation_as_short_text(resolution.explanation), err=True)
            return EXIT_UNRESOLVABLE
        raise click.UsageError("-o clusterextensions needs ClusterExtension documents (-f FILE)")
    import yaml

    emit(yaml.safe_dump_all(plan.documents(), sort_keys=False).rstrip())
    return exit_status(resolution, plan)


def dry_run(
    catalog_set: BundleSource, request: ResolutionRequest, target: ClusterFacts, output: str
) -> int:
    from deppy.workflows.whatif import what_if, whatif_as_text

    report = what_if(catalog_set, request, target)
    if output in ("text", "table"):
        say(whatif_as_text(report))
        if rules_line(request.rules):
            say(rules_line(request.rules))
    else:
        dump(report.as_dict(), output)
    return EXIT_UNRESOLVABLE if report.breaks or not report.before.resolved else 0
