"""The preference search as the reference runs it once a guess has failed by a conflict.

Same rules as :mod:`deppy.solver.search` (``conformance/deppy-go/README.md``), but every guess is
tested and undone on :class:`~deppy.solver.engine.Engine`, the reference's own propagation and
learning over the reference's own circuit (:mod:`deppy.solver.circuit`). An undo learns a clause
that stays for the rest of the solve and may fail the parent guess as well; a later guess may find
its candidate already false because of such a clause (``conformance/deppy-go-learned/README.md``).

This search starts from the beginning rather than from where the fast search stopped: until the
first conflict the reference has learned nothing, so both searches make the same guesses (unit
propagation over either encoding decides the same input literals), and replaying them costs
less than handing over the fast search's state.
"""

from __future__ import annotations

from collections.abc import Callable

from deppy.solver.circuit import CircuitCnf, encode_circuit, signed
from deppy.solver.cnf import Problem
from deppy.solver.engine import Engine
from deppy.solver.oracle import SatOracle
from deppy.solver.search import Choices, LazyOracle, SearchResult


class _FullSolve:
    """The reference's ``Solve`` when the choices run out: PySAT decides, the engine explains.

    When the inputs true on the trail, all others false, satisfy the constraints, that is a
    model (the trail and the learned clauses follow from the constraints) and no solver is
    needed. Otherwise PySAT answers over the circuit's clauses plus every clause learned so far,
    under everything the engine has assigned. When that is unsatisfiable the reference ends its
    solve with a conflict at the top scope, which the next undo analyses; the engine finds one
    by its own conflict-driven search from the current state, learning as the reference does.
    """

    def __init__(
        self, problem: Problem, cnf: CircuitCnf, engine: Engine, deadline: float | None
    ) -> None:
        self._problem = problem
        self._cnf = cnf
        self._engine = engine
        self._oracle: SatOracle | None = None
        self._learned = 0
        self._deadline = deadline

    def satisfiable(self) -> bool:
        engine, cnf = self._engine, self._cnf
        vals, offset = engine.vals, cnf.input_offset
        true_inputs = {lit for lit in self._problem.input_lits if vals[2 * (lit + offset)] == 1}
        if self._problem.satisfied_by(true_inputs):
            return True
        if self._oracle is None:
            self._oracle = SatOracle(None, top=cnf.num_vars, deadline=self._deadline)
            self._oracle.add_clauses(([signed(x) for x in c] for c in cnf.clauses), cnf.num_vars)
        fresh = engine.learnts[self._learned :]
        self._learned = len(engine.learnts)
        self._oracle.add_clauses(([signed(x) for x in c] for c in fresh), 0)
        if self._oracle.solve([signed(x) for x in engine.trail]):
            return True
        engine.search_conflict(self._deadline)
        return False

    def close(self) -> None:
        if self._oracle is not None:
            self._oracle.close()


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
    full = _FullSolve(problem, cnf, engine, deadline)
    try:
        state = _search(problem, engine, full, oracle, lit_of, deadline)
        if state is None:
            return None
        lits = state.lits()
        for _ in lits:
            engine.untest()
        vals = engine.vals
        base = {lit for lit in problem.input_lits if vals[lit_of(lit)] == 1}
        return SearchResult(lits, sorted(base | set(lits)), None)
    finally:
        full.close()


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
            if full.satisfiable():
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
