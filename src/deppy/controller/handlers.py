"""kopf handlers: one per event, each a few lines handing the object to a module that does the
work. Idempotent (deterministic names, status written only when it changes) and stateless apart
from the catalog cache: everything else is read from the API server each time.

A failure the user caused never reaches the log as a traceback: it is a status condition. An API
error (the server restarting, a conflict that kept recurring) becomes a kopf TemporaryError, so
kopf retries the handler later with one log line. Inputs, Operators and Instances only ask for
their namespace to be resolved (``namespace_queue``: after a quiet period, on its own threads,
retried on failure). Timers look at every namespace with Inputs and every ActiveResolution again
every ``RECHECK_SECONDS``: level-based, so an answer never waits for an event a stall made the
controller miss.
"""

from __future__ import annotations

import datetime
import functools
import logging
import time
from collections.abc import Callable
from typing import Any

import kopf

from deppy.controller.catalogs.cluster_catalogs import (
    KIND as CLUSTER_CATALOG,
)
from deppy.controller.catalogs.cluster_catalogs import (
    catch_up_cluster_catalogs,
    list_cluster_catalogs,
    load_cluster_catalog,
)
from deppy.controller.catalogs.loading import catch_up, load_catalog, poll_due
from deppy.controller.install.crds import GROUP, VERSION
from deppy.controller.kube import OLM_V1_GROUP, OLM_V1_VERSION, ApiError
from deppy.controller.namespace_queue import NamespaceQueue
from deppy.controller.olmv1.explanations import explain, explain_all
from deppy.controller.olmv1.extensions import owner_of
from deppy.controller.olmv1.provisioner import provision_namespace
from deppy.controller.resolving.active_resolutions import Outcome, answer, uses_catalog
from deppy.controller.resolving.namespace_sync import reconcile_namespace
from deppy.controller.resolving.operators import ensure_input, operators_of, refresh_status
from deppy.controller.runtime import Runtime

log = logging.getLogger("deppy.controller")
RETRY_DELAY = 10.0
POLL_SECONDS = 15.0
# Level-based: every object is looked at again this often, so an answer never waits for an event
# that a stall (API server or etcd frozen, a watch reconnecting) made the controller miss. What
# is already answered for its generation and catalog contents costs a read and nothing more.
RECHECK_SECONDS = 60.0
# the first look one interval after kopf notices the object: its create/resume handler answers it
RECHECK: dict[str, Any] = {"interval": RECHECK_SECONDS, "initial_delay": RECHECK_SECONDS}
# Every handler looks at the catalogs' objects first (two lists); a thousand objects answered
# at once would make thousands of lists. Within this many seconds of the last look, the look is
# skipped: only another replica's loads (which peering stops while this one works) or a missed
# ClusterCatalog event can have changed them.
CATCH_UP_SECONDS = 5.0
EXPLAIN_SECONDS = 30.0  # troubled ClusterExtensions looked at again, events missed or not


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


def _guarded_event(fn: Callable[..., None]) -> Callable[..., None]:
    """An event handler is not retried by kopf: an API error or an outage is one log line, and
    the next event (or the next look at the catalogs) tries again."""

    @functools.wraps(fn)
    def wrapper(**kwargs: Any) -> None:
        try:
            fn(**kwargs)
        except (ApiError, OSError, TimeoutError) as error:
            log.warning("%s: %s: %s", fn.__name__, type(error).__name__, error)

    return wrapper


