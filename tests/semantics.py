"""An independent statement of what the constraints mean, for checking the solver.

Written directly from the reference README, sharing no code with ``deppy.solver``'s encoding:
``holds`` evaluates a constraint on a selection, and ``brute_force_models`` enumerates every
selection of a small problem.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import product

from deppy.solver import (
    And,
    AppliedConstraint,
    AtMost,
    Clause,
    Conflict,
    Constraint,
    Dependency,
    Mandatory,
    Not,
    Or,
    Prohibited,
    Variable,
)


def holds(constraint: Constraint, subject: str, selected: set[str]) -> bool:
    if isinstance(constraint, Mandatory):
        return subject in selected
    if isinstance(constraint, Prohibited):
        return subject not in selected
    if isinstance(constraint, Dependency):
        return subject not in selected or any(i in selected for i in constraint.ids)
    if isinstance(constraint, Conflict):
        return not (subject in selected and constraint.id in selected)
    if isinstance(constraint, AtMost):
        return sum(1 for i in constraint.ids if i in selected) <= constraint.n
    if isinstance(constraint, And):
        return all(holds(c, subject, selected) for c in constraint.operands)
    if isinstance(constraint, Or):
        return any(holds(c, subject, selected) for c in constraint.operands)
    if isinstance(constraint, Not):
        return not holds(constraint.operand, subject, selected)
    if isinstance(constraint, Clause):
        return any((i in selected) == positive for i, positive in constraint.literals)
    raise TypeError(constraint)


def applied_constraints(variables: Sequence[Variable]) -> list[AppliedConstraint]:
    return [AppliedConstraint(v, c) for v in variables for c in v.constraints]


def satisfied(applied: Sequence[AppliedConstraint], selected: set[str]) -> bool:
    return all(holds(a.constraint, a.variable.id, selected) for a in applied)


def brute_force_models(
    variables: Sequence[Variable], applied: Sequence[AppliedConstraint] | None = None
) -> Iterator[set[str]]:
    applied = applied_constraints(variables) if applied is None else applied
    ids = [v.id for v in variables]
    for bits in product((False, True), repeat=len(ids)):
        selected = {i for i, bit in zip(ids, bits, strict=True) if bit}
        if satisfied(applied, selected):
            yield selected


def has_model(variables: Sequence[Variable], applied: Sequence[AppliedConstraint]) -> bool:
    return next(brute_force_models(variables, applied), None) is not None
