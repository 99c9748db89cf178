"""``deppy fleet plan CLUSTERS…``: what a catalog release or a platform upgrade means for many
clusters (``deppy.workflows.fleet``; this module only reads the options and writes the output)."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click
import orjson

from deppy.cli.data_output import emit, say
from deppy.cli.main import cli
from deppy.cli.workflow_options import quiet_option, registry_options, rules_option, stderr, warn
from deppy.errors import DeppyError, InputError
from deppy.oci.reference import is_image_reference

if TYPE_CHECKING:
    from deppy.oci.options import PullOptions
    from deppy.oci.reference import RegistryReference
    from deppy.workflows.fleet.inputs import ClusterRef
    from deppy.workflows.fleet.plan import FleetSettings
    from deppy.workflows.fleet.rollup import Rollup

EXIT_INTERRUPTED = 130  # as a shell reports a command ended by SIGINT (128 + 2)


@cli.group("fleet")
def fleet_group() -> None:
    """Plan many clusters at once (cluster exports or kubeconfig contexts)."""


def _absolute(spec: str, *, remote: bool = False) -> str:
    """A ``--catalog`` spec whose path exists, made absolute: workers may run elsewhere. A
    catalog image is read here, once, with this command's registry options, and the workers
    get the directory it was unpacked to (a SQLite image stays a reference); ``remote``
    workers (``--scheduler``, no shared files) get a registry image by its digest, to pull
    themselves, and an OCI layout's as that directory, whose content is sent them."""
    path, sep, rest = spec.partition("=")
    if is_image_reference(path):
        from deppy.catalog.image_catalog import pulled_image
        from deppy.oci.reference import RegistryReference, parse_reference
        from deppy.workflows.catalog_loading import images_path

        name, colon, priority = rest.partition(":")
        image = parse_reference(path)
        if remote and isinstance(image, RegistryReference):
            digest = image.digest or _tag_digest(image)
            by_digest = f"docker://{image.registry}/{image.repository}@{digest}"
            return f"{by_digest}={name or image.name}{colon}{priority}"
        pulled = pulled_image(path, images_path(), report=stderr(quiet=False))
        if pulled.kind != "fbc":
            return spec
        return f"{pulled.path}={name or pulled.name}{colon}{priority}"
    if "://" in path or not Path(path).exists():
        return spec  # a URL or a stored catalog's name
    return str(Path(path).resolve()) + sep + rest


def _tag_digest(image: RegistryReference) -> str:
    """The digest the tag names now, for workers that pull the image themselves: one HEAD, no
    pull here. A registry this machine cannot reach: the digest it last read (with the
    usual warning), else the pull's own error."""
    from deppy.catalog.image_catalog import pull_options, pulled_image
    from deppy.oci.auth import auth_from_files
    from deppy.oci.fetch import RegistryImage
    from deppy.oci.session import RegistryError
    from deppy.workflows.catalog_loading import images_path

    options = pull_options()
    if not options.offline:
        try:
            return RegistryImage(
                image, auth=auth_from_files(), tls_verify=options.tls_verify,
                timeout=options.timeout,
            ).tag_digest()  # fmt: skip
        except RegistryError as error:
            if not error.retriable:
                raise
    return pulled_image(image.text, images_path(), report=stderr(quiet=False)).digest


def _pull_options() -> PullOptions:
    from deppy.catalog.image_catalog import pull_options

    return pull_options()


def _default_catalogs(sets: tuple[tuple[str, ...], ...]) -> str:
    return "the catalog images the exports name" if sets else "the stored catalogs"


def _silent(_line: str) -> None:
    """Where warnings go under -q."""


def _default_workers() -> int:
    return max(min(os.cpu_count() or 1, 8), 1)


