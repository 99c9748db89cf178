"""The constraint types. Each one encodes itself into clauses and describes itself for a subject.

As in the Go original, a constraint is applied *to* a subject variable and may name others. The
composition gates ``And``, ``Or`` and ``Not`` combine constraints on the same subject; they need a
literal equivalent to "this constraint holds" (``reify``), which every type provides.
"""

from __future__ import annotations

from deppy.errors import InputError
from deppy.solver.model import Constraint, Frozen, Identifier

TYPE_CHECKING = False  # `deppy solve` pays for every import (see deppy.solver.model.Frozen)
if TYPE_CHECKING:
    from typing import ClassVar

    from deppy.solver.model import ClauseSink, Gates

__all__ = [
    "And",
    "AtMost",
    "Clause",
    "Conflict",
    "Constraint",
    "Dependency",
    "Mandatory",
    "Not",
    "Or",
    "Prohibited",
]


class Mandatory(Frozen, Constraint):
    """The subject must be selected; mandatory variables anchor the preference search."""

    __slots__ = ()
    anchor: ClassVar[bool] = True

    def describe(self, subject: Identifier) -> str:
        return f"{subject} is mandatory"

    def encode(self, sink: ClauseSink, subject: int) -> None:
        sink.clause([subject])

    def reify(self, gates: Gates, subject: int) -> int:
        return subject


class Prohibited(Frozen, Constraint):
    """The subject must not be selected."""

    __slots__ = ()

    def describe(self, subject: Identifier) -> str:
        return f"{subject} is prohibited"

    def encode(self, sink: ClauseSink, subject: int) -> None:
        sink.clause([-subject])

    def reify(self, gates: Gates, subject: int) -> int:
        return -subject


class Dependency(Frozen, Constraint):
    """If the subject is selected, so is at least one of ``ids`` (earlier ones preferred)."""

    __slots__ = __match_args__ = ("ids",)
    ids: tuple[Identifier, ...]

    def __init__(self, *ids: Identifier) -> None:
        object.__setattr__(self, "ids", tuple(ids))

    def describe(self, subject: Identifier) -> str:
        if not self.ids:
            return f"{subject} has a dependency without any candidates to satisfy it"
        return f"{subject} requires at least one of {', '.join(self.ids)}"

    def encode(self, sink: ClauseSink, subject: int) -> None:
        candidates = sink.lits(self.ids)
        sink.clause([-subject, *candidates])
        sink.prefer(subject, candidates)

    def reify(self, gates: Gates, subject: int) -> int:
        return gates.or_gate([-subject, *gates.lits(self.ids)])

    def order(self) -> tuple[Identifier, ...]:
        return self.ids


class Conflict(Frozen, Constraint):
    """The subject and ``id`` are never selected together."""

    __slots__ = __match_args__ = ("id",)
    id: Identifier

    def __init__(self, id: Identifier) -> None:
        object.__setattr__(self, "id", id)

    def describe(self, subject: Identifier) -> str:
        return f"{subject} conflicts with {self.id}"

    def encode(self, sink: ClauseSink, subject: int) -> None:
        sink.clause([-subject, -sink.lit(self.id)])

    def reify(self, gates: Gates, subject: int) -> int:
        return gates.or_gate([-subject, -gates.lit(self.id)])


class AtMost(Frozen, Constraint):
    """At most ``n`` of ``ids`` are selected; the subject itself is not counted."""

    __slots__ = __match_args__ = ("n", "ids")
    n: int
    ids: tuple[Identifier, ...]

    def __init__(self, n: int, *ids: Identifier) -> None:
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise InputError("AtMost", f"bound {n!r} is not a non-negative integer")
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "ids", tuple(ids))

    def describe(self, subject: Identifier) -> str:
        return f"{subject} permits at most {self.n} of {', '.join(self.ids)}"

    def encode(self, sink: ClauseSink, subject: int) -> None:
        lits = sink.lits(self.ids)
        if len(lits) > self.n:
            sink.at_most(self.n, lits)

    def reify(self, gates: Gates, subject: int) -> int:
        """Defined both ways by the encoder: ``Not(AtMost(...))`` must mean "more than n"."""
        return gates.at_most_gate(self.n, gates.lits(self.ids))


class And(Frozen, Constraint):
    """Every one of the given constraints holds for the subject."""

    __slots__ = __match_args__ = ("operands",)
    operands: tuple[Constraint, ...]

    def __init__(self, *operands: Constraint) -> None:
        object.__setattr__(self, "operands", tuple(operands))

    def describe(self, subject: Identifier) -> str:
        if not self.operands:
            return f"{subject}: nothing is required"
        return " and ".join(f"({c.describe(subject)})" for c in self.operands)

    def encode(self, sink: ClauseSink, subject: int) -> None:
        for operand in self.operands:
            operand.encode(sink, subject)

    def reify(self, gates: Gates, subject: int) -> int:
        return gates.and_gate([c.reify(gates, subject) for c in self.operands])


class Or(Frozen, Constraint):
    """At least one of the given constraints holds for the subject."""

    __slots__ = __match_args__ = ("operands",)
    operands: tuple[Constraint, ...]

    def __init__(self, *operands: Constraint) -> None:
        object.__setattr__(self, "operands", tuple(operands))

    def describe(self, subject: Identifier) -> str:
        if not self.operands:
            return f"{subject}: an empty choice that can never hold"
        return "either " + " or ".join(f"({c.describe(subject)})" for c in self.operands)

    def reify(self, gates: Gates, subject: int) -> int:
        return gates.or_gate([c.reify(gates, subject) for c in self.operands])


class Not(Frozen, Constraint):
    """The given constraint does not hold for the subject."""

    __slots__ = __match_args__ = ("operand",)
    operand: Constraint

    def __init__(self, operand: Constraint) -> None:
        object.__setattr__(self, "operand", operand)

    def describe(self, subject: Identifier) -> str:
        return f"not ({self.operand.describe(subject)})"

    def reify(self, gates: Gates, subject: int) -> int:
        return -self.operand.reify(gates, subject)


class Clause(Frozen, Constraint):
    """At least one of the signed literals holds: a CNF clause kept as it was written.

    This is how DIMACS problems are modelled faithfully (the Go original split clauses into
    pairwise ``Or`` constraints, which changes their meaning). Literals are ``(id, positive)``.
    """

    __slots__ = __match_args__ = ("literals",)
    literals: tuple[tuple[Identifier, bool], ...]

    def __init__(self, *literals: tuple[Identifier, bool]) -> None:
        object.__setattr__(self, "literals", tuple(literals))

    def describe(self, subject: Identifier) -> str:
        words = [i if positive else f"not {i}" for i, positive in self.literals]
        if not words:
            return f"{subject} carries an empty clause, which can never hold"
        return f"at least one of {', '.join(words)} holds"

    def _lits(self, gates: Gates) -> list[int]:
        return [gates.lit(i) if positive else -gates.lit(i) for i, positive in self.literals]

    def encode(self, sink: ClauseSink, subject: int) -> None:
        sink.clause(self._lits(sink))

    def reify(self, gates: Gates, subject: int) -> int:
        return gates.or_gate(self._lits(gates))
