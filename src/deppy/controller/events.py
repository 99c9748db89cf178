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
from typing import Any

from deppy.controller.conditions import now
from deppy.controller.kube import ApiError, Kube
from deppy.terminal_text import terminal_line

log = logging.getLogger("deppy.controller")
COMPONENT = "deppy-controller"
NORMAL, WARNING = "Normal", "Warning"
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
