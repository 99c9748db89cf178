"""The learning search (the reference's Test/Untest over its own circuit) and the fast search.

``solve`` runs the fast search and hands over to the learning search at the first guess that
fails by a conflict. The hand-over is sound only if, up to that point, both searches make the
same guesses and, when no hand-over happens, end with the same selection. These tests run the
learning search alone from the start and compare it with ``solve`` — on every corpus instance and
on random problems — and check what the reference's README says the learning does.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from benchmarks.solver_perf import pigeonhole
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deppy.problem import load_problem
from deppy.solver import (
    AtMost,
    Clause,
    Conflict,
    Constraint,
    Dependency,
    Mandatory,
    NotSatisfiable,
    SolveTimeout,
    Variable,
    solve,
)
from deppy.solver.circuit import Circuit, encode_circuit, gini
from deppy.solver.cnf import encode_problem
from deppy.solver.engine import Engine
from deppy.solver.learning import learning_search
from deppy.solver.search import LazyOracle
from deppy.solver.solve import select
from tests.conftest import shared_path
from tests.sat_check import subset_satisfiable
from tests.semantics import applied_constraints, has_model, satisfied
from tests.test_solver_properties import check, problems


def learning_only(variables: list[Variable]) -> list[str] | None:
    """The selection of the learning search run from the start; None when unsatisfiable."""
    problem = encode_problem(variables)
    oracle = LazyOracle(problem, None)
    try:
        found = learning_search(problem, oracle)
        if found is None:
            return None
        chosen = select(problem, found, oracle)
    finally:
        oracle.close()
    return [v.id for n, v in enumerate(variables, start=1) if n in chosen]


def fast_then_learning(variables: list[Variable]) -> list[str] | None:
    try:
        return [v.id for v in solve(variables)]
    except NotSatisfiable:
        return None


def _corpus(folder: str) -> list[str]:
    path = shared_path(folder, "expected.jsonl")
    return [json.loads(line)["instance"] for line in path.read_text().splitlines()]


@pytest.mark.parametrize("name", _corpus("conformance/deppy-go"))
def test_learning_search_alone_agrees_on_the_first_corpus(name: str) -> None:
    variables = load_problem(shared_path("conformance/deppy-go", "instances", name))
    assert learning_only(variables) == fast_then_learning(variables)


@pytest.mark.parametrize("name", ["catalog-500.json", "catalog-2000.json"])
def test_learning_search_alone_agrees_at_scale(name: str) -> None:
    variables = load_problem(shared_path("conformance/deppy-go/perf", name))
    assert learning_only(variables) == fast_then_learning(variables)


def test_catalog_20461_fails_the_parent_guess() -> None:
    """The README's worked example: the clause learned from p0.v6 fails p73.v3 at once."""
    path = shared_path("conformance/deppy-go-learned", "instances", "catalog-20461.json")
    selected = set(learning_only(load_problem(path)) or ())
    assert {"p73.v2", "p0.v5"} <= selected
    assert not {"p73.v3", "p0.v6"} & selected


def test_a_failed_full_solve_fails_the_last_guess(monkeypatch: pytest.MonkeyPatch) -> None:
    """After a hand-over (c1 fails by a conflict), g1 passes propagation but leaves x and y no
    value (a parity clash that propagation cannot see): the full solve fails, the engine finds
    the conflict the next undo learns from, and g2 is taken instead."""
    calls = []
    original = Engine.search_conflict

    def counted(engine: Engine, deadline: float | None) -> None:
        calls.append(engine.level)
        original(engine, deadline)

    monkeypatch.setattr(Engine, "search_conflict", counted)
    parity = [
        Clause(("g1", False), ("x", x), ("y", y)) for x in (True, False) for y in (True, False)
    ]
    variables = [
        Variable("b", [Mandatory(), Dependency("c1", "c2")]),
        Variable("a", [Mandatory(), Dependency("g1", "g2")]),
        Variable("c1", [Dependency("d"), Dependency("e")]),
        *(Variable(i) for i in ("c2", "d", "e")),
        Variable("u", [AtMost(1, "d", "e")]),
        *(Variable(i) for i in ("g1", "g2", "x", "y")),
        Variable("parity", parity),
    ]
    assert [v.id for v in solve(variables)] == ["b", "a", "c2", "g2"]
    assert len(calls) == 1
    assert learning_only(variables) == ["b", "a", "c2", "g2"]


