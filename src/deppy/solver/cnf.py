"""Translation of variables and their constraints into clauses over integer literals.

Every applied constraint is a *group* of clauses. The search treats all groups as hard clauses;
explaining a failure guards each group with a selector literal so that a SAT oracle can name the
groups that clash. At-most constraints stay native (``AtMostRecord``) because the search
propagates them directly; the SAT oracle turns them into clauses itself. Storage is flat
(parallel lists) because encoding sits on the path of every solve.
"""

from __future__ import annotations

from operator import attrgetter

from deppy.solver.errors import DuplicateIdentifier, UnknownIdentifier
from deppy.solver.model import AppliedConstraint

TYPE_CHECKING = False  # `deppy solve` pays for every import (tests/test_solve_startup.py)
if TYPE_CHECKING:
    from collections.abc import Sequence

    from deppy.solver.model import Constraint, Identifier, Variable


class AtMostRecord:
    """At most ``bound`` of ``lits`` are true (a literal listed twice counts twice)."""

    __slots__ = ("bound", "lits")

    def __init__(self, lits: list[int], bound: int) -> None:
        self.lits = lits
        self.bound = bound


class Encoder:
    """Collects clauses, tagged with their group, while constraints encode themselves."""

    def __init__(self, variables: Sequence[Variable], where: str = "problem") -> None:
        self.variables = list(variables)
        self.where = where
        ids = list(map(attrgetter("id"), self.variables))
        self.lit_of: dict[Identifier, int] = dict(zip(ids, range(1, len(ids) + 1), strict=True))
        if len(self.lit_of) != len(self.variables):
            seen: set[Identifier] = set()
            for variable in self.variables:
                if variable.id in seen:
                    raise DuplicateIdentifier(variable.id, where)
                seen.add(variable.id)
        self.top = len(self.variables)
        self.owners: list[tuple[Variable, Constraint]] = []
        self.clauses: list[list[int]] = []
        self.clause_group: list[int] = []
        self.at_most_records: list[AtMostRecord] = []
        self.at_most_group: list[int] = []
        self.preferences: dict[int, list[list[int]]] = {}
        self._true: int | None = None
        self.group = -1  # the applied constraint being encoded (its index in ``owners``)

    # -- used by constraints -------------------------------------------------------------
    def lit(self, identifier: Identifier) -> int:
        try:
            return self.lit_of[identifier]
        except KeyError:
            raise self.unknown(identifier) from None

    def lits(self, identifiers: Sequence[Identifier]) -> list[int]:
        lit_of = self.lit_of
        try:
            return [lit_of[i] for i in identifiers]
        except KeyError as missing:
            raise self.unknown(str(missing.args[0])) from None

    def unknown(self, identifier: Identifier) -> UnknownIdentifier:
        subject = self.owners[-1][0].id if self.owners else ""
        return UnknownIdentifier(subject, identifier, self.where)

    def new_var(self) -> int:
        self.top += 1
        return self.top

    def clause(self, lits: list[int]) -> None:
        self.clauses.append(lits)
        self.clause_group.append(self.group)

    def at_most(self, bound: int, lits: list[int]) -> None:
        self.at_most_records.append(AtMostRecord(lits, bound))
        self.at_most_group.append(self.group)

    def prefer(self, subject: int, candidates: list[int]) -> None:
        """Record a choice the search makes when it guesses ``subject`` (in constraint order)."""
        if candidates:
            self.preferences.setdefault(subject, []).append(candidates)

    def true(self) -> int:
        """A literal fixed to true, for gates over nothing (an empty Or is false, etc.)."""
        if self._true is None:
            self._true = self.new_var()
        self.clause([self._true])
        return self._true

    def or_gate(self, lits: Sequence[int]) -> int:
        """A fresh literal equivalent to the disjunction of ``lits`` (Tseitin)."""
        if not lits:
            return -self.true()
        if len(lits) == 1:
            return lits[0]
        out = self.new_var()
        self.clause([-out, *lits])
        for lit in lits:
            self.clause([out, -lit])
        return out

    def and_gate(self, lits: Sequence[int]) -> int:
        """A fresh literal equivalent to the conjunction of ``lits`` (Tseitin)."""
        return -self.or_gate([-lit for lit in lits])

    def at_most_gate(self, bound: int, lits: Sequence[int]) -> int:
        """A sequential counter defined both ways, so that its negation means "more than"."""
        if len(lits) <= bound:
            return self.true()
        # counts[j] is true exactly when at least j+1 of the literals seen so far are true
        counts: list[int] = []
        for lit in lits:
            updated: list[int] = []
            for j in range(min(len(counts) + 1, bound + 1)):
                options = [counts[j]] if j < len(counts) else []
                options.append(lit if j == 0 else self.and_gate([lit, counts[j - 1]]))
                updated.append(self.or_gate(options))
            counts = updated
        return -counts[bound]


class Problem:
    """A problem ready for the search: literals, tagged clauses, anchors and preferences."""

    __slots__ = (
        "anchors",
        "at_most",
        "at_most_group",
        "clause_group",
        "clauses",
        "lit_of",
        "owners",
        "preferences",
        "top",
        "variables",
    )

    def __init__(
        self,
        *,
        variables: list[Variable],
        lit_of: dict[Identifier, int],
        top: int,
        owners: list[tuple[Variable, Constraint]],
        clauses: list[list[int]],
        clause_group: list[int],
        at_most: list[AtMostRecord],
        at_most_group: list[int],
        anchors: list[int],
        preferences: dict[int, list[list[int]]],
    ) -> None:
        self.variables = variables
        self.lit_of = lit_of
        self.top = top
        self.owners = owners
        self.clauses = clauses
        self.clause_group = clause_group
        self.at_most = at_most
        self.at_most_group = at_most_group
        self.anchors = anchors
        self.preferences = preferences

    @property
    def input_lits(self) -> range:
        return range(1, len(self.variables) + 1)

    def satisfied_by(self, true_inputs: set[int]) -> bool:
        """Do these inputs, with every other input false, satisfy every constraint?

        False also when the problem has auxiliary variables (gates), whose values it cannot
        tell; callers use this only as a shortcut before a full solve.
        """
        if self.top != len(self.variables):
            return False
        for clause in self.clauses:
            if not any(
                (lit in true_inputs) if lit > 0 else (-lit not in true_inputs) for lit in clause
            ):
                return False
        for record in self.at_most:
            if sum(1 for lit in record.lits if lit in true_inputs) > record.bound:
                return False
        return True

    def applied(self, group: int) -> AppliedConstraint:
        variable, constraint = self.owners[group]
        return AppliedConstraint(variable, constraint)


def encode_problem(variables: Sequence[Variable], where: str = "problem") -> Problem:
    """Encode every applied constraint; validates identifiers on the way."""
    encoder = Encoder(variables, where)
    anchors: list[int] = []
    owners = encoder.owners
    for lit, variable in enumerate(encoder.variables, start=1):
        anchored = False
        for constraint in variable.constraints:
            encoder.group = len(owners)
            owners.append((variable, constraint))
            constraint.encode(encoder, lit)
            if constraint.anchor and not anchored:
                anchors.append(lit)
                anchored = True
    return Problem(
        variables=encoder.variables,
        lit_of=encoder.lit_of,
        top=encoder.top,
        owners=owners,
        clauses=encoder.clauses,
        clause_group=encoder.clause_group,
        at_most=encoder.at_most_records,
        at_most_group=encoder.at_most_group,
        anchors=anchors,
        preferences=encoder.preferences,
    )
