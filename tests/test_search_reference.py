"""The incremental propagator against PySAT's own propagation, on instances too big for brute force.

``reference_selection`` runs the reference search literally as the conformance README states it,
judging each guess with PySAT's ``propagate()`` over all current assumptions (the slow,
from-scratch way). The production search must pick the same selection.
"""

from __future__ import annotations

from collections import deque

import pytest
from pysat.card import CardEnc, EncType
from pysat.solvers import Solver

from deppy.problem import load_problem
from deppy.solver import Dependency, Mandatory, Variable, solve
from tests.conftest import shared_path
from tests.sat_check import subset_satisfiable
from tests.semantics import applied_constraints


def _solver(variables: list[Variable]) -> tuple[Solver, dict[str, int]]:
    lit = {v.id: n for n, v in enumerate(variables, start=1)}
    solver = Solver(name="glucose4")
    top = len(variables)
    for v in variables:
        for c in v.constraints:
            kind = type(c).__name__
            s = lit[v.id]
            if kind == "Mandatory":
                solver.add_clause([s])
            elif kind == "Prohibited":
                solver.add_clause([-s])
            elif kind == "Dependency":
                solver.add_clause([-s, *(lit[i] for i in c.ids)])  # type: ignore[attr-defined]
            elif kind == "Conflict":
                solver.add_clause([-s, -lit[c.id]])  # type: ignore[attr-defined]
            elif kind == "AtMost":
                lits = [lit[i] for i in c.ids]  # type: ignore[attr-defined]
                if len(lits) > c.n:  # type: ignore[attr-defined]
                    cnf = CardEnc.atmost(lits, c.n, top_id=top, encoding=EncType.seqcounter)  # type: ignore[attr-defined]
                    top = max(top, cnf.nv)
                    for clause in cnf.clauses:
                        solver.add_clause(clause)
    return solver, lit


def reference_selection(variables: list[Variable]) -> list[str]:
    solver, lit = _solver(variables)
    ident = {n: i for i, n in lit.items()}
    anchors = [lit[v.id] for v in variables if any(isinstance(c, Mandatory) for c in v.constraints)]
    deps = {
        lit[v.id]: [
            [lit[i] for i in c.ids] for c in v.constraints if isinstance(c, Dependency) and c.ids
        ]
        for v in variables
    }
    choices = deque([[a], 0] for a in anchors)
    guesses: list[tuple[int, int, list[int], int]] = []
    failed = False
    while True:
        if not choices and not failed:
            assumed = [g[0] for g in guesses if g[0]]
            if solver.solve(assumptions=assumed):
                model = solver.get_model()
                break
            failed = True
        if failed:
            assert guesses, "the corpus instances used here are satisfiable"
            m, index, candidates, children = guesses.pop()
            failed = failed if not m else False
            for _ in range(children):
                choices.pop()
            choices.appendleft([candidates, index + (1 if m else 0)])
            continue
        candidates, index = choices.popleft()
        assumed_set = {g[0] for g in guesses if g[0]}
        m = candidates[index] if index < len(candidates) else 0
        if any(c in assumed_set for c in candidates):
            m = 0
        children = len(deps[m]) if m else 0
        guesses.append((m, index, candidates, children))
        if not m:
            continue
        for dep in deps[m]:
            choices.append([dep, 0])
        ok, _ = solver.propagate(assumptions=[*assumed_set, m])
        failed = not ok
    guessed = {g[0] for g in guesses if g[0]}
    solver.delete()
    count = len(variables)
    extras = [n for n in range(1, count + 1) if n not in guessed and model[n - 1] > 0]
    fixed = [*guessed, *(-n for n in range(1, count + 1) if n not in guessed and model[n - 1] < 0)]
    for bound in range(len(extras) + 1):
        bounded, _ = _solver(variables)
        if bound < len(extras):
            top = max(bounded.nof_vars(), count)
            cnf = CardEnc.atmost(extras, bound, top_id=top, encoding=EncType.seqcounter)
            for clause in cnf.clauses:
                bounded.add_clause(clause)
        if bounded.solve(assumptions=fixed):
            chosen = [n for n in bounded.get_model()[:count] if n > 0]
            bounded.delete()
            return [ident[n] for n in chosen]
        bounded.delete()
    raise AssertionError("minimisation found no model")


@pytest.mark.parametrize("name", ["catalog-500.json", "catalog-2000.json"])
def test_large_instance_matches_from_scratch_propagation(name: str) -> None:
    variables = load_problem(shared_path("conformance/deppy-go/perf", name))
    ours = [v.id for v in solve(variables)]
    assert ours == reference_selection(variables)
    assert subset_satisfiable(variables, applied_constraints(variables))
