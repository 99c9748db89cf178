"""The preference search of the reference solver, step for step.

Breadth-first from the anchors: a deque of *choices* (candidate lists with the index of the next
candidate to try), one per anchor at first. Guessing a candidate appends one choice per
dependency it has and assumes it; unit propagation alone judges the guess. When no choice is
left a full SAT solve decides; on failure the latest guess is undone and its choice is put back
at the front with the next candidate. ``conformance/deppy-go/README.md`` states these rules.

This is the fast search: it propagates the flat clauses and counts at-most constraints, and it
is exact as long as the reference has learned nothing. At the first guess that fails by a
conflict (or the first full solve that fails) it hands over to :mod:`deppy.solver.learning`.
"""

from __future__ import annotations

import time
from collections import deque

from deppy.solver.errors import SolveTimeout
from deppy.solver.oracle import SatOracle

TYPE_CHECKING = False  # `deppy solve` pays for every import (tests/test_solve_startup.py)
if TYPE_CHECKING:
    from deppy.solver.cnf import Problem
    from deppy.solver.propagation import Propagator

DEADLINE_CHECK_EVERY = 256
# After this many bad guesses, check once with a full solve that a solution exists at all: the
# search would find out too, but only after trying every combination of candidates.
FAILURES_BEFORE_SAT_CHECK = 64


class Choice:
    __slots__ = ("candidates", "index")

    def __init__(self, candidates: list[int], index: int = 0) -> None:
        self.candidates = candidates
        self.index = index


class Guess:
    __slots__ = ("candidates", "children", "index", "lit")

    def __init__(self, lit: int, index: int, candidates: list[int]) -> None:
        self.lit = lit  # 0 when nothing was assumed (choice already satisfied or exhausted)
        self.index = index
        self.candidates = candidates
        self.children = 0


class SearchResult:
    __slots__ = ("forced", "guesses", "model")

    def __init__(
        self, guesses: list[int], model: list[int] | None, forced: set[int] | None
    ) -> None:
        self.guesses = guesses  # assumed literals, in the order they were guessed
        self.model = model  # a SAT model under the guesses, when one had to be computed
        self.forced = forced  # else: the input literals true in the cheapest completion


class LazyOracle:
    """The SAT oracle, built only when the search cannot do without it.

    Most package-shaped problems end with an assignment that extends to a model by leaving
    everything else unselected; building a PySAT instance for them would cost more than the search.
    """

    def __init__(self, problem: Problem, deadline: float | None) -> None:
        self._problem = problem
        self._deadline = deadline
        self._oracle: SatOracle | None = None
        self.satisfiable: bool | None = None

    def get(self) -> SatOracle:
        if self._oracle is None:
            self._oracle = SatOracle(self._problem, guarded=False, deadline=self._deadline)
            self.satisfiable = self._oracle.solve()
        return self._oracle

    def close(self) -> None:
        if self._oracle is not None:
            self._oracle.close()


class Choices:
    """The search's deque of choices and stack of guesses, kept as the reference keeps them.

    Shared by the fast search and the learning search: they differ only in how a guess is
    judged and undone, never in which guess comes next.
    """

    def __init__(self, problem: Problem, oracle: LazyOracle, deadline: float | None) -> None:
        self.pending: deque[Choice] = deque(Choice([anchor]) for anchor in problem.anchors)
        self.guesses: list[Guess] = []
        self._assumed: set[int] = set()
        self._preferences = problem.preferences
        self._oracle = oracle
        self._deadline = deadline
        self._steps = 0
        self._failures = 0

    def tick(self) -> None:
        """Count a step of the search; past the deadline, stop it."""
        self._steps += 1
        if (
            self._deadline is not None
            and self._steps % DEADLINE_CHECK_EVERY == 0
            and time.monotonic() > self._deadline
        ):
            raise SolveTimeout()

    def hopeless(self) -> bool:
        """Count a failure; True when the guesses are used up or no solution exists at all."""
        self._failures += 1
        if self._failures == FAILURES_BEFORE_SAT_CHECK:
            self._oracle.get()
            if not self._oracle.satisfiable:
                return True
        return not self.guesses

    def guess(self) -> int:
        """Take the front choice: the candidate to assume, or 0 when it assumes nothing."""
        choice = self.pending.popleft()
        candidates = choice.candidates
        lit = candidates[choice.index] if choice.index < len(candidates) else 0
        if lit and not self._assumed.isdisjoint(candidates):
            lit = 0
        guess = Guess(lit, choice.index, candidates)
        self.guesses.append(guess)
        if lit:
            for dependency in self._preferences.get(lit, ()):
                guess.children += 1
                self.pending.append(Choice(dependency))
            self._assumed.add(lit)
        return lit

    def undo(self) -> int:
        """Undo the latest guess; returns the literal it had assumed (0 for none)."""
        guess = self.guesses.pop()
        self._assumed.discard(guess.lit)
        for _ in range(guess.children):
            self.pending.pop()
        self.pending.appendleft(Choice(guess.candidates, guess.index + (1 if guess.lit else 0)))
        return guess.lit

    def lits(self) -> list[int]:
        return [g.lit for g in self.guesses if g.lit]


class Handover:
    """The search met a failure the reference learns from; the learning search must decide."""


HANDOVER = Handover()


def preference_search(
    problem: Problem,
    propagator: Propagator,
    oracle: LazyOracle,
    deadline: float | None = None,
) -> SearchResult | Handover | None:
    """Run the search; None when the problem is unsatisfiable.

    Returns ``HANDOVER`` at the first guess that fails by a conflict, or the first full solve
    that fails: from there on the reference's answer depends on the clauses it learns
    (:mod:`deppy.solver.learning`). Up to that point it has learned nothing, and this search,
    propagating the flat clauses, makes the same guesses at a fraction of the cost. A candidate
    that is already false fails without a conflict, so nothing is learned from it here either.
    """
    state = Choices(problem, oracle, deadline)
    failed = propagator.conflict
    num_inputs = len(problem.variables)
    while True:
        state.tick()
        if not state.pending and not failed:
            lits = state.lits()
            forced = propagator.completion(num_inputs)
            if forced is not None:
                return SearchResult(lits, None, forced)
            sat = oracle.get()
            if not oracle.satisfiable:
                return None
            if sat.solve(lits):
                return SearchResult(lits, sat.model(), None)
            return HANDOVER
        if failed:
            if state.hopeless():
                return None
            if state.undo():
                propagator.pop()
                failed = False
            continue
        lit = state.guess()
        if not lit:
            continue
        propagator.push()
        if propagator.value(lit) == -1:
            failed = True
        elif not propagator.assume(lit):
            return HANDOVER