def register(registry: kopf.OperatorRegistry, runtime: Runtime) -> None:
    kube = runtime.kube
    observe = runtime.observe

    def caught_up() -> None:
        """The catalogs as their objects say they are served (another replica's loads, a
        ClusterCatalog's new digest whose event was missed or whose load is due again); and,
        at most every EXPLAIN_SECONDS, the ClusterExtensions OLM v1 finds no bundle for (kopf
        may miss OLM v1's kinds when their CRDs arrive after it started: a missed event
        delays an explanation, never loses it)."""
        with runtime.catch_up_gate:  # one look at a time: the others wait for it, then skip
            if time.monotonic() - runtime.caught_up_at < CATCH_UP_SECONDS:
                changed: list[str] = []
            else:
                changed = catch_up(runtime) + catch_up_cluster_catalogs(runtime)
                runtime.caught_up_at = time.monotonic()
        for name in changed:
            catalog_changed(name)
        moment = time.monotonic()
        if moment - runtime.explained_at >= EXPLAIN_SECONDS:
            runtime.explained_at = moment
            explain_all(runtime)

    def namespace_work(namespace: str) -> None:
        caught_up()
        reconcile_namespace(runtime, namespace)
        with runtime.namespace_lock(namespace):
            provision_namespace(runtime, namespace)
        for body in operators_of(runtime, namespace):
            refresh_status(runtime, body)

    namespaces = NamespaceQueue(
        namespace_work, answered=lambda seconds: observe.change_answered("unit", seconds)
    )
    observe.metrics.watch_queue(lambda: len(namespaces.waiting), lambda: len(namespaces.running))

    def active_resolution(body: dict[str, Any]) -> None:
        meta = body["metadata"]
        shown = [body]  # the object as it read before each answer (Events compare with it)
        clock = [time.perf_counter()]

        def write(outcome: Outcome) -> dict[str, Any] | None:
            seconds = time.perf_counter() - clock[0]
            observe.resolved("ActiveResolution", meta["namespace"], outcome.reason, seconds)
            written = kube.update_status(
                "activeresolutions", meta["name"], meta["namespace"], outcome.status, read=shown[0]
            )
            observe.answered(
                shown[0],
                outcome.reason,
                outcome.message,
                outcome.fields,
                seconds,
                stale=outcome.stale,
            )
            if written is not None:
                shown[0] = written
            clock[0] = time.perf_counter()
            return written

        answer(body, runtime.cache, runtime.cluster, write)

    def catalog_changed(name: str) -> None:
        # the namespaces first: they resolve on the queue's threads while this one answers
        # the ActiveResolutions
        every_namespace(runtime.cache.take_change(name))
        for body in kube.list("activeresolutions"):
            if runtime.watched(body["metadata"]["namespace"]) and uses_catalog(body, name):
                active_resolution(body)
        explain_all(runtime)  # what OLM v1 found no bundle for may have one now

    def every_namespace(affected: frozenset[str] | None = None) -> None:
        """Every namespace with Inputs resolves again; with ``affected`` (a catalog change),
        only those whose answers it may move."""
        for namespace in sorted({i["metadata"]["namespace"] for i in kube.list("inputs")}):
            if runtime.watched(namespace) and runtime.touched(namespace, affected):
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
        # a frozen API server must not hang a watch or a call for ever: kopf reconnects a watch
        # that is silent past its inactivity timeout; calls time out and are retried
        settings.watching.server_timeout = 300
        settings.watching.client_timeout = 330
        settings.watching.connect_timeout = 15
        settings.networking.request_timeout = 60
        settings.networking.connect_timeout = 15
        settings.execution.max_workers = 4
        namespaces.start()
        runtime.read_cluster_versions()
        for body in kube.list("catalogs"):
            load_catalog(runtime, body, write=False)
        for body in list_cluster_catalogs(kube):
            load_cluster_catalog(runtime, body)

    @kopf.on.cleanup(registry=registry)
    def cleanup(**_: Any) -> None:
        namespaces.stop()

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
            observe.metrics.catalog_gone(body["metadata"]["name"])
            catalog_changed(body["metadata"]["name"])

    # -- ActiveResolution --------------------------------------------------------------------
    @kopf.on.resume(GROUP, VERSION, "activeresolutions", registry=registry)
    @kopf.on.create(GROUP, VERSION, "activeresolutions", registry=registry)
    @kopf.on.update(GROUP, VERSION, "activeresolutions", field="spec", registry=registry)
    @_guarded
    def active_resolution_changed(
        body: dict[str, Any], started: datetime.datetime, **_: Any
    ) -> None:
        caught_up()
        active_resolution(body)
        # answered now, by this handler or by a recheck that came first; ``started`` is kopf's
        # first try at this change (retries after an API error included)
        waited = datetime.datetime.now(datetime.UTC) - started.replace(tzinfo=datetime.UTC)
        observe.change_answered("ActiveResolution", waited.total_seconds())

    @kopf.on.timer(GROUP, VERSION, "activeresolutions", **RECHECK, registry=registry)
    @_guarded
    def active_resolution_recheck(body: dict[str, Any], **_: Any) -> None:
        caught_up()
        active_resolution(body)

    # -- Input, Operator, Instance, InputClass: the namespace resolves again ------------------
    @kopf.on.resume(GROUP, VERSION, "inputs", registry=registry)
    @kopf.on.create(GROUP, VERSION, "inputs", registry=registry)
    @kopf.on.update(GROUP, VERSION, "inputs", field="spec", registry=registry)
    @_guarded
    def input_changed(namespace: str, **_: Any) -> None:
        namespaces.request(namespace)

    @kopf.on.timer(GROUP, VERSION, "inputs", **RECHECK, registry=registry)
    def input_recheck(namespace: str | None, **_: Any) -> None:
        if namespace is not None:
            namespaces.request(namespace)  # a namespace's Inputs make one request, not one each

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
    @kopf.on.timer(GROUP, VERSION, "operators", id="recheck", **RECHECK, registry=registry)
    @_guarded
    def operator_changed(body: dict[str, Any], **_: Any) -> None:
        caught_up()
        if ensure_input(runtime, body) is not None:
            refresh_status(runtime, body)

    @kopf.on.update(GROUP, VERSION, "inputclasses", registry=registry)
    @_guarded
    def input_class_changed(**_: Any) -> None:
        every_namespace()

    # -- OLM v1: ClusterCatalog, ClusterExtension (never written: events only, no finalizers) --
    # kopf serves these once their CRDs exist; without OLM v1 it logs one warning and waits
    @kopf.on.event(OLM_V1_GROUP, OLM_V1_VERSION, "clustercatalogs", registry=registry)
    @_guarded_event
    def cluster_catalog(event: dict[str, Any], body: dict[str, Any], **_: Any) -> None:
        name = body["metadata"]["name"]
        if event.get("type") == "DELETED":
            if runtime.cache.kind_of(name) == CLUSTER_CATALOG:
                runtime.cache.removed(name)
                catalog_changed(name)
        elif load_cluster_catalog(runtime, body):
            catalog_changed(name)

    @kopf.on.event(OLM_V1_GROUP, OLM_V1_VERSION, "clusterextensions", registry=registry)
    @_guarded_event
    def cluster_extension(event: dict[str, Any], body: dict[str, Any], **_: Any) -> None:
        owner = owner_of(body)
        if owner is not None and owner[0] and runtime.watched(owner[0]):
            namespaces.request(owner[0])  # its Instance mirrors OLM v1's conditions
        if event.get("type") != "DELETED":
            explain(runtime, body)
