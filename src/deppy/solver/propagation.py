"""Incremental unit propagation with decision levels, for the preference search.

The search assumes thousands of guesses one at a time and must know after each one whether unit
propagation alone finds a conflict (the reference semantics depend on exactly that strength).
PySAT's ``propagate()`` re-propagates every assumption from scratch on each call, which makes the
search quadratic; this propagator keeps its trail between guesses and undoes only the last level,
so a whole search costs about as much as propagating the final assignment once.

Clauses use two watched literals (binary clauses become implication lists); at-most-k
constraints are propagated natively by counting, which is complete for them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `deppy solve` pays for every import (tests/test_solve_startup.py)
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from deppy.solver.cnf import AtMostRecord


class Propagator:
    """Unit propagation over clauses and at-most constraints, with push/pop of levels.

    Literals are non-zero ints over variables ``1..num_vars``. After a conflict the state stays
    conflicting until the level that caused it is popped.
    """

    def __init__(
        self,
        num_vars: int,
        clauses: Iterable[Sequence[int]],
        at_most: Iterable[AtMostRecord],
    ) -> None:
        n = num_vars
        self._n = n
        size = 2 * n + 1
        self._value = [0] * size  # indexed by literal + n: 1 true, -1 false, 0 unassigned
        self._trail: list[int] = []
        self._head = 0
        self._levels: list[int] = []
        # sparse tables keyed by literal: most literals have no entry at all
        self._implied: dict[int, list[int]] = {}
        self._watches: dict[int, list[int]] = {}
        self._clauses: list[list[int]] = []
        self._card_of: dict[int, list[int]] = {}
        self._card_lits: list[list[int]] = []
        self._card_bound: list[int] = []
        self._card_count: list[int] = []
        self.conflict = False
        units: list[int] = []
        implied = self._implied
        for clause in clauses:
            size = len(clause)
            if size == 2:
                first, second = clause
                if first == second:
                    units.append(first)
                elif first != -second:  # a tautology constrains nothing
                    implied.setdefault(-first, []).append(second)
                    implied.setdefault(-second, []).append(first)
            elif size > 2:
                self._add_long_clause(clause, units)
            elif size == 1:
                units.append(clause[0])
            else:
                self.conflict = True
        for record in at_most:
            self._add_at_most(record, units)
        # the closure does not depend on the order: assign every unit, then propagate once
        value = self._value
        for lit in units:
            state = value[lit + n]
            if state == -1:
                self.conflict = True
                return
            if state == 0:
                self._assign(lit)
        if not self._propagate():
            self.conflict = True

    # -- construction ----------------------------------------------------------------------
    def _add_long_clause(self, clause: Sequence[int], units: list[int]) -> None:
        lits = list(clause)
        if len(set(lits)) != len(lits):
            # watching one literal twice would lose propagations: deduplicate, then re-file
            lits = list(dict.fromkeys(lits))
            if len(lits) <= 2:
                self._file_short(lits, units)
                return
        index = len(self._clauses)
        self._clauses.append(lits)
        self._watches.setdefault(lits[0], []).append(index)
        self._watches.setdefault(lits[1], []).append(index)

    def _file_short(self, lits: list[int], units: list[int]) -> None:
        if len(lits) == 1:
            units.append(lits[0])
        elif lits[0] != -lits[1]:
            self._implied.setdefault(-lits[0], []).append(lits[1])
            self._implied.setdefault(-lits[1], []).append(lits[0])

    def _add_at_most(self, record: AtMostRecord, units: list[int]) -> None:
        if len(record.lits) <= record.bound:
            return
        if record.bound == 0:
            units.extend(-lit for lit in record.lits)
            return
        index = len(self._card_lits)
        self._card_lits.append(list(record.lits))
        self._card_bound.append(record.bound)
        self._card_count.append(0)
        for lit in record.lits:
            self._card_of.setdefault(lit, []).append(index)

    # -- levels ----------------------------------------------------------------------------
    def value(self, lit: int) -> int:
        return self._value[lit + self._n]

    def push(self) -> None:
        self._levels.append(len(self._trail))

    def pop(self) -> None:
        mark = self._levels.pop()
        n = self._n
        value = self._value
        card_of = self._card_of
        count = self._card_count
        trail = self._trail
        for lit in reversed(trail[mark:]):
            value[lit + n] = 0
            value[-lit + n] = 0
            for card in card_of.get(lit, ()):
                count[card] -= 1
        del trail[mark:]
        self._head = mark
        self.conflict = False

    def assume(self, lit: int) -> bool:
        """Make ``lit`` true and propagate; False (and ``conflict``) when that clashes."""
        if self.conflict:
            return False
        current = self._value[lit + self._n]
        if current == 1:
            return True
        if current == -1:
            self.conflict = True
            return False
        self._assign(lit)
        if not self._propagate():
            self.conflict = True
            return False
        return True

    def _assign(self, lit: int) -> None:
        n = self._n
        self._value[lit + n] = 1
        self._value[-lit + n] = -1
        self._trail.append(lit)
        for card in self._card_of.get(lit, ()):
            self._card_count[card] += 1

    def _propagate(self) -> bool:
        n = self._n
        value = self._value
        trail = self._trail
        implied = self._implied
        watches = self._watches
        clauses = self._clauses
        card_of = self._card_of
        card_lits = self._card_lits
        card_bound = self._card_bound
        count = self._card_count
        assign = self._assign
        while self._head < len(trail):
            lit = trail[self._head]
            self._head += 1
            for other in implied.get(lit, ()):
                state = value[other + n]
                if state == -1:
                    return False
                if state == 0:
                    assign(other)
            for card in card_of.get(lit, ()):
                excess = count[card] - card_bound[card]
                if excess > 0:
                    return False
                if excess == 0:
                    for other in card_lits[card]:
                        if value[other + n] == 0:
                            assign(-other)
            false_lit = -lit
            watching = watches.get(false_lit)
            if not watching:
                continue
            kept: list[int] = []
            position = 0
            total = len(watching)
            while position < total:
                index = watching[position]
                position += 1
                clause = clauses[index]
                if clause[0] == false_lit:
                    clause[0] = clause[1]
                    clause[1] = false_lit
                first = clause[0]
                if value[first + n] == 1:
                    kept.append(index)
                    continue
                for k in range(2, len(clause)):
                    candidate = clause[k]
                    if value[candidate + n] != -1:
                        clause[1] = candidate
                        clause[k] = false_lit
                        if candidate in watches:
                            watches[candidate].append(index)
                        else:
                            watches[candidate] = [index]
                        break
                else:
                    kept.append(index)
                    if value[first + n] == -1:
                        kept.extend(watching[position:])
                        watches[false_lit] = kept
                        return False
                    assign(first)
            watches[false_lit] = kept
        return True

    def completion(self, num_inputs: int) -> set[int] | None:
        """The input variables true now, if "everything unassigned is false" is a model.

        Returns None when that completion violates a clause. Only literals already true count,
        so the answer contains nothing the current assumptions do not force.
        """
        if self.conflict:
            return None
        n = self._n
        value = self._value
        # under the completion a literal holds when it is true, or negative and unassigned
        for lit, implied in self._implied.items():
            state = value[-lit + n]
            if state == 1 or (state == 0 and lit > 0):
                continue
            for other in implied:
                state = value[other + n]
                if state != 1 and (state != 0 or other > 0):
                    return None
        for clause in self._clauses:
            for lit in clause:
                state = value[lit + n]
                if state == 1 or (state == 0 and lit < 0):
                    break
            else:
                return None
        return {lit for lit in self._trail if 0 < lit <= num_inputs}
