"""The solver's base types: variables, the constraint interface, and what encodes constraints.

Every other module of the solver imports from here and nothing here imports them, so imports
inside ``solver/`` point one way. A constraint never sees a concrete encoder: it builds its
literal through :class:`Gates`, which both the flat clause encoder (``cnf``) and the reference's
logic circuit (``circuit``) implement. Literals are signed ints (``-x`` is the negation of ``x``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

Identifier = str


class Gates(Protocol):
    """What a constraint needs to build a literal that is true exactly when it holds."""

    def lit(self, identifier: Identifier) -> int: ...

    def lits(self, identifiers: Sequence[Identifier]) -> list[int]: ...

    def true(self) -> int: ...

    def or_gate(self, lits: Sequence[int]) -> int: ...

    def and_gate(self, lits: Sequence[int]) -> int: ...

    def at_most_gate(self, bound: int, lits: Sequence[int]) -> int: ...


class ClauseSink(Gates, Protocol):
    """A flat encoder: constraints may also write clauses and preferences directly."""

    def clause(self, lits: list[int]) -> None: ...

    def at_most(self, bound: int, lits: list[int]) -> None: ...

    def prefer(self, subject: int, candidates: list[int]) -> None: ...


class Constraint(ABC):
    """A rule about a subject variable."""

    anchor: ClassVar[bool] = False

    @abstractmethod
    def describe(self, subject: Identifier) -> str:
        """The rule in words, for the subject it applies to (used verbatim in explanations)."""

    @abstractmethod
    def reify(self, gates: Gates, subject: int) -> int:
        """A literal that is true exactly when the rule holds."""

    def encode(self, sink: ClauseSink, subject: int) -> None:
        """Clauses that hold exactly when the rule holds; types override with leaner forms.

        A rule that asks the search for a choice also records it with ``sink.prefer``.
        """
        sink.clause([self.reify(sink, subject)])

    def order(self) -> tuple[Identifier, ...]:
        """Candidates in preference order, when the rule asks the search for a choice."""
        return ()


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
