"""One namespace's Inputs resolved and written back: resolvesets created, statuses written,
earlier resolvesets removed once the new Instance is approved, Inputs generated for
dependencies. Idempotent: run twice on the same state, it writes nothing the second time."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from deppy.catalog.model import Bundle
from deppy.cluster import ClusterInstalled, ClusterState, installed_from_state
from deppy.controller.approval import policies, proposals
from deppy.controller.approval.resolveset import (
    BUNDLES_KEY,
    MANAGED_LABEL,
    MANAGER,
    UNIT_LABEL,
    Resolveset,
    bundle_body,
    config_map_body,
    instance_body,
    label_value,
    owner_reference,
    read_bundles_json,
)
from deppy.controller.conditions import condition, is_true, now, same_conditions, set_condition
from deppy.controller.install.crds import API_VERSION
from deppy.controller.kube import ApiError, Kube, as_stored
from deppy.controller.resolving.requests import input_class_name
from deppy.controller.resolving.units import (
    WAITING,
    Held,
    UnitOutcome,
    name_of,
    resolve_unit,
    units_of,
)
from deppy.controller.runtime import Runtime
from deppy.resolution.request import InstalledBundle
from deppy.resolution.request_parsing import parse_version

Body = Mapping[str, Any]
Doc = dict[str, Any]
MANAGED = f"{MANAGED_LABEL}={MANAGER}"
GENERATED_LABEL = "deppy.io/generated-for"
Known = dict[str, dict[str, Doc]]
"""The namespace's resolveset objects (plural -> name -> object) as read at the start of its
resolution and kept up to date by its own writes: an answer that is already there is found
here, not created again (a create refused as a conflict, then a read) object by object."""


def held_bundles(instances: Sequence[Body], config_maps: Mapping[str, Body]) -> list[Held]:
    """Per unit, what its newest approved Instance holds."""
    newest: dict[str, Body] = {}
    for instance in instances:
        unit = instance["metadata"].get("labels", {}).get(UNIT_LABEL)
        if unit is None or not is_true(instance, "Approved") or proposals.is_superseded(instance):
            continue
        known = newest.get(unit)
        if known is None or _created(instance) > _created(known):
            newest[unit] = instance
    held: list[Held] = []
    for unit, instance in sorted(newest.items()):
        name = instance["spec"]["bundle"]["name"]
        content = config_maps.get(f"{name}-content")
        if content is None:
            continue
        for entry in read_bundles_json((content.get("data") or {}).get(BUNDLES_KEY, "")):
            try:
                version = parse_version(str(entry.get("version")), name, tolerant=True)
            except Exception:
                continue
            channels = entry.get("channels") or [None]
            held.append(
                Held(
                    unit,
                    InstalledBundle(
                        str(entry.get("packageName")),
                        version,
                        channels[0],
                        entry.get("catalog"),
                        entry.get("name"),
                        f"Instance {name}",
                    ),
                    name,
                )
            )
    return held


def installed_on_cluster(
    kube: Kube, namespace: str, seen: list[tuple[str, str, str]] | None = None
) -> ClusterInstalled | None:
    """The operators OLM (or a person) installed in the namespace: Subscriptions with their CSVs,
    and hand-installed CSVs with their projected properties (cluster/). None without any.
    ``seen`` gets the versions of the objects read (``_versions``)."""
    found: dict[str, list[Doc]] = {}
    for plural in ("clusterserviceversions", "subscriptions"):
        try:
            found[plural] = kube.list(plural, namespace)
        except ApiError as error:
            if error.status != 404:  # no OLM on this cluster: nothing installed by it
                raise
            found[plural] = []
        if seen is not None:
            seen += _versions(plural, found[plural])
    if not found["clusterserviceversions"]:
        return None
    state = ClusterState(
        where=f"namespace {namespace}",
        csvs=tuple(found["clusterserviceversions"]),
        subscriptions=tuple(found["subscriptions"]),
    )
    return installed_from_state(state, namespace=namespace)


def _versions(plural: str, items: Iterable[Body]) -> list[tuple[str, str, str]]:
    return [(plural, name_of(i), str(i["metadata"].get("resourceVersion"))) for i in items]


def _created(body: Body) -> tuple[str, str]:
    meta = body["metadata"]
    return (meta.get("creationTimestamp", ""), meta["name"])


def reconcile_namespace(runtime: Runtime, namespace: str) -> None:
    with runtime.namespace_lock(namespace):
        _reconcile(runtime, namespace)


def _reconcile(runtime: Runtime, namespace: str) -> None:
    """Resolve the namespace's units and write their answers, unless it reads exactly what a
    pass that wrote nothing read: the answers are a function of what is read (same input, same
    output), so that pass would write nothing again. The rechecks of a quiet namespace cost its
    reads, not its resolutions."""
    kube = runtime.kube
    listed = kube.list("inputs", namespace)
    inputs = [i for i in listed if not i["metadata"].get("deletionTimestamp")]
    classes = {name_of(c): c for c in kube.list("inputclasses")}
    seen = _versions("inputs", listed) + _versions("inputclasses", classes.values())
    on_cluster = installed_on_cluster(kube, namespace, seen)
    known: Known = {}
    every_instance, held = _held(kube, namespace, on_cluster, known)
    for plural, found in sorted(known.items()):
        seen += _versions(plural, found.values())
    state = (tuple(seen), runtime.cache.state())
    if runtime.settled.get(namespace) == state:
        return
    writes = kube.writes_here()
    units, errors = units_of(inputs, classes)
    by_name = {name_of(i): i for i in inputs}
    for name, message in errors.items():
        _write_input(kube, by_name[name], "InvalidSpec", message, {})
        runtime.observe.answered(by_name[name], "InvalidSpec", message, {})
    footprint = _asked(inputs) if not errors else None
    footprint = footprint if footprint is None else footprint | {h.installed.package for h in held}
    for unit in units:
        catalog = on_cluster.catalog if on_cluster is not None else None
        clock = time.perf_counter()
        outcome = resolve_unit(unit, held, runtime.cache, runtime.cluster, catalog)
        seconds = time.perf_counter() - clock
        if outcome.reason != WAITING:
            runtime.observe.resolved("unit", namespace, outcome.reason, seconds)
        if footprint is not None:
            footprint |= {e.bundle.package for e in outcome.entries}
            footprint |= {h.installed.package for h in held}
        approved = _apply(runtime, namespace, outcome, by_name, seconds, known)
        if outcome.current is not None:
            _retire(kube, namespace, outcome.unit.key, outcome.current, every_instance, known)
        elif not approved:
            for instance, message in _supersede(kube, namespace, outcome, every_instance):
                runtime.observe.superseded(instance, message)
        elif outcome.resolveset is not None and not outcome.resolveset.dry_run:
            # approved at once: the next units see it installed now, not one pass later
            every_instance, held = _held(kube, namespace, on_cluster, known)
    if footprint is None:
        runtime.footprints.pop(namespace, None)  # woken by every catalog change
    else:
        runtime.footprints[namespace] = frozenset(footprint)
    if kube.writes_here() == writes:
        runtime.settled[namespace] = state
    else:
        runtime.settled.pop(namespace, None)


def _asked(inputs: Sequence[Body]) -> set[str] | None:
    """The packages the Inputs name; None when one names a bundle only (olm.name): which
    package it is depends on the catalogs' content."""
    asked: set[str] = set()
    for body in inputs:
        for item in (body.get("spec") or {}).get("constraints") or ():
            value = item.get("value") if isinstance(item, Mapping) else None
            if isinstance(value, Mapping) and value.get("package"):
                asked.add(str(value["package"]))
            elif isinstance(item, Mapping) and item.get("type") == "olm.name":
                return None
    return asked


