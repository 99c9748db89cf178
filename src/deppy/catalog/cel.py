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
unsigned ints, type values) falls back to cel-python's interpreter, slower but complete.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Any, Final, Protocol

import celpy
import re2  # type: ignore[import-untyped]
from celpy import celtypes
from celpy.adapter import json_to_cel
from celpy.celparser import CELParseError, CELParser
from celpy.evaluation import CELEvalError, Evaluator, celstr
from lark import Token, Tree

from deppy.catalog.semver import Version, VersionError
from deppy.errors import excerpt

__all__ = [
    "COST_BUDGET",
    "CelBudgetExceeded",
    "CelCompileError",
    "CelEvaluationError",
    "CelProgram",
    "CelProperties",
    "compile_rule",
    "go_sprint",
    "properties_of",
    "semver_compare",
]

_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1


COST_BUDGET: Final = 1_000_000
"""What one evaluation of a rule may cost, in syntax-tree nodes evaluated (a comprehension costs
its items times its body's size), as cel-go counts cost. A real rule (``properties.exists(...)``
over a bundle's few dozen properties) costs a few thousand; the budget stops a hostile one after
about 0.05 s on the compiled path and 0.4 s on cel-python's interpreter. OLM sets no budget."""

_SLOW_NODE_COST: Final = 25
"""What one node costs on cel-python's interpreter, which is that many times slower."""

_BUDGET: Final = "\x00budget"  # where an evaluation's remaining budget sits in the environment


class _OutOfBudget(BaseException):
    """The budget ran out. A BaseException so that no error handler on the way (cel-go's
    commutative error semantics, cel-python's) mistakes it for a value."""


def _size_of(node: Any) -> int:
    return sum(1 for _ in node.iter_subtrees()) if isinstance(node, Tree) else 1


class CelCompileError(ValueError):
    """A rule cel-go's environment would refuse (syntax, undeclared name, not a bool)."""


class CelEvaluationError(Exception):
    """A rule failed on one bundle (missing key, bad semver, no such overload)."""


class CelBudgetExceeded(CelEvaluationError):
    """A rule ran past :data:`COST_BUDGET` on one bundle: not a "no match" but a refused rule."""


class PropertyLike(Protocol):
    @property
    def type(self) -> str: ...
    @property
    def value(self) -> Any: ...


class HasProperties(Protocol):
    @property
    def properties(self) -> Sequence[PropertyLike]: ...


# --------------------------------------------------------------------------------------------------
# Values


class _JsonMap(dict[str, Any]):
    """A JSON object as the catalog has it; members become CEL values as they are read.

    Converting a bundle's properties up front (CSV metadata included) costs ~200 µs a bundle;
    converting what a rule actually reads costs next to nothing.
    """

    __slots__ = ()


class _JsonList(list[Any]):
    """A JSON array whose items become CEL values as they are read (see _JsonMap)."""

    __slots__ = ()


def _from_json(value: Any) -> Any:
    """One level of a JSON value as cel-go sees it: a number is a double, containers stay lazy."""
    kind = type(value)
    if kind is str or kind is float or kind is bool or value is None:
        return value
    if kind is int:
        return float(value)
    if isinstance(value, Mapping):
        return _JsonMap({str(k): v for k, v in value.items()})
    if isinstance(value, list | tuple):
        return _JsonList(value)
    if isinstance(value, datetime.date | datetime.datetime):
        return value.isoformat()  # a YAML timestamp; OLM sees its JSON text
    return str(value)


class CelProperties:
    """A bundle's properties as CEL sees them, built once per bundle and shared by all rules."""

    __slots__ = ("_cel", "values")

    def __init__(self, properties: Iterable[PropertyLike]) -> None:
        self.values: list[dict[str, Any]] = [
            _JsonMap(type=p.type, value=p.value) for p in properties
        ]
        self._cel: Any = None

    def as_celpy(self) -> Any:
        """The same list as cel-python values, for rules that need its interpreter."""
        if self._cel is None:
            self._cel = json_to_cel(_go_json(self.values))
        return self._cel


