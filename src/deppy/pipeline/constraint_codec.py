"""Solver constraints as plain JSON and back: ``{"type": ..., fields}``, one shape per type.

Type names follow the problem format (``mandatory``, ``dependency``, ``atmost``, ...); the
composition gates nest their operands. Used by traces, so a variable's constraints survive a
round trip exactly (same types, same fields, same order).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from deppy.solver import (
    And,
    AtMost,
    Clause,
    Conflict,
    Constraint,
    Dependency,
    Mandatory,
    Not,
    Or,
    Prohibited,
)

_MANDATORY = {"type": "mandatory"}
_PROHIBITED = {"type": "prohibited"}


def encode_constraint(constraint: Constraint) -> dict[str, Any]:
    kind = type(constraint)
    if kind is Dependency:
        return {"type": "dependency", "ids": constraint.ids}  # type: ignore[attr-defined]
    if kind is Mandatory:
        return _MANDATORY
    if kind is AtMost:
        return {"type": "atmost", "n": constraint.n, "ids": constraint.ids}  # type: ignore[attr-defined]
    if kind is Conflict:
        return {"type": "conflict", "id": constraint.id}  # type: ignore[attr-defined]
    if kind is Prohibited:
        return _PROHIBITED
    if isinstance(constraint, And | Or):
        name = "and" if isinstance(constraint, And) else "or"
        return {"type": name, "operands": [encode_constraint(c) for c in constraint.operands]}
    if isinstance(constraint, Not):
        return {"type": "not", "operand": encode_constraint(constraint.operand)}
    if isinstance(constraint, Clause):
        return {"type": "clause", "literals": [[i, p] for i, p in constraint.literals]}
    raise TypeError(f"no JSON form for constraint type {kind.__name__}")


_DECODERS: dict[str, Callable[[dict[str, Any]], Constraint]] = {
    "mandatory": lambda raw: Mandatory(),
    "prohibited": lambda raw: Prohibited(),
    "dependency": lambda raw: Dependency(*raw["ids"]),
    "conflict": lambda raw: Conflict(raw["id"]),
    "atmost": lambda raw: AtMost(raw["n"], *raw["ids"]),
    "and": lambda raw: And(*(decode_constraint(c) for c in raw["operands"])),
    "or": lambda raw: Or(*(decode_constraint(c) for c in raw["operands"])),
    "not": lambda raw: Not(decode_constraint(raw["operand"])),
    "clause": lambda raw: Clause(*((i, bool(p)) for i, p in raw["literals"])),
}


def decode_constraint(raw: dict[str, Any]) -> Constraint:
    """Raises KeyError or TypeError on a malformed record; the trace reader names the line."""
    return _DECODERS[raw["type"]](raw)