def _held(
    kube: Kube, namespace: str, on_cluster: ClusterInstalled | None, known: Known
) -> tuple[list[Doc], list[Held]]:
    """The namespace's resolveset Instances, and what is installed: what approved Instances
    hold (approvals of superseded proposals answered first) and what was installed by hand.
    ``known`` is filled with the resolveset objects read (see ``Known``)."""
    every_instance = kube.list("instances", namespace, labels=MANAGED)
    instances = proposals.refuse_superseded_approvals(kube, every_instance)
    config_maps = {name_of(c): c for c in kube.list("configmaps", namespace, labels=MANAGED)}
    held = held_bundles(instances, config_maps)
    if on_cluster is not None:
        mine = {h.installed.package for h in held}
        held += [Held("", i) for i in on_cluster.installed if i.package not in mine]
    known.clear()
    known["instances"] = {name_of(i): i for i in every_instance}
    known["configmaps"] = config_maps
    known["bundles"] = {name_of(b): b for b in kube.list("bundles", namespace, labels=MANAGED)}
    return every_instance, held


def _of_unit(instances: Sequence[Body], unit: str) -> list[Body]:
    label = label_value(unit)
    return [i for i in instances if i["metadata"].get("labels", {}).get(UNIT_LABEL) == label]


def _retire(
    kube: Kube, namespace: str, unit: str, current: str, instances: Sequence[Body], known: Known
) -> None:
    """The approved set is the unit's answer: every other resolveset of the unit goes (older
    approved ones, and proposals a person approved this one over)."""
    if any(name_of(i) != current for i in _of_unit(instances, unit)):
        _remove_older(kube, namespace, unit, current, known)


