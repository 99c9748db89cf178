"""The ``olm.constraint`` property: a bundle's dependency as a tree of constraints.

operator-framework/api (pkg/constraints) decodes the value strictly (unknown fields are errors),
caps its raw size at 128 KiB, and OLM turns it into a predicate over candidate bundles: ``gvk`` (a
bundle provides that API), ``package`` (that package within a version range), ``cel`` (a rule over
the bundle's properties) and the compounds ``all``, ``any`` and ``not`` (none of). This module
parses a value into that tree once, refusing what OLM would refuse with a message that names the
place, and evaluates the tree against bundles without knowing the catalog model.

Stricter than OLM, on purpose: a constraint that sets two kinds (OLM silently uses the first in the
order gvk, package, all, any, not, cel), a gvk without kind or version and a package without a name
(both can never match), and nesting deeper than :data:`MAX_DEPTH` levels are refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, TypeAlias

import orjson

from deppy.catalog.cel import (
    CelBudgetExceeded,
    CelCompileError,
    CelEvaluationError,
    CelProgram,
    compile_rule,
    properties_of,
)
from deppy.catalog.semver import Version, VersionError, VersionRange
from deppy.errors import InputError, excerpt, json_type, quoted

__all__ = [
    "MAX_CONSTRAINT_SIZE",
    "MAX_DEPTH",
    "AllConstraint",
    "AnyConstraint",
    "BundleLike",
    "CelConstraint",
    "CelFailure",
    "ConstraintSpec",
    "GVKConstraint",
    "NotConstraint",
    "PackageConstraint",
    "parse_constraint",
]

MAX_CONSTRAINT_SIZE: Final = 2 << 16
"""operator-framework/api's maxConstraintSize: 131072 bytes (128 KiB) of raw JSON value."""

MAX_DEPTH: Final = 100
"""Nesting limit; OLM has none, but 100 levels is far beyond any real constraint."""

_KINDS: Final = ("gvk", "package", "all", "any", "not", "cel")  # OLM's order of precedence
_TOP_FIELDS: Final = ("failureMessage", *_KINDS)
_KINDS_FIX: Final = (
    "an olm.constraint sets exactly one of gvk, package, cel, all, any or not, "
    "and optionally failureMessage"
)


