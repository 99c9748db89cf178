"""``deppy controller``: run deppy's Kubernetes controller in the foreground (kopf)."""

from __future__ import annotations

import click

from deppy.cli.exit_codes import EXIT_INTERRUPTED, Terminated
from deppy.cli.main import cli
from deppy.observability import log_format_option


@cli.command("controller")
@click.option(
    "--kubeconfig",
    type=click.Path(dir_okay=False),
    help="Default: $KUBECONFIG, or the pod's service account.",
)
@click.option(
    "--namespace",
    "namespaces",
    multiple=True,
    metavar="NS",
    help="Watch only these namespaces (repeatable; default: the whole cluster).",
)
@click.option(
    "--health-host", default="127.0.0.1", show_default=True, help="Where /healthz listens."
)
@click.option(
    "--health-port",
    type=int,
    default=8080,
    show_default=True,
    help="Where /healthz and /metrics listen.",
)
@click.option(
    "--priority",
    type=int,
    default=None,
    help="Peering priority (default: distinct per replica); the highest live replica works.",
)
@click.option("--standalone", is_flag=True, help="No peering: only when one replica runs.")
@click.option(
    "--peering",
    default="deppy",
    show_default=True,
    help="The ClusterKopfPeering (or KopfPeering with --namespace) replicas meet in.",
)
@click.option("-v", "--verbose", is_flag=True, help="Debug logging.")
@log_format_option("time, level, kind, object, namespace, reason, duration, message")
def controller_cmd(
    kubeconfig: str | None,
    namespaces: tuple[str, ...],
    health_host: str,
    health_port: int,
    priority: int | None,
    standalone: bool,
    peering: str,
    verbose: bool,
    log_format: str,
) -> None:
    """Run the controller: Catalogs, ActiveResolutions, Inputs, Operators, resolvesets.

    Apply `deppy manifests` first. Stops cleanly on SIGTERM (exit 0) and Ctrl-C (exit 130);
    /healthz and /metrics (Prometheus) answer on the health port while it runs.
    """
    import signal

    from deppy.controller.runner import ControllerOptions, run

    try:
        stopped_by = run(
            ControllerOptions(
                kubeconfig,
                namespaces,
                health_host,
                health_port,
                priority,
                standalone,
                peering=peering,
                verbose=verbose,
                log_format=log_format,
            )
        )
    except Terminated:  # before kopf took the signals (it says which one stopped it otherwise)
        return
    if stopped_by == signal.SIGINT:  # kopf logged it and stopped cleanly; Ctrl-C's status
        raise SystemExit(EXIT_INTERRUPTED)
