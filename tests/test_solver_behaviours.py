"""The reference suite's behaviours in words, plus errors and deadlines."""

from __future__ import annotations

import time

import pytest
from benchmarks.solver_perf import pigeonhole

from deppy.errors import DeppyError
from deppy.solver import (
    And,
    AtMost,
    Clause,
    Conflict,
    Dependency,
    DuplicateIdentifier,
    Mandatory,
    Not,
    NotSatisfiable,
    Or,
    Prohibited,
    SolveTimeout,
    UnknownIdentifier,
    Variable,
    solve,
)


def ids(variables: list[Variable]) -> list[str]:
    return [v.id for v in solve(variables)]


def test_unconstrained_variable_is_not_selected() -> None:
    assert ids([Variable("a")]) == []


def test_mandatory_variable_is_selected() -> None:
    assert ids([Variable("a", [Mandatory()])]) == ["a"]


def test_first_dependency_is_preferred_while_possible() -> None:
    problem = [Variable("a", [Mandatory(), Dependency("x", "y")]), Variable("x"), Variable("y")]
    assert ids(problem) == ["a", "x"]


def test_second_dependency_when_first_conflicts() -> None:
    problem = [
        Variable("a", [Mandatory(), Dependency("x", "y")]),
        Variable("b", [Mandatory(), Conflict("x")]),
        Variable("x"),
        Variable("y"),
    ]
    assert ids(problem) == ["a", "b", "y"]


def test_transitive_dependencies_are_selected() -> None:
    problem = [
        Variable("a", [Mandatory(), Dependency("b")]),
        Variable("b", [Dependency("c")]),
        Variable("c"),
    ]
    assert ids(problem) == ["a", "b", "c"]


def test_at_most_forces_an_alternative() -> None:
    problem = [
        Variable("a", [Mandatory(), Dependency("x", "y")]),
        Variable("b", [Mandatory(), Dependency("y")]),
        Variable("x"),
        Variable("y"),
        Variable("one", [AtMost(1, "x", "y")]),
    ]
    assert ids(problem) == ["a", "b", "y"]


def test_preference_beats_minimality() -> None:
    problem = [
        Variable("a", [Mandatory(), Dependency("x", "y")]),
        Variable("b", [Mandatory(), Dependency("y")]),
        Variable("x"),
        Variable("y"),
    ]
    assert ids(problem) == ["a", "b", "x", "y"]


def test_irrelevant_dependencies_do_not_change_search_order() -> None:
    base = [
        Variable("a", [Mandatory(), Dependency("x", "y")]),
        Variable("x", [Conflict("y")]),
        Variable("y"),
    ]
    noisy = [*base, Variable("z", [Dependency("y")]), Variable("w", [Dependency("x", "y")])]
    assert ids(base) == ids(noisy) == ["a", "x"]


def test_prohibited_variable_forces_the_next_candidate() -> None:
    problem = [
        Variable("a", [Mandatory(), Dependency("x", "y")]),
        Variable("x", [Prohibited()]),
        Variable("y"),
    ]
    assert ids(problem) == ["a", "y"]


def test_unsatisfiable_names_a_minimal_set() -> None:
    problem = [
        Variable("a", [Mandatory(), Dependency("x")]),
        Variable("x", [Prohibited()]),
        Variable("noise", [Mandatory(), Dependency("y")]),
        Variable("y"),
    ]
    with pytest.raises(NotSatisfiable) as caught:
        solve(problem)
    assert [a.text for a in caught.value.constraints] == [
        "a is mandatory",
        "a requires at least one of x",
        "x is prohibited",
    ]


def test_constraints_describe_themselves() -> None:
    assert Dependency("x", "y").describe("a") == "a requires at least one of x, y"
    assert Dependency().describe("a") == "a has a dependency without any candidates to satisfy it"
    assert Conflict("b").describe("a") == "a conflicts with b"
    assert AtMost(1, "x", "y").describe("u") == "u permits at most 1 of x, y"
    assert Mandatory().describe("a") == "a is mandatory"
    assert Prohibited().describe("a") == "a is prohibited"
    assert Not(Mandatory()).describe("a") == "not (a is mandatory)"
    assert "either" in Or(Mandatory(), Prohibited()).describe("a")


def test_gates_compose_constraints() -> None:
    problem = [
        Variable("a", [Mandatory(), Or(Dependency("x"), Dependency("y"))]),
        Variable("b", [Mandatory(), Not(Dependency("x"))]),
        Variable("x"),
        Variable("y"),
    ]
    assert "x" not in ids(problem)
    assert "y" in ids(problem)
    forbidden = [Variable("a", [Mandatory(), And(Dependency("x"), Prohibited())]), Variable("x")]
    with pytest.raises(NotSatisfiable):
        solve(forbidden)


def test_not_at_most_means_more_than() -> None:
    problem = [
        Variable("a", [Mandatory(), Not(AtMost(1, "x", "y", "z"))]),
        Variable("x", [Prohibited()]),
        Variable("y"),
        Variable("z"),
    ]
    assert ids(problem) == ["a", "y", "z"]


def test_clause_is_faithful() -> None:
    problem = [
        Variable("1", [Clause(("1", False), ("2", True), ("3", True))]),
        Variable("2", [Prohibited()]),
        Variable("3", [Prohibited()]),
        Variable("4", [Mandatory(), Dependency("1")]),
    ]
    with pytest.raises(NotSatisfiable):
        solve(problem)


def test_duplicate_identifier_is_an_input_error() -> None:
    with pytest.raises(DuplicateIdentifier) as caught:
        solve([Variable("a"), Variable("a")])
    assert isinstance(caught.value, DeppyError)
    assert "'a'" in str(caught.value)


def test_unknown_identifier_names_subject_and_missing() -> None:
    with pytest.raises(UnknownIdentifier) as caught:
        solve([Variable("a", [Dependency("ghost")])])
    message = str(caught.value)
    assert "'a'" in message and "'ghost'" in message


def test_negative_at_most_is_rejected() -> None:
    with pytest.raises(DeppyError):
        AtMost(-1, "x")


def test_deadline_in_the_past_times_out() -> None:
    problem = [Variable("a", [Mandatory()])]
    with pytest.raises(SolveTimeout):
        solve(problem, deadline=time.monotonic() - 1)


def test_deadline_stops_a_hard_search() -> None:
    """A pigeonhole problem is exponential for CDCL; the deadline must stop it promptly."""
    variables = pigeonhole(12)
    started = time.monotonic()
    with pytest.raises(SolveTimeout):
        solve(variables, deadline=started + 0.5)
    assert time.monotonic() - started < 5


def test_public_api_is_importable_from_the_package() -> None:
    import deppy

    problem = [deppy.Variable("a", [deppy.Mandatory(), deppy.Dependency("b")]), deppy.Variable("b")]
    assert [v.id for v in deppy.solve(problem)] == ["a", "b"]
    assert deppy.load_problem is not None and deppy.NotSatisfiable is NotSatisfiable
