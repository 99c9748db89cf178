"""The CEL environment of ``olm.constraint`` rules, as operator-framework/api defines it.

One variable, ``properties``: a list of ``{"type": ..., "value": ...}`` maps built from a bundle's
properties, with JSON values as Go's ``encoding/json`` hands them to cel-go (every number a double).
One function, ``semver_compare(a, b)``: blang's ``Compare`` of ``ParseTolerant(fmt.Sprint(x))``.
A rule must compile and have type bool; an evaluation error means "does not match" (OLM's
celPredicate returns false), which callers may record for an explanation.

Why not just cel-python: its interpreter costs about 100 µs per list element visited, so a rule
checked against every bundle of a catalog would take seconds. Rules are parsed with cel-python's
grammar and then compiled here into Python closures for the part of CEL constraints use (literals,
field access, indexing, operators, macros, string functions, conversions, ``semver_compare``),
with cel-go's semantics: heterogeneous equality (``1 == 1.0``, ``"a" == 1`` is false), commutative
``&&``/``||`` over errors, int64 overflow errors. Anything else (timestamps, durations, bytes,
unsigned ints, type values) falls back to cel-python's interpreter, slower but complete. Every
evaluation runs on a cost budget (:data:`COST_BUDGET`); a rule past it is cut off.

Here: programs and ``compile_rule``. Values and errors live in ``values``, cel-go's operators
in ``operators``, macros in ``macros``, the compiler in ``compile``.

Why not the ``common-expression-language`` package (Rust): it counts ``size()`` of a string in
UTF-8 bytes (cel-go and cel-python count code points), has no type check (a rule giving an int
compiles; OLM refuses it), and evaluates holding the GIL with no cost limit, so a hostile rule
cannot be stopped.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from celpy import celtypes
from celpy.celparser import CELParseError, CELParser
from celpy.evaluation import CELEvalError

from deppy.catalog.cel import interpreter
from deppy.catalog.cel.compile import (
    Node,
    _Compiler,
)
from deppy.catalog.cel.macros import (
    Fn,
)
from deppy.catalog.cel.operators import (
    _Err,
)
from deppy.catalog.cel.values import (
    _BUDGET,
    COST_BUDGET,
    CelBudgetExceeded,
    CelCompileError,
    CelEvaluationError,
    CelProperties,
    _OutOfBudget,
    _type_name,
    go_float,
    go_sprint,
    properties_of,
    semver_compare,
)

__all__ = [
    "COST_BUDGET",
    "RULE_BUDGET",
    "CelBudgetExceeded",
    "CelCompileError",
    "CelEvaluationError",
    "CelProgram",
    "CelProperties",
    "compile_rule",
    "go_float",
    "go_sprint",
    "properties_of",
    "rule_budget",
    "semver_compare",
]


# --------------------------------------------------------------------------------------------------
# Programs


@dataclass(frozen=True, slots=True, eq=False)
class CelProgram:
    """A compiled rule. ``slow_reason`` says why it runs on cel-python (None: fast path)."""

    rule: str
    slow_reason: str | None
    _fast: Fn | None
    _slow: Any

    def evaluate(self, properties: CelProperties) -> bool:
        """The rule's verdict for one bundle; raises CelEvaluationError when it fails there.

        Costs at most :data:`COST_BUDGET` steps, and inside :func:`rule_budget` at most what is
        left of that block's :data:`RULE_BUDGET`."""
        pool = _POOL.get()
        allowance = COST_BUDGET if pool is None else min(COST_BUDGET, pool[0])
        if allowance <= 0:
            raise CelBudgetExceeded(_cut_off(pooled=True))
        budget = [allowance]
        try:
            result = self._evaluate(properties, budget)
        except CelBudgetExceeded:
            raise CelBudgetExceeded(_cut_off(pooled=allowance < COST_BUDGET)) from None
        finally:
            if pool is not None:
                pool[0] -= allowance - max(budget[0], 0)
        if result is True or result is False:
            return result
        raise CelEvaluationError(f"cel expression evaluated to {_type_name(result)}, not bool")

    def _evaluate(self, properties: CelProperties, budget: list[int]) -> Any:
        if self._slow is not None:
            return self._evaluate_slow(properties, budget)
        assert self._fast is not None
        try:
            return self._fast({"properties": properties.values, _BUDGET: budget})
        except _Err as err:
            raise CelEvaluationError(str(err)) from None
        except RecursionError:
            raise CelEvaluationError("rule nested too deeply to evaluate") from None
        except _OutOfBudget:
            raise CelBudgetExceeded(_cut_off()) from None

    def _evaluate_slow(self, properties: CelProperties, budget: list[int]) -> Any:
        try:
            result = interpreter.evaluate(self._slow, properties.as_celpy(), budget)
        except CELEvalError as err:
            raise CelEvaluationError(_celpy_message(err)) from None
        except (TypeError, ValueError, KeyError, ArithmeticError, RecursionError) as err:
            raise CelEvaluationError(str(err)) from None
        except _OutOfBudget:
            raise CelBudgetExceeded(_cut_off()) from None
        if isinstance(result, CELEvalError):
            raise CelEvaluationError(_celpy_message(result))
        if isinstance(result, celtypes.BoolType):
            return bool(result)
        return result


