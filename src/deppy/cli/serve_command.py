"""``deppy serve``: the HTTP API and the web UI, with catalogs kept warm in memory.

FastAPI and uvicorn are imported inside the command: every other command starts without them.
The options' defaults are ``ServiceConfig``'s (a plain dataclass, cheap to import).
"""

from __future__ import annotations

import logging
import socket

import click

from deppy.cli.deadline import Seconds
from deppy.cli.exit_codes import EXIT_INTERRUPTED, Terminated
from deppy.cli.main import cli
from deppy.cli.workflow_options import registry_options
from deppy.errors import InputError
from deppy.observability import configure, log_format_option
from deppy.resolution.request_parsing import parse_catalog
from deppy.service.config import ServiceConfig, is_loopback, read_token

DEFAULTS = ServiceConfig()


@cli.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8080,
    show_default=True,
    help="Port to listen on (0: one the system chooses, logged once listening).",
)
@click.option(
    "--catalog",
    "catalogs",
    multiple=True,
    metavar="PATH[=NAME[:PRIORITY]]",
    help="A catalog directory or image (docker://…, oci:DIR), or a stored catalog's name "
    "(repeatable; NAME@N: those earlier contents, for the server's whole life); default: the "
    "stored catalogs, else the embedded example.",
)
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False),
    help="A file holding a bearer token that every /api/v1 call must send; required to listen "
    "on anything but loopback.",
)
@click.option(
    "--max-body",
    type=click.IntRange(min=1),
    default=DEFAULTS.max_body,
    show_default=True,
    metavar="BYTES",
    help="Larger request bodies get 413.",
)
@click.option(
    "--deadline",
    type=Seconds(),
    default=DEFAULTS.deadline,
    show_default=True,
    metavar="SECONDS",
    help="Longest a resolution may take (503 past it).",
)
@click.option(
    "--solvers",
    type=click.IntRange(min=1),
    default=DEFAULTS.solvers,
    show_default=True,
    help="Resolutions that may run at once; others wait for a free slot.",
)
@click.option(
    "--reload-interval",
    type=Seconds(min_open=False),
    default=DEFAULTS.reload_interval,
    show_default=True,
    metavar="SECONDS",
    help="How often to look for changed catalog files or store (0: only on POST "
    "/api/v1/catalogs/reload).",
)
@click.option(
    "--metrics-token-file",
    type=click.Path(dir_okay=False),
    help="A file holding a bearer token that GET /metrics must send (default: /metrics is "
    "open, like the probes: counts and catalog names only).",
)
@log_format_option("time, level, message, reason, duration")
@registry_options
def serve_cmd(
    host: str,
    port: int,
    catalogs: tuple[str, ...],
    token_file: str | None,
    max_body: int,
    deadline: float,
    solvers: int,
    reload_interval: float,
    metrics_token_file: str | None,
    log_format: str,
) -> None:
    """Serve the resolver over HTTP: the API under /api/v1/ (OpenAPI at /openapi.json, docs at
    /docs), Prometheus metrics at /metrics and the web UI at /. Read-only; loopback only unless
    --token-file is given. Stops cleanly on SIGTERM (exit 0) and Ctrl-C (exit 130).
    """
    token = read_token(token_file) if token_file else None
    metrics_token = (
        read_token(metrics_token_file, "--metrics-token-file") if metrics_token_file else None
    )
    if token is None and not is_loopback(host):
        raise InputError(
            f"--host {host}",
            "listening beyond this machine needs a bearer token",
            "add --token-file FILE (clients send 'Authorization: Bearer TOKEN')",
        )
    config = ServiceConfig(
        catalogs=tuple(parse_catalog(spec) for spec in catalogs),
        token=token,
        metrics_token=metrics_token,
        max_body=max_body,
        deadline=deadline,
        solvers=solvers,
        reload_interval=reload_interval,
    )
    listener = listen(host, port)
    configure(log_format)
    log = logging.getLogger("deppy.service")
    try:
        _serve(config, listener, log)
    except Terminated:  # asked to stop (kubelet, systemd, kill): a server's normal end
        log.info("stopped (SIGTERM)")
    except KeyboardInterrupt:  # Ctrl-C: the same clean stop, told as every command tells it
        log.info("stopped (SIGINT)")
        raise SystemExit(EXIT_INTERRUPTED) from None


def _serve(config: ServiceConfig, listener: socket.socket, log: logging.Logger) -> None:
    """Load the catalogs and serve until SIGINT or SIGTERM. uvicorn takes both while it runs:
    it stops accepting, finishes the requests in flight and the app's shutdown, then raises
    the signal again, which ends here as ``KeyboardInterrupt`` or ``Terminated`` (the group's
    SIGTERM handler, which uvicorn put back)."""
    import uvicorn

    from deppy.service.app import create_app

    log.info("loading catalogs …")
    app = create_app(config, report=lambda line: log.warning(_unprefixed(line)))
    log.info(
        "serving on %s (API docs at /docs, metrics at /metrics)%s",
        url_of(listener),
        reach_of(listener),
    )
    # log_config=None: uvicorn's own lines go through the handler configured above
    server = uvicorn.Server(
        uvicorn.Config(app, log_level="warning", access_log=False, log_config=None)
    )
    server.run(sockets=[listener])


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before the catalogs load: an address that cannot be used
    (unknown name, ``[::1]`` on a machine without IPv6, a port in use) is one error line, and
    ``--port 0`` learns the port the system chose, to print it."""
    address = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        family, kind, proto, _, where = socket.getaddrinfo(
            address, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        listener = socket.socket(family, kind, proto)
    except (OSError, UnicodeError) as error:
        raise InputError(f"--host {host}", f"cannot listen there: {_reason(error)}") from None
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(where)
        listener.listen(128)
    except OSError as error:
        listener.close()
        raise InputError(
            f"--host {host} --port {port}",
            f"cannot listen there: {_reason(error)}",
            "choose another port (--port 0 lets the system pick a free one)",
        ) from None
    return listener


def url_of(listener: socket.socket) -> str:
    """The address to print: ``localhost`` for IPv4 loopback, brackets around IPv6."""
    address, port = listener.getsockname()[:2]
    if listener.family == socket.AF_INET6:
        return f"http://[{address}]:{port}/"
    shown = "localhost" if is_loopback(address) else address
    return f"http://{shown}:{port}/"


LOOPBACK_ONLY = (
    "; only this machine can reach it (in a container: only the container itself, not its "
    "host's published ports); to serve others, add --host 0.0.0.0 --token-file FILE"
)


def reach_of(listener: socket.socket) -> str:
    """What the start-up line adds about who can reach the address: on loopback, that only
    this machine can, and how to change that (``podman run -p 8080:8080 … serve`` reaches
    nothing until it listens beyond loopback, which needs a token)."""
    return LOOPBACK_ONLY if is_loopback(listener.getsockname()[0]) else ""


def _reason(error: BaseException) -> str:
    return getattr(error, "strerror", None) or str(error) or type(error).__name__


def _unprefixed(line: str) -> str:
    """A report line as a log message: the log names its source, so the CLI's ``deppy:`` (and
    ``warning:``) prefix would say it twice."""
    return line.removeprefix("deppy: ").removeprefix("warning: ")
