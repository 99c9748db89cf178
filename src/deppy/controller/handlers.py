"""kopf handlers: one per event, each a few lines handing the object to a module that does the
work. Idempotent (deterministic names, status written only when it changes) and stateless apart
from the catalog cache: everything else is read from the API server each time.

A failure the user caused never reaches the log as a traceback: it is a status condition. An API
error (the server restarting, a conflict that kept recurring) becomes a kopf TemporaryError, so
kopf retries the handler later with one log line.
"""

from __future__ import annotations

import datetime
import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import kopf

from deppy.controller.active_resolutions import resolve_active_resolution, up_to_date, uses_catalog
from deppy.controller.catalogs import load_catalog, poll_due
from deppy.controller.crds import GROUP, VERSION
from deppy.controller.kube import ApiError
from deppy.controller.metrics import ChangeClock
from deppy.controller.namespace_sync import reconcile_namespace
from deppy.controller.operators import ensure_input, operators_of, refresh_status
from deppy.controller.runtime import Runtime

log = logging.getLogger("deppy.controller")
RETRY_DELAY = 10.0
POLL_SECONDS = 15.0


def _guarded(fn: Callable[..., None]) -> Callable[..., None]:
    @functools.wraps(fn)
    def wrapper(**kwargs: Any) -> None:
        try:
            fn(**kwargs)
        except ApiError as error:
            raise kopf.TemporaryError(f"API server: {error}", delay=RETRY_DELAY) from None
        except (OSError, TimeoutError) as error:
            raise kopf.TemporaryError(
                f"{type(error).__name__}: {error}", delay=RETRY_DELAY
            ) from None

    return wrapper


class Coalescer:
    """At most one resolution of a namespace runs; requests arriving meanwhile make it run once
    more when it ends (a burst of 100 events costs two resolutions, not 100)."""

    def __init__(
        self,
        work: Callable[[str], None],
        clock: ChangeClock | None = None,
        answered: Callable[[float], None] | None = None,
    ) -> None:
        self.work = work
        self.answered = answered  # metrics: seconds from the first change noticed to its answer
        self.running: set[str] = set()
        self.pending: set[str] = set()
        self.guard = threading.Lock()
        self.clock = clock or ChangeClock()  # when each namespace's unanswered change came

    def request(self, namespace: str) -> None:
        with self.guard:
            self.clock.notice(namespace)
            if namespace in self.running:
                self.pending.add(namespace)
                return
            self.running.add(namespace)
        try:
            while True:
                with self.guard:
                    since = self.clock.take(namespace)
                self.work(namespace)
                if since is not None and self.answered is not None:
                    self.answered(time.monotonic() - since)
                with self.guard:
                    if namespace not in self.pending:
                        self.running.discard(namespace)
                        return
                    self.pending.discard(namespace)
        except BaseException:
            with self.guard:
                self.running.discard(namespace)
                self.pending.discard(namespace)
            raise


