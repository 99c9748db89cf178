"""The reference's SAT machinery for a search with assumptions: gini's ``Test``/``Untest``.

The preference search asks one question per guess: does unit propagation conflict? After a
conflict, the reference (gini ``xo.S``) learns a clause and asserts it one scope up, which can
fail the parent guess too; the clauses it learns depend on exactly which clause implied each
literal. This engine therefore mirrors gini step for step rather than being a generic CDCL core:

- literals are in gini's numbering (``2·var`` true, ``2·var+1`` false), clauses are lists whose
  first two literals are watched, watch lists hold ``(blocker, clause)`` pairs and are visited and
  rewritten in gini's order (``Trail.Prop``), binary clauses included;
- conflict analysis is gini's ``Deriver.Derive``: first UIP, literals of level 0 dropped, then
  recursive minimisation in which only literals whose level occurs in the clause can be removed
  (level-0 literals in a reason chain count as not removable, unlike MiniSat);
- a learned clause is watched on its first two literals as analysis ordered them, and kept;
- ``untest`` is gini's ``Untest`` with its ``cleanupSolve``: the pending conflict is analysed, the
  trail cut back to the scope's level, the asserting literal assigned there and propagated, and
  a conflict found then analysed again — or the undo fails when the asserting literal's variable
  is still assigned at that level.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from deppy.solver.errors import SolveTimeout

Clause = list[int]
Watch = tuple[int, Clause]


class Engine:
    """Trail, values and clause database of one solve, in gini's numbering."""

    def __init__(
        self, num_vars: int, clauses: Sequence[Sequence[int]], *, simplified: bool = False
    ) -> None:
        """Load ``clauses`` as gini's ``Add`` does, at level 0.

        ``simplified``: no clause repeats a variable or holds a literal with a value at level 0
        other than a unit, as in the circuit's CNF; such clauses are watched as they are.
        """
        size = 2 * (num_vars + 1)
        self.vals = [0] * size  # by literal: 1 true, -1 false, 0 unassigned
        self.levels = [-1] * (num_vars + 1)
        self.reasons: list[Clause | None] = [None] * (num_vars + 1)
        self.watches: list[list[Watch]] = [[] for _ in range(size)]
        self.trail: list[int] = []
        self.head = 0
        self.level = 0
        self.learnts: list[Clause] = []
        self.pending: Clause | None = None  # the conflict the next undo starts from
        self.broken = False  # the clauses alone are contradictory
        self._test_levels: list[int] = []
        self._end_test_level = 0
        self._seen = [False] * (num_vars + 1)
        self._redundant = [0] * (num_vars + 1)
        watches = self.watches
        for clause in clauses:
            if simplified and len(clause) > 1:
                lits = list(clause)
                watches[lits[0]].append((lits[1], lits))
                watches[lits[1]].append((lits[0], lits))
            else:
                self._add(clause)

    # -- clause database (gini Cdb.Add / Cdb.Learn) -----------------------------------------
    def _add(self, lits: Sequence[int]) -> None:
        vals = self.vals
        kept: list[int] = []
        for lit in lits:
            if vals[lit] == 1 or (lit ^ 1) in kept:
                return  # satisfied at level 0, or a tautology
            if vals[lit] == 0 and lit not in kept:
                kept.append(lit)
        if not kept:
            self.broken = True
        elif len(kept) == 1:
            self._assign(kept[0], kept)
        else:
            self._watch(kept)

    def _watch(self, clause: Clause) -> None:
        self.watches[clause[0]].append((clause[1], clause))
        self.watches[clause[1]].append((clause[0], clause))

    def _learn(self, clause: Clause) -> None:
        self.learnts.append(clause)
        if len(clause) > 1:
            self._watch(clause)

    # -- trail ------------------------------------------------------------------------------
    def _assign(self, lit: int, reason: Clause | None) -> None:
        var = lit >> 1
        self.trail.append(lit)
        self.reasons[var] = reason
        if reason is None:
            self.level += 1
        self.levels[var] = self.level
        self.vals[lit] = 1
        self.vals[lit ^ 1] = -1

    def back(self, target: int) -> None:
        """gini ``Trail.Back``: unassign down to the last literal of level ``target``."""
        if self.level <= target:
            return
        trail, levels, vals, reasons = self.trail, self.levels, self.vals, self.reasons
        i = len(trail)
        while i > 0:
            i -= 1
            lit = trail[i]
            var = lit >> 1
            if levels[var] == target:
                del trail[i + 1 :]
                self.head = i + 1
                self.level = target
                return
            vals[lit] = 0
            vals[lit ^ 1] = 0
            reasons[var] = None
            levels[var] = -1
        trail.clear()
        self.head = 0
        self.level = 0

    def propagate(self) -> Clause | None:
        """gini ``Trail.Prop``: the conflicting clause, or None."""
        vals, trail, watches = self.vals, self.trail, self.watches
        levels, reasons = self.levels, self.reasons
        while self.head < len(trail):
            false_lit = trail[self.head] ^ 1
            self.head += 1
            watching = watches[false_lit]
            kept: list[Watch] = []
            for position, watch in enumerate(watching):
                other, clause = watch
                state = vals[other]
                if state == 1:
                    kept.append(watch)
                    continue
                if len(clause) == 2:
                    if clause[0] == false_lit:
                        clause[0] = other
                        clause[1] = false_lit
                    if state == 0:
                        self._imply(other, clause, trail, vals, levels, reasons)
                        kept.append(watch)
                        continue
                    return self._conflict(false_lit, kept, watching, position, clause)
                watched = clause[0]
                if watched == false_lit:
                    watched = clause[1]
                if watched != other:
                    state = vals[watched]
                    if state == 1:
                        kept.append(watch)
                        continue
                for k in range(2, len(clause)):
                    candidate = clause[k]
                    if vals[candidate] != -1:
                        if clause[0] == false_lit:
                            clause[0] = candidate
                        else:
                            clause[1] = candidate
                        clause[k] = false_lit
                        watches[candidate].append((false_lit, clause))
                        break
                else:
                    if state != 0:
                        return self._conflict(false_lit, kept, watching, position, clause)
                    if clause[0] == false_lit:
                        clause[0] = clause[1]
                        clause[1] = false_lit
                    self._imply(clause[0], clause, trail, vals, levels, reasons)
                    kept.append(watch)
            watches[false_lit] = kept
        return None

    def _imply(
        self,
        lit: int,
        reason: Clause,
        trail: list[int],
        vals: list[int],
        levels: list[int],
        reasons: list[Clause | None],
    ) -> None:
        trail.append(lit)
        var = lit >> 1
        reasons[var] = reason
        levels[var] = self.level
        vals[lit] = 1
        vals[lit ^ 1] = -1

    def _conflict(
        self, false_lit: int, kept: list[Watch], watching: list[Watch], at: int, clause: Clause
    ) -> Clause:
        kept.extend(watching[at:])
        self.watches[false_lit] = kept
        self.head = len(self.trail)
        return clause

    # -- conflict analysis (gini Deriver) ----------------------------------------------------
    def derive(self, conflict: Clause) -> tuple[Clause, int]:
        """Learn from ``conflict``: the kept clause (asserting literal first), its target level."""
        levels, reasons, trail, seen = self.levels, self.reasons, self.trail, self._seen
        current = self.level
        learned = [0]
        at_current: list[int] = []
        present: set[int] = set()
        target = 0
        count = 0
        lits: Sequence[int] | None = conflict
        start = 0
        i = len(trail) - 1
        while i >= 0:
            if lits is not None:
                for k in range(start, len(lits)):
                    lit = lits[k]
                    var = lit >> 1
                    if seen[var]:
                        continue
                    seen[var] = True
                    level = levels[var]
                    if level == 0:
                        continue  # gini leaves these marked: they stay at level 0 for good
                    if level != current:
                        learned.append(lit)
                        if level > target:
                            target = level
                        present.add(level)
                        continue
                    at_current.append(lit)
                    count += 1
                lits = None
            lit = trail[i]
            i -= 1
            var = lit >> 1
            if not seen[var]:
                continue
            count -= 1
            if count == 0:
                learned[0] = lit ^ 1
                break
            lits = reasons[var]
            start = 1
        for lit in learned:
            seen[lit >> 1] = False
        for lit in at_current:
            seen[lit >> 1] = False
        clause = self._minimise(learned, present)
        self._learn(clause)
        return clause, target

    def _minimise(self, learned: Clause, present: set[int]) -> Clause:
        redundant = self._redundant
        for lit in learned[1:]:
            redundant[lit >> 1] = 1
        visited: list[int] = []
        kept = [learned[0]]
        for lit in learned[1:]:
            var = lit >> 1
            redundant[var] = 0
            removable = self._removable(lit, present, visited)
            redundant[var] = 1
            if not removable:
                kept.append(lit)
        for lit in visited:
            redundant[lit >> 1] = 0
        return kept

    def _removable(self, root: int, present: set[int], visited: list[int]) -> bool:
        """gini ``isRdntRec`` without recursion: implied by literals of the clause's levels."""
        redundant, reasons = self._redundant, self.reasons
        frames: list[list[int]] = []  # [var, index of the next reason literal]
        result = self._enter(root, present, visited, frames)
        while frames:
            frame = frames[-1]
            var, index = frame
            if result is False:
                redundant[var] = -1
                frames.pop()
                continue
            reason = reasons[var]
            assert reason is not None
            if index == len(reason):
                redundant[var] = 1
                frames.pop()
                result = True
                continue
            frame[1] = index + 1
            result = self._enter(reason[index], present, visited, frames)
        return bool(result)

    def _enter(
        self, lit: int, present: set[int], visited: list[int], frames: list[list[int]]
    ) -> bool | None:
        var = lit >> 1
        state = self._redundant[var]
        if state:
            return state == 1
        visited.append(lit)
        if self.reasons[var] is None or self.levels[var] not in present:
            self._redundant[var] = -1
            return False
        frames.append([var, 1])
        return None

    # -- scopes (gini Test / Untest) ---------------------------------------------------------
    def test(self, assumptions: Sequence[int]) -> bool:
        """Open a scope and assume; False when propagation (or a false assumption) fails."""
        assert self.pending is None, "test after an unresolved conflict"
        self._cleanup()
        self._test_levels.append(self.level)
        conflict = self.propagate()
        if conflict is not None:
            self.pending = conflict
            return False
        vals = self.vals
        for lit in assumptions:
            state = vals[lit]
            if state == 0:
                self._assign(lit, None)
                conflict = self.propagate()
                if conflict is not None:
                    self.pending = conflict
                    return False
            elif state == -1:
                return False  # failed without a conflict: nothing to learn
        self._end_test_level = self.level
        return True

    def untest(self) -> bool:
        """Close the latest scope; False when the state is still conflicting after learning."""
        self._end_test_level = self._test_levels.pop()
        failed = self._cleanup()
        if failed is not None:
            self.pending = failed
            return False
        self.pending = None
        return True

    def _cleanup(self) -> Clause | None:
        """gini ``cleanupSolve``: resolve the pending conflict down to the scope's level."""
        end = self._end_test_level
        while self.pending is not None:
            clause, target = self.derive(self.pending)
            unit = clause[0]
            if target < end:
                self.back(end)
                if self.levels[unit >> 1] != -1:
                    return clause
            else:
                self.back(target)
            self._assign(unit, clause)
            self.pending = self.propagate()
        self.back(end)
        return None

    def fail(self, conflict: Clause) -> None:
        """Record a conflict found outside ``test`` (a failed full solve) for the next undo."""
        self.pending = conflict

    # -- a failed full solve (gini Solve after the search ran out of choices) -----------------
    def search_conflict(self, deadline: float | None) -> None:
        """Search on from the current scope until a conflict reaches it; it becomes pending.

        Called only when the clauses are known to be unsatisfiable under the current scope, so
        this ends. Like gini's ``Solve``, learned clauses never send the trail below the scope.
        Decisions take the lowest unassigned variable, false first: gini's own order (activity
        heap, saved phases, restarts) is not reproduced.
        """
        scope = self.level
        conflicts = 0
        vals = self.vals
        while True:
            conflict = self.propagate()
            if conflict is not None:
                if self.level <= scope:
                    self.pending = conflict
                    return
                clause, target = self.derive(conflict)
                self.back(max(target, scope))
                self._assign(clause[0], clause)
                conflicts += 1
                if deadline is not None and conflicts % 64 == 0 and time.monotonic() > deadline:
                    raise SolveTimeout()
                continue
            lit = next((2 * v + 1 for v in range(1, len(self.levels)) if vals[2 * v] == 0), 0)
            if not lit:
                raise AssertionError("no conflict under a scope known to be unsatisfiable")
            self._assign(lit, None)
