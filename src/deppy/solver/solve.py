"""``solve``: the public entry point of the domain-agnostic solver."""

from __future__ import annotations

import gc
import time

from deppy.solver.cnf import encode_problem
from deppy.solver.errors import NotSatisfiable, SolveTimeout
from deppy.solver.explain import minimal_core
from deppy.solver.propagation import Propagator
from deppy.solver.search import Handover, LazyOracle, preference_search

TYPE_CHECKING = False  # `deppy solve` pays for every import (tests/test_solve_startup.py)
if TYPE_CHECKING:
    from collections.abc import Sequence

    from deppy.solver.cnf import Problem
    from deppy.solver.model import Variable
    from deppy.solver.oracle import SatOracle
    from deppy.solver.search import SearchResult

__all__ = ["solve"]


def solve(
    variables: Sequence[Variable], *, deadline: float | None = None, where: str = "problem"
) -> list[Variable]:
    """The selected variables, in input order, or ``NotSatisfiable`` with a minimal core.

    ``deadline`` is a ``time.monotonic()`` instant; past it, ``SolveTimeout`` is raised.

    The cyclic garbage collector is paused meanwhile: a solve allocates hundreds of thousands of
    small lists that never form cycles, and on large problems the collector's repeated scans of
    them cost as much as the solve itself (measured: catalog-8000 takes 0.35 s with it running,
    0.18 s without). Reference counting still frees everything; the previous state is restored.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _solve(variables, deadline, where)
    finally:
        if was_enabled:
            gc.enable()


def _solve(variables: Sequence[Variable], deadline: float | None, where: str) -> list[Variable]:
    problem = encode_problem(variables, where)
    if deadline is not None and time.monotonic() > deadline:
        raise SolveTimeout()
    propagator = Propagator(problem.top, problem.clauses, problem.at_most)
    if propagator.conflict:
        raise NotSatisfiable(minimal_core(problem, deadline))
    oracle = LazyOracle(problem, deadline)
    try:
        found = preference_search(problem, propagator, oracle, deadline)
        if isinstance(found, Handover):
            # imported when first needed: most solves never hand over, and the learning
            # search's modules are a tenth of `deppy solve`'s start-up
            from deppy.solver.learning import learning_search

            found = learning_search(problem, oracle, deadline)
        if found is None:
            raise NotSatisfiable(minimal_core(problem, deadline))
        chosen = select(problem, found, oracle)
    finally:
        oracle.close()
    # only input literals are ever chosen; sorting the few chosen beats scanning every input
    return [problem.variables[lit - 1] for lit in sorted(chosen)]


def select(problem: Problem, found: SearchResult, oracle: LazyOracle) -> set[int]:
    """The selected input literals: the guesses, then as few extras as possible."""
    if found.forced is not None:
        # The completion sets only forced literals: no model can select fewer extras.
        return found.forced
    assert found.model is not None
    sat = oracle.get()
    picked = _fewest_extras(problem, sat, found.guesses, found.model)
    if picked is None:
        # The learning search's base values do not extend to a model: a choice that the
        # learning skipped was left to the minimisation. The reference then returns a selection
        # that violates its constraints; minimise from a real model instead.
        assert sat.solve(found.guesses)
        picked = _fewest_extras(problem, sat, found.guesses, sat.model())
    assert picked is not None
    return picked


def _fewest_extras(
    problem: Problem, oracle: SatOracle, guesses: list[int], model: list[int]
) -> set[int] | None:
    """Keep the guesses, drop what the model left out, then select as few extras as possible.

    As the reference does, every input false in ``model`` is assumed false and the inputs true
    in it (the *extras*) are minimised; None when that admits no model at all.
    """
    guessed = set(guesses)
    true_in_model = {lit for lit in model if lit > 0}
    extras: list[int] = []
    excluded: list[int] = []
    for lit in problem.input_lits:
        if lit in guessed:
            continue
        if lit in true_in_model:
            extras.append(lit)
        else:
            excluded.append(-lit)
    base = [*guesses, *excluded]
    if oracle.solve([*base, *(-lit for lit in extras)]):
        return guessed
    if not extras or not oracle.solve(base):
        return None
    from pysat.card import ITotalizer

    totalizer = ITotalizer(lits=extras, ubound=len(extras), top_id=oracle.top)
    oracle.add_clauses(totalizer.cnf.clauses, totalizer.top_id)
    for bound in range(1, len(extras) + 1):
        # rhs[bound] is true when more than ``bound`` extras are selected
        limit = [-totalizer.rhs[bound]] if bound < len(totalizer.rhs) else []
        if oracle.solve([*base, *limit]):
            selected = {lit for lit in oracle.model() if 0 < lit <= len(problem.variables)}
            return selected
    return None  # pragma: no cover (the bound of all extras holds whenever ``base`` does)
