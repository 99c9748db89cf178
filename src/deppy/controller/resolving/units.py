"""Resolving the Inputs of a namespace, unit by unit (no API calls here: values in, values out).

A *unit* is what one resolveset answers: all Inputs of a namespace that share a (non-force,
non-dry-run) InputClass resolve together; a dry-run Input, and a force Input, are each a unit of
their own. Every unit sees as installed what the namespace's approved Instances hold (its own
earlier answer included, so nothing moves backward) and the operators installed by hand. A
unit's resolveset holds its own bundles: what it installs or upgrades, and what it keeps for its
Inputs — not what only another unit or a person installed.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from deppy.catalog.catalog_set import BundleSource, CatalogSet
from deppy.catalog.model import Catalog
from deppy.catalog.overlay import Overlay
from deppy.controller.approval.resolveset import Resolveset, SetEntry, build
from deppy.controller.catalogs.cache import CatalogCache
from deppy.controller.fields import name_in
from deppy.controller.resolving.instances_status import input_statuses
from deppy.controller.resolving.requests import (
    DEFAULT_TIMEOUT,
    ClassParameters,
    class_parameters,
    input_class_name,
    input_requirements,
    where_of,
)
from deppy.errors import InputError
from deppy.explain import explanation_as_dict, explanation_as_text
from deppy.resolution.answer import Resolution
from deppy.resolution.context import ResolutionContext
from deppy.resolution.node_library import minimal_version_pipeline
from deppy.resolution.nodes import RequiredPackageProducer
from deppy.resolution.request import (
    ClusterFacts,
    InstalledBundle,
    RequiredPackage,
    ResolutionRequest,
)
from deppy.solver import SolveTimeout
from deppy.workflows.resolve import resolve_with_options
from deppy.workflows.whatif import next_cluster, what_if

Body = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Held:
    """A bundle an approved Instance of ``unit`` holds (``unit`` is "" for a CSV on the cluster)."""

    unit: str
    installed: InstalledBundle
    resolveset: str = ""  # the Instance holding it


@dataclass(frozen=True, slots=True)
class Unit:
    key: str
    params: ClassParameters
    inputs: tuple[Body, ...]


@dataclass
class UnitOutcome:
    unit: Unit
    reason: str
    message: str
    resolveset: Resolveset | None = None
    entries: list[SetEntry] = field(default_factory=list)
    statuses: dict[str, dict[str, Any]] = field(default_factory=dict)  # per Input name
    errors: dict[str, str] = field(default_factory=dict)  # Input name -> InvalidSpec message
    dependencies: list[tuple[str, str, str | None]] = field(default_factory=list)
    catalogs: list[str] = field(default_factory=list)
    wanted_by: dict[str, list[RequiredPackage]] = field(default_factory=dict)
    explanation: dict[str, Any] | None = None
    current: str | None = None  # the approved resolveset already holding exactly this answer
    stale: tuple[bool, str, str] = (False, "Fresh", "")  # the CatalogStale condition


WAITING = "Waiting"  # an outcome that writes nothing: see CatalogEntry.served_before


def _answered(body: Body) -> bool:
    status = body.get("status") or {}
    return bool(status.get("observedGeneration") == body["metadata"].get("generation"))


def name_of(body: Body) -> str:
    return name_in(body)[1]


def units_of(
    inputs: Sequence[Body], classes: Mapping[str, Body]
) -> tuple[list[Unit], dict[str, str]]:
    """Group Inputs into units; Inputs naming a missing or invalid class are errors."""
    errors: dict[str, str] = {}
    grouped: dict[str, list[Body]] = {}
    params: dict[str, ClassParameters] = {}
    for body in sorted(inputs, key=name_of):
        name = name_of(body)
        try:
            class_name = input_class_name(body)
        except InputError as error:
            errors[name] = str(error)
            continue
        where = f"{where_of('Input', body)}: spec.inputClass"
        if class_name not in classes:
            known = ", ".join(sorted(classes)) or "none"
            errors[name] = f"{where}: no InputClass {class_name!r}; known classes: {known}"
            continue
        try:
            parameters = class_parameters(classes[class_name])
        except InputError as error:
            errors[name] = f"{where}: InputClass {class_name!r} is invalid: {error}"
            continue
        own = parameters.force or parameters.dry_run
        key = f"{class_name}.{name}" if own else class_name
        grouped.setdefault(key, []).append(body)
        params[key] = parameters
    return [Unit(k, params[k], tuple(v)) for k, v in sorted(grouped.items())], errors


def held_by_others(held: Sequence[Held], unit: str) -> set[tuple[str, str]]:
    return {(h.installed.package, str(h.installed.version)) for h in held if h.unit != unit}


def resolve_unit(
    unit: Unit,
    held: Sequence[Held],
    cache: CatalogCache,
    cluster: ClusterFacts,
    on_cluster: Catalog | None = None,
) -> UnitOutcome:
    """``on_cluster``: the operators installed by hand, as bundles (cluster/'s synthetic
    catalog), laid over the Catalogs so they count like any other bundle."""
    view = cache.view(())
    source: BundleSource | None = view.source
    if source is not None and on_cluster is not None:
        source = Overlay(CatalogSet([on_cluster]), source)
    if source is None:
        return UnitOutcome(unit, "CatalogUnavailable", "no Catalog is loaded; create a Catalog")
    required: list[RequiredPackage] = []
    outcome = UnitOutcome(unit, "Resolved", "")
    members: list[Body] = []
    for body in unit.inputs:
        try:
            wanted = input_requirements(body, source)
        except InputError as error:
            outcome.errors[name_of(body)] = str(error)
            continue
        members.append(body)
        outcome.wanted_by[name_of(body)] = wanted
        required += wanted
    unit = replace(unit, inputs=tuple(members))
    outcome.unit = unit
    if not members:
        outcome.reason, outcome.message = "InvalidSpec", "every Input of the unit is invalid"
        return outcome
    names = {r.catalog for r in required} | {
        h.installed.catalog for h in held if h.unit == unit.key
    }
    if view.waits_for(names):
        if all(_answered(body) for body in members):
            outcome.reason = WAITING  # keep the answers made from content not loaded here yet
            return outcome
        outcome.reason = "CatalogUnavailable"
        outcome.message = (
            f"catalog {', '.join(view.waiting)}: not loaded since the controller started; the "
            "unit is answered when it loads"
        )
        return outcome
    missing = _unavailable_in_use(cache, required, held, unit.key)
    if missing:
        outcome.reason = "CatalogUnavailable"
        outcome.message = "; ".join(f"catalog {n}: {why}" for n, why in missing) + (
            " (the last resolveset stays)"
        )
        return outcome
    outcome.catalogs = [n for n, _ in view.used]
    params = unit.params
    facts = params.cluster(cluster)
    request = ResolutionRequest(
        required=tuple(required),
        installed=tuple(_as_installed(h, unit.key) for h in held),
        cluster=next_cluster(facts) if params.next_cluster else facts,
        rules=params.rules,
    )
    if params.force:
        outcome = _forced(outcome, source, request, held)
    else:
        outcome = _solved(outcome, source, request, held, facts)
    # stale: a catalog the Inputs name or the answer's bundles come from (for "no solution"
    # without named catalogs: any catalog, since all of them were searched)
    named = {r.catalog for r in required} | {e.bundle.catalog for e in outcome.entries}
    named.discard(None)
    unsolved = outcome.reason == "Unsatisfiable" and not named
    outcome.stale = view.staleness(None if unsolved else named)
    return outcome


def _as_installed(held: Held, unit: str) -> InstalledBundle:
    """Another unit's approved bundle stays as it is for this unit: only its own unit moves it,
    through a proposal a person (or its policy) approves. Were this unit to upgrade it, two
    approved sets of one namespace would disagree on the package while the owner's proposal
    waits (the soak found it: an auto-approved unit upgrading a manually approved unit's
    dependency). Operators installed by hand (no unit) may still be upgraded."""
    if not held.unit or held.unit == unit:
        return held.installed
    return replace(
        held.installed, held=f"held by the approved Instance {held.resolveset} of unit {held.unit}"
    )


def _unavailable_in_use(
    cache: CatalogCache, required: Sequence[RequiredPackage], held: Sequence[Held], unit: str
) -> list[tuple[str, str]]:
    """Catalogs the unit names (its requirements', its own earlier bundles') that have no
    content: deleted, or never loaded. A catalog failing now serves its last good content."""
    named = {r.catalog for r in required} | {h.installed.catalog for h in held if h.unit == unit}
    names = sorted(n for n in named if n is not None)
    return list(cache.view(names).unavailable) if names else []


def _forced(
    outcome: UnitOutcome, source: BundleSource, request: ResolutionRequest, held: Sequence[Held]
) -> UnitOutcome:
    """force: every bundle matching the constraints, without the solver."""
    context = ResolutionContext.create(source, request)
    previous = {h.installed.package: h.installed.bundle for h in held}
    for requirement in request.required:
        for bundle in RequiredPackageProducer.candidates(requirement, context):
            channel = context.order.preferred_channel(bundle, requirement.channel)
            pivot = previous.get(bundle.package)
            outcome.entries.append(
                SetEntry(bundle, channel, pivot if pivot != bundle.name else None)
            )
    if not outcome.entries:
        outcome.reason = "Unsatisfiable"
        outcome.message = "no bundle matches the constraints"
    else:
        outcome.message = f"{len(outcome.entries)} matching bundles (force: no solver)"
    _finish(outcome, None, context, trace=None, whatif=None)
    return outcome


def _solved(
    outcome: UnitOutcome,
    source: BundleSource,
    request: ResolutionRequest,
    held: Sequence[Held],
    current: ClusterFacts,
) -> UnitOutcome:
    params = outcome.unit.params
    pipeline = minimal_version_pipeline() if params.minimal_version else None
    trace: bytes | None = None
    whatif: dict[str, Any] | None = None
    try:
        if params.next_cluster:
            report = what_if(source, replace(request, cluster=current), request.cluster)
            resolution, whatif = report.after, report.as_dict()
        elif params.trace:
            with tempfile.TemporaryDirectory(prefix="deppy-trace-") as directory:
                path = Path(directory) / "trace.jsonl"
                resolution = resolve_with_options(
                    source, request, timeout=DEFAULT_TIMEOUT, pipeline=pipeline, trace=path
                )
                trace = path.read_bytes()
        else:
            resolution = resolve_with_options(
                source, request, timeout=DEFAULT_TIMEOUT, pipeline=pipeline, trace=None
            )
    except SolveTimeout:
        outcome.reason = "DeadlineExceeded"
        outcome.message = (
            f"the resolution did not finish in {DEFAULT_TIMEOUT:g} s; narrow the Inputs"
        )
        return outcome
    except InputError as error:
        outcome.reason, outcome.message = "InvalidSpec", str(error)
        return outcome
    context = ResolutionContext.create(source, request)
    if not resolution.resolved:
        outcome.reason = "Unsatisfiable"
        if resolution.explanation is not None:
            outcome.message = resolution.explanation.summary
            outcome.explanation = {
                "text": explanation_as_text(resolution.explanation),
                "structured": explanation_as_dict(resolution.explanation),
            }
        outcome.statuses = input_statuses(outcome.wanted_by, resolution, context, [])
        if whatif is not None or trace is not None:
            _finish(outcome, resolution, context, trace=trace, whatif=whatif, build_set=True)
        return outcome
    _select(outcome, resolution, held)
    outcome.message = f"{len(outcome.entries)} bundles in the resolveset"
    own = {h.installed.bundle: h.resolveset for h in held if h.unit == outcome.unit.key}
    unchanged = all(e.kept for e in outcome.entries) and set(own) == {
        e.bundle.name for e in outcome.entries
    }
    if own and unchanged and trace is None and whatif is None:
        outcome.current = next(iter(own.values()))
    _finish(
        outcome, resolution, context, trace=trace, whatif=whatif, build_set=outcome.current is None
    )
    return outcome


def _select(outcome: UnitOutcome, resolution: Resolution, held: Sequence[Held]) -> None:
    """The unit's own part of the selection, and the dependencies it brought in."""
    others = held_by_others(held, outcome.unit.key)
    every = {h.installed.package: h.installed.bundle for h in held}
    for item in resolution.selection or ():
        kept = item.action == "keep"
        if kept and (item.package, item.version) in others:
            continue  # another unit's, or installed by hand
        if all(r.startswith("installed: ") for r in item.reasons):
            continue  # held, and nothing of this unit asks for it (any more)
        assert item.source is not None
        pivot = every.get(item.package) if item.action in ("upgrade", "replace") else None
        outcome.entries.append(SetEntry(item.source, item.channel, pivot, kept=kept))
        if any(r.startswith("dependency of ") for r in item.reasons) and not any(
            r.startswith("required: ") for r in item.reasons
        ):
            outcome.dependencies.append((item.package, item.catalog, item.channel))


def _finish(
    outcome: UnitOutcome,
    resolution: Resolution | None,
    context: ResolutionContext,
    *,
    trace: bytes | None,
    whatif: dict[str, Any] | None,
    build_set: bool = True,
) -> None:
    params = outcome.unit.params
    if resolution is not None and resolution.resolved:
        outcome.statuses = input_statuses(
            outcome.wanted_by, resolution, context, [e.bundle for e in outcome.entries]
        )
    elif resolution is None:
        outcome.statuses = input_statuses(
            outcome.wanted_by, None, context, [e.bundle for e in outcome.entries]
        )
    if build_set:
        outcome.resolveset = build(
            outcome.unit.key,
            outcome.entries,
            dry_run=params.dry_run,
            provisioner_class=params.provisioner_class,
            trace=trace,
            whatif=whatif,
        )
