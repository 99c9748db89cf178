"""OLM v1 version constraints: a ClusterExtension's ``spec.source.catalog.version``.

OLM v1 reads this field differently from every range in a catalog (which ``ranges`` reads as
blang/semver, as OLM v0 and operator-registry do). Two gates, in OLM v1's order:

1. the ClusterExtension CRD refuses the text (at most 64 characters, and its CEL rule "invalid
   version expression", a regular expression over operators and versions): the API server would
   not store the object, so deppy refuses it too, naming the expression;
2. operator-controller parses it with Masterminds/semver v3 (``NewConstraint``) and checks each
   bundle version with ``Constraints.Check``: ``^``, ``~``, ``~>``, wildcards ``x``/``X``/``*``, a
   ``v`` prefix, short versions (``1.2``), comma or space as AND, ``||`` as OR, ``=>``/``=<``.
   A prerelease version matches only an OR group in which some comparison names a prerelease.

Both regular expressions are OLM v1's and Masterminds' own patterns, so a text is accepted
exactly when OLM v1 accepts it; the checks restate Masterminds' comparison functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from deppy.catalog.semver.version import SortKey, Version, VersionError, _sort_key

MAX_LENGTH: Final = 64
"""The CRD's maxLength for spec.source.catalog.version."""

_HINT = (
    'write e.g. ">=1.2.0, <2.0.0", "~1.2", "^1.2.3", "1.2.x" or "1.2.3" '
    '(OLM v1 operators: = != > < >= => <= =< ~ ~> ^; "," or space is AND, "||" is OR)'
)

# Go's \s is [\t\n\f\r ]; \d is ASCII; Python's re and Go's regexp both prefer the leftmost
# alternative, so these patterns match what OLM v1's do.
_S = r"[\t\n\f\r ]"

# The CEL rule of the ClusterExtension CRD (spec.source.catalog.version), character for
# character (its stray "]" and "|" included: they are what the API server accepts).
_CRD_RULE: Final = re.compile(
    (
        r"^(\s*(=||!=|>|<|>=|=>|<=|=<|~|~>|\^)\s*(v?(0|[1-9]\d*|[x|X|\*])(\.(0|[1-9]\d*|x|X|\*]))?"
        r"(\.(0|[1-9]\d*|x|X|\*))?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
        r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?)\s*)((?:\s+|,\s*|\s*\|\|\s*)"
        r"(=||!=|>|<|>=|=>|<=|=<|~|~>|\^)\s*(v?(0|[1-9]\d*|x|X|\*])(\.(0|[1-9]\d*|x|X|\*))?"
        r"(\.(0|[1-9]\d*|x|X|\*]))?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
        r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?)\s*)*$"
    ).replace(r"\s", _S),
    re.ASCII,
)

# Masterminds/semver v3 constraints.go
_OPS = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^"
_CV = (
    r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?"
    r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
)
_ONE = re.compile(rf"^\s*({_OPS})\s*({_CV})\s*$".replace(r"\s", _S), re.ASCII)
_FIND = re.compile(rf"({_OPS})\s*({_CV})".replace(r"\s", _S), re.ASCII)
_VALID_GROUP = re.compile(
    rf"^(\s*({_OPS})\s*({_CV})\s*)((?:\s+|,\s*)({_OPS})\s*({_CV})\s*)*$".replace(r"\s", _S),
    re.ASCII,
)
_WILD = ("x", "X", "*")


def _error(text: str, problem: str) -> VersionError:
    return VersionError("version constraint", text, problem, _HINT)


def _why_refused(text: str) -> str:
    """Words for the commonest mistakes; the rule itself decides what is refused."""
    if "==" in text:
        return '"==" is not an OLM v1 operator (use "=" or the bare version)'
    if re.search(r"!(?!=)", text):
        return '"!" alone is not an operator (use "!=")'
    if re.search(r"\d\s+-\s+\d", text):
        return 'OLM v1 refuses hyphen ranges ("1.0 - 2.0"); write ">=1.0, <=2.0"'
    if not text.strip():
        return "it is empty (leave the field out for any version)"
    return "the ClusterExtension API refuses it (CEL rule: invalid version expression)"


@dataclass(frozen=True, slots=True)
class _Comparison:
    """One Masterminds comparison: operator, version, and which parts were wildcards/missing."""

    op: str
    text: str
    major: int
    minor: int
    patch: int
    pre: tuple[int | str, ...]
    dirty: bool
    minor_dirty: bool
    patch_dirty: bool

    @property
    def key(self) -> SortKey:
        return _sort_key(self.major, self.minor, self.patch, self.pre)

    def check(self, v: Version) -> bool:
        return _CHECKS[self.op](self, v)


def _not_equal(c: _Comparison, v: Version) -> bool:
    if c.dirty:
        if c.major != v.major:
            return True
        if c.minor != v.minor and not c.minor_dirty:
            return True
        if c.minor_dirty:
            return False
        if c.patch != v.patch and not c.patch_dirty:
            return True
        if c.patch_dirty:
            if v.prerelease or c.pre:
                return v.prerelease != c.pre
            return False
    return v.sort_key != c.key