def _go_json(value: Any) -> Any:
    """A JSON value as Go's encoding/json decodes it into interface{}: numbers become float64."""
    if value is None or isinstance(value, str | bool | float):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, Mapping):
        return {str(k): _go_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_go_json(v) for v in value]
    if isinstance(value, datetime.date | datetime.datetime):
        return value.isoformat()
    return str(value)


_BY_BUNDLE: dict[int, tuple[object, CelProperties]] = {}
_BY_BUNDLE_LIMIT: Final = 20000


def properties_of(bundle: HasProperties) -> CelProperties:
    """The CEL ``properties`` of a bundle, converted once and reused by every rule.

    Cached by identity; the entry keeps the bundle alive so an id is never reused while cached.
    """
    key = id(bundle)
    hit = _BY_BUNDLE.get(key)
    if hit is not None and hit[0] is bundle:
        return hit[1]
    if len(_BY_BUNDLE) >= _BY_BUNDLE_LIMIT:
        _BY_BUNDLE.clear()
    props = CelProperties(bundle.properties)
    _BY_BUNDLE[key] = (bundle, props)
    return props


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null_type"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "map"
    return type(value).__name__


def go_float(value: float) -> str:
    """Go's ``fmt.Sprint`` of a float64 (``strconv.FormatFloat(f, 'g', -1, 64)``): 4.0 -> "4"."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign, digit_tuple, exponent = Decimal(repr(value)).normalize().as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple))
    neg = "-" if sign else ""
    point = len(digits) + exponent  # digits before the decimal point
    exp10 = point - 1
    if exp10 < -4 or exp10 >= 6:  # shortest %g switches to %e here
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{neg}{mantissa}e{'-' if exp10 < 0 else '+'}{abs(exp10):02d}"
    if point <= 0:
        return f"{neg}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return neg + digits + "0" * (point - len(digits))
    return f"{neg}{digits[:point]}.{digits[point:]}"


def go_sprint(value: Any) -> str:
    """Go's ``fmt.Sprint`` of a CEL value's ``Value()``, which semver_compare parses."""
    if isinstance(value, celtypes.BoolType | bool):
        return "true" if value else "false"
    if value is None:
        return "<nil>"
    if isinstance(value, float):
        return go_float(float(value))
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, str):
        return str(value)
    if isinstance(value, Mapping):
        return "map[" + " ".join(f"{go_sprint(k)}:{go_sprint(v)}" for k, v in value.items()) + "]"
    if isinstance(value, list | tuple):
        return "[" + " ".join(go_sprint(v) for v in value) + "]"
    return str(value)


def semver_compare(a: Any, b: Any) -> int:
    """operator-framework/api's ``semver_compare``: -1, 0 or 1, tolerant of "v1.2" and numbers."""
    left, right = _semver_argument(a), _semver_argument(b)
    return left.compare(right)


def _semver_argument(value: Any) -> Version:
    text = go_sprint(value)
    try:
        return Version.parse_tolerant(text)
    except VersionError:
        raise CelEvaluationError(f"unable to parse '{text}' to semver format") from None


# --------------------------------------------------------------------------------------------------
# cel-go semantics on Python values


class _Err(Exception):
    """An evaluation error inside the fast path (kept apart from Python's own exceptions)."""