@fleet_group.command("plan")
@click.argument("clusters", nargs=-1, required=True, metavar="CLUSTERS...")
@click.option(
    "--catalog",
    "catalogs",
    multiple=True,
    metavar="PATH|NAME",
    help="The catalog release to plan against (repeatable); default: the catalog images each "
    "export names (CatalogSources, ClusterCatalogs), else every stored catalog.",
)
@click.option(
    "--since",
    multiple=True,
    metavar="PATH|NAME",
    help="An older release of the catalogs: say what changes for each cluster when --catalog "
    "replaces it (repeatable, like --catalog).",
)
@click.option("--ocp-version", help="The target OpenShift version: which operators block it.")
@click.option("--kube-version", help="The target Kubernetes version: which operators block it.")
@click.option("--kubeconfig", metavar="FILE", help="The kubeconfig of the context:NAME clusters.")
@click.option(
    "-o",
    "--output",
    type=click.Choice(["text", "json", "jsonl", "html"]),
    default="text",
    show_default=True,
    help="text: a summary for a screen; json: every cluster's plan and the summary; jsonl: one "
    "record per cluster, written as each is planned, in input order; html: a standalone report.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=0),
    default=None,
    help="Worker processes of the embedded dask scheduler (default: the CPUs, at most 8); "
    "0 plans in this process.",
)
@click.option(
    "--scheduler",
    metavar="tcp://HOST:PORT",
    help="Run on this dask.distributed scheduler instead of an embedded one. Its workers need "
    "deppy, nothing else: the exports and catalog directories are sent to them, a catalog "
    "image is pulled by each (by digest, with the registry options given here).",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=None,
    help="Clusters per task sent to a worker (default: enough to give each worker at least 8 "
    "tasks, at most 500).",
)
@quiet_option
@rules_option
@registry_options
def plan_cmd(
    clusters: tuple[str, ...],
    catalogs: tuple[str, ...],
    since: tuple[str, ...],
    ocp_version: str | None,
    kube_version: str | None,
    kubeconfig: str | None,
    output: str,
    workers: int | None,
    scheduler: str | None,
    batch_size: int | None,
    rules: str | None,
) -> None:
    """Plan each cluster and sum the fleet up.

    CLUSTERS are 'deppy cluster export' files, directories of them (each file one cluster) or
    context:NAME for a live cluster of the kubeconfig. Per cluster: each operator's update in
    its channel and the path to the newest (a ClusterExtension's under OLM v1's rules: one
    bundle per reconciliation, its upgradeConstraintPolicy honoured; each ClusterCatalog's
    content is the --catalog DIR=NAME of its name); with --ocp-version/--kube-version (the target),
    the operators that block it and the version that unblocks each; installs with no way
    forward (stranded); updates asking for more RBAC. The fleet: clusters grouped by identical
    plan (waves), top blockers, versions in use, clusters that need no change. A cluster that
    cannot be read or planned is an error record; the run goes on.

    Subscriptions are planned under OLM v0's rules unless --rules deppy: the next step is the
    InstallPlan OLM v0 makes, the path its InstallPlans one after another. Each record says
    which rules ("rules").
    """
    from deppy.workflows.fleet.inputs import cluster_refs
    from deppy.workflows.fleet.plan import FleetSettings
    from deppy.workflows.fleet.rollup import Rollup

    if ocp_version and kube_version:
        raise click.UsageError("give one target: --ocp-version or --kube-version")
    if scheduler is not None and workers is not None:
        raise click.UsageError("--workers starts a local scheduler; --scheduler names one")
    remote = scheduler is not None
    settings = FleetSettings(
        catalogs=tuple(_absolute(c, remote=remote) for c in catalogs),
        since=tuple(_absolute(c, remote=remote) for c in since),
        target_ocp=ocp_version,
        target_kube=kube_version,
        kubeconfig=kubeconfig,
        rules=rules,
        pull=_pull_options() if remote else None,
    )
    settings.check()  # a bad target or catalog fails here, before any worker starts
    rollup = Rollup()
    if ocp_version or kube_version:  # the target asked, not a cluster's (nor none, if none planned)
        rollup.target = {"openshiftVersion": ocp_version, "kubernetesVersion": kube_version}
    document = io.BytesIO()  # -o json: written once whole, never half a document
    refs: list[ClusterRef] = []
    try:  # from listing the exports to the last record
        refs = cluster_refs(clusters)
        if not refs:
            raise InputError(
                " ".join(clusters), "holds no cluster export", "give .yaml/.json files"
            )
        if not catalogs:  # the catalogs the exports name as images, each read once, here
            from dataclasses import replace

            from deppy.workflows.fleet.images import image_catalog_sets

            sets, refs = image_catalog_sets(refs, stderr(quiet=False) or _silent)
            settings = replace(settings, catalog_sets=sets)
        _write_records(refs, settings, rollup, output, workers, scheduler, batch_size, document)
    except KeyboardInterrupt:  # Ctrl-C: the cluster is closed here (its workers ignore it)
        of = f"{len(refs)} clusters" if refs else "the clusters (still listing them)"
        done = "planned and written" if output == "jsonl" else "planned, nothing written"
        say(f"deppy: fleet plan interrupted: {rollup.total} of {of} {done}; the run stopped",
            err=True)  # fmt: skip
        # What dask was building when Ctrl-C came (a Future half-made) is collected on the way
        # out, and its __del__ fails on the missing half: "Exception ignored ..." and a
        # traceback after the one line. The run is over; those are noise, not news.
        sys.unraisablehook = lambda _unraisable: None
        sys.exit(EXIT_INTERRUPTED)
    summary = rollup.summary()
    if output == "json":
        document.write(b'\n],\n"summary": ')
        document.write(orjson.dumps(summary, option=orjson.OPT_INDENT_2) + b"}\n")
        sys.stdout.buffer.write(document.getbuffer())
    elif output == "text":
        from deppy.workflows.fleet.report import summary_text

        say(summary_text(summary, since=", ".join(since) or None))
    elif output == "html":
        from deppy.workflows.fleet.report import summary_html

        facts = [
            ("command", "deppy fleet plan"),
            (
                "catalogs",
                ", ".join(catalogs) or _default_catalogs(settings.catalog_sets),
            ),
            ("target", (ocp_version and f"OpenShift {ocp_version}") or kube_version or "none"),
        ]
        if since:
            facts.append(("since", ", ".join(since)))
        emit(summary_html(summary, facts))
    sys.stdout.flush()
    if summary["planned"] == 0:
        first = summary["errors"][0]
        raise DeppyError(f"no cluster could be planned; the first: {first['cluster']}: "
                         f"{first['error']}")  # fmt: skip
    if summary["errors"] and output in ("json", "jsonl", "html"):
        total = summary["clusters"]
        warn(f"{len(summary['errors'])} of {total} cluster{'s' if total != 1 else ''} could not "
             "be planned")  # fmt: skip


