"""The conformance corpus's problem format: a list of variables with typed constraints.

``[{"id": "a", "constraints": [{"type": "dependency", "ids": ["x", "y"]}]}, ...]``; the same
structure is accepted from YAML. Errors name the file, the variable and the field.
"""

from __future__ import annotations

from deppy.errors import InputError, excerpt
from deppy.solver import AtMost, Conflict, Dependency, Mandatory, Prohibited, Variable

TYPE_CHECKING = False  # typing costs `deppy solve` start-up (tests/test_solve_startup.py)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from deppy.solver import Constraint

TYPES = ("mandatory", "prohibited", "dependency", "conflict", "atmost")


def variables_from_data(data: Any, where: str) -> list[Variable]:
    if not isinstance(data, list):
        raise InputError(where, "expected a list of variables", 'write [{"id": ..., ...}, ...]')
    return [_variable(item, f"{where}: variable #{n}") for n, item in enumerate(data)]


def _variable(item: Any, where: str) -> Variable:
    if not isinstance(item, dict):
        raise InputError(where, "expected an object with 'id' and 'constraints'")
    unknown = sorted(set(item) - {"id", "constraints"})
    if unknown:
        raise InputError(
            where, f"unknown field {excerpt(unknown[0])}", "use only 'id' and 'constraints'"
        )
    identifier = item.get("id")
    if not isinstance(identifier, str) or not identifier:
        raise InputError(where, "field 'id' must be a non-empty string")
    where = f"{where.rsplit(':', 1)[0]}: variable {excerpt(identifier)}"
    raw = item.get("constraints") or []
    if not isinstance(raw, list):
        raise InputError(where, "field 'constraints' must be a list or null")
    return Variable(
        identifier, [_constraint(c, f"{where}, constraint #{n}") for n, c in enumerate(raw)]
    )


def _ids(raw: dict[str, Any], where: str) -> list[str]:
    ids = raw.get("ids")
    if ids is None:
        return []
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise InputError(where, "field 'ids' must be a list of variable ids")
    return ids


def _exactly_one(raw: dict[str, Any], where: str) -> str:
    ids = _ids(raw, where)
    if len(ids) != 1:
        raise InputError(where, f"a conflict names exactly one id, got {len(ids)}")
    return ids[0]


def _bound(raw: dict[str, Any], where: str) -> int:
    n = raw.get("n")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InputError(where, f"field 'n' must be a non-negative integer, got {excerpt(n)}")
    return n


_BUILDERS: dict[str, Callable[[dict[str, Any], str], Constraint]] = {
    "mandatory": lambda raw, where: Mandatory(),
    "prohibited": lambda raw, where: Prohibited(),
    "dependency": lambda raw, where: Dependency(*_ids(raw, where)),
    "conflict": lambda raw, where: Conflict(_exactly_one(raw, where)),
    "atmost": lambda raw, where: AtMost(_bound(raw, where), *_ids(raw, where)),
}


def _constraint(raw: Any, where: str) -> Constraint:
    if not isinstance(raw, dict):
        raise InputError(where, "expected an object with a 'type'")
    kind = raw.get("type")
    builder = _BUILDERS.get(kind) if isinstance(kind, str) else None
    if builder is None:
        raise InputError(
            where, f"unknown constraint type {excerpt(kind)}", f"use one of {', '.join(TYPES)}"
        )
    unknown = sorted(set(raw) - {"type", "ids", "n"})
    if unknown:
        raise InputError(where, f"unknown field {excerpt(unknown[0])}")
    return builder(raw, where)