def _supersede(
    kube: Kube, namespace: str, outcome: UnitOutcome, instances: Sequence[Body]
) -> list[tuple[Body, str]]:
    """When the unit has a definite answer, its other pending proposals are superseded; the
    ones that were pending until now, with the message they got."""
    mine = _of_unit(instances, outcome.unit.key)
    if outcome.resolveset is not None and not outcome.resolveset.dry_run:
        current: str | None = outcome.resolveset.name
        why = "a newer answer for the unit's Inputs"
    elif outcome.reason == "Unsatisfiable":
        current, why = None, "the unit's Inputs have no solution now"
    else:
        return []  # no answer now (a catalog missing, a deadline): the proposals stay as they are
    return proposals.supersede_pending(kube, mine, namespace, current, why) if mine else []


def _apply(
    runtime: Runtime,
    namespace: str,
    outcome: UnitOutcome,
    by_name: Mapping[str, Body],
    seconds: float,
    known: Known,
) -> bool:
    """Write the unit's answer (``seconds``: how long resolving it took, told in the Inputs'
    log lines); True when a new resolveset was approved (the older ones of the unit are then
    removed)."""
    kube = runtime.kube
    approved = False
    if outcome.reason == WAITING:
        return approved
    for name, message in outcome.errors.items():
        _write_input(kube, by_name[name], "InvalidSpec", message, {})
        runtime.observe.answered(by_name[name], "InvalidSpec", message, {})
    members = list(outcome.unit.inputs)
    refs: dict[str, Any] = {}
    if outcome.resolveset is not None and members:
        refs, approved = _ensure_resolveset(
            runtime, namespace, outcome.resolveset, members, outcome, known
        )
    elif outcome.current is not None:
        owners = [
            owner_reference({**m, "apiVersion": API_VERSION, "kind": "Input"}) for m in members
        ]
        for plural, name in (
            ("configmaps", f"{outcome.current}-content"),
            ("bundles", outcome.current),
            ("instances", outcome.current),
        ):
            found = known.get(plural, {}).get(name) or kube.get(plural, name, namespace)
            if found is not None and found["metadata"].get("ownerReferences") != owners:
                found = kube.patch(
                    plural, name, {"metadata": {"ownerReferences": owners}}, namespace
                )
                known.setdefault(plural, {})[name] = found
        instance = known.get("instances", {}).get(outcome.current)
        instance = instance or kube.get("instances", outcome.current, namespace)
        refs = {
            "apiVersion": API_VERSION,
            "kind": "Bundle",
            "name": outcome.current,
            "namespace": namespace,
            "conditions": [c for c in [condition(instance or {}, "Approved")] if c],
        }
    for body in members:
        fields: dict[str, Any] = dict(outcome.statuses.get(name_of(body), {}))
        if outcome.explanation is not None:
            fields["explanation"] = outcome.explanation
        elif outcome.reason == "Resolved":
            fields["explanation"] = None
        if refs:
            fields["resolveset"] = refs
        _write_input(kube, body, outcome.reason, outcome.message, fields, outcome.stale)
        runtime.observe.answered(
            body, outcome.reason, outcome.message, fields, seconds, stale=outcome.stale
        )
    if outcome.reason == "Resolved" and outcome.unit.params.generate_inputs:
        _generate_dependency_inputs(kube, namespace, [outcome])
    return approved