class GVKLike(Protocol):
    @property
    def group(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def kind(self) -> str: ...


class PropertyLike(Protocol):
    @property
    def type(self) -> str: ...
    @property
    def value(self) -> Any: ...


class BundleLike(Protocol):
    """What a constraint needs of a bundle; deppy.catalog.model.Bundle has exactly these."""

    @property
    def package(self) -> str: ...
    @property
    def version(self) -> Version: ...
    @property
    def provided_gvks(self) -> Sequence[GVKLike]: ...
    @property
    def properties(self) -> Sequence[PropertyLike]: ...


@dataclass(frozen=True, slots=True)
class CelFailure:
    """A CEL rule that failed on a bundle: OLM counts it as "no match"; explanations show why."""

    rule: str
    message: str


Errors: TypeAlias = list[CelFailure] | None


# --------------------------------------------------------------------------------------------------
# The tree


@dataclass(frozen=True, slots=True)
class GVKConstraint:
    group: str
    version: str
    kind: str
    failure_message: str | None = None

    def matches(self, bundle: BundleLike, errors: Errors = None) -> bool:
        return any(
            g.kind == self.kind and g.version == self.version and g.group == self.group
            for g in bundle.provided_gvks
        )

    def describe(self) -> str:
        where = f"{self.group}/{self.version}" if self.group else f"core {self.version}"
        return f"a bundle providing {self.kind} ({where})"

    def candidate_packages(self) -> frozenset[str] | None:
        return None


@dataclass(frozen=True, slots=True)
class PackageConstraint:
    package_name: str
    version_range: VersionRange
    failure_message: str | None = None

    def matches(self, bundle: BundleLike, errors: Errors = None) -> bool:
        return bundle.package == self.package_name and self.version_range.contains(bundle.version)

    def describe(self) -> str:
        return f"a bundle of package {self.package_name} in range {self.version_range}"

    def candidate_packages(self) -> frozenset[str] | None:
        return frozenset({self.package_name})


@dataclass(frozen=True, slots=True)
class CelConstraint:
    rule: str
    program: CelProgram = field(compare=False, repr=False)
    failure_message: str | None = None

    def matches(self, bundle: BundleLike, errors: Errors = None) -> bool:
        """Whether the rule holds; a rule that fails on this bundle does not match (as in OLM)."""
        try:
            return self.program.evaluate(properties_of(bundle))
        except CelBudgetExceeded as err:
            raise CelBudgetExceeded(f"{err} ({bundle.package} {bundle.version})") from None
        except CelEvaluationError as err:
            if errors is not None:
                errors.append(CelFailure(self.rule, str(err)))
            return False

    def describe(self) -> str:
        return f"a bundle for which CEL rule `{self.rule}` holds"

    def candidate_packages(self) -> frozenset[str] | None:
        return None


@dataclass(frozen=True, slots=True)
class AllConstraint:
    constraints: tuple[ConstraintSpec, ...]
    failure_message: str | None = None

    def matches(self, bundle: BundleLike, errors: Errors = None) -> bool:
        return all(c.matches(bundle, errors) for c in self.constraints)

    def describe(self) -> str:
        if not self.constraints:
            return "all of: nothing (any bundle)"
        return "all of: " + _join(self.constraints)

    def candidate_packages(self) -> frozenset[str] | None:
        found = [c.candidate_packages() for c in self.constraints]
        known = [f for f in found if f is not None]
        return frozenset.intersection(*known) if known else None


@dataclass(frozen=True, slots=True)
class AnyConstraint:
    constraints: tuple[ConstraintSpec, ...]
    failure_message: str | None = None

    def matches(self, bundle: BundleLike, errors: Errors = None) -> bool:
        return any(c.matches(bundle, errors) for c in self.constraints)

    def describe(self) -> str:
        if not self.constraints:
            return "any of: nothing (no bundle)"
        return "any of: " + _join(self.constraints)

    def candidate_packages(self) -> frozenset[str] | None:
        found = [c.candidate_packages() for c in self.constraints]
        if any(f is None for f in found):
            return None
        return frozenset().union(*(f for f in found if f is not None))


@dataclass(frozen=True, slots=True)
class NotConstraint:
    """None of the constraints: OLM's Not is ``!(c1 || c2 || ...)``."""

    constraints: tuple[ConstraintSpec, ...]
    failure_message: str | None = None

    def matches(self, bundle: BundleLike, errors: Errors = None) -> bool:
        return not any(c.matches(bundle, errors) for c in self.constraints)

    def describe(self) -> str:
        if not self.constraints:
            return "none of: nothing (any bundle)"
        return "none of: " + _join(self.constraints)

    def candidate_packages(self) -> frozenset[str] | None:
        return None


ConstraintSpec: TypeAlias = (
    GVKConstraint
    | PackageConstraint
    | CelConstraint
    | AllConstraint
    | AnyConstraint
    | NotConstraint
)


def _join(constraints: tuple[ConstraintSpec, ...]) -> str:
    parts = []
    for c in constraints:
        text = c.describe()
        compound = isinstance(c, AllConstraint | AnyConstraint | NotConstraint)
        parts.append(f"({text})" if compound else text)
    return "; ".join(parts)


# --------------------------------------------------------------------------------------------------
# Parsing


def parse_constraint(value: object, *, where: str) -> ConstraintSpec:
    """An ``olm.constraint`` value, checked as operator-framework/api and OLM check it.

    ``where`` names the property for messages (e.g. "catalog.json: bundle foo.v1.0.0, property 3");
    nested problems extend it (``…/all/constraints[2]/package/versionRange``).
    """
    size = _raw_size(value)
    if size > MAX_CONSTRAINT_SIZE:
        raise InputError(
            where,
            f"the olm.constraint value is {size} bytes, over OLM's limit of "
            f"{MAX_CONSTRAINT_SIZE} bytes (128 KiB)",
            "shorten it, or split it into several olm.constraint properties",
        )
    return _parse_node(value, where, 0)


def _raw_size(value: object) -> int:
    """The compact JSON size of the value (OLM measures the raw property value as written)."""
    try:
        return len(orjson.dumps(value))
    except TypeError:  # not JSON as it stands (a YAML set, a lone surrogate): measure its text
        try:
            text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
        except (RecursionError, ValueError):
            return MAX_CONSTRAINT_SIZE + 1
        return len(text.encode("utf-8", "surrogatepass"))


def _parse_node(value: object, where: str, depth: int) -> ConstraintSpec:
    if depth > MAX_DEPTH:
        raise InputError(
            where, f"constraints nest more than {MAX_DEPTH} levels deep", "flatten the nesting"
        )
    obj = _fields(value, _TOP_FIELDS, where, "a constraint")
    message = _optional_text(obj, "failureMessage", where)
    kinds = [k for k in _KINDS if obj.get(k) is not None]
    if not kinds:
        raise InputError(
            where,
            "the constraint is empty (it sets none of gvk, package, cel, all, any, not)",
            _KINDS_FIX,
        )
    if len(kinds) > 1:
        raise InputError(
            where,
            f"the constraint sets {' and '.join(kinds)}; OLM would use only {kinds[0]}",
            "keep one, or combine them under all: {constraints: [...]}",
        )
    kind = kinds[0]
    inner = f"{where}/{kind}"
    if kind == "gvk":
        return _parse_gvk(obj[kind], inner, message)
    if kind == "package":
        return _parse_package(obj[kind], inner, message)
    if kind == "cel":
        return _parse_cel(obj[kind], inner, message)
    children = _parse_compound(obj[kind], inner, kind, depth)
    if kind == "all":
        return AllConstraint(children, message)
    if kind == "any":
        return AnyConstraint(children, message)
    return NotConstraint(children, message)


def _fields(value: object, known: tuple[str, ...], where: str, what: str) -> dict[str, Any]:
    """Go's strict decoding: unknown keys are errors; a key matches a field case-insensitively.

    A JSON null decodes to nothing in Go, so a null object counts as empty; later keys win.
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(
            where,
            f"{what} must be an object, not {json_type(value)}",
            _KINDS_FIX if what == "a constraint" else None,
        )
    out: dict[str, Any] = {}
    for key, item in value.items():
        name = key if key in known else _fold_match(key, known)
        if name is None:
            shown = quoted(key) if isinstance(key, str) else excerpt(key)
            raise InputError(
                where,
                f"unknown field {shown} in {what}",
                f"the fields are {', '.join(known)}",
            )
        out[name] = item
    return out


def _fold_match(key: object, known: tuple[str, ...]) -> str | None:
    if not isinstance(key, str):
        return None
    lowered = key.lower()
    return next((k for k in known if k.lower() == lowered), None)


def _optional_text(obj: dict[str, Any], name: str, where: str) -> str | None:
    value = obj.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(f"{where}/{name}", f"must be a string, not {json_type(value)}")
    return value or None


def _required_text(obj: dict[str, Any], name: str, where: str, example: str) -> str:
    value = _optional_text(obj, name, where)
    if value is None:
        raise InputError(f"{where}/{name}", "is missing or empty", f"set it, e.g. {example}")
    return value


def _parse_gvk(value: object, where: str, message: str | None) -> GVKConstraint:
    obj = _fields(value, ("group", "version", "kind"), where, "a gvk constraint")
    group = _optional_text(obj, "group", where) or ""  # "" is the core API group
    version = _required_text(obj, "version", where, 'version: "v1"')
    kind = _required_text(obj, "kind", where, 'kind: "MyKind"')
    return GVKConstraint(group, version, kind, message)


def _parse_package(value: object, where: str, message: str | None) -> PackageConstraint:
    obj = _fields(value, ("packageName", "versionRange"), where, "a package constraint")
    name = _required_text(obj, "packageName", where, "packageName: my-operator")
    text = _required_text(obj, "versionRange", where, 'versionRange: ">=1.0.0"')
    try:
        version_range = VersionRange.parse(text)
    except VersionError as err:
        raise InputError(
            f"{where}/versionRange",
            f"invalid version range {quoted(text)}: {err.problem}",
            err.hint,
        ) from None
    return PackageConstraint(name, version_range, message)


def _parse_cel(value: object, where: str, message: str | None) -> CelConstraint:
    obj = _fields(value, ("rule",), where, "a cel constraint")
    rule = _required_text(obj, "rule", where, "rule: 'properties.exists(p, p.type == \"x\")'")
    try:
        program = compile_rule(rule)
    except CelCompileError as err:
        raise InputError(
            f"{where}/rule",
            f"the CEL rule does not compile: {err}",
            "a rule sees `properties` (a list of {type, value} maps) and "
            "semver_compare(a, b), and must give true or false",
        ) from None
    return CelConstraint(rule, program, message)


def _parse_compound(value: object, where: str, kind: str, depth: int) -> tuple[ConstraintSpec, ...]:
    obj = _fields(value, ("constraints",), where, f"the {excerpt(kind)} constraint")
    items = obj.get("constraints")
    if items is None:
        return ()
    if not isinstance(items, list | tuple):
        raise InputError(f"{where}/constraints", f"must be a list, not {json_type(items)}")
    return tuple(
        _parse_node(item, f"{where}/constraints[{i}]", depth + 1) for i, item in enumerate(items)
    )
