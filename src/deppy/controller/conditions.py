"""Status conditions as Kubernetes writes them: one per type, transition time kept while the
status stays the same, so rewriting an unchanged condition changes nothing."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

MAX_MESSAGE = 8000  # an explanation fits; a status never grows without bound


def now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def set_condition(
    conditions: Sequence[Mapping[str, Any]] | None,
    kind: str,
    status: bool | str,
    reason: str,
    message: str = "",
    *,
    generation: int | None = None,
) -> list[dict[str, Any]]:
    """``conditions`` with ``kind`` set; others untouched, order by type."""
    text = status if isinstance(status, str) else ("True" if status else "False")
    old = {c.get("type"): dict(c) for c in conditions or ()}
    previous = old.get(kind)
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 1] + "…"
    entry: dict[str, Any] = {"type": kind, "status": text, "reason": reason, "message": message}
    if generation is not None:
        entry["observedGeneration"] = generation
    same = previous is not None and previous.get("status") == text
    entry["lastTransitionTime"] = (
        previous.get("lastTransitionTime") if same and previous else None
    ) or now()
    old[kind] = entry
    return [old[k] for k in sorted(old, key=str)]


def condition(body: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    found: Mapping[str, Any]
    for found in (body.get("status") or {}).get("conditions") or ():
        if found.get("type") == kind:
            return found
    return None


def is_true(body: Mapping[str, Any], kind: str) -> bool:
    found = condition(body, kind)
    return found is not None and found.get("status") == "True"


def same_conditions(a: Sequence[Mapping[str, Any]], b: Sequence[Mapping[str, Any]]) -> bool:
    """Equal apart from timestamps (so an unchanged status is not written again). An empty
    message equals an absent one: the API server keeps no empty string a merge patch sends
    (``kube.clean``), so a condition read back has no message where "" was written."""

    def key(items: Sequence[Mapping[str, Any]]) -> list[tuple[Any, ...]]:
        return sorted(
            (
                c.get("type"),
                c.get("status"),
                c.get("reason"),
                c.get("message") or "",
                c.get("observedGeneration"),
            )
            for c in items
        )

    return key(a) == key(b)