def register(registry: kopf.OperatorRegistry, runtime: Runtime) -> None:
    kube = runtime.kube
    observe = runtime.observe

    def namespace_work(namespace: str) -> None:
        reconcile_namespace(runtime, namespace)
        for body in operators_of(runtime, namespace):
            refresh_status(runtime, body)

    namespaces = Coalescer(
        namespace_work, observe.changes, lambda seconds: observe.change_answered("unit", seconds)
    )
    observe.metrics.watch_queue(lambda: len(namespaces.pending), lambda: len(namespaces.running))

    def active_resolution(body: dict[str, Any], started: datetime.datetime | None = None) -> None:
        if up_to_date(body, runtime.cache):
            return
        clock = time.perf_counter()
        outcome = resolve_active_resolution(body, runtime.cache, runtime.cluster)
        meta = body["metadata"]
        seconds = time.perf_counter() - clock
        observe.resolved("ActiveResolution", meta["namespace"], outcome.reason, seconds)
        kube.update_status("activeresolutions", meta["name"], meta["namespace"], outcome.status)
        observe.answered(body, outcome.reason, outcome.message, outcome.fields, seconds)
        if started is not None:
            waited = datetime.datetime.now(datetime.UTC) - started.replace(tzinfo=datetime.UTC)
            observe.change_answered("ActiveResolution", waited.total_seconds())

    def catalog_changed(name: str) -> None:
        for body in kube.list("activeresolutions"):
            if runtime.watched(body["metadata"]["namespace"]) and uses_catalog(body, name):
                active_resolution(body)
        every_namespace()

    def every_namespace() -> None:
        for namespace in sorted({i["metadata"]["namespace"] for i in kube.list("inputs")}):
            if runtime.watched(namespace):
                namespaces.request(namespace)

    @kopf.on.startup(registry=registry)
    def startup(settings: kopf.OperatorSettings, **_: Any) -> None:
        settings.persistence.progress_storage = kopf.AnnotationsProgressStorage(
            prefix="kopf.deppy.io"
        )
        settings.persistence.diffbase_storage = kopf.AnnotationsDiffBaseStorage(
            prefix="kopf.deppy.io"
        )
        settings.posting.level = logging.WARNING
        settings.watching.server_timeout = 300
        settings.execution.max_workers = 4
        runtime.read_cluster_versions()
        for body in kube.list("catalogs"):
            load_catalog(runtime, body, write=False)

    @kopf.on.login(registry=registry)
    def login(**_: Any) -> kopf.ConnectionInfo:
        """kopf connects with the credentials deppy's own client was built from (the
        --kubeconfig given, $KUBECONFIG, or the pod's service account)."""
        config = kube.client.configuration
        keys = config.api_key or {}
        token = keys.get("BearerToken") or keys.get("authorization") or ""
        scheme, _space, value = token.partition(" ")
        return kopf.ConnectionInfo(
            server=config.host,
            ca_path=config.ssl_ca_cert,
            insecure=not config.verify_ssl,
            scheme=scheme or None,
            token=value or None,
            certificate_path=config.cert_file,
            private_key_path=config.key_file,
        )

    # -- Catalog -----------------------------------------------------------------------------
    @kopf.on.resume(GROUP, VERSION, "catalogs", registry=registry)
    @kopf.on.create(GROUP, VERSION, "catalogs", registry=registry)
    @kopf.on.update(GROUP, VERSION, "catalogs", field="spec", registry=registry)
    @_guarded
    def catalog(body: dict[str, Any], **_: Any) -> None:
        if load_catalog(runtime, body):
            catalog_changed(body["metadata"]["name"])

    @kopf.on.timer(GROUP, VERSION, "catalogs", interval=POLL_SECONDS, registry=registry)
    @_guarded
    def catalog_poll(body: dict[str, Any], **_: Any) -> None:
        if poll_due(body) and load_catalog(runtime, body):
            catalog_changed(body["metadata"]["name"])

    @kopf.on.event(GROUP, VERSION, "catalogs", registry=registry)
    @_guarded
    def catalog_deleted(event: dict[str, Any], body: dict[str, Any], **_: Any) -> None:
        if event.get("type") == "DELETED":
            runtime.cache.removed(body["metadata"]["name"])
            catalog_changed(body["metadata"]["name"])

    # -- ActiveResolution --------------------------------------------------------------------
    @kopf.on.resume(GROUP, VERSION, "activeresolutions", registry=registry)
    @kopf.on.create(GROUP, VERSION, "activeresolutions", registry=registry)
    @kopf.on.update(GROUP, VERSION, "activeresolutions", field="spec", registry=registry)
    @_guarded
    def active_resolution_changed(
        body: dict[str, Any], started: datetime.datetime, **_: Any
    ) -> None:
        active_resolution(body, started)

    # -- Input, Operator, Instance, InputClass: the namespace resolves again ------------------
    @kopf.on.resume(GROUP, VERSION, "inputs", registry=registry)
    @kopf.on.create(GROUP, VERSION, "inputs", registry=registry)
    @kopf.on.update(GROUP, VERSION, "inputs", field="spec", registry=registry)
    @_guarded
    def input_changed(namespace: str, **_: Any) -> None:
        namespaces.request(namespace)

    @kopf.on.event(GROUP, VERSION, "inputs", registry=registry)
    @_guarded
    def input_deleted(event: dict[str, Any], namespace: str, **_: Any) -> None:
        if event.get("type") == "DELETED":
            namespaces.request(namespace)

    @kopf.on.event(GROUP, VERSION, "instances", registry=registry)
    @_guarded
    def instance_event(event: dict[str, Any], namespace: str, **_: Any) -> None:
        if event.get("type") in ("ADDED", "MODIFIED", None):
            namespaces.request(namespace)

    @kopf.on.resume(GROUP, VERSION, "operators", registry=registry)
    @kopf.on.create(GROUP, VERSION, "operators", registry=registry)
    @kopf.on.update(GROUP, VERSION, "operators", field="spec", registry=registry)
    @_guarded
    def operator_changed(body: dict[str, Any], **_: Any) -> None:
        if ensure_input(runtime, body) is not None:
            refresh_status(runtime, body)

    @kopf.on.update(GROUP, VERSION, "inputclasses", registry=registry)
    @_guarded
    def input_class_changed(**_: Any) -> None:
        every_namespace()
