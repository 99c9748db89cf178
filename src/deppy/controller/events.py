"""Kubernetes Events on the objects the controller answers, as ``kubectl describe`` shows them.

The callers (``observe.py``) post an Event when an answer *changes*, not when it is computed
again; a restarted replica compares with the status already written and posts nothing again.
An Event that does recur — the same reason and message on the same object, e.g. an answer that
flips back, or a catalog failing the same way after it had recovered — stays one Event whose
``count`` grows, as client-go's recorder aggregates them: its name is derived from the object's
uid, the reason and the message, so posting it again patches ``count`` and ``lastTimestamp``.
(The kubernetes client has no recorder, and kopf's posting creates a new Event each time.)

Posting is best effort: an Event that cannot be written is logged, never retried, and never
fails the resolution it reports.
"""

from __future__ import annotations

import hashlib
import logging
import os
import queue
import socket
import threading
from collections.abc import Mapping
from typing import Any, NamedTuple

from deppy.controller.conditions import now
from deppy.controller.kube import ApiError, Kube
from deppy.terminal_text import terminal_line

log = logging.getLogger("deppy.controller")
COMPONENT = "deppy-controller"
NORMAL, WARNING = "Normal", "Warning"


class EventReason(NamedTuple):
    """One reason the controller posts Events with: whether it is a Warning, on which kinds,
    and when. The table below is the one place that says so: the observer posts the reasons
    that are not warnings as Normal, and the documentation's Events reference is written from
    it."""

    reason: str
    warning: bool
    on: str
    when: str


EVENT_REASONS = (
    EventReason(
        "Resolved",
        False,
        "ActiveResolution, Input",
        "an answer: how many bundles, which (ActiveResolution) or the resolveset (Input)",
    ),
    EventReason(
        "Unsatisfiable",
        True,
        "ActiveResolution, Input",
        "no answer: the explanation's summary line",
    ),
    EventReason(
        "InvalidSpec",
        True,
        "ActiveResolution, Input, Catalog, ClusterCatalog, Instance (OLM v1)",
        "the field and what to do; on a ClusterCatalog: unreadable, or its name taken by a "
        "Catalog; on an Instance: a bad field (e.g. no service account)",
    ),
    EventReason(
        "DeadlineExceeded", True, "ActiveResolution, Input", "the resolution ran out of time"
    ),
    EventReason(
        "CatalogUnavailable",
        True,
        "ActiveResolution, Input, Catalog, ClusterCatalog",
        "a catalog it needs has no content (deleted, never loaded); a ClusterCatalog withdrawn "
        "(`availabilityMode: Unavailable`)",
    ),
    EventReason(
        "CatalogStale",
        True,
        "Catalog, ClusterCatalog, ActiveResolution, Input",
        "a load failed and the last good content is still served; on an answer: it comes from "
        "that content (its `CatalogStale` condition turned True)",
    ),
    EventReason(
        "Loaded", False, "Catalog, ClusterCatalog", "new content: bundles, packages, digest"
    ),
    EventReason(
        "ProposalCreated", False, "Instance", "a new resolveset: what it installs or upgrades"
    ),
    EventReason(
        "Approved",
        False,
        "Instance",
        "the approval policy approved it (with the policy's reason), or a person did "
        "(`deppy approve` posts it, naming who)",
    ),
    EventReason(
        "ApprovalRequired",
        True,
        "Instance",
        "it waits for a person (`deppy approve`), with the policy's reason (`NewInstall`, "
        "`PermissionsUnknown`, `PermissionsIncreased`, …)",
    ),
    EventReason(
        "Superseded",
        False,
        "Instance",
        "a newer answer for its unit replaced it before anyone approved it (the message names "
        "the Instance to approve instead)",
    ),
    EventReason(
        "Applied",
        False,
        "Instance (OLM v1)",
        "ClusterExtensions created or updated for the approved set, with their versions",
    ),
    EventReason(
        "NotOwned",
        True,
        "Instance (OLM v1)",
        "the set could not be applied: a ClusterExtension of that name is not this unit's",
    ),
    EventReason(
        "OLMv1NotInstalled",
        True,
        "Instance (OLM v1)",
        "the set could not be applied: OLM v1 is not installed",
    ),
    EventReason(
        "Refused",
        True,
        "Instance (OLM v1)",
        "the set could not be applied: the API server refused",
    ),
    EventReason(
        "NeedsResolvedCatalog",
        True,
        "Instance (OLM v1)",
        "the set could not be applied: a bundle OLM v1 refuses and no `parameters.resolvedCatalog`",
    ),
    EventReason(
        "ResolvedCatalogNotPublished",
        True,
        "Instance (OLM v1)",
        "the set could not be applied: the registry did not take the resolved catalog",
    ),
    EventReason(
        "PackageLeft",
        True,
        "Instance (OLM v1)",
        "a package left the approved set: its ClusterExtension stays (`prune: false`)",
    ),
    EventReason(
        "Pruned",
        False,
        "Instance (OLM v1)",
        "a package left the approved set: its ClusterExtension was deleted (`prune: true`)",
    ),
    EventReason(
        "NoBundleExplained",
        True,
        "ClusterExtension",
        "OLM v1 found no bundle: deppy's way out (resolved with OLM v1's rules), then why",
    ),
    EventReason(
        "DependencyRefused",
        True,
        "ClusterExtension",
        "OLM v1 refused the bundle it chose for declaring a dependency: the property, what "
        "deppy installs to satisfy it, the way out",
    ),
)
NORMAL_REASONS = frozenset(entry.reason for entry in EVENT_REASONS if not entry.warning)
MESSAGE_BYTES = 1024  # what kubectl shows whole; longer messages are cut
CLUSTER_SCOPED_HOME = "default"  # where client-go puts Events of cluster-scoped objects