RULE_BUDGET: Final = 20 * COST_BUDGET
"""What one rule may cost over all the bundles it is checked against in one :func:`rule_budget`
block (a resolution checks a catalog's rule against every bundle of the catalogs): a real rule
costs a few hundred steps a bundle, so 55,000 bundles fit; a rule just under
:data:`COST_BUDGET` on every bundle would otherwise cost minutes on a large catalog."""

_POOL: ContextVar[list[int] | None] = ContextVar("deppy_cel_rule_budget", default=None)


@contextmanager
def rule_budget() -> Iterator[None]:
    """Evaluations in this block share one :data:`RULE_BUDGET`; past it each is cut off."""
    token = _POOL.set([RULE_BUDGET])
    try:
        yield
    finally:
        _POOL.reset(token)


def _cut_off(*, pooled: bool = False) -> str:
    if pooled:
        return (
            f"evaluation cut off: the rule costs more than deppy's budget of {RULE_BUDGET:,} "
            "steps over the bundles it is checked against"
        )
    return (
        f"evaluation cut off: the rule costs more than deppy's budget of {COST_BUDGET:,} "
        "steps on this bundle"
    )


def _celpy_message(err: CELEvalError) -> str:
    return str(err.args[0]) if err.args else "evaluation error"


_PARSER: CELParser | None = None


def _parse(rule: str) -> Node:
    global _PARSER
    if _PARSER is None:
        _PARSER = CELParser()
    try:
        tree: Node = _PARSER.parse(rule)
    except CELParseError as err:
        detail = " ".join(str(err.args[0]).split()) if err.args else "syntax error"
        raise CelCompileError(f"syntax error: {detail}") from None
    return tree


@lru_cache(maxsize=1024)
def compile_rule(rule: str) -> CelProgram:
    """Compile a rule once (cached by text), with the checks cel-go makes at compile time."""
    if not rule.strip():
        raise CelCompileError("the rule is empty")
    tree = _parse(rule)
    compiler = _Compiler()
    try:
        fast, kind = compiler.compile(tree)
    except RecursionError:
        raise CelCompileError("the rule is nested too deeply") from None
    except ValueError as err:  # a literal cel-python's conversions refuse
        raise CelCompileError(str(err)) from None
    if kind != "bool":
        raise CelCompileError(
            f"cel expressions must have type Bool; this rule gives {kind}, not a true/false"
        )
    if compiler.slow_reason is None:
        return CelProgram(rule, None, fast, None)
    return CelProgram(rule, compiler.slow_reason, None, interpreter.program(tree))
