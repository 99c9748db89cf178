"""Property tests: the solver against brute force on small random problems."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deppy.solver import (
    And,
    AppliedConstraint,
    AtMost,
    Conflict,
    Constraint,
    Dependency,
    Mandatory,
    Not,
    NotSatisfiable,
    Or,
    Prohibited,
    Variable,
    solve,
)
from tests.semantics import applied_constraints, has_model, satisfied

IDS = [f"v{n}" for n in range(6)]


def _leaf(ids: list[str]) -> st.SearchStrategy[Constraint]:
    some = st.lists(st.sampled_from(ids), min_size=0, max_size=3)
    return st.one_of(
        st.just(Mandatory()),
        st.just(Prohibited()),
        some.map(lambda xs: Dependency(*xs)),
        st.sampled_from(ids).map(Conflict),
        st.tuples(st.integers(0, 2), some).map(lambda t: AtMost(t[0], *t[1])),
    )


def _gate(ids: list[str]) -> st.SearchStrategy[Constraint]:
    return st.recursive(
        _leaf(ids),
        lambda inner: st.one_of(
            st.lists(inner, max_size=3).map(lambda cs: And(*cs)),
            st.lists(inner, max_size=3).map(lambda cs: Or(*cs)),
            inner.map(Not),
        ),
        max_leaves=4,
    )


@st.composite
def problems(draw: st.DrawFn, gates: bool = False) -> list[Variable]:
    count = draw(st.integers(1, len(IDS)))
    ids = IDS[:count]
    kind = _gate(ids) if gates else _leaf(ids)
    return [Variable(i, draw(st.lists(kind, max_size=3))) for i in ids]


ModelExists = Callable[[Sequence[Variable], Sequence[AppliedConstraint]], bool]


def check(variables: list[Variable], model_exists: ModelExists = has_model) -> None:
    """Valid selections, or unsat with a minimal core, judged by ``model_exists``."""
    applied = applied_constraints(variables)
    try:
        selection = {v.id for v in solve(variables)}
    except NotSatisfiable as unsat:
        assert not model_exists(variables, applied), "solver said unsat but a model exists"
        core = list(unsat.constraints)
        assert core and not model_exists(variables, core), "the core must be unsatisfiable"
        for n in range(len(core)):
            assert model_exists(variables, core[:n] + core[n + 1 :]), "the core must be minimal"
        return
    assert satisfied(applied, selection), "every constraint holds on the selection"
    anchors = {v.id for v in variables if any(isinstance(c, Mandatory) for c in v.constraints)}
    assert anchors <= selection


FAST = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(problems())
def test_basic_constraints_agree_with_brute_force(variables: list[Variable]) -> None:
    check(variables)


@FAST
@given(problems(gates=True))
def test_composition_gates_agree_with_brute_force(variables: list[Variable]) -> None:
    check(variables)


@FAST
@given(problems())
def test_every_selected_variable_is_wanted(variables: list[Variable]) -> None:
    """With the basic types only anchors and dependencies can require a selection, so anything
    else selected would be an avoidable extra."""
    try:
        selection = {v.id for v in solve(variables)}
    except NotSatisfiable:
        return
    wanted = set()
    for v in variables:
        for c in v.constraints:
            if isinstance(c, Mandatory):
                wanted.add(v.id)
            if isinstance(c, Dependency) and v.id in selection:
                wanted.update(c.ids)
    assert selection <= wanted


def test_deterministic_output() -> None:
    variables = [
        Variable("a", [Mandatory(), Dependency("x", "y")]),
        Variable("b", [Mandatory(), Dependency("y", "x")]),
        Variable("x"),
        Variable("y"),
        Variable("u", [AtMost(1, "x", "y")]),
    ]
    runs = {tuple(v.id for v in solve(variables)) for _ in range(5)}
    assert len(runs) == 1
