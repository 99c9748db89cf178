"""The solver's input and output values: variables and the constraints applied to them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deppy.solver.constraints import Constraint

Identifier = str


@dataclass(frozen=True, slots=True)
class Variable:
    """Something that may be selected, with the constraints that apply to it, in order.

    Constraint order matters: a variable's dependency constraints become the search's choices in
    the order given.
    """

    id: Identifier
    constraints: tuple[Constraint, ...] = field(default=())

    def __init__(self, id: Identifier, constraints: Iterable[Constraint] = ()) -> None:
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "constraints", tuple(constraints))


@dataclass(frozen=True, slots=True)
class AppliedConstraint:
    """A constraint together with the variable it applies to: the unit an explanation cites."""

    variable: Variable
    constraint: Constraint

    @property
    def text(self) -> str:
        return self.constraint.describe(self.variable.id)

    def __str__(self) -> str:
        return self.text