def _write_records(
    refs: list[ClusterRef],
    settings: FleetSettings,
    rollup: Rollup,
    output: str,
    workers: int | None,
    scheduler: str | None,
    batch_size: int | None,
    document: io.BytesIO,
) -> None:
    """Plans the fleet, summing the records up into ``rollup`` and passing each batch on as
    it comes: to stdout for jsonl (whole records, each line complete), into ``document`` for
    json, which is written only once it is whole: a failure or Ctrl-C half-way leaves no half
    a JSON document on stdout (the records of 10,000 clusters are ~50 MB)."""
    from deppy.workflows.fleet.fanout import plan_fleet

    stream = sys.stdout.buffer
    with _progress(len(refs), output) as progress:
        batches = plan_fleet(
            refs,
            settings,
            workers=_default_workers() if workers is None else workers,
            scheduler=scheduler,
            batch_size=batch_size,
            progress=progress,
            rollup=rollup,
        )
        if output == "json":
            document.write(b'{"clusters": [\n')
        written = 0
        for lines in batches:  # JSON lines as the workers wrote them: never parsed here
            if not lines.clusters:
                continue
            if output == "jsonl":
                stream.write(lines.data)
                stream.flush()
            elif output == "json":  # the records joined by ",\n" (no newline inside one)
                joined = lines.data[:-1].replace(b"\n", b",\n")
                document.write((b",\n" if written else b"") + joined)
            written += lines.clusters


@contextmanager
def _progress(total: int, output: str) -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar on stderr, only when stderr is a terminal."""
    from deppy.cli.data_output import SETTINGS

    if not sys.stderr.isatty() or SETTINGS.quiet:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress(
        "planning",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("clusters", total=total)

        def update(done: int, of: int) -> None:
            bar.update(task, completed=done, total=of)

        yield update