def _write_input(
    kube: Kube,
    body: Body,
    reason: str,
    message: str,
    fields: Mapping[str, Any],
    stale: tuple[bool, str, str] = (False, "Fresh", ""),
) -> None:
    """The Input's ``Resolved``, ``ResolutionFailed`` and ``CatalogStale`` conditions and
    fields, written only when they change."""
    generation = body["metadata"].get("generation", 0)
    failed_text = (fields.get("explanation") or {}).get("text") or message

    def compute(current: Doc) -> Doc | None:
        if current["metadata"].get("generation", 0) != generation:
            return None  # the spec changed meanwhile: its own event resolves it again
        old = current.get("status") or {}
        conditions = set_condition(
            old.get("conditions"),
            "Resolved",
            reason == "Resolved",
            reason,
            message,
            generation=generation,
        )
        conditions = set_condition(
            conditions,
            "ResolutionFailed",
            reason == "Unsatisfiable",
            "Unsatisfiable" if reason == "Unsatisfiable" else "NoConflict",
            failed_text if reason == "Unsatisfiable" else "",
            generation=generation,
        )
        conditions = set_condition(conditions, "CatalogStale", *stale)
        unchanged = (
            old.get("observedGeneration") == generation
            and same_conditions(old.get("conditions") or [], conditions)
            and all(as_stored(old.get(k)) == as_stored(v) for k, v in fields.items())
        )
        if unchanged:
            return None
        return {
            **fields,
            "observedGeneration": generation,
            "conditions": conditions,
            "resolvedAt": now(),
        }

    kube.update_status("inputs", name_of(body), body["metadata"]["namespace"], compute, read=body)


def _ensure(kube: Kube, plural: str, body: Doc, namespace: str, known: Known) -> Doc:
    """The object there (``known``), or created; owned by exactly the answer's Inputs."""
    name = body["metadata"]["name"]
    found = known.get(plural, {}).get(name) or kube.create(plural, body, namespace)
    wanted = body["metadata"]["ownerReferences"]
    if found["metadata"].get("ownerReferences") != wanted:
        found = kube.patch(plural, name, {"metadata": {"ownerReferences": wanted}}, namespace)
    known.setdefault(plural, {})[name] = found
    return found


def _ensure_resolveset(
    runtime: Runtime,
    namespace: str,
    resolveset: Resolveset,
    members: Sequence[Body],
    outcome: UnitOutcome,
    known: Known,
) -> tuple[dict[str, Any], bool]:
    kube = runtime.kube
    owners = [{**m, "apiVersion": API_VERSION, "kind": "Input"} for m in members]
    _ensure(kube, "configmaps", config_map_body(resolveset, namespace, owners), namespace, known)
    _ensure(kube, "bundles", bundle_body(resolveset, namespace, owners), namespace, known)
    refs: dict[str, Any] = {
        "apiVersion": API_VERSION,
        "kind": "Bundle",
        "name": resolveset.name,
        "namespace": namespace,
    }
    approved = True
    if not resolveset.dry_run:
        instance = _propose(kube, resolveset, namespace, owners, known)
        instance = _approve(runtime, instance, outcome, known) or instance
        approved = is_true(instance, "Approved")
        refs["conditions"] = [c for c in [condition(instance, "Approved")] if c]
    if approved:
        _remove_older(kube, namespace, resolveset.unit, resolveset.name, known)
    return refs, approved