def _greater(c: _Comparison, v: Version) -> bool:
    if not c.dirty:
        return v.sort_key > c.key
    if v.major != c.major:
        return v.major > c.major
    if c.minor_dirty:
        return False  # >1 does not hold for 1.5.0
    if c.patch_dirty:
        return v.minor > c.minor  # >1.1 does not hold for 1.1.5
    return v.sort_key > c.key


def _less(c: _Comparison, v: Version) -> bool:
    return v.sort_key < c.key


def _at_least(c: _Comparison, v: Version) -> bool:
    return v.sort_key >= c.key


def _at_most(c: _Comparison, v: Version) -> bool:
    if not c.dirty:
        return v.sort_key <= c.key
    if v.major > c.major:
        return False
    return not (v.major == c.major and v.minor > c.minor and not c.minor_dirty)


def _tilde(c: _Comparison, v: Version) -> bool:
    if v.sort_key < c.key:
        return False
    if (c.major, c.minor, c.patch) == (0, 0, 0) and not c.minor_dirty and not c.patch_dirty:
        return True  # ~0.0.0 and ~* mean any version
    if v.major != c.major:
        return False
    return v.minor == c.minor or c.minor_dirty


def _tilde_or_equal(c: _Comparison, v: Version) -> bool:
    return _tilde(c, v) if c.dirty else v.sort_key == c.key


def _caret(c: _Comparison, v: Version) -> bool:
    if v.sort_key < c.key:
        return False
    if c.major > 0 or c.minor_dirty:
        return v.major == c.major
    if v.major > 0:
        return False
    if c.minor > 0 or c.patch_dirty:
        return v.minor == c.minor
    if v.minor > 0:
        return False
    return v.patch == c.patch


_CHECKS: Final[dict[str, Callable[[_Comparison, Version], bool]]] = {
    "": _tilde_or_equal,
    "=": _tilde_or_equal,
    "!=": _not_equal,
    ">": _greater,
    "<": _less,
    ">=": _at_least,
    "=>": _at_least,
    "<=": _at_most,
    "=<": _at_most,
    "~": _tilde,
    "~>": _tilde,
    "^": _caret,
}


def _number(part: str, text: str) -> int:
    if not part.isdigit():
        raise _error(text, f"{part!r} is not a number or a wildcard")
    return int(part)


def _prerelease(pre: str, text: str) -> tuple[int | str, ...]:
    try:
        return Version.parse(f"0.0.0-{pre}").prerelease
    except VersionError:
        raise _error(text, f"the prerelease {pre!r} is not valid semver") from None


def _comparison(token: str, text: str) -> _Comparison:
    match = _ONE.match(token)
    if match is None:
        raise _error(text, f"cannot read {token.strip()!r}")
    op, major, minor, patch, pre = (
        match.group(1),
        match.group(3),
        (match.group(4) or "").removeprefix("."),
        (match.group(5) or "").removeprefix("."),
        match.group(7) or "",
    )
    prerelease = _prerelease(pre, text) if pre else ()
    if major in _WILD:
        return _Comparison(op, token.strip(), 0, 0, 0, prerelease, True, False, False)
    if minor in _WILD or not minor:
        number = _number(major, text)
        return _Comparison(op, token.strip(), number, 0, 0, prerelease, True, True, False)
    if patch in _WILD or not patch:
        numbers = (_number(major, text), _number(minor, text))
        return _Comparison(op, token.strip(), *numbers, 0, prerelease, True, False, True)
    numbers3 = (_number(major, text), _number(minor, text), _number(patch, text))
    return _Comparison(op, token.strip(), *numbers3, prerelease, False, False, False)


@dataclass(frozen=True, slots=True)
class ExtensionConstraint:
    """A parsed OLM v1 version constraint: OR of AND groups of comparisons.

    ``contains`` is Masterminds' ``Check`` on the version without its build metadata (build
    metadata takes no part in any comparison).
    """

    text: str
    groups: tuple[tuple[_Comparison, ...], ...]
    prereleases: tuple[bool, ...]  # per group: some comparison names a prerelease

    @classmethod
    def parse(cls, text: str) -> ExtensionConstraint:
        """Accept exactly what OLM v1 accepts; a ``VersionError`` quotes the expression."""
        if not isinstance(text, str):
            raise _error(repr(text), "it is not a string")
        if len(text) > MAX_LENGTH:
            raise _error(text, f"OLM v1 accepts at most {MAX_LENGTH} characters")
        if not _CRD_RULE.match(text):
            raise _error(text, _why_refused(text))
        groups: list[tuple[_Comparison, ...]] = []
        for part in text.split("||"):
            if not _VALID_GROUP.match(part):
                raise _error(text, f"improper constraint {part.strip()!r}")
            tokens = [m.group(0) for m in _FIND.finditer(part)] or [part]
            groups.append(tuple(_comparison(token, text) for token in tokens))
        prereleases = tuple(any(c.pre for c in group) for group in groups)
        return cls(text, tuple(groups), prereleases)

    def contains(self, version: Version) -> bool:
        for group, with_pre in zip(self.groups, self.prereleases, strict=True):
            if version.prerelease and not with_pre:
                continue
            if all(c.check(version) for c in group):
                return True
        return False

    def __str__(self) -> str:
        return self.text


__all__ = ["MAX_LENGTH", "ExtensionConstraint"]
