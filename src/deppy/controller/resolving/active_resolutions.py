"""An ActiveResolution's status, from its spec and the loaded catalogs.

The answer comes from ``workflows.resolve.resolve_with_options`` — what ``deppy resolve -f``
runs — so the selection and the explanation are the CLI's. Reasons of the ``Resolved``
condition: ``Resolved``, ``Unsatisfiable`` (with the explanation, text and structured),
``InvalidSpec`` (the message names the field), ``CatalogUnavailable`` (a catalog it uses was
deleted or never loaded; the last good selection stays), ``DeadlineExceeded``. A catalog that
fails to reload changes no answer: it serves its last good content, and ``CatalogStale`` True
says which catalog, why, and the time of the content answered from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from deppy.controller.catalogs.cache import CatalogCache, CatalogView
from deppy.controller.conditions import condition, now, same_conditions, set_condition
from deppy.controller.kube import as_stored
from deppy.controller.resolving.requests import active_resolution_request
from deppy.errors import InputError
from deppy.explain import explanation_as_dict, explanation_as_text
from deppy.resolution.answer import Resolution
from deppy.resolution.request import ClusterFacts
from deppy.resolution.suggestions import in_resource_words
from deppy.solver import SolveTimeout
from deppy.workflows.resolve import resolve_with_options

RESOLVED = "Resolved"
UNSATISFIABLE = "Unsatisfiable"
INVALID_SPEC = "InvalidSpec"
CATALOG_UNAVAILABLE = "CatalogUnavailable"
DEADLINE_EXCEEDED = "DeadlineExceeded"
CATALOG_STALE = "CatalogStale"
FRESH = (False, "Fresh", "")


@dataclass(frozen=True, slots=True)
class Outcome:
    """What to write: fields replacing the status's, for the generation they answer."""

    generation: int
    fields: dict[str, Any]
    reason: str
    message: str
    stale: tuple[bool, str, str] = FRESH  # the CatalogStale condition

    def status(self, current: Mapping[str, Any]) -> dict[str, Any] | None:
        """The status patch for ``current``; None when it moved to another generation, or when
        its status already says this answer (its time aside)."""
        if current["metadata"].get("generation", 0) != self.generation:
            return None
        old = current.get("status") or {}
        conditions = set_condition(
            old.get("conditions"),
            "Resolved",
            self.reason == RESOLVED,
            self.reason,
            self.message,
            generation=self.generation,
        )
        conditions = set_condition(conditions, CATALOG_STALE, *self.stale)
        unchanged = (
            old.get("observedGeneration") == self.generation
            and same_conditions(old.get("conditions") or [], conditions)
            and all(
                as_stored(old.get(k)) == as_stored(v)
                for k, v in self.fields.items()
                if k != "resolvedAt"
            )
        )
        if unchanged:  # e.g. a recheck from a stale copy that another answer already updated
            return None
        return {**self.fields, "observedGeneration": self.generation, "conditions": conditions}


def selection_text(resolution: Resolution) -> list[str]:
    return [
        f"{s.catalog}:{s.package}:{s.version}:{s.channel or ''}" for s in resolution.selection or ()
    ]


def _sources(body: Mapping[str, Any]) -> list[str] | None:
    """spec.sources, or None when it is malformed (resolving then writes InvalidSpec)."""
    spec = body.get("spec") or {}
    sources = spec.get("sources") or [] if isinstance(spec, Mapping) else None
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        return None
    return sources


def uses_catalog(body: Mapping[str, Any], name: str) -> bool:
    sources = _sources(body)
    return not sources or name in sources


def up_to_date(body: Mapping[str, Any], cache: CatalogCache) -> bool:
    """Already answered for this spec and these catalog contents."""
    status = body.get("status") or {}
    if status.get("observedGeneration") != body["metadata"].get("generation"):
        return False
    reason = next(
        (c.get("reason") for c in status.get("conditions") or () if c.get("type") == "Resolved"),
        None,
    )
    if reason not in (RESOLVED, UNSATISFIABLE, INVALID_SPEC):
        return False
    if reason == INVALID_SPEC:
        return True
    sources = _sources(body)
    if sources is None:
        return False
    view = cache.view(sources)
    used = [(c.get("name"), c.get("digest")) for c in status.get("catalogs") or ()]
    if view.unavailable or used != list(view.used):
        return False
    stale = _staleness(view, sources, status.get("bundles") or (), reason == UNSATISFIABLE)
    found = condition(body, CATALOG_STALE) or {}
    # an empty message is absent once written (``kube.clean``)
    return (found.get("status") == "True", found.get("reason"), found.get("message") or "") == stale


