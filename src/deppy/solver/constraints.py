"""The constraint types. Each one encodes itself into clauses and describes itself for a subject.

As in the Go original, a constraint is applied *to* a subject variable and may name others. The
composition gates ``And``, ``Or`` and ``Not`` combine constraints on the same subject; they need a
literal equivalent to "this constraint holds" (``reify``), which every type provides.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

from deppy.errors import InputError
from deppy.solver.cnf import Encoder
from deppy.solver.model import Identifier


class Constraint(ABC):
    """A rule about a subject variable."""

    anchor: ClassVar[bool] = False

    @abstractmethod
    def describe(self, subject: Identifier) -> str:
        """The rule in words, for the subject it applies to (used verbatim in explanations)."""

    @abstractmethod
    def reify(self, encoder: Encoder, subject: int) -> int:
        """A literal that is true exactly when the rule holds."""

    def encode(self, encoder: Encoder, subject: int) -> None:
        """Clauses that hold exactly when the rule holds; types override with leaner forms.

        A rule that asks the search for a choice also records it with ``encoder.prefer``.
        """
        encoder.clause([self.reify(encoder, subject)])

    def order(self) -> tuple[Identifier, ...]:
        """Candidates in preference order, when the rule asks the search for a choice."""
        return ()


@dataclass(frozen=True, slots=True)
class Mandatory(Constraint):
    """The subject must be selected; mandatory variables anchor the preference search."""

    anchor: ClassVar[bool] = True

    def describe(self, subject: Identifier) -> str:
        return f"{subject} is mandatory"

    def reify(self, encoder: Encoder, subject: int) -> int:
        return subject


@dataclass(frozen=True, slots=True)
class Prohibited(Constraint):
    """The subject must not be selected."""

    def describe(self, subject: Identifier) -> str:
        return f"{subject} is prohibited"

    def reify(self, encoder: Encoder, subject: int) -> int:
        return -subject


@dataclass(frozen=True, slots=True, init=False)
class Dependency(Constraint):
    """If the subject is selected, so is at least one of ``ids`` (earlier ones preferred)."""

    ids: tuple[Identifier, ...]

    def __init__(self, *ids: Identifier) -> None:
        object.__setattr__(self, "ids", tuple(ids))

    def describe(self, subject: Identifier) -> str:
        if not self.ids:
            return f"{subject} has a dependency without any candidates to satisfy it"
        return f"{subject} requires at least one of {', '.join(self.ids)}"

    def encode(self, encoder: Encoder, subject: int) -> None:
        candidates = encoder.lits(self.ids)
        encoder.clause([-subject, *candidates])
        encoder.prefer(subject, candidates)

    def reify(self, encoder: Encoder, subject: int) -> int:
        return encoder.or_gate([-subject, *encoder.lits(self.ids)])

    def order(self) -> tuple[Identifier, ...]:
        return self.ids


@dataclass(frozen=True, slots=True)
class Conflict(Constraint):
    """The subject and ``id`` are never selected together."""

    id: Identifier

    def describe(self, subject: Identifier) -> str:
        return f"{subject} conflicts with {self.id}"

    def encode(self, encoder: Encoder, subject: int) -> None:
        encoder.clause([-subject, -encoder.lit(self.id)])

    def reify(self, encoder: Encoder, subject: int) -> int:
        return encoder.or_gate([-subject, -encoder.lit(self.id)])


@dataclass(frozen=True, slots=True, init=False)
class AtMost(Constraint):
    """At most ``n`` of ``ids`` are selected; the subject itself is not counted."""

    n: int
    ids: tuple[Identifier, ...]

    def __init__(self, n: int, *ids: Identifier) -> None:
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise InputError("AtMost", f"bound {n!r} is not a non-negative integer")
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "ids", tuple(ids))

    def describe(self, subject: Identifier) -> str:
        return f"{subject} permits at most {self.n} of {', '.join(self.ids)}"

    def encode(self, encoder: Encoder, subject: int) -> None:
        lits = encoder.lits(self.ids)
        if len(lits) > self.n:
            encoder.at_most(self.n, lits)

    def reify(self, encoder: Encoder, subject: int) -> int:
        """Sequential counter defined both ways: ``Not(AtMost(...))`` must mean "more than n"."""
        lits = encoder.lits(self.ids)
        if len(lits) <= self.n:
            return encoder.true()
        # counts[j] is true exactly when at least j+1 of the literals seen so far are true
        counts: list[int] = []
        for lit in lits:
            updated: list[int] = []
            for j in range(min(len(counts) + 1, self.n + 1)):
                options = [counts[j]] if j < len(counts) else []
                options.append(lit if j == 0 else encoder.and_gate([lit, counts[j - 1]]))
                updated.append(encoder.or_gate(options))
            counts = updated
        return -counts[self.n]


@dataclass(frozen=True, slots=True, init=False)
class And(Constraint):
    """Every one of the given constraints holds for the subject."""

    operands: tuple[Constraint, ...]

    def __init__(self, *operands: Constraint) -> None:
        object.__setattr__(self, "operands", tuple(operands))

    def describe(self, subject: Identifier) -> str:
        if not self.operands:
            return f"{subject}: nothing is required"
        return " and ".join(f"({c.describe(subject)})" for c in self.operands)

    def encode(self, encoder: Encoder, subject: int) -> None:
        for operand in self.operands:
            operand.encode(encoder, subject)

    def reify(self, encoder: Encoder, subject: int) -> int:
        return encoder.and_gate([c.reify(encoder, subject) for c in self.operands])


@dataclass(frozen=True, slots=True, init=False)
class Or(Constraint):
    """At least one of the given constraints holds for the subject."""

    operands: tuple[Constraint, ...]

    def __init__(self, *operands: Constraint) -> None:
        object.__setattr__(self, "operands", tuple(operands))

    def describe(self, subject: Identifier) -> str:
        if not self.operands:
            return f"{subject}: an empty choice that can never hold"
        return "either " + " or ".join(f"({c.describe(subject)})" for c in self.operands)

    def reify(self, encoder: Encoder, subject: int) -> int:
        return encoder.or_gate([c.reify(encoder, subject) for c in self.operands])


@dataclass(frozen=True, slots=True)
class Not(Constraint):
    """The given constraint does not hold for the subject."""

    operand: Constraint

    def describe(self, subject: Identifier) -> str:
        return f"not ({self.operand.describe(subject)})"

    def reify(self, encoder: Encoder, subject: int) -> int:
        return -self.operand.reify(encoder, subject)


@dataclass(frozen=True, slots=True, init=False)
class Clause(Constraint):
    """At least one of the signed literals holds: a CNF clause kept as it was written.

    This is how DIMACS problems are modelled faithfully (the Go original split clauses into
    pairwise ``Or`` constraints, which changes their meaning). Literals are ``(id, positive)``.
    """

    literals: tuple[tuple[Identifier, bool], ...]

    def __init__(self, *literals: tuple[Identifier, bool]) -> None:
        object.__setattr__(self, "literals", tuple(literals))

    def describe(self, subject: Identifier) -> str:
        words = [i if positive else f"not {i}" for i, positive in self.literals]
        if not words:
            return f"{subject} carries an empty clause, which can never hold"
        return f"at least one of {', '.join(words)} holds"

    def _lits(self, encoder: Encoder) -> list[int]:
        return [encoder.lit(i) if positive else -encoder.lit(i) for i, positive in self.literals]

    def encode(self, encoder: Encoder, subject: int) -> None:
        encoder.clause(self._lits(encoder))

    def reify(self, encoder: Encoder, subject: int) -> int:
        return encoder.or_gate(self._lits(encoder))
