"""``deppy controller``: kopf running deppy's handlers in the foreground.

Health: kopf's liveness endpoint (``/healthz``). Stop: kopf handles SIGTERM/SIGINT, finishing
the handlers in flight and leaving its peering record. Two replicas never both write: kopf
peering (``ClusterKopfPeering`` ``deppy``, or ``KopfPeering`` in each watched namespace); a
replica pauses while a peer of higher priority is alive, and replicas get distinct priorities
(from their pod name and process id, unless ``--priority`` is given), so exactly one works.
"""

from __future__ import annotations

import hashlib
import logging
import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ControllerOptions:
    kubeconfig: str | None
    namespaces: tuple[str, ...]
    health_host: str
    health_port: int
    priority: int | None
    standalone: bool
    peering: str = "deppy"
    verbose: bool = False


def _quiet_shutdown(record: logging.LogRecord) -> bool:
    """kopf's watch streams, cancelled at shutdown, make asyncio log a traceback about closing an
    async generator (kopf's, harmless: the stop is clean). Keep it out of the log."""
    return not str(record.msg).startswith("an error occurred during closing of asynchronous")


def default_priority() -> int:
    """Distinct per replica, stable for the life of the process."""
    identity = f"{os.environ.get('POD_NAME') or socket.gethostname()}/{os.getpid()}"
    return 1 + int(hashlib.sha256(identity.encode()).hexdigest()[:8], 16) % 1_000_000


def api_client(kubeconfig: str | None) -> object:
    from kubernetes import client, config

    if (
        kubeconfig is None
        and os.environ.get("KUBERNETES_SERVICE_HOST")
        and not os.environ.get("KUBECONFIG")
    ):
        config.load_incluster_config()  # type: ignore[no-untyped-call]
        return client.ApiClient()
    return config.new_client_from_config(config_file=kubeconfig)  # type: ignore[no-untyped-call]


def run(options: ControllerOptions) -> None:
    import kopf

    from deppy.controller.handlers import register
    from deppy.controller.kube import Kube
    from deppy.controller.runtime import Runtime

    logging.basicConfig(
        level=logging.DEBUG if options.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    for noisy in ("kopf.objects", "kopf.activities.probe", "aiohttp.access"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    logging.getLogger("asyncio").addFilter(_quiet_shutdown)
    if options.kubeconfig:
        os.environ["KUBECONFIG"] = options.kubeconfig  # kopf's login reads it too
    runtime = Runtime(Kube(api_client(options.kubeconfig)), namespaces=options.namespaces)
    registry = kopf.OperatorRegistry()
    register(registry, runtime)
    namespaces: Sequence[str] = options.namespaces
    kopf.run(
        registry=registry,
        clusterwide=not namespaces,
        namespaces=namespaces,
        liveness_endpoint=f"http://{options.health_host}:{options.health_port}/healthz",
        standalone=options.standalone,
        # a peering name makes peering mandatory in kopf, which standalone would then wait for
        peering_name=None if options.standalone else options.peering,
        priority=options.priority if options.priority is not None else default_priority(),
    )
