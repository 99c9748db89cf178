"""CEL values for olm.constraint rules: errors, the evaluation budget, a bundle's ``properties``
as cel-go sees them (JSON numbers as doubles, read lazily), Go's ``fmt.Sprint`` and
``semver_compare``. The lowest of the CEL modules (values < operators < macros < compiler <
``deppy.catalog.cel``).
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any, Final, Protocol

from celpy import celtypes
from celpy.adapter import json_to_cel
from lark import Tree

from deppy.catalog.file_values import plain
from deppy.catalog.semver import Version, VersionError

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

TEXT_PER_STEP: Final = 64
"""Characters (of a string) or bytes one step pays for when an operation copies or compares them.
Charging what concatenation and deep comparison touch, not one step per node, is what bounds a
rule's time *and* memory: a rule can only build values as large as the budget it spends."""


class _OutOfBudget(BaseException):
    """The budget ran out. A BaseException so that no error handler on the way (cel-go's
    commutative error semantics, cel-python's) mistakes it for a value."""


def _spend(budget: list[int], cost: int) -> None:
    """Take ``cost`` steps from an evaluation's budget; past it, the rule is cut off."""
    budget[0] -= cost
    if budget[0] < 0:
        raise _OutOfBudget


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
            _JsonMap(type=p.type, value=plain(p.value)) for p in properties
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