def event_name(meta: Mapping[str, Any], reason: str, message: str) -> str:
    key = hashlib.sha256(f"{meta.get('uid')}\0{reason}\0{message}".encode()).hexdigest()[:16]
    return f"{str(meta['name'])[:200]}.{key}"


def short(message: str) -> str:
    data = message.encode()
    if len(data) <= MESSAGE_BYTES:
        return message
    return data[: MESSAGE_BYTES - 3].decode(errors="ignore") + "..."


QUEUED = 10_000  # Events waiting for the poster thread at most; past it, one is dropped


class Recorder:
    """Posts Events; with ``background``, on a thread of its own, so that a resolution never
    waits for the Events it reports (a namespace's answers make several; on a busy API server
    each is a round trip the next answer would wait behind)."""

    def __init__(
        self, kube: Kube, instance: str | None = None, *, background: bool = False
    ) -> None:
        self.kube = kube
        self.instance = instance or os.environ.get("POD_NAME") or socket.gethostname()
        self._waiting: queue.Queue[tuple[dict[str, Any], str, str]] | None = None
        if background:
            self._waiting = queue.Queue(maxsize=QUEUED)
            threading.Thread(target=self._serve, name="deppy-events", daemon=True).start()

    def _serve(self) -> None:
        assert self._waiting is not None
        while True:
            self._send(*self._waiting.get())

    def post(
        self, body: Mapping[str, Any], reason: str, message: str, *, warning: bool = False
    ) -> None:
        """Record ``reason``/``message`` on ``body`` (an object as read from the API server)."""
        meta = body["metadata"]
        namespace = meta.get("namespace") or CLUSTER_SCOPED_HOME
        message = short(terminal_line(message))  # names from specs: shown, never obeyed
        name = event_name(meta, reason, message)
        stamp = now()
        event = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": name, "namespace": namespace},
            "involvedObject": {
                "apiVersion": body.get("apiVersion"),
                "kind": body.get("kind"),
                "name": meta["name"],
                "namespace": meta.get("namespace"),
                "uid": meta.get("uid"),
            },
            "reason": reason,
            "message": message,
            "type": WARNING if warning else NORMAL,
            "source": {"component": COMPONENT},
            "reportingComponent": f"deppy.io/{COMPONENT}",
            "reportingInstance": self.instance,
            "firstTimestamp": stamp,
            "lastTimestamp": stamp,
            "count": 1,
        }
        if self._waiting is None:
            self._send(event, reason, meta["name"])
            return
        try:
            self._waiting.put_nowait((event, reason, meta["name"]))
        except queue.Full:
            log.warning(
                "Event %s on %s dropped: %d Events wait to be posted", reason, meta["name"], QUEUED
            )

    def _send(self, event: dict[str, Any], reason: str, on: str) -> None:
        name, namespace = event["metadata"]["name"], event["metadata"]["namespace"]
        stamp = event["lastTimestamp"]
        try:
            try:
                self.kube.call("POST", f"/api/v1/namespaces/{namespace}/events", event)
            except ApiError as error:
                if error.status != 409:
                    raise
                found = self.kube.get("events", name, namespace) or {}
                count = int(found.get("count") or 1) + 1
                patch = {"count": count, "lastTimestamp": stamp}
                self.kube.patch("events", name, patch, namespace)
        except Exception as error:  # best effort (a stalled API server times out in urllib3)
            log.warning(
                "could not post Event %s on %s: %s: %s", reason, on, type(error).__name__, error
            )
