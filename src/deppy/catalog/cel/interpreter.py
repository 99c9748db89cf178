"""cel-python's interpreter, run on deppy's budget: the slow path of rules with ``bytes``,
timestamps, durations, unsigned ints or type values.

Three things make cel-python safe on a catalog's rules:

- every syntax-tree node costs :data:`_SLOW_NODE_COST` steps (:class:`BudgetedEvaluator`);
- every operator and function call costs what its arguments weigh (:func:`weight`: items of
  lists and maps, :data:`TEXT_PER_STEP` characters of text), so ``==`` over nested lists or
  ``+`` building long strings spends what it walks or copies: time and memory stay bounded;
- its values print short (:func:`_install_brief_reprs`). cel-python builds error messages with
  ``repr()`` of the operands (``'ListType([MapType(…` a whole bundle's properties, for a rule
  selecting a field of a list); a rule nesting ``map`` over the properties three deep made
  that message gigabytes long and took a minute outside any budget. Now a message quotes at
  most a few items of a value, whatever its size.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Final

import celpy
from celpy import celtypes
from celpy.evaluation import CELEvalError, Evaluator, base_functions

from deppy.catalog.cel.values import (
    _SLOW_NODE_COST,
    TEXT_PER_STEP,
    CelEvaluationError,
    _spend,
    semver_compare,
)
from deppy.errors import MAX_EXCERPT

# --------------------------------------------------------------------------------------------------
# Short reprs: what cel-python's messages quote of a value


class _Brief(reprlib.Repr):
    """reprlib's bounded repr, taught cel-python's container and text types."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxdict = self.maxlist = 4
        self.maxstring = self.maxother = MAX_EXCERPT

    def repr_ListType(self, value: Any, level: int) -> str:
        return self.repr_list(value, level)

    def repr_MapType(self, value: Any, level: int) -> str:
        return self.repr_dict(value, level)

    def repr_StringType(self, value: Any, level: int) -> str:
        return self.repr_str(str(value), level)

    def repr_BytesType(self, value: Any, level: int) -> str:
        shown = bytes(value[: self.maxstring])
        return repr(shown) + ("…" if len(value) > self.maxstring else "")


_BRIEF: Final = _Brief()


def _install_brief_reprs() -> None:
    """Make cel-python's lists, maps, strings and bytes print short, everywhere they print.

    A patch of the library's classes rather than a wrapper: the reprs happen deep inside its
    operators (``f"{x!r} and {y!r}"``) and member selection, on values it creates itself.
    """
    for kind in (celtypes.ListType, celtypes.MapType, celtypes.StringType, celtypes.BytesType):
        kind.__repr__ = _brief_repr  # type: ignore[method-assign]
    # an error's repr held the errors it was built from, each with theirs: `&&` over errors
    # of nested macros made it exponential (2.4 GB for a 200-character rule)
    CELEvalError.__repr__ = _brief_error  # type: ignore[method-assign]
    CELEvalError.__str__ = _brief_error  # type: ignore[method-assign,assignment]


def _brief_repr(value: Any) -> str:
    return _BRIEF.repr(value)


def _brief_error(error: CELEvalError) -> str:
    first = error.args[0] if error.args else "evaluation error"
    return first if isinstance(first, str) and len(first) <= MAX_EXCERPT else _BRIEF.repr(first)


_install_brief_reprs()


# --------------------------------------------------------------------------------------------------
# The budget: per node, and per argument weight of every operator and function


class _Meter:
    """One evaluation's remaining budget, and the weights of the values it has seen."""

    __slots__ = ("budget", "weights")

    def __init__(self, budget: list[int]) -> None:
        self.budget = budget
        self.weights: dict[int, tuple[Any, int]] = {}  # id -> (value kept alive, weight)


_METER: ContextVar[_Meter | None] = ContextVar("deppy_cel_meter", default=None)


def weight(value: Any, weights: dict[int, tuple[Any, int]]) -> int:
    """What walking or copying ``value`` costs: one step per list item and map entry (nested
    ones included), one per :data:`TEXT_PER_STEP` characters. Remembered per object, so a
    value built by sharing one list many times is weighed in time linear in its distinct
    objects, while its weight counts every repetition (as ``==`` would walk them)."""
    if isinstance(value, str | bytes):
        return 1 + len(value) // TEXT_PER_STEP
    if not isinstance(value, list | dict):
        return 1
    known = weights.get(id(value))
    if known is not None:
        return known[1]
    items = value.values() if isinstance(value, dict) else value
    total = 1 + len(value) + sum(weight(item, weights) for item in items)
    weights[id(value)] = (value, total)
    return total


def _charging(function: Callable[..., Any]) -> Callable[..., Any]:
    def charged(*args: Any, **kwargs: Any) -> Any:
        meter = _METER.get()
        if meter is not None:
            _spend(meter.budget, sum(weight(a, meter.weights) for a in args))
        return function(*args, **kwargs)

    charged.__name__ = getattr(function, "__name__", "function")
    charged.__doc__ = function.__doc__
    return charged


class BudgetedEvaluator(Evaluator):
    """cel-python's interpreter, spending :data:`_SLOW_NODE_COST` steps per syntax-tree node."""

    def __init__(self, ast: Any, activation: Any, budget: list[int]) -> None:
        super().__init__(ast, activation=activation)
        self.budget = budget

    def sub_evaluator(self, ast: Any) -> Evaluator:
        return BudgetedEvaluator(ast, self.activation, self.budget)

    def visit_children(self, tree: Any) -> Any:
        _spend(self.budget, _SLOW_NODE_COST)
        return super().visit_children(tree)


@contextmanager
def metered(budget: list[int]) -> Iterator[None]:
    """Charge the operators and functions called in this block to ``budget``."""
    token = _METER.set(_Meter(budget))
    try:
        yield
    finally:
        _METER.reset(token)


def evaluate(program: Any, properties: Any, budget: list[int]) -> Any:
    """Run a cel-python program on ``properties`` within ``budget``; _OutOfBudget past it."""
    evaluator = BudgetedEvaluator(program.ast, program.new_activation(), budget)
    with metered(budget):
        return evaluator.evaluate({"properties": properties})


# --------------------------------------------------------------------------------------------------
# Programs


def _semver_compare(a: Any, b: Any) -> Any:
    try:
        return celtypes.IntType(semver_compare(a, b))
    except CelEvaluationError as err:
        return CELEvalError(str(err), ValueError, (str(err),))


def _functions() -> dict[str, Callable[..., Any]]:
    """cel-python's functions and operators, each charging its arguments' weight. Types
    (``int``, ``string``, … which rules also compare as values) stay as they are: converting
    is linear in the value's top level only, and its text is short (see the reprs above)."""
    charged = {
        name: _charging(function)
        for name, function in base_functions.items()
        if not isinstance(function, type)
    }
    charged["semver_compare"] = _charging(_semver_compare)
    return charged


_ENVIRONMENT: Any = None
_FUNCTIONS: dict[str, Callable[..., Any]] = {}


def program(tree: Any) -> Any:
    """A cel-python program for a parsed rule, its functions charged to the budget."""
    global _ENVIRONMENT
    if _ENVIRONMENT is None:
        _ENVIRONMENT = celpy.Environment()
        _FUNCTIONS.update(_functions())
    return _ENVIRONMENT.program(tree, functions=_FUNCTIONS)