def test_deadline_stops_the_learning_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pigeonhole's second guess fails by a conflict, so the deadline meets the learning
    search (the benchmark prints how close to the limit it stops)."""
    entered = []
    import deppy.solver.learning as learning_module  # solve imports it when first needed

    original = learning_module.learning_search

    def counted(*args: Any, **kwargs: Any) -> Any:
        entered.append(True)
        return original(*args, **kwargs)

    monkeypatch.setattr(learning_module, "learning_search", counted)
    started = time.monotonic()
    with pytest.raises(SolveTimeout):
        solve(pigeonhole(12), deadline=started + 0.5)
    assert entered
    assert time.monotonic() - started < 5


def test_circuit_shares_gates_and_pads_at_most_to_a_power_of_two() -> None:
    variables = [Variable(i) for i in "abc"]
    circuit = Circuit(variables)
    a, b, c = circuit.lits(["a", "b", "c"])
    assert circuit.and2(a, b) == circuit.and2(b, a)
    assert circuit.or_gate([-a, b]) == -circuit.and2(a, -b)
    assert circuit.and2(a, -a) == -circuit.true()
    before = len(circuit.fanin)
    leq = circuit.at_most_gate(1, [a, b, c])
    # three wires padded with one constant: the comparators that meet it fold away
    assert 0 < len(circuit.fanin) - before < 2 * 5
    assert circuit.at_most_gate(3, [a, b, c]) == circuit.true()
    assert leq not in (circuit.true(), -circuit.true())


def test_engine_learns_and_asserts_one_scope_up() -> None:
    """a needs p and q, at most one of them: guessing a conflicts, and ¬a is learned for good."""
    variables = [
        Variable("a", [Dependency("p"), Dependency("q")]),
        Variable("p"),
        Variable("q"),
        Variable("u", [AtMost(1, "p", "q")]),
    ]
    cnf = encode_circuit(variables)
    engine = Engine(cnf.num_vars, cnf.clauses)
    a = gini(2)  # input k of the problem is circuit variable k + 1
    assert engine.test(cnf.constraint_lits)
    assert engine.vals[a] == 0
    assert not engine.test([a])
    assert engine.pending is not None
    assert engine.untest()
    assert len(engine.learnts) == 1
    assert engine.vals[a] == -1  # asserted in the scope below the undone guess
    assert engine.learnts[0][0] == a ^ 1


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_learning_search_alone_agrees_with_solve(variables: list[Variable]) -> None:
    ours = learning_only(variables)
    assert ours == fast_then_learning(variables)
    applied = applied_constraints(variables)
    if ours is None:
        assert not has_model(variables, applied)
    else:
        assert satisfied(applied, set(ours))


@st.composite
def catalogs(draw: st.DrawFn) -> list[Variable]:
    """Small package catalogs shaped like the corpus, where guesses do fail by conflicts."""
    count = draw(st.integers(2, 5))
    versions = {
        p: [f"p{p}.v{v}" for v in reversed(range(draw(st.integers(1, 3))))] for p in range(count)
    }
    variables = []
    for p, ids in versions.items():
        others = [q for q in versions if q != p]
        for vid in ids:
            constraints: list[Constraint] = []
            for q in draw(st.lists(st.sampled_from(others), max_size=2)):
                offered = st.lists(st.sampled_from(versions[q]), min_size=1, unique=True)
                constraints.append(Dependency(*draw(offered)))
            if draw(st.integers(0, 3)) == 0:
                q = draw(st.sampled_from(others))
                constraints.append(Conflict(draw(st.sampled_from(versions[q]))))
            variables.append(Variable(vid, constraints))
    for p, ids in versions.items():
        variables.append(Variable(f"p{p} uniqueness", [Mandatory(), AtMost(1, *ids)]))
    for p in draw(st.lists(st.sampled_from(list(versions)), min_size=1, max_size=3, unique=True)):
        variables.append(Variable(f"required p{p}", [Mandatory(), Dependency(*versions[p])]))
    return variables


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(catalogs())
def test_catalogs_agree_with_an_independent_encoding(variables: list[Variable]) -> None:
    """One solve in six hands over to the learning search here (none do in the other tests)."""
    check(variables, subset_satisfiable)
    assert learning_only(variables) == fast_then_learning(variables)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(gates=True))
def test_learning_search_alone_handles_composite_constraints(variables: list[Variable]) -> None:
    """And, Or, Not and at-most under Not go through the circuit as gini gates: still valid."""
    ours = learning_only(variables)
    applied = applied_constraints(variables)
    if ours is None:
        assert not has_model(variables, applied)
    else:
        assert satisfied(applied, set(ours))
