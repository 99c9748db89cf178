"""Satisfiability of a subset of applied constraints via a plain PySAT encoding.

Used to verify explanations on problems too large for brute force. It encodes the five
conformance constraint types on its own (clauses and PySAT's cardinality encodings), so a bug in
the solver's encoding cannot hide itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from pysat.card import CardEnc, EncType
from pysat.solvers import Solver

from deppy.solver import (
    AppliedConstraint,
    AtMost,
    Conflict,
    Dependency,
    Mandatory,
    Prohibited,
    Variable,
)


def subset_satisfiable(variables: Sequence[Variable], applied: Sequence[AppliedConstraint]) -> bool:
    lit = {v.id: n for n, v in enumerate(variables, start=1)}
    top = len(variables)
    with Solver(name="glucose4") as solver:
        for item in applied:
            s, c = lit[item.variable.id], item.constraint
            if isinstance(c, Mandatory):
                solver.add_clause([s])
            elif isinstance(c, Prohibited):
                solver.add_clause([-s])
            elif isinstance(c, Dependency):
                solver.add_clause([-s, *(lit[i] for i in c.ids)])
            elif isinstance(c, Conflict):
                solver.add_clause([-s, -lit[c.id]])
            elif isinstance(c, AtMost):
                cnf = CardEnc.atmost(
                    [lit[i] for i in c.ids], bound=c.n, top_id=top, encoding=EncType.totalizer
                )
                top = max(top, cnf.nv)
                for clause in cnf.clauses:
                    solver.add_clause(clause)
            else:
                raise TypeError(c)
        return bool(solver.solve())
