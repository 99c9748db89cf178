"""The solver's public values behave as the frozen dataclasses they once were.

They are plain slotted classes over ``deppy.solver.model.Frozen`` (``dataclasses`` costs
``deppy solve`` ~15 ms of start-up); library users still compare, hash, print, copy, pickle and
match them as before.
"""

from __future__ import annotations

import copy
import pickle

import pytest

from deppy.solver import (
    And,
    AppliedConstraint,
    AtMost,
    Clause,
    Conflict,
    Dependency,
    Mandatory,
    Not,
    Or,
    Prohibited,
    Variable,
)

VALUES = [
    Mandatory(),
    Prohibited(),
    Dependency("a", "b"),
    Conflict("x"),
    AtMost(1, "a", "b"),
    And(Mandatory(), Conflict("y")),
    Or(),
    Not(Dependency()),
    Clause(("a", True), ("b", False)),
    Variable("v", [Mandatory(), Dependency("a")]),
    AppliedConstraint(Variable("v"), Conflict("x")),
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_equal_values_are_equal_and_hash_alike(value: object) -> None:
    for twin in (copy.copy(value), copy.deepcopy(value), pickle.loads(pickle.dumps(value))):
        assert twin == value and hash(twin) == hash(value)
        assert type(twin) is type(value)


def test_values_differ_by_fields_and_by_type() -> None:
    assert Dependency("a") != Dependency("b")
    assert And() != Or(), "same fields, another type"
    assert Variable("a") != Variable("a", [Mandatory()])
    assert len({Dependency("a"), Dependency("a"), Conflict("a")}) == 2
    assert Dependency("a") != ("a",)


def test_repr_names_the_fields_in_order() -> None:
    assert repr(AtMost(1, "a")) == "AtMost(n=1, ids=('a',))"
    assert repr(Variable("v")) == "Variable(id='v', constraints=())"
    assert repr(Mandatory()) == "Mandatory()"


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_values_cannot_be_changed(value: object) -> None:
    with pytest.raises(AttributeError):
        value.id = "other"  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        value.anything = 1  # type: ignore[attr-defined]


def test_values_match_by_position() -> None:
    match AtMost(2, "a", "b"):
        case AtMost(n, ids):
            assert (n, ids) == (2, ("a", "b"))
        case _:
            pytest.fail("no match")