def _propose(
    kube: Kube, resolveset: Resolveset, namespace: str, owners: Sequence[Doc], known: Known
) -> Doc:
    """The unit's current proposal: its Instance created (or found, the names being the
    content's hash), and no longer superseded if an earlier answer had replaced it."""
    body = instance_body(resolveset, namespace, owners)
    return proposals.revive(kube, _ensure(kube, "instances", body, namespace, known))


def _approve(runtime: Runtime, instance: Doc, outcome: UnitOutcome, known: Known) -> Doc | None:
    """Write the policy's verdict once; a decision already there (a person's) stands."""
    if condition(instance, "Approved") is not None:
        return None
    kube = runtime.kube
    class_name = outcome.unit.params.provisioner_class
    classes = known.setdefault("provisionerclasses", {})  # read once a pass
    if class_name not in classes:
        classes[class_name] = kube.get("provisionerclasses", class_name) or {}
    provisioner = classes[class_name]
    policy = ((provisioner or {}).get("parameters") or {}).get("approval") or policies.ANDROID
    source = runtime.cache.view(()).source  # a stale catalog's last good content counts

    def replaced(package: str, name: str) -> Bundle | None:
        if source is None:
            return None
        return next((b for b in source.bundles_of(package) if b.name == name), None)

    verdict = policies.decide(policy, outcome.entries, replaced)
    wrote: list[bool] = []

    def compute(current: Doc) -> Doc | None:
        wrote[:] = [False]
        if condition(current, "Approved") is not None:
            return None
        old = (current.get("status") or {}).get("conditions")
        found = verdict.condition()
        conditions = set_condition(
            old, "Approved", verdict.approved, found["reason"], found["message"]
        )
        wrote[:] = [True]
        return {"conditions": conditions}

    written = kube.update_status(
        "instances", name_of(instance), instance["metadata"]["namespace"], compute, read=instance
    )
    if written is not None and wrote == [True]:
        runtime.observe.proposed(written, outcome.entries, verdict)
    return written


def _remove_older(kube: Kube, namespace: str, unit: str, current: str, known: Known) -> None:
    label = label_value(unit)
    for plural in ("instances", "bundles", "configmaps"):
        keep = f"{current}-content" if plural == "configmaps" else current
        mine = known.setdefault(plural, {})
        for name, body in sorted(mine.items()):
            if name != keep and body["metadata"].get("labels", {}).get(UNIT_LABEL) == label:
                kube.delete(plural, name, namespace)
                del mine[name]


def _generate_dependency_inputs(
    kube: Kube, namespace: str, units_outcomes: Sequence[UnitOutcome]
) -> None:
    """``generateInputsForDependencies``: an Input per dependency brought in, so it stays when
    its dependent goes (not owned by the dependent)."""
    if not any(o.dependencies for o in units_outcomes):
        return  # nothing brought in: no Input to read or write
    listed = kube.list("inputs", namespace)
    existing = {name_of(i) for i in listed}
    asked = set()
    for body in listed:
        for item in (body.get("spec") or {}).get("constraints") or []:
            value = item.get("value") if isinstance(item, Mapping) else None
            if isinstance(value, Mapping) and value.get("package"):
                asked.add(str(value["package"]))
    for outcome in units_outcomes:
        dependents = ",".join(name_of(i) for i in outcome.unit.inputs)
        for package, catalog, channel in outcome.dependencies:
            name = label_value(package).lower()
            if package in asked or name in existing:
                continue
            value = {
                "name": catalog,
                "package": package,
                **({"channel": channel} if channel else {}),
            }
            kube.create(
                "inputs",
                {
                    "apiVersion": API_VERSION,
                    "kind": "Input",
                    "metadata": {
                        "name": name,
                        "namespace": namespace,
                        "labels": {GENERATED_LABEL: label_value(dependents)},
                        "annotations": {"deppy.io/dependency-of": dependents},
                    },
                    "spec": {
                        "inputClass": input_class_name(outcome.unit.inputs[0]),
                        "constraints": [{"type": "olm.catalog", "value": value}],
                    },
                },
                namespace,
            )
            existing.add(name)
            asked.add(package)
