"""The preference search of the reference solver, step for step.

Breadth-first from the anchors: a deque of *choices* (candidate lists with the index of the next
candidate to try), one per anchor at first. Guessing a candidate appends one choice per
dependency it has and assumes it; unit propagation alone judges the guess. When no choice is
left a full SAT solve decides; on failure the latest guess is undone and its choice is put back
at the front with the next candidate. ``conformance/deppy-go/README.md`` states these rules.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

from deppy.solver.cnf import Problem
from deppy.solver.errors import SolveTimeout
from deppy.solver.oracle import SatOracle
from deppy.solver.propagation import Propagator

_DEADLINE_CHECK_EVERY = 256
# After this many bad guesses, check once with a full solve that a solution exists at all: the
# search would find out too, but only after trying every combination of candidates.
_FAILURES_BEFORE_SAT_CHECK = 64


@dataclass(slots=True)
class _Choice:
    candidates: list[int]
    index: int = 0


@dataclass(slots=True)
class _Guess:
    lit: int  # 0 when nothing was assumed (choice already satisfied or exhausted)
    index: int
    candidates: list[int]
    children: int = 0


@dataclass(slots=True)
class SearchResult:
    guesses: list[int]  # assumed literals, in the order they were guessed
    model: list[int] | None  # a SAT model under the guesses, when one had to be computed
    forced: set[int] | None  # else: the input literals true in the cheapest completion


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


def preference_search(
    problem: Problem,
    propagator: Propagator,
    oracle: LazyOracle,
    deadline: float | None = None,
) -> SearchResult | None:
    """Run the search; None when the problem is unsatisfiable."""
    choices: deque[_Choice] = deque(_Choice([anchor]) for anchor in problem.anchors)
    guesses: list[_Guess] = []
    assumed: set[int] = set()
    preferences = problem.preferences
    failed = propagator.conflict
    failures = 0
    steps = 0
    num_inputs = len(problem.variables)
    while True:
        steps += 1
        if (
            deadline is not None
            and steps % _DEADLINE_CHECK_EVERY == 0
            and time.monotonic() > deadline
        ):
            raise SolveTimeout()
        if not choices and not failed:
            lits = [g.lit for g in guesses if g.lit]
            forced = propagator.completion(num_inputs)
            if forced is not None:
                return SearchResult(lits, None, forced)
            sat = oracle.get()
            if not oracle.satisfiable:
                return None
            if sat.solve(lits):
                return SearchResult(lits, sat.model(), None)
            failed = True
        if failed:
            failures += 1
            if failures == _FAILURES_BEFORE_SAT_CHECK:
                oracle.get()
                if not oracle.satisfiable:
                    return None
            if not guesses:
                return None
            guess = guesses.pop()
            if guess.lit:
                assumed.discard(guess.lit)
                propagator.pop()
                failed = False
            for _ in range(guess.children):
                choices.pop()
            choices.appendleft(_Choice(guess.candidates, guess.index + (1 if guess.lit else 0)))
            continue
        choice = choices.popleft()
        candidates = choice.candidates
        lit = candidates[choice.index] if choice.index < len(candidates) else 0
        if lit and any(c in assumed for c in candidates):
            lit = 0
        guess = _Guess(lit, choice.index, candidates)
        guesses.append(guess)
        if not lit:
            continue
        for dependency in preferences.get(lit, ()):
            guess.children += 1
            choices.append(_Choice(dependency))
        assumed.add(lit)
        propagator.push()
        failed = not propagator.assume(lit)
