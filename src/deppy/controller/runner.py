"""``deppy controller``: kopf running deppy's handlers in the foreground.

Health and metrics: ``/healthz`` and ``/metrics`` on the health port (``health``). Stop: kopf
handles SIGTERM/SIGINT, finishing the handlers in flight and leaving its peering record. Two
replicas never both write: kopf peering (``ClusterKopfPeering`` ``deppy``, or ``KopfPeering`` in
each watched namespace); a replica pauses while a peer of higher priority is alive, and replicas
get distinct priorities (from their pod name and process id, unless ``--priority`` is given), so
exactly one works.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVarTuple

from deppy.cluster.kubeconfig import ADVICE, kube_configuration
from deppy.errors import InputError

if TYPE_CHECKING:
    from deppy.controller.runtime import Runtime


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
    log_format: str = "text"


def _quiet_shutdown(record: logging.LogRecord) -> bool:
    """kopf's watch streams, cancelled at shutdown, make asyncio log a traceback about closing an
    async generator (kopf's, harmless: the stop is clean). Keep it out of the log."""
    return not str(record.msg).startswith("an error occurred during closing of asynchronous")


PAUSE_RACE = (
    "kopf: a watch request in flight when operations paused was not cancelled (a known kopf "
    "1.45 fault: its request_cancel_callback runs outside a task); the watch stops at its "
    "first answer, nothing is lost"
)


def _kopf_pause_race(record: logging.LogRecord) -> bool:
    """kopf's ``stream()`` cancels a watch request whose headers are still pending when the
    operator pauses (a peer of higher priority appeared) from a future's done-callback, which
    asyncio runs outside any task: kopf's own ``assert task is not None`` fails there and asyncio
    logs it with a traceback. The pause still takes effect when the request answers. Told as
    one warning line instead (the soak's replicas, started together, meet it at start-up)."""
    error = record.exc_info[1] if record.exc_info else None
    if isinstance(error, AssertionError) and "request_cancel_callback" in str(record.msg):
        record.msg, record.args, record.exc_info, record.exc_text = PAUSE_RACE, (), None, None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
    return True


def quiet_known_kopf_noise() -> None:
    """The asyncio log records kopf's harmless faults make, kept out of the log or made one line."""
    asyncio_log = logging.getLogger("asyncio")
    asyncio_log.addFilter(_quiet_shutdown)
    asyncio_log.addFilter(_kopf_pause_race)


PEERING_LOG = "kopf._core.engines.peering"


def watch_takeovers(runtime: Runtime) -> None:
    """kopf says when a paused replica resumes only in its peering log ("Resuming operations");
    it offers no hook. A replica that worked, paused for another and resumes within seconds
    must not trust the look at the catalogs it made before the pause (``Runtime.taking_over``)."""

    def resumed(record: logging.LogRecord) -> bool:
        if str(record.msg).startswith("Resuming operations"):
            runtime.taking_over()
        return True

    peering = logging.getLogger(PEERING_LOG)
    peering.setLevel(min(peering.getEffectiveLevel(), logging.INFO))
    peering.addFilter(resumed)


def default_priority() -> int:
    """Distinct per replica, stable for the life of the process."""
    identity = f"{os.environ.get('POD_NAME') or socket.gethostname()}/{os.getpid()}"
    return 1 + int(hashlib.sha256(identity.encode()).hexdigest()[:8], 16) % 1_000_000


def api_client(kubeconfig: str | None) -> object:
    """A client of the pod's service account in a cluster, else of the kubeconfig; one
    ``deppy: error:`` line when neither can be used (the same line ``resolve --kubeconfig``
    and ``cluster export`` give)."""
    from kubernetes import client, config
    from kubernetes.config.config_exception import ConfigException

    if (
        kubeconfig is None
        and os.environ.get("KUBERNETES_SERVICE_HOST")
        and not os.environ.get("KUBECONFIG")
    ):
        try:
            config.load_incluster_config()  # type: ignore[no-untyped-call]
        except ConfigException as error:
            raise InputError(
                "the pod's service account", f"cannot be used: {error}", ADVICE
            ) from None
        return client.ApiClient()
    return client.ApiClient(kube_configuration(kubeconfig))


def fewer_malloc_arenas() -> None:
    """Two glibc malloc arenas for the whole process, set before any thread starts.

    glibc gives threads that allocate at once arenas of their own, up to eight per core, and
    memory freed in one is not given back to the others: the controller's threads (kopf's
    executor, the namespace queue) parse catalogs and resolve namespaces, and each arena kept
    its share of what a catalog change freed. In ``benchmarks/controller_scale.py`` the peak
    RSS over a catalog change was 603-655 MB; with two arenas it was about 570 MB, and the
    answers were no slower. (Not glibc: nothing is changed.)"""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    if name:
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(name).mallopt(_M_ARENA_MAX, 2)


_M_ARENA_MAX = -8  # glibc's malloc.h
_Ts = TypeVarTuple("_Ts")


def run(options: ControllerOptions) -> int | None:
    """Run the controller until kopf stops it; returns the signal that stopped it (SIGINT or
    SIGTERM, for the command's exit status), None when it stopped for another reason."""
    fewer_malloc_arenas()

    from deppy.controller.kube import Kube
    from deppy.controller.runtime import Runtime
    from deppy.observability import configure

    configure(options.log_format, level=logging.DEBUG if options.verbose else logging.INFO)
    for noisy in ("kopf.objects", "kopf.activities.probe", "aiohttp.access"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    quiet_known_kopf_noise()
    if options.kubeconfig:
        os.environ["KUBECONFIG"] = options.kubeconfig  # kopf's login reads it too
    runtime = Runtime(Kube(api_client(options.kubeconfig)), namespaces=options.namespaces)
    watch_takeovers(runtime)
    loop = _SignalNotingLoop()
    asyncio.set_event_loop(loop)  # as asyncio.run does (a Runner given a loop does not)
    try:
        # as kopf.run: a stop is no error
        with (
            contextlib.suppress(asyncio.CancelledError),
            asyncio.Runner(loop_factory=lambda: loop) as runner,
        ):
            runner.run(_operate(options, runtime))
    finally:
        asyncio.set_event_loop(None)
    return loop.stopped_by


class _SignalNotingLoop(asyncio.SelectorEventLoop):
    """An event loop that notes which of the signals it handles came first. kopf stops on
    SIGINT and SIGTERM alike and says which only in its log; the command's exit status tells
    them apart (0 for SIGTERM, the stop a supervisor asks for; 130 for Ctrl-C)."""

    stopped_by: int | None = None

    def add_signal_handler(self, sig: int, callback: Callable[[*_Ts], object], *args: *_Ts) -> None:
        def noted(*given: *_Ts) -> None:
            if self.stopped_by is None:
                self.stopped_by = sig
            callback(*given)

        super().add_signal_handler(sig, noted, *args)


async def _operate(options: ControllerOptions, runtime: Runtime) -> None:
    """kopf's operator, with the health port serving /healthz and /metrics beside it."""
    import kopf

    from deppy.controller.handlers import register
    from deppy.controller.health import serving

    registry = kopf.OperatorRegistry()
    register(registry, runtime)
    namespaces: Sequence[str] = options.namespaces
    metrics = runtime.observe.metrics.registry
    async with serving(options.health_host, options.health_port, metrics):
        await kopf.operator(
            registry=registry,
            clusterwide=not namespaces,
            namespaces=namespaces,
            standalone=options.standalone,
            # a peering name makes peering mandatory in kopf, which standalone would then wait for
            peering_name=None if options.standalone else options.peering,
            priority=options.priority if options.priority is not None else default_priority(),
        )