def _is_num(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _eq(a: Any, b: Any) -> bool:
    """cel-go's heterogeneous equality: other types are unequal, numbers compare by value."""
    if isinstance(a, list):
        return (
            isinstance(b, list)
            and len(a) == len(b)
            and all(_eq(x, y) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, dict):
        return (
            isinstance(b, dict)
            and len(a) == len(b)
            and all(k in b and _eq(v, b[k]) for k, v in a.items())
        )
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


def _add(a: Any, b: Any) -> Any:
    if isinstance(a, list) and isinstance(b, list):
        return [*_items(a), *_items(b)]
    kind = _same_kind(a, b, "+")
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


def _in(item: Any, container: Any) -> bool:
    if isinstance(container, list):
        return any(_eq(item, x) for x in container)
    if isinstance(container, dict):
        return any(_eq(item, k) for k in container)
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


# --------------------------------------------------------------------------------------------------
# Compiling a parse tree into closures

Env = dict[str, Any]
Fn = Callable[[Env], Any]
Node = Tree[Token]

_TYPE_IDENTS: Final = frozenset(
    {"int", "uint", "double", "string", "bytes", "bool", "list", "map", "null_type", "type", "dyn"}
)
_TIME_METHODS: Final = frozenset(
    {
        "getDate", "getDayOfMonth", "getDayOfWeek", "getDayOfYear", "getFullYear", "getHours",
        "getMilliseconds", "getMinutes", "getMonth", "getSeconds",
    }
)  # fmt: skip
_SLOW_FUNCTIONS: Final = frozenset({"uint", "bytes", "type", "duration", "timestamp"})
_BINARY: Final[dict[str, tuple[Callable[[Any, Any], Any], str]]] = {
    "addition_add": (_add, "+"),
    "addition_sub": (_sub, "-"),
    "multiplication_mul": (_mul, "*"),
    "multiplication_div": (_div, "/"),
    "multiplication_mod": (_mod, "%"),
}
_RELATIONS: Final[dict[str, Callable[[Any, Any], bool]]] = {
    "relation_eq": _eq,
    "relation_ne": lambda a, b: not _eq(a, b),
    "relation_lt": lambda a, b: _lt(*_order(a, b, "<")),
    "relation_le": lambda a, b: _le(*_order(a, b, "<=")),
    "relation_gt": lambda a, b: _lt(*reversed(_order(a, b, ">"))),
    "relation_ge": lambda a, b: _le(*reversed(_order(a, b, ">="))),
    "relation_in": _in,
}


def _lt(a: Any, b: Any) -> bool:
    return bool(a < b)


def _le(a: Any, b: Any) -> bool:
    return bool(a <= b)


class _Compiler:
    """One pass over the tree: closures for the fast path, plus cel-go's static checks.

    Static checks run on the whole rule even when part of it needs the slow path: undeclared
    names, macro shapes, and the rule's result type (cel-go refuses anything but bool).
    """

    def __init__(self) -> None:
        self.scope: list[str] = ["properties"]
        self.slow_reason: str | None = None

    def compile(self, node: Node | Token) -> tuple[Fn, str]:
        if isinstance(node, Token):  # pragma: no cover - the grammar wraps every token
            raise CelCompileError(f"unexpected token {node!r}")
        handler = getattr(self, "_n_" + str(node.data), None)
        if handler is None:
            return self._slow(f"{node.data} expressions")
        result: tuple[Fn, str] = handler(node)
        return result

    def _slow(self, reason: str, kind: str = "dyn") -> tuple[Fn, str]:
        self.slow_reason = self.slow_reason or reason
        return _unreachable, kind

    # -- structure ---------------------------------------------------------------------------------

    def _n_expr(self, n: Node) -> tuple[Fn, str]:
        if len(n.children) == 1:
            return self.compile(n.children[0])
        (cond, _), (then, t1), (other, t2) = (self.compile(c) for c in n.children)

        def ternary(env: Env) -> Any:
            c = cond(env)
            if c is True:
                return then(env)
            if c is False:
                return other(env)
            raise _Err(f"no such overload: {_type_name(c)} ? _ : _")

        return ternary, t1 if t1 == t2 else "dyn"

    def _n_conditionalor(self, n: Node) -> tuple[Fn, str]:
        if len(n.children) == 1:
            return self.compile(n.children[0])
        return _logic(self.compile(n.children[0])[0], self.compile(n.children[1])[0], True), "bool"

    def _n_conditionaland(self, n: Node) -> tuple[Fn, str]:
        if len(n.children) == 1:
            return self.compile(n.children[0])
        return _logic(self.compile(n.children[0])[0], self.compile(n.children[1])[0], False), "bool"

    def _n_relation(self, n: Node) -> tuple[Fn, str]:
        if len(n.children) == 1:
            return self.compile(n.children[0])
        op_node, right_node = n.children
        assert isinstance(op_node, Tree)
        test = _RELATIONS[str(op_node.data)]
        left, _ = self.compile(op_node.children[0])
        right, _ = self.compile(right_node)
        return (lambda env: test(left(env), right(env))), "bool"

    def _n_addition(self, n: Node) -> tuple[Fn, str]:
        return self._arithmetic(n)

    def _n_multiplication(self, n: Node) -> tuple[Fn, str]:
        return self._arithmetic(n)

    def _arithmetic(self, n: Node) -> tuple[Fn, str]:
        if len(n.children) == 1:
            return self.compile(n.children[0])
        op_node, right_node = n.children
        assert isinstance(op_node, Tree)
        apply, _ = _BINARY[str(op_node.data)]
        left, t1 = self.compile(op_node.children[0])
        right, t2 = self.compile(right_node)
        return (lambda env: apply(left(env), right(env))), t1 if t1 == t2 else "dyn"

    def _n_unary(self, n: Node) -> tuple[Fn, str]:
        if len(n.children) == 1:
            return self.compile(n.children[0])
        op_node, operand_node = n.children
        assert isinstance(op_node, Tree)
        operand, kind = self.compile(operand_node)
        if op_node.data == "unary_not":
            return (lambda env: _not(operand(env))), "bool"
        return (lambda env: _neg(operand(env))), kind

    def _n_member(self, n: Node) -> tuple[Fn, str]:
        return self.compile(n.children[0])

    _n_primary = _n_member

    def _n_paren_expr(self, n: Node) -> tuple[Fn, str]:
        return self.compile(n.children[0])

    # -- leaves ------------------------------------------------------------------------------------

    def _n_literal(self, n: Node) -> tuple[Fn, str]:
        token = n.children[0]
        assert isinstance(token, Token)
        kind, text = token.type, str(token.value)
        value: Any
        if kind == "INT_LIT":
            body = text.lstrip("-")
            if len(body) > 20:  # int64 has 19 digits; int() of thousands of digits is refused
                raise CelCompileError(f"integer literal {excerpt(text)} does not fit in int64")
            value = int(body[2:], 16) if body[:2] in ("0x", "0X") else int(body)
            value = -value if text.startswith("-") else value
            if not _INT64_MIN <= value <= _INT64_MAX:
                raise CelCompileError(f"integer literal {text} does not fit in int64")
            return _const(value), "int"
        if kind == "FLOAT_LIT":
            return _const(float(text)), "double"
        if kind in ("STRING_LIT", "MLSTRING_LIT"):
            return _const(str(celstr(token))), "string"
        if kind == "BOOL_LIT":
            return _const(text == "true"), "bool"
        if kind == "NULL_LIT":
            return _const(None), "null_type"
        return self._slow(f"{kind} literals", "uint" if kind == "UINT_LIT" else "bytes")

    def _n_ident(self, n: Node) -> tuple[Fn, str]:
        name = str(n.children[0])
        if name in self.scope:
            return (lambda env: env[name]), ("list" if name == "properties" else "dyn")
        if name in _TYPE_IDENTS:
            return self._slow("type values", "type")
        raise CelCompileError(f"undeclared reference to '{name}'")

    def _n_list_lit(self, n: Node) -> tuple[Fn, str]:
        items = self._args(n.children[0]) if n.children else []
        fns = [self.compile(c)[0] for c in items]
        return (lambda env: [f(env) for f in fns]), "list"

    def _n_map_lit(self, n: Node) -> tuple[Fn, str]:
        items = self._args(n.children[0]) if n.children else []
        fns = [self.compile(c)[0] for c in items]
        pairs = list(zip(fns[::2], fns[1::2], strict=True))

        def build(env: Env) -> dict[Any, Any]:
            out: dict[Any, Any] = {}
            for k, v in pairs:
                key = k(env)
                if type(key) not in (str, int, bool):
                    raise _Err(f"unsupported map key type: {_type_name(key)}")
                if any(type(key) is type(o) and key == o for o in out):
                    raise _Err(f"repeated key: {go_sprint(key)}")
                out[key] = v(env)
            return out

        return build, "map"

    def _n_member_object(self, n: Node) -> tuple[Fn, str]:
        raise CelCompileError("message construction needs a declared type; none is declared")

    def _n_dot_ident(self, n: Node) -> tuple[Fn, str]:
        name = str(n.children[0])
        if name != "properties":
            raise CelCompileError(f"undeclared reference to '.{name}'")
        return (lambda env: env["properties"]), "list"

    def _n_dot_ident_arg(self, n: Node) -> tuple[Fn, str]:
        return self._call(
            str(n.children[0]), self._args(n.children[1]) if len(n.children) > 1 else []
        )

    # -- selection, calls, macros ------------------------------------------------------------------

    def _n_member_dot(self, n: Node) -> tuple[Fn, str]:
        target, _ = self.compile(n.children[0])
        field = str(n.children[1])
        return (lambda env: _select(target(env), field)), "dyn"

    def _n_member_index(self, n: Node) -> tuple[Fn, str]:
        target, _ = self.compile(n.children[0])
        key, _ = self.compile(n.children[1])
        return (lambda env: _index(target(env), key(env))), "dyn"

    def _n_ident_arg(self, n: Node) -> tuple[Fn, str]:
        name = str(n.children[0])
        args = self._args(n.children[1]) if len(n.children) > 1 else []
        if name == "has":
            return self._has(args)
        return self._call(name, args)

    def _n_member_dot_arg(self, n: Node) -> tuple[Fn, str]:
        target_node, name_token = n.children[0], n.children[1]
        name = str(name_token)
        args = self._args(n.children[2]) if len(n.children) > 2 else []
        if name in ("all", "exists", "exists_one", "map", "filter"):
            return self._macro(name, target_node, args)
        target, _ = self.compile(target_node)
        fns = [self.compile(a)[0] for a in args]
        if name == "size" and not fns:
            return (lambda env: _size(target(env))), "int"
        if name in ("contains", "startsWith", "endsWith", "matches") and len(fns) == 1:
            arg = fns[0]
            test = {
                "contains": lambda a, b: _contains(*_strings(a, b, "contains")),
                "startsWith": lambda a, b: str.startswith(*_strings(a, b, "startsWith")),
                "endsWith": lambda a, b: str.endswith(*_strings(a, b, "endsWith")),
                "matches": _matches,
            }[name]
            return (lambda env: test(target(env), arg(env))), "bool"
        if name in _TIME_METHODS:
            return self._slow("timestamp and duration methods", "int")
        if name in ("size", "contains", "startsWith", "endsWith", "matches"):
            raise CelCompileError(
                f"found no matching overload for '{name}' with {len(fns)} argument(s)"
            )
        raise CelCompileError(f"undeclared reference to '{name}'")

    def _call(self, name: str, args: list[Node | Token]) -> tuple[Fn, str]:
        fns = [self.compile(a)[0] for a in args]
        unary: dict[str, tuple[Callable[[Any], Any], str]] = {
            "size": (_size, "int"),
            "int": (_to_int, "int"),
            "double": (_to_double, "double"),
            "string": (_to_string, "string"),
            "bool": (_to_bool, "bool"),
            "dyn": (lambda v: v, "dyn"),
        }
        if name in unary and len(fns) == 1:
            apply, kind = unary[name]
            (arg,) = fns
            return (lambda env: apply(arg(env))), kind
        if name in ("semver_compare", "matches") and len(fns) == 2:
            a, b = fns
            fn2 = _semver_compare_fast if name == "semver_compare" else _matches
            return (lambda env: fn2(a(env), b(env))), (
                "int" if name == "semver_compare" else "bool"
            )
        if name in _SLOW_FUNCTIONS and len(fns) == 1:
            return self._slow(f"{name}()", "type" if name == "type" else name)
        if name in unary or name in _SLOW_FUNCTIONS or name in ("semver_compare", "matches"):
            raise CelCompileError(
                f"found no matching overload for '{name}' with {len(fns)} argument(s)"
            )
        raise CelCompileError(f"undeclared reference to '{name}'")

    def _has(self, args: list[Node | Token]) -> tuple[Fn, str]:
        select = _single_child_chain(args[0], "member_dot") if len(args) == 1 else None
        if select is None:
            raise CelCompileError("invalid argument to has() macro: write has(x.field)")
        target, _ = self.compile(select.children[0])
        field = str(select.children[1])

        def has(env: Env) -> bool:
            obj = target(env)
            if isinstance(obj, dict):
                return field in obj
            raise _Err(f"invalid type for field selection: {_type_name(obj)}")

        return has, "bool"

    def _macro(
        self, name: str, target_node: Node | Token, args: list[Node | Token]
    ) -> tuple[Fn, str]:
        arity = (2, 3) if name == "map" else (2,)
        if len(args) not in arity:
            raise CelCompileError(f"{name}() takes {' or '.join(map(str, arity))} arguments")
        var_node = _single_child_chain(args[0], "ident")
        if var_node is None:
            raise CelCompileError(f"{name}(): the first argument must be a simple name")
        var = str(var_node.children[0])
        target, _ = self.compile(target_node)
        self.scope.append(var)
        try:
            body = [self.compile(a)[0] for a in args[1:]]
        finally:
            self.scope.pop()
        weight = 1 + sum(_size_of(a) for a in args[1:])
        if name == "map":
            return _map_macro(target, var, body, weight), "list"
        if name == "filter":
            return _filter_macro(target, var, body[0], weight), "list"
        if name == "exists_one":
            return _exists_one_macro(target, var, body[0], weight), "bool"
        return _quantifier(target, var, body[0], name == "exists", weight), "bool"

    def _args(self, node: Node | Token) -> list[Node | Token]:
        assert isinstance(node, Tree)
        return list(node.children)


def _contains(text: str, part: str) -> bool:
    return part in text


def _unreachable(env: Env) -> Any:  # pragma: no cover - never run: the rule goes to cel-python
    raise AssertionError("slow-path node evaluated on the fast path")


def _const(value: Any) -> Fn:
    return lambda env: value


def _single_child_chain(node: Node | Token, wanted: str) -> Node | None:
    """The ``wanted`` node at the bottom of a chain of one-child nodes (expr→…→ident)."""
    while isinstance(node, Tree):
        if node.data == wanted:
            return node
        if len(node.children) != 1:
            return None
        node = node.children[0]
    return None


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


def _items(value: Any) -> list[Any]:
    """What a macro iterates: list items (read lazily from JSON) or map keys."""
    if type(value) is _JsonList:
        return [_from_json(v) for v in value]
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return list(value)
    raise _Err(f"no such overload: comprehension over {_type_name(value)}")


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
        """The rule's verdict for one bundle; raises CelEvaluationError when it fails there."""
        if self._fast is not None:
            try:
                result = self._fast({"properties": properties.values, _BUDGET: [COST_BUDGET]})
            except _Err as err:
                raise CelEvaluationError(str(err)) from None
            except RecursionError:
                raise CelEvaluationError("rule nested too deeply to evaluate") from None
            except _OutOfBudget:
                raise CelBudgetExceeded(_cut_off()) from None
        else:
            result = self._evaluate_slow(properties)
        if result is True or result is False:
            return result
        raise CelEvaluationError(f"cel expression evaluated to {_type_name(result)}, not bool")

    def _evaluate_slow(self, properties: CelProperties) -> Any:
        evaluator = _BudgetedEvaluator(self._slow.ast, self._slow.new_activation(), [COST_BUDGET])
        try:
            result = evaluator.evaluate({"properties": properties.as_celpy()})
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


def _cut_off() -> str:
    return (
        f"evaluation cut off: the rule costs more than deppy's budget of {COST_BUDGET:,} "
        "steps on this bundle"
    )


class _BudgetedEvaluator(Evaluator):
    """cel-python's interpreter, spending one unit of the budget per syntax-tree node."""

    def __init__(self, ast: Any, activation: Any, budget: list[int]) -> None:
        super().__init__(ast, activation=activation)
        self.budget = budget

    def sub_evaluator(self, ast: Any) -> Evaluator:
        return _BudgetedEvaluator(ast, self.activation, self.budget)

    def visit_children(self, tree: Any) -> Any:
        self.budget[0] -= _SLOW_NODE_COST
        if self.budget[0] < 0:
            raise _OutOfBudget
        return super().visit_children(tree)


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


def _celpy_semver_compare(a: Any, b: Any) -> Any:
    try:
        return celtypes.IntType(semver_compare(a, b))
    except CelEvaluationError as err:
        return CELEvalError(str(err), ValueError, (str(err),))


_ENVIRONMENT: Any = None


def _celpy_program(tree: Node) -> Any:
    global _ENVIRONMENT
    if _ENVIRONMENT is None:
        _ENVIRONMENT = celpy.Environment()
    return _ENVIRONMENT.program(tree, functions={"semver_compare": _celpy_semver_compare})


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
    return CelProgram(rule, compiler.slow_reason, None, _celpy_program(tree))