def _staleness(
    view: CatalogView,
    sources: Sequence[str],
    bundles: Sequence[Mapping[str, Any]],
    unsatisfiable: bool = False,
) -> tuple[bool, str, str]:
    """Stale: a catalog the question names, or one its answer's bundles come from (for "no
    solution" over every catalog: any of them)."""
    if unsatisfiable and not sources:
        return view.staleness(None)
    return view.staleness({*sources, *(str(b.get("catalog")) for b in bundles)})


def answer(
    body: Mapping[str, Any],
    cache: CatalogCache,
    cluster: ClusterFacts,
    write: Callable[[Outcome], Mapping[str, Any] | None],
    *,
    passes: int = 3,
) -> None:
    """Answer ``body`` unless it is up to date; ``write`` stores an outcome and returns the
    object as written (None when it is gone). When a catalog it used changed content while it
    resolved (a load finishing on another worker, e.g. on a replica that just took over), it is
    answered again: that load's own pass may have found the older status up to date and skipped
    it, which would leave an answer computed from content no longer served."""
    for _ in range(passes):
        if up_to_date(body, cache):
            return
        sources = (body.get("spec") or {}).get("sources") or []
        before = cache.view(sources).used
        outcome = resolve_active_resolution(body, cache, cluster)
        if outcome is None:  # keep the status there (see resolve_active_resolution)
            return
        written = write(outcome)
        if written is None or cache.view(sources).used == before:
            return
        body = written


def resolve_active_resolution(
    body: Mapping[str, Any], cache: CatalogCache, cluster: ClusterFacts
) -> Outcome | None:
    """The status to write; None to keep the one there (its catalog, served by an earlier
    controller, has not loaded in this one yet)."""
    generation = int(body["metadata"].get("generation", 0))
    try:
        request, timeout = active_resolution_request(body, cluster)
    except InputError as error:
        return Outcome(generation, {}, INVALID_SPEC, str(error))
    view = cache.view(request.sources)
    if view.waits_for(request.sources or [None]):
        status = body.get("status") or {}
        if status.get("observedGeneration") == generation:
            return None  # answered from content this process has not loaded yet: keep it
        missing = ", ".join(view.waiting)
        return Outcome(
            generation,
            {},
            CATALOG_UNAVAILABLE,
            f"catalog {missing}: not loaded since the controller started; it is answered when "
            "the catalog loads",
        )
    if view.unavailable or view.source is None:
        missing = "; ".join(f"catalog {n}: {why}" for n, why in view.unavailable)
        kept = " (the selection shown is the last good result)" if body.get("status") else ""
        return Outcome(
            generation,
            {},
            CATALOG_UNAVAILABLE,
            (missing or "no Catalog is loaded; create a Catalog") + kept,
            view.staleness(request.sources),
        )
    catalogs = [{"name": n, "digest": d} for n, d in view.used]
    try:
        resolution = resolve_with_options(
            view.source, request, timeout=timeout, pipeline=None, trace=None
        )
    except SolveTimeout:
        return Outcome(
            generation,
            {},
            DEADLINE_EXCEEDED,
            f"the resolution did not finish in {timeout:g} s; raise spec.timeoutSeconds or "
            "narrow the request (versions, channels, spec.sources)",
        )
    except InputError as error:
        return Outcome(generation, {}, INVALID_SPEC, str(error))
    fields: dict[str, Any] = {
        "catalogs": catalogs,
        "warnings": list(resolution.warnings),
        "resolvedAt": now(),
    }
    if resolution.resolved:
        fields["selection"] = selection_text(resolution)
        fields["bundles"] = [s.as_dict() for s in resolution.selection or ()]
        fields["explanation"] = None
        count = len(fields["selection"])
        stale = _staleness(view, request.sources, fields["bundles"])
        return Outcome(generation, fields, RESOLVED, f"{count} bundles selected", stale)
    assert resolution.explanation is not None
    explanation = in_resource_words(resolution.explanation)  # "add X to spec.sources"
    fields["selection"] = []
    fields["bundles"] = []
    fields["explanation"] = {
        "text": explanation_as_text(explanation),
        "structured": explanation_as_dict(explanation),
    }
    stale = _staleness(view, request.sources, (), unsatisfiable=True)
    return Outcome(generation, fields, UNSATISFIABLE, explanation.summary, stale)
