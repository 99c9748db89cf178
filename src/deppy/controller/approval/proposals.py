"""One pending proposal per unit: a resolveset Instance the unit's newer answer replaced is
*superseded* and can never become approved.

A proposal is an Instance without ``Approved`` True. When the unit's answer changes (a new
resolveset, the approved set again, or no solution), every other pending proposal of the unit
gets ``Superseded`` True and ``Approved`` False with reason ``Superseded``, both naming the
current Instance. An approval written to it afterwards (around ``deppy approve``, which refuses)
is answered the same way, and the controller never counts a superseded Instance as approved.
Approved Instances are not proposals: they stay until a newer approved set replaces them. The
last ``SUPERSEDED_KEPT`` superseded proposals of a unit stay, so a person who approves a stale
one is told which to approve instead; older ones are deleted.

Each moment is one function (``supersede``, ``refuse_approval``, ``revive``) so an Event or a
metric can be hooked where it happens.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from deppy.controller.conditions import condition, is_true, same_conditions, set_condition
from deppy.controller.kube import Kube

Body = Mapping[str, Any]
Doc = dict[str, Any]

SUPERSEDED = "Superseded"
APPROVED = "Approved"
SUPERSEDED_KEPT = 3


def is_superseded(instance: Body) -> bool:
    return is_true(instance, SUPERSEDED)


def is_pending(instance: Body) -> bool:
    """A proposal still waiting for a decision (not approved, not superseded)."""
    return not is_true(instance, APPROVED) and not is_superseded(instance)


def superseded_message(namespace: str, current: str | None, why: str) -> str:
    if current is None:
        return f"superseded: {why}; the unit has no proposal to approve now"
    return (
        f"superseded by Instance {namespace}/{current} ({why}); approve that one: "
        f"deppy approve {current} -n {namespace}"
    )


def _name(body: Body) -> str:
    return str(body["metadata"]["name"])


def _created(body: Body) -> tuple[str, str]:
    return (body["metadata"].get("creationTimestamp", ""), _name(body))


def supersede(kube: Kube, instance: Body, message: str) -> bool:
    """Mark one pending proposal superseded (``Superseded`` True, ``Approved`` False); True when
    this wrote it."""
    wrote: list[bool] = []

    def compute(current: Doc) -> Doc | None:
        wrote[:] = [False]
        if is_true(current, APPROVED) and not is_superseded(current):
            return None  # approved meanwhile: an approved set is not a proposal
        old = (current.get("status") or {}).get("conditions")
        conditions = set_condition(old, SUPERSEDED, True, "NewerAnswer", message)
        conditions = set_condition(conditions, APPROVED, False, SUPERSEDED, message)
        if same_conditions(old or [], conditions):
            return None
        wrote[:] = [True]
        return {"conditions": conditions}

    done = kube.update_status(
        "instances", _name(instance), instance["metadata"]["namespace"], compute, read=instance
    )
    return done is not None and wrote == [True]


def refuse_approval(kube: Kube, instance: Body) -> None:
    """An approval written to a superseded proposal is answered: ``Approved`` False again."""
    found = condition(instance, SUPERSEDED)
    message = str((found or {}).get("message") or "superseded")

    def compute(current: Doc) -> Doc | None:
        if not (is_superseded(current) and is_true(current, APPROVED)):
            return None
        old = (current.get("status") or {}).get("conditions")
        return {"conditions": set_condition(old, APPROVED, False, SUPERSEDED, message)}

    kube.update_status("instances", _name(instance), instance["metadata"]["namespace"], compute)


def revive(kube: Kube, instance: Doc) -> Doc:
    """A superseded proposal that is the unit's answer again: ``Superseded`` False, and its
    ``Approved`` verdict cleared so the policy decides afresh."""
    if not is_superseded(instance):
        return instance

    def compute(current: Doc) -> Doc | None:
        if not is_superseded(current):
            return None
        old = (current.get("status") or {}).get("conditions") or []
        kept = [c for c in old if c.get("type") != APPROVED or c.get("reason") != SUPERSEDED]
        return {
            "conditions": set_condition(
                kept, SUPERSEDED, False, "CurrentAnswer", "the answer again"
            )
        }

    return kube.update_status(
        "instances", _name(instance), instance["metadata"]["namespace"], compute
    ) or dict(instance)


def refuse_superseded_approvals(kube: Kube, instances: Sequence[Body]) -> list[Body]:
    """Answer approvals of superseded proposals; the Instances as they now count."""
    for instance in instances:
        if is_superseded(instance) and is_true(instance, APPROVED):
            refuse_approval(kube, instance)
    return [i for i in instances if not is_superseded(i)]


def supersede_pending(
    kube: Kube, instances: Sequence[Body], namespace: str, current: str | None, why: str
) -> list[tuple[Body, str]]:
    """Every pending proposal among ``instances`` (one unit's) other than ``current`` is
    superseded; superseded ones beyond the newest ``SUPERSEDED_KEPT`` are deleted. Returns the
    proposals that were pending until now, with their message (for Events and metrics)."""
    message = superseded_message(namespace, current, why)
    superseded: list[Body] = []
    newly: list[tuple[Body, str]] = []
    for instance in instances:
        if _name(instance) == current:
            continue
        if is_pending(instance) or (is_superseded(instance) and not is_true(instance, APPROVED)):
            # an older one now names the newest answer
            if supersede(kube, instance, message) and is_pending(instance):
                newly.append((instance, message))
            superseded.append(instance)
        elif is_superseded(instance):
            superseded.append(instance)  # approved by a person: refuse_approval answers it
    superseded.sort(key=_created, reverse=True)
    for old in superseded[SUPERSEDED_KEPT:]:
        delete_resolveset(kube, namespace, _name(old))
    return newly


def delete_resolveset(kube: Kube, namespace: str, name: str) -> None:
    kube.delete("instances", name, namespace)
    kube.delete("bundles", name, namespace)
    kube.delete("configmaps", f"{name}-content", namespace)
