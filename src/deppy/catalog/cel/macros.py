"""CEL macros and logic as closures: ``all``/``exists``/``exists_one``/``map``/``filter`` with
cel-go's error semantics, ``&&``/``||`` commutative over errors, each comprehension charging
its cost to the evaluation's budget before it runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from deppy.catalog.cel.operators import (
    _Err,
    _items,
)
from deppy.catalog.cel.values import (
    _BUDGET,
    _OutOfBudget,
    _type_name,
)

Env = dict[str, Any]
Fn = Callable[[Env], Any]


def _logic(left: Fn, right: Fn, is_or: bool) -> Fn:
    """CEL's commutative ``||``/``&&``: a decisive side wins over an error on the other side."""
    decisive = is_or

    def evaluate(env: Env) -> bool:
        try:
            a: Any = left(env)
        except _Err as err:
            a = err
        if a is decisive:
            return is_or
        try:
            b: Any = right(env)
        except _Err as err:
            b = err
        if b is decisive:
            return is_or
        for side in (a, b):
            if isinstance(side, _Err):
                raise side
            if side is not True and side is not False:
                op = "||" if is_or else "&&"
                raise _Err(f"no such overload: {_type_name(a)} {op} {_type_name(b)}")
        return not decisive

    return evaluate


def _charged(items: list[Any], env: Env, weight: int) -> list[Any]:
    """Spend a comprehension's cost (its items times its body's size) from the evaluation's
    budget before running it."""
    budget: list[int] = env[_BUDGET]
    budget[0] -= len(items) * weight
    if budget[0] < 0:
        raise _OutOfBudget
    return items


def _quantifier(target: Fn, var: str, predicate: Fn, exists: bool, weight: int) -> Fn:
    """all()/exists(): any decisive element wins over errors in other elements, as in cel-go."""

    def evaluate(env: Env) -> bool:
        local = dict(env)
        error: _Err | None = None
        for item in _charged(_items(target(env)), env, weight):
            local[var] = item
            try:
                result = predicate(local)
            except _Err as err:
                error = error or err
                continue
            if result is exists:
                return bool(exists)
            if result is not (not exists):
                error = error or _Err(f"no such overload: predicate gave {_type_name(result)}")
        if error is not None:
            raise error
        return not exists

    return evaluate


def _exists_one_macro(target: Fn, var: str, predicate: Fn, weight: int) -> Fn:
    def evaluate(env: Env) -> bool:
        local = dict(env)
        count = 0
        for item in _charged(_items(target(env)), env, weight):
            local[var] = item
            result = predicate(local)
            if result is True:
                count += 1
            elif result is not False:
                raise _Err(f"no such overload: predicate gave {_type_name(result)}")
        return count == 1

    return evaluate


def _map_macro(target: Fn, var: str, body: list[Fn], weight: int) -> Fn:
    transform = body[-1]
    keep = body[0] if len(body) == 2 else None

    def evaluate(env: Env) -> list[Any]:
        local = dict(env)
        out = []
        for item in _charged(_items(target(env)), env, weight):
            local[var] = item
            if keep is not None:
                test = keep(local)
                if test is not True and test is not False:
                    raise _Err(f"no such overload: filter gave {_type_name(test)}")
                if not test:
                    continue
            out.append(transform(local))
        return out

    return evaluate


def _filter_macro(target: Fn, var: str, predicate: Fn, weight: int) -> Fn:
    def evaluate(env: Env) -> list[Any]:
        local = dict(env)
        out = []
        for item in _charged(_items(target(env)), env, weight):
            local[var] = item
            test = predicate(local)
            if test is not True and test is not False:
                raise _Err(f"no such overload: filter gave {_type_name(test)}")
            if test:
                out.append(item)
        return out

    return evaluate
