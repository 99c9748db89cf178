"""cel-go's semantics on Python values: heterogeneous equality, int64 overflow, the arithmetic,
comparison, indexing, string and conversion functions olm.constraint rules use, and the error a
failed operation raises (``_Err``, a value error of the rule, not of deppy).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any, Final

import re2  # type: ignore[import-untyped]

from deppy.catalog.cel.values import (
    _INT64_MAX,
    _INT64_MIN,
    TEXT_PER_STEP,
    CelEvaluationError,
    _from_json,
    _JsonList,
    _JsonMap,
    _spend,
    _type_name,
    go_sprint,
    semver_compare,
)

# --------------------------------------------------------------------------------------------------
# cel-go semantics on Python values


class _Err(Exception):
    """An evaluation error inside the fast path (kept apart from Python's own exceptions)."""


def _is_num(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _eq(a: Any, b: Any, budget: list[int] | None = None) -> bool:
    """cel-go's heterogeneous equality: other types are unequal, numbers compare by value.

    Comparing lists or maps walks them: each item costs a step of ``budget`` (when given), so
    comparing values that share structure many times over cannot run unbounded."""
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return False
        if budget is not None:
            _spend(budget, len(a))
        return all(_eq(x, y, budget) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        if budget is not None:
            _spend(budget, len(a))
        return all(k in b and _eq(v, b[k], budget) for k, v in a.items())
    if type(a) is type(b):
        return bool(a == b)
    return _is_num(a) and _is_num(b) and bool(a == b)


def _order(a: Any, b: Any, op: str) -> tuple[Any, Any]:
    if (_is_num(a) and _is_num(b)) or (type(a) is type(b) and type(a) in (str, bool)):
        return a, b
    raise _Err(f"no such overload: {_type_name(a)} {op} {_type_name(b)}")


def _int64(value: int) -> int:
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise _Err("integer overflow")
    return value


def _same_kind(a: Any, b: Any, op: str) -> type:
    ta = type(a)
    if ta is not type(b) or ta is bool:
        raise _Err(f"no such overload: {_type_name(a)} {op} {_type_name(b)}")
    return ta


def _add(a: Any, b: Any, budget: list[int]) -> Any:
    """``+``; a concatenation pays for what it copies (the rule's memory is its budget)."""
    if isinstance(a, list) and isinstance(b, list):
        _spend(budget, len(a) + len(b))
        return [*_items(a), *_items(b)]
    kind = _same_kind(a, b, "+")
    if kind is str:
        _spend(budget, (len(a) + len(b)) // TEXT_PER_STEP)
    if kind is int:
        return _int64(a + b)
    if kind in (float, str):
        return a + b
    raise _Err(f"no such overload: {_type_name(a)} + {_type_name(b)}")


def _sub(a: Any, b: Any) -> Any:
    kind = _same_kind(a, b, "-")
    if kind is int:
        return _int64(a - b)
    if kind is float:
        return a - b
    raise _Err(f"no such overload: {_type_name(a)} - {_type_name(b)}")


def _mul(a: Any, b: Any) -> Any:
    kind = _same_kind(a, b, "*")
    if kind is int:
        return _int64(a * b)
    if kind is float:
        return a * b
    raise _Err(f"no such overload: {_type_name(a)} * {_type_name(b)}")


def _div(a: Any, b: Any) -> Any:
    kind = _same_kind(a, b, "/")
    if kind is int:
        if b == 0:
            raise _Err("division by zero")
        quotient = abs(a) // abs(b)
        return _int64(quotient if (a < 0) == (b < 0) else -quotient)  # Go truncates
    if kind is float:
        if b == 0:  # IEEE 754, as Go: no error
            if a == 0 or math.isnan(a):
                return math.nan
            return math.copysign(math.inf, a) * math.copysign(1.0, b)
        return a / b
    raise _Err(f"no such overload: {_type_name(a)} / {_type_name(b)}")


def _mod(a: Any, b: Any) -> Any:
    if _same_kind(a, b, "%") is not int:
        raise _Err(f"no such overload: {_type_name(a)} % {_type_name(b)}")
    if b == 0:
        raise _Err("modulus by zero")
    remainder = abs(a) % abs(b)
    return remainder if a >= 0 else -remainder  # Go: the sign of the dividend


def _neg(a: Any) -> Any:
    if type(a) is int:
        return _int64(-a)
    if type(a) is float:
        return -a
    raise _Err(f"no such overload: -{_type_name(a)}")


def _not(a: Any) -> bool:
    if a is True or a is False:
        return not a
    raise _Err(f"no such overload: !{_type_name(a)}")


def _select(obj: Any, field: str) -> Any:
    if isinstance(obj, dict):
        try:
            value = obj[field]
        except KeyError:
            raise _Err(f"no such key: {field}") from None
        return _from_json(value) if type(obj) is _JsonMap else value
    raise _Err(f"type '{_type_name(obj)}' does not support field selection")


def _index(obj: Any, key: Any) -> Any:
    lazy = type(obj) is _JsonList or type(obj) is _JsonMap
    if isinstance(obj, list):
        if _is_num(key) and float(key).is_integer():
            i = int(key)
            if 0 <= i < len(obj):
                return _from_json(obj[i]) if lazy else obj[i]
            raise _Err(f"index out of range: {i}")
        raise _Err(f"no such overload: list[{_type_name(key)}]")
    if isinstance(obj, dict):
        if type(key) is str:
            if key in obj:
                return _from_json(obj[key]) if lazy else obj[key]
        else:
            for k, v in obj.items():
                if _eq(k, key):
                    return _from_json(v) if lazy else v
        raise _Err(f"no such key: {go_sprint(key)}")
    raise _Err(f"no such overload: {_type_name(obj)}[{_type_name(key)}]")


def _in(item: Any, container: Any, budget: list[int]) -> bool:
    if isinstance(container, list | dict):
        _spend(budget, len(container))
    if isinstance(container, list):
        return any(_eq(item, x, budget) for x in container)
    if isinstance(container, dict):
        return any(_eq(item, k, budget) for k in container)
    raise _Err(f"no such overload: {_type_name(item)} in {_type_name(container)}")


def _size(value: Any) -> int:
    if isinstance(value, str | list | dict):
        return len(value)
    raise _Err(f"no such overload: size({_type_name(value)})")


def _strings(a: Any, b: Any, name: str) -> tuple[str, str]:
    if type(a) is str and type(b) is str:
        return a, b
    raise _Err(f"no such overload: {_type_name(a)}.{name}({_type_name(b)})")


@lru_cache(maxsize=256)
def _regex(pattern: str) -> Any:
    try:
        return re2.compile(pattern)
    except re2.error as err:
        raise _Err(f"invalid regular expression {pattern!r}: {err}") from None


def _matches(text: Any, pattern: Any) -> bool:
    text, pattern = _strings(text, pattern, "matches")
    return _regex(pattern).search(text) is not None


def _to_int(value: Any) -> int:
    if type(value) is int:
        return value
    if type(value) is float:
        if math.isfinite(value) and _INT64_MIN <= value < 2.0**63:
            return int(value)
        raise _Err("range error converting double to int")
    if type(value) is str and re.fullmatch(r"[+-]?[0-9]+", value):
        return _int64(int(value))
    raise _Err(f"type conversion error from '{_type_name(value)}' to 'int'")


_FLOAT_TEXT: Final = re.compile(
    r"[+-]?(?:[0-9]+\.?[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?"
    r"|inf|infinity|nan)",
    re.IGNORECASE,
)


def _to_double(value: Any) -> float:
    if type(value) is float:
        return value
    if type(value) is int:
        return float(value)
    if type(value) is str and _FLOAT_TEXT.fullmatch(value):
        return float(value)
    raise _Err(f"type conversion error from '{_type_name(value)}' to 'double'")


def _to_string(value: Any) -> str:
    if type(value) is str:
        return value
    if type(value) in (bool, int, float):
        return go_sprint(value)
    raise _Err(f"type conversion error from '{_type_name(value)}' to 'string'")


_PARSE_BOOL: Final = {
    **dict.fromkeys(("1", "t", "T", "TRUE", "true", "True"), True),
    **dict.fromkeys(("0", "f", "F", "FALSE", "false", "False"), False),
}


def _to_bool(value: Any) -> bool:
    if value is True or value is False:
        return value
    if type(value) is str and value in _PARSE_BOOL:
        return _PARSE_BOOL[value]
    raise _Err(f"type conversion error from '{_type_name(value)}' to 'bool'")


def _semver_compare_fast(a: Any, b: Any) -> int:
    try:
        return semver_compare(a, b)
    except CelEvaluationError as err:
        raise _Err(str(err)) from None


def _items(value: Any) -> list[Any]:
    """What a macro iterates: list items (read lazily from JSON) or map keys."""
    if type(value) is _JsonList:
        return [_from_json(v) for v in value]
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return list(value)
    raise _Err(f"no such overload: comprehension over {_type_name(value)}")
