"""Minimal unsatisfiable subsets of applied constraints.

The Go original reports the solver's final conflict, which often drags in constraints that play
no part in the clash. We report a minimal subset instead: every constraint listed is needed, so
each one is a place where the user could act.
"""

from __future__ import annotations

from deppy.solver.cnf import Problem
from deppy.solver.model import AppliedConstraint
from deppy.solver.oracle import SatOracle


def minimal_core(problem: Problem, deadline: float | None = None) -> list[AppliedConstraint]:
    """Applied constraints that clash, minimal, in input order.

    Deletion-based: start from the SAT solver's core, try dropping each member in input order
    and, when the rest is still unsatisfiable, shrink to the new (smaller) core the solver gives.
    """
    with SatOracle(problem, guarded=True, deadline=deadline) as oracle:
        group_of = {selector: index for index, selector in enumerate(oracle.selectors)}
        if oracle.solve(oracle.selectors):
            raise AssertionError("minimal_core called on a satisfiable problem")
        current = sorted(group_of[s] for s in oracle.core())
        necessary: set[int] = set()
        position = 0
        while position < len(current):
            candidate = current[position]
            if candidate in necessary:
                position += 1
                continue
            trial = [oracle.selectors[i] for i in current if i != candidate]
            if oracle.solve(trial):
                necessary.add(candidate)
                position += 1
            else:
                shrunk = {group_of[s] for s in oracle.core()}
                current = [i for i in current if i in shrunk]
                position = sum(1 for i in current if i < candidate)
    return [problem.applied(i) for i in current]
