"""The preference search as the reference runs it once a guess has failed by a conflict.

Same rules as :mod:`deppy.solver.search` (``conformance/deppy-go/README.md``), but every guess is
tested and undone on :class:`~deppy.solver.engine.Engine`, the reference's own propagation and
learning over the reference's own circuit (:mod:`deppy.solver.circuit`). An undo learns a clause
that stays for the rest of the solve and may fail the parent guess as well; a later guess may find
its candidate already false because of such a clause (``conformance/deppy-go-learned/README.md``).

This search starts from the beginning rather than from where the fast search stopped: until the
first conflict the reference has learned nothing, so both searches make the same guesses, and
replaying them costs less than handing over the fast search's state. "The same guesses" rests on
unit propagation deciding the same input literals over either encoding: an OR chain's Tseitin
clauses propagate exactly as the flat clause does, and the sorting network with both directions
of each comparator is arc-consistent for at-most (Eén and Sörensson), as counting is. The tests
check it: this search run alone gives ``solve``'s answer on every corpus instance and on random
problems, and on the catalog-500 and catalog-2000 perf instances.
"""

from __future__ import annotations

from collections.abc import Callable

from deppy.solver.circuit import encode_circuit
from deppy.solver.cnf import Problem
from deppy.solver.engine import Engine
from deppy.solver.search import Choices, LazyOracle, SearchResult


class _FullSolve:
    """The reference's ``Solve`` when the choices run out: is there a model under the guesses?

    Every literal on the engine's trail follows from the constraints and the guesses (the
    baseline assumes the constraints, and learned clauses follow from them), so the question
    is the same over the flat encoding: when the inputs true on the trail, all others false,
    satisfy the constraints, that is a model; otherwise PySAT decides. When there is none, the
    reference ends its solve with a conflict at the top scope, which the next undo analyses;
    the engine finds one by its own conflict-driven search from the current state.
    """

    def __init__(
        self, problem: Problem, engine: Engine, oracle: LazyOracle, deadline: float | None
    ) -> None:
        self._problem = problem
        self._engine = engine
        self._oracle = oracle
        self._deadline = deadline

    def satisfiable(self, guesses: list[int], lit_of: Callable[[int], int]) -> bool | None:
        """True or False as above; None when the problem has no model at all."""
        vals = self._engine.vals
        true_inputs = {lit for lit in self._problem.input_lits if vals[lit_of(lit)] == 1}
        if self._problem.satisfied_by(true_inputs):
            return True
        sat = self._oracle.get()
        if not self._oracle.satisfiable:
            return None
        if sat.solve(guesses):
            return True
        self._engine.search_conflict(self._deadline)
        return False


def learning_search(
    problem: Problem, oracle: LazyOracle, deadline: float | None = None
) -> SearchResult | None:
    """Run the search with the reference's learning; None when the problem is unsatisfiable."""
    cnf = encode_circuit(problem.variables)
    engine = Engine(cnf.num_vars, cnf.clauses, simplified=True)
    offset = cnf.input_offset

    def lit_of(flat: int) -> int:
        return 2 * (flat + offset)

    if engine.broken or not engine.test([*cnf.constraint_lits, *map(lit_of, problem.anchors)]):
        return None
    full = _FullSolve(problem, engine, oracle, deadline)
    state = _search(problem, engine, full, oracle, lit_of, deadline)
    if state is None:
        return None
    # as the reference does, undo every guess and read the values left in the baseline scope:
    # there, literals asserted by learned clauses count as well
    lits = state.lits()
    for _ in lits:
        engine.untest()
    vals = engine.vals
    base = {lit for lit in problem.input_lits if vals[lit_of(lit)] == 1}
    return SearchResult(lits, sorted(base | set(lits)), None)


def _search(
    problem: Problem,
    engine: Engine,
    full: _FullSolve,
    oracle: LazyOracle,
    lit_of: Callable[[int], int],
    deadline: float | None,
) -> Choices | None:
    state = Choices(problem, oracle, deadline)
    failed = False
    while True:
        state.tick()
        if not state.pending and not failed:
            outcome = full.satisfiable(state.lits(), lit_of)
            if outcome is None:
                return None
            if outcome:
                return state
            failed = True
        if failed:
            if state.hopeless():
                return None
            if state.undo():
                failed = not engine.untest()
            continue
        lit = state.guess()
        if lit:
            failed = not engine.test([lit_of(lit)])
