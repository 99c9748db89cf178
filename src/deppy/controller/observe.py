"""What the controller tells the world about its answers: metrics, Events and log lines, from
one call per happening (a line at each call site in the handlers and the modules doing the work).

An Event and an INFO log line come only when the answer an object shows *changes* — its reason,
its message, or what it selected — measured against what this process told last about it (under
a lock: a change handler and a periodic recheck may answer one object at once) or, after a
restart, against the status already written. A re-resolution that gives the same answer (a
catalog's new digest with nothing new for this request, a restart, a recheck) is counted in the
metrics and logged at DEBUG only.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from deppy.controller.approval.policies import Verdict
from deppy.controller.approval.resolveset import SetEntry
from deppy.controller.catalogs.cache import CatalogCache
from deppy.controller.events import NORMAL_REASONS, Recorder
from deppy.controller.kube import Kube
from deppy.controller.metrics import ControllerMetrics

log = logging.getLogger("deppy.controller")
Body = Mapping[str, Any]
TOLD_KEPT = 20_000  # objects remembered (a tuple each); the oldest are forgotten first
FINE = NORMAL_REASONS  # Normal Events, INFO log lines; the other reasons are warnings


def _condition(body: Body, kind: str) -> Mapping[str, Any]:
    for found in (body.get("status") or {}).get("conditions") or ():
        if found.get("type") == kind:
            return dict(found)
    return {}


def _detail(kind: str, status: Mapping[str, Any]) -> str:
    """What the answer selected, in a few words: the bundles (ActiveResolution), or the
    resolveset holding them (Input)."""
    if kind == "ActiveResolution":
        picked = [s.split(":") for s in status.get("selection") or ()]
        return ", ".join(f"{p[1]} {p[2]}" for p in picked if len(p) >= 3)
    return str((status.get("resolveset") or {}).get("name") or "")


def _where(body: Body) -> dict[str, Any]:
    meta = body["metadata"]
    return {"kind": body.get("kind"), "object": meta["name"], "namespace": meta.get("namespace")}


class Observer:
    def __init__(self, kube: Kube, cache: CatalogCache) -> None:
        self.metrics = ControllerMetrics(cache)
        self.recorder = Recorder(kube, background=True)
        # what was told last about each object and topic: several handlers may answer one
        # object at once (a change and a periodic recheck; a Catalog's create and its poll)
        self._told: OrderedDict[tuple[str, str], tuple[str, str]] = OrderedDict()
        self._told_lock = threading.Lock()

    def _news(self, body: Body, topic: str, told: tuple[str, str], shown: bool) -> bool:
        """Whether ``told`` (reason, text) is news about ``body``'s ``topic``, remembering it.
        This process's memory decides, under a lock; without one (a restart), whether the
        status written already ``shown`` it."""
        meta = body["metadata"]
        key = (str(meta.get("uid") or f"{meta.get('namespace')}/{meta['name']}"), topic)
        with self._told_lock:
            before = self._told.pop(key, None)
            self._told[key] = told
            while len(self._told) > TOLD_KEPT:
                self._told.popitem(last=False)
        return before != told and not (before is None and shown)

    def post(self, body: Body, reason: str, message: str, seconds: float | None = None) -> None:
        """The Event, its count, and its log line (``seconds``: how long the work took)."""
        self.recorder.post(body, reason, message, warning=reason not in FINE)
        self.metrics.events.labels(reason).inc()
        where = _where(body)
        level = logging.INFO if reason in FINE else logging.WARNING
        log.log(
            level,
            "%s %s/%s: %s: %s",
            where["kind"],
            where["namespace"] or "-",
            where["object"],
            reason,
            message,
            extra={**where, "reason": reason, "duration": seconds},
        )

    # -- answers ------------------------------------------------------------------------------
    def answered(
        self,
        body: Body,
        reason: str,
        message: str,
        fields: Mapping[str, Any] | None,
        seconds: float | None = None,
        *,
        stale: tuple[bool, str, str] | None = None,
    ) -> None:
        """``body`` (as read before the answer) now answered ``reason``/``message`` with the
        status ``fields`` written: an Event when that differs from the answer it showed. With
        ``stale`` (the CatalogStale condition written), a ``CatalogStale`` Event when the
        answer comes from a failing catalog's last good content and did not before."""
        if stale is not None:
            old_stale = _condition(body, "CatalogStale")
            shown = (old_stale.get("status") == "True", old_stale.get("message", "")) == (
                stale[0],
                stale[2],
            )
            told = ("CatalogStale" if stale[0] else "Fresh", stale[2])
            if self._news(body, "stale", told, shown) and stale[0]:
                self.post(body, "CatalogStale", stale[2])
        kind = str(body.get("kind"))
        old = _condition(body, "Resolved")
        detail = _detail(kind, fields or {}) if reason == "Resolved" else ""
        before = (old.get("reason"), old.get("message"), "")
        if old.get("reason") == "Resolved":
            before = (
                old.get("reason"),
                old.get("message"),
                _detail(kind, body.get("status") or {}),
            )
        text = f"{message}: {detail}" if detail else message
        if not self._news(body, "answer", (reason, text), before == (reason, message, detail)):
            meta = body["metadata"]
            log.debug("%s %s/%s: unchanged (%s)", kind, meta.get("namespace"), meta["name"], reason)
            return
        self.post(body, reason, text, seconds)

    def resolved(self, kind: str, namespace: str, reason: str, seconds: float) -> None:
        self.metrics.resolved(kind, namespace, reason, seconds)

    def change_answered(self, kind: str, seconds: float) -> None:
        self.metrics.change_answered(kind, seconds)

    # -- proposals ----------------------------------------------------------------------------
    def proposed(self, instance: Body, entries: Sequence[SetEntry], verdict: Verdict) -> None:
        """A new resolveset Instance, and the policy's verdict written on it."""
        namespace = str(instance["metadata"].get("namespace"))
        self.metrics.proposal(namespace, "created")
        changes = [
            f"upgrade {e.bundle.package} from {e.pivot_from} to {e.bundle.version}"
            if e.pivot_from
            else f"install {e.bundle.package} {e.bundle.version}"
            for e in entries
            if not e.kept
        ]
        self.post(instance, "ProposalCreated", "proposes: " + ("; ".join(changes) or "no change"))
        text = f"{verdict.reason}: {verdict.message}"
        if verdict.approved:
            self.metrics.proposal(namespace, "approved")
            self.post(instance, "Approved", text)
        else:
            self.post(instance, "ApprovalRequired", text)

    def superseded(self, instance: Body, message: str) -> None:
        """A pending proposal replaced by the unit's newer answer before anyone approved it."""
        namespace = str(instance["metadata"].get("namespace"))
        self.metrics.proposal(namespace, "superseded")
        self.post(instance, "Superseded", message)

    # -- catalogs -----------------------------------------------------------------------------
    # A Catalog's status is written after these calls (not at all by the load at startup).
    def catalog_loaded(
        self, body: Body, before: str, fields: Mapping[str, Any], seconds: float
    ) -> None:
        """A load that succeeded; ``before`` is the digest served until now."""
        name = str(body["metadata"]["name"])
        digest = str(fields.get("digest"))
        changed = digest != before
        self.metrics.catalog_loaded(name, "loaded" if changed else "unchanged", seconds)
        shown = _condition(body, "Ready").get("status") == "True" and (
            (body.get("status") or {}).get("digest") == digest
        )
        if self._news(body, "catalog", ("Loaded", digest), shown):
            self.post(
                body,
                "Loaded",
                f"{fields.get('bundles')} bundles of {fields.get('packages')} packages "
                f"(digest {digest[:19]})",
                seconds,
            )

    def catalog_failed(self, body: Body, error: str, kept: object | None, seconds: float) -> None:
        """A load that failed; ``kept`` is the last good content, still served (None: none)."""
        name = str(body["metadata"]["name"])
        self.metrics.catalog_loaded(name, "failed", seconds)
        old = _condition(body, "Ready")
        shown = old.get("status") == "False" and str(old.get("message", "")).startswith(error)
        reason = "CatalogUnavailable" if kept is None else "CatalogStale"
        if self._news(body, "catalog", (reason, error), shown):
            text = error if kept is None else f"{error} (serving the last good content)"
            self.post(body, reason, text, seconds)

    def catalog_invalid(self, body: Body, error: str) -> None:
        old = _condition(body, "Ready")
        shown = old.get("reason") == "InvalidSpec" and old.get("message") == error
        if self._news(body, "catalog", ("InvalidSpec", error), shown):
            self.post(body, "InvalidSpec", error)

    # -- OLM v1 -------------------------------------------------------------------------------
    def extension_written(self, action: str) -> None:
        self.metrics.cluster_extensions.labels(action).inc()

    def applied(
        self, instance: Body, problems: Sequence[tuple[str, str]], written: Sequence[str]
    ) -> None:
        """An approved Instance applied as ClusterExtensions: an ``Applied`` Event when some
        were written, a Warning naming what stopped it once per change of the problem."""
        if problems:
            told = (problems[0][0], "; ".join(m for _, m in problems))
            if self._news(instance, "olmv1", told, False):
                self.post(instance, *told)
            return
        self._news(instance, "olmv1", ("Applied", ""), True)
        if written:
            self.post(instance, "Applied", "; ".join(written))

    def pruned(self, instance: Body, name: str, package: str) -> None:
        self.post(
            instance,
            "Pruned",
            f"deleted ClusterExtension {name}: {package} is no longer in the approved set "
            "(prune: true)",
        )

    def left_set(self, instance: Body, names: str) -> None:
        if self._news(instance, "left", ("PackageLeft", names), False) and names:
            self.post(
                instance,
                "PackageLeft",
                f"no longer in the approved set, still installed (prune: false): {names}",
            )

    def explained(self, extension: Body, reason: str, message: str, way_out: bool) -> None:
        """deppy's explanation on a ClusterExtension OLM v1 finds no bundle for: once per
        change of the answer (``reason`` "" when it is not troubled any more)."""
        if not self._news(extension, "explained", (reason, message), False) or not reason:
            return
        self.metrics.olmv1_explanations.labels("way_out" if way_out else "no_way_out").inc()
        self.post(extension, reason, message)
