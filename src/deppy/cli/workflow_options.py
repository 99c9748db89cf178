"""Options shared by the commands, so each one spells ``--catalog`` (a path or a stored
catalog's name), ``--source``, ``-q``, the cluster versions and ``-o`` the same way."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from deppy.catalog.catalog_set import BundleSource
from deppy.cli.data_output import SETTINGS, dump, note, warn
from deppy.cli.deadline import Seconds
from deppy.cli.spinner import spinner
from deppy.cli.text_table import columns
from deppy.resolution.request import CHOSEN_RULES, ClusterFacts
from deppy.resolution.request_parsing import checked_rules, parse_catalog, parse_version
from deppy.workflows.catalog_loading import Report, load_catalogs, problem_lines_of

if TYPE_CHECKING:
    from deppy.cluster import ClusterState

F = TypeVar("F", bound=Callable[..., Any])
__all__ = ["columns", "dump", "warn"]  # re-exported: commands import these helpers from here too


CATALOG_HELP = (
    "A catalog: a File-Based Catalog or bundle directory, an SQLite index file (index.db), a "
    "catalog image (docker://HOST/REPO[:TAG|@sha256:DIGEST] or oci:DIR[:TAG]), a grpc:// or "
    "http(s):// URL, or the name of a stored catalog (repeatable); default: every stored "
    "catalog."
)
SOURCE_HELP = "Use only the catalogs of this name (repeatable)."
QUIET_HELP = "Print no warnings: only the answer, and errors."


def catalog_option(function: F) -> F:
    """``--catalog`` alone (kept for commands written before ``catalog_options``)."""
    return click.option(
        "--catalog", "catalogs", multiple=True, metavar="PATH|NAME", help=CATALOG_HELP
    )(function)


def source_option(function: F) -> F:
    return click.option("--source", "sources", multiple=True, metavar="NAME", help=SOURCE_HELP)(
        function
    )


RULES_HELP = (
    f"Whose rules answer: {' or '.join(CHOSEN_RULES)} (OLM v0's resolver, as it ships). "
    "Default: the request file's spec.rules, olm-v0 for a cluster with Subscriptions (an OLM "
    "v0 cluster, live or exported), else deppy."
)


def rules_option(function: F) -> F:
    """``--rules deppy|olm-v0``: None when not given (the input's own default applies); an
    unknown name is the one line naming the rule sets and what each reads."""

    def check(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
        return None if value is None else checked_rules(value, "--rules")

    return click.option("--rules", metavar="|".join(CHOSEN_RULES), callback=check, help=RULES_HELP)(
        function
    )


def quiet_option(function: F) -> F:
    """``-q/--quiet``: no keyword argument; the printing helpers read it (``SETTINGS``)."""

    def remember(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
        SETTINGS.quiet = SETTINGS.quiet or value
        return value

    return click.option(
        "-q", "--quiet", is_flag=True, expose_value=False, callback=remember, help=QUIET_HELP
    )(function)


def catalog_options(function: F) -> F:
    """``--catalog PATH|NAME``, ``--source NAME``, ``-q`` and the registry options: what every
    command that reads catalogs takes, worded the same everywhere (the command gets
    ``catalogs`` and ``sources``)."""
    return catalog_option(source_option(quiet_option(registry_options(function))))


def _pull_setting(field: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """A callback that keeps an option's value in the process's pull options."""

    def remember(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        from dataclasses import replace

        from deppy.catalog.image_catalog import pull_options, use_pull_options

        if field == "platform" and value is not None:
            _check_platform(value)
        use_pull_options(replace(pull_options(), **{field: value}))  # defaults too: one per run
        return value

    return remember


def _check_platform(value: str) -> None:
    import re

    if not re.fullmatch(r"[a-z0-9_]+/[a-z0-9_]+(/[a-z0-9_]+)?", value):
        raise click.BadParameter(
            f"{value!r} is not OS/ARCH[/VARIANT] (linux/amd64, linux/arm64)",
            param_hint="--platform",
        )


def registry_options(function: F) -> F:
    """``--tls-verify``, ``--registry-timeout``, ``--platform`` and ``--offline``: how catalog
    images (``docker://…``, ``oci:DIR``) are read, the same on every command that takes a
    catalog and for a push (``resolve --resolved-catalog``). Kept in the process's pull
    options (:func:`deppy.catalog.image_catalog.pull_options`), not passed to the command."""
    for option in reversed(REGISTRY_OPTIONS):
        function = option(function)
    return function


REGISTRY_OPTIONS: tuple[Callable[[F], F], ...] = (
    click.option(
        "--tls-verify",
        type=click.BOOL,
        default=True,
        show_default=True,
        metavar="BOOL",
        expose_value=False,
        callback=_pull_setting("tls_verify"),
        help="Verify a registry's TLS certificate (catalog images, --resolved-catalog); false "
        "also allows a plain-HTTP registry (skopeo's --tls-verify=false).",
    ),
    click.option(
        "--registry-timeout",
        type=Seconds(max=3600),
        default=60.0,
        show_default=True,
        metavar="SECONDS",
        expose_value=False,
        callback=_pull_setting("timeout"),
        help="Give up on a registry request (connecting, sending, the whole answer, its "
        "redirects) after this many seconds.",
    ),
    click.option(
        "--platform",
        metavar="OS/ARCH",
        expose_value=False,
        callback=_pull_setting("platform"),
        help="A catalog image's platform in an image index (default: this machine's, else "
        "linux/amd64, else its only image).",
    ),
    click.option(
        "--offline",
        is_flag=True,
        expose_value=False,
        callback=_pull_setting("offline"),
        help="Ask no registry: catalog images as they were last read.",
    ),
)


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
        help="Read the installed operators, versions and catalogs from a 'deppy cluster export' "
        "file, or a file or directory of 'kubectl get -o yaml' output; '-' reads standard "
        "input.",
    )(function)


def trace_option(help_text: str) -> Callable[[F], F]:
    """``--trace FILE``. ``-`` reads standard input everywhere else (``-f -``, ``--cluster
    -``); as standard output it would be mixed into the answer, which goes there on every
    command that records a trace, so ``--trace -`` is refused (it wrote a file named ``-``)."""

    def no_dash(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
        if value is not None and str(value) == "-":
            raise click.BadParameter(
                "standard output carries the answer, and a trace there would be mixed into "
                "it; give the trace a file (--trace run.jsonl)",
                ctx,
                param,
            )
        return value

    return click.option(
        "--trace",
        "trace",
        type=click.Path(dir_okay=False, path_type=Path),
        callback=no_dash,
        help=help_text,
    )


OUTPUT_WORDS = {
    "text": "text for people",
    "json": "json/yaml for programs",
    "name": "name: one name a line",
    "html": "html: a standalone page to share",
}


def output_option(*choices: str) -> Callable[[F], F]:
    """``-o``: the same words for the same formats on every command."""
    said = [OUTPUT_WORDS[c] for c in choices if c in OUTPUT_WORDS and c != "table"]
    words = "; ".join(said)
    if "yaml" not in choices:
        words = words.replace("json/yaml", "json")

    def decorate(function: F) -> F:
        return click.option(
            "-o",
            "--output",
            type=click.Choice(list(choices)),
            default=choices[0],
            show_default=True,
            help=words[:1].upper() + words[1:] + ".",
        )(function)

    return decorate


def cluster_facts(ocp_version: str | None, kube_version: str | None) -> ClusterFacts:
    return ClusterFacts(
        parse_version(ocp_version, "--ocp-version", tolerant=True) if ocp_version else None,
        parse_version(kube_version, "--kube-version", tolerant=True) if kube_version else None,
    )


def catalog_source(
    catalogs: tuple[str, ...],
    *,
    quiet: bool,
    sources: Sequence[str] = (),
    problems_later: bool = False,
) -> BundleSource:
    """The ``--catalog`` catalogs (paths or stored names), else the stored ones; only those
    named by ``--source`` when given. ``problems_later``: the command says the load problems
    of the catalogs its answer used (:func:`warn_problems`), not of every catalog read."""
    specs = [parse_catalog(spec) for spec in catalogs]
    with spinner("loading catalogs…"):
        source = load_catalogs(
            specs, report=stderr(quiet=quiet), sources=sources, problems_later=problems_later
        )
    return source.restricted(list(sources)) if sources else source


def warn_problems(source: BundleSource, catalogs: Iterable[str]) -> None:
    """The load problems of the catalogs an answer used, once, on stderr (unless -q)."""
    if not SETTINGS.quiet:
        for line in problem_lines_of(source, catalogs):
            note(line)


def to_stderr(message: str) -> None:
    note(message)


def stderr(*, quiet: bool) -> Report | None:
    """Where load warnings go: stderr, unless the output is for a program (json, yaml, dot)
    or -q was given."""
    return None if quiet or SETTINGS.quiet else to_stderr


def interactive() -> bool:
    return sys.stdout.isatty()


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
