"""VersionRange: a blang/semver v4 range (``ParseRange``, step by step as range.go), or any set
built from ranges by the interval algebra."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, Final, TypeAlias

from deppy.catalog.semver.intervals import Interval, _complement, _intersect, _normalise
from deppy.catalog.semver.version import (
    _OPERATORS_HINT,
    _RANGE_HINT,
    MIN_VERSION,
    SortKey,
    Version,
    VersionError,
    _fill_short,
    _parse_strict,
    _q,
)

# --------------------------------------------------------------------------------------------------
# VersionRange

_FastBounds: TypeAlias = tuple[tuple[SortKey | None, bool, SortKey | None, bool], ...]


class VersionRange:
    """A set of versions: a blang/semver v4 range, or anything built from ranges by the algebra.

    Equality and hashing use the normalised intervals, so ranges written differently but meaning
    the same set are equal (``">1.0.0"`` == ``">=1.0.1-0"``). ``str()`` gives the text the range
    was parsed from; :meth:`range_text` a canonical ParseRange spelling; :meth:`describe` words.
    """

    __slots__ = ("_bounds", "_hash", "_text", "intervals")

    intervals: tuple[Interval, ...]

    _hash: int
    _text: str | None
    _bounds: _FastBounds

    def __init__(self, intervals: Iterable[Interval] = (), *, text: str | None = None) -> None:
        normal = _normalise(intervals)
        setter = object.__setattr__
        setter(self, "intervals", normal)
        setter(self, "_text", text)
        setter(self, "_hash", hash(normal))
        bounds = tuple(
            (
                None if iv.lower is None else iv.lower.sort_key,
                iv.lower_inclusive,
                None if iv.upper is None else iv.upper.sort_key,
                iv.upper_inclusive,
            )
            for iv in normal
        )
        setter(self, "_bounds", bounds)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"VersionRange is immutable; cannot set {name}")

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its intervals and text (the parsed-catalog cache keeps loaded catalogs)."""
        return (_unpickled_range, (self.intervals, self._text))

    # -- constructors ------------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> VersionRange:
        """blang/semver v4 ``ParseRange``, which OLM uses for every range in a catalog.

        Accepted exactly as blang accepts, with blang's meaning, including its quirks:
        ``>= 1.0.0`` (a space after an operator), ``1.x``/``1.2.x`` wildcards expanded as its
        ``expandWildcardVersion`` does (so ``<=1.x.x`` means ``<1.1.0``, and ``!=1.x`` is the empty
        AND of ``<1.0.0`` and ``>=2.0.0``), strict versions only (no "v", no "1.2").

        Refused although blang accepts them, because blang silently misreads them: a
        one-character token (blang drops it, so ``! 1.0.0`` means ``=1.0.0`` and ``1.0.0 - 2.0.0``
        means nothing), an empty alternative (``a || || b``, a nil function blang panics on) and
        an unknown operator before a wildcard (blang reads ``~1.x`` as ``=1.0.0``).
        """
        if not isinstance(text, str):
            raise _range_error(repr(text), "it is not a string")
        return _parse_range(text)

    @classmethod
    def any(cls) -> VersionRange:
        return _ANY

    @classmethod
    def none(cls) -> VersionRange:
        return _NONE

    @classmethod
    def exactly(cls, version: Version) -> VersionRange:
        return cls([Interval(version, True, version, True)])

    @classmethod
    def at_least(cls, version: Version) -> VersionRange:
        return cls([Interval(version, True, None, False)])

    @classmethod
    def greater_than(cls, version: Version) -> VersionRange:
        return cls([Interval(version, False, None, False)])

    @classmethod
    def at_most(cls, version: Version) -> VersionRange:
        return cls([Interval(None, False, version, True)])

    @classmethod
    def less_than(cls, version: Version) -> VersionRange:
        return cls([Interval(None, False, version, False)])

    @classmethod
    def between(
        cls,
        lower: Version,
        upper: Version,
        *,
        lower_inclusive: bool = True,
        upper_inclusive: bool = False,
    ) -> VersionRange:
        """``>=lower <upper`` by default, the shape of most skipRanges."""
        return cls([Interval(lower, lower_inclusive, upper, upper_inclusive)])

    @classmethod
    def of(cls, versions: Iterable[Version]) -> VersionRange:
        """Exactly these versions (e.g. the ones a catalog has)."""
        return cls(Interval(v, True, v, True) for v in versions)

    # -- algebra -----------------------------------------------------------------------------------

    def intersection(self, other: VersionRange) -> VersionRange:
        return VersionRange(_intersect(self.intervals, other.intervals))

    def union(self, other: VersionRange) -> VersionRange:
        return VersionRange(self.intervals + other.intervals)

    def complement(self) -> VersionRange:
        return VersionRange(_complement(self.intervals))

    def difference(self, other: VersionRange) -> VersionRange:
        return self.intersection(other.complement())

    __and__ = intersection
    __or__ = union
    __invert__ = complement
    __sub__ = difference

    def is_empty(self) -> bool:
        return not self.intervals

    def is_any(self) -> bool:
        return self == _ANY

    def is_subset(self, other: VersionRange) -> bool:
        return self.difference(other).is_empty()

    def is_disjoint(self, other: VersionRange) -> bool:
        return self.intersection(other).is_empty()

    def hull(self) -> VersionRange:
        """The smallest single interval holding this set: a suggestion such as ">=1.2.0 <=1.4.0"
        for the versions 1.2.0, 1.3.0 and 1.4.0 that a catalog has."""
        if len(self.intervals) < 2:
            return self
        first, last = self.intervals[0], self.intervals[-1]
        return VersionRange(
            [Interval(first.lower, first.lower_inclusive, last.upper, last.upper_inclusive)]
        )

    # -- membership --------------------------------------------------------------------------------

    def contains(self, version: Version) -> bool:
        k = version.sort_key
        for lo, lo_inclusive, hi, hi_inclusive in self._bounds:
            if lo is not None and (k < lo or (k == lo and not lo_inclusive)):
                return False  # below this piece, and the pieces ascend
            if hi is None or k < hi or (hi_inclusive and k == hi):
                return True
        return False

    def __contains__(self, version: object) -> bool:
        return isinstance(version, Version) and self.contains(version)

    def filter(self, versions: Iterable[Version]) -> list[Version]:
        return [v for v in versions if self.contains(v)]

    # -- rendering ---------------------------------------------------------------------------------

    @property
    def text(self) -> str:
        """The text this range was parsed from, else its canonical :meth:`range_text`."""
        return self._text if self._text is not None else self.range_text()

    def range_text(self) -> str:
        """A ParseRange spelling of the normalised set, which parses back to an equal range."""
        if not self.intervals:
            return "<" + MIN_VERSION.canonical
        return " || ".join(iv.range_text() for iv in self.intervals)

    def describe(self) -> str:
        """Words for explanations: "any version", ">=1.0.0, <2.0.0", "any version except 1.2.0"."""
        if not self.intervals:
            return "no version"
        holes = _complement(self.intervals)
        points = [iv.point for iv in holes]
        if holes and all(p is not None for p in points):
            return "any version except " + _join_words([p.canonical for p in points if p])
        return " or ".join(iv.describe() for iv in self.intervals)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"VersionRange({self.text!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, VersionRange):
            return NotImplemented
        return self.intervals == other.intervals

    def __hash__(self) -> int:
        return self._hash


def _join_words(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _unpickled_range(intervals: tuple[Interval, ...], text: str | None) -> VersionRange:
    return VersionRange(intervals, text=text)


_ANY: Final = VersionRange([Interval(None, False, None, False)])
_NONE: Final = VersionRange()


# --------------------------------------------------------------------------------------------------
# ParseRange, step by step as blang/semver v4 range.go


def _range_error(text: str, problem: str, hint: str = _RANGE_HINT) -> VersionError:
    return VersionError("version range", text, problem, hint)


def _split_and_trim(text: str) -> list[str]:
    """blang's splitAndTrim: split on spaces unless the last non-space was one of ``<>=``."""
    tokens: list[str] = []
    last = 0
    last_char = ""
    for i, ch in enumerate(text):
        if ch == " " and last_char not in ("<", ">", "="):
            _take(text, text[last:i], tokens)
            last = i + 1
        elif ch != " ":
            last_char = ch
    _take(text, text[last:], tokens)
    return [t.replace(" ", "") for t in tokens]


def _take(text: str, token: str, tokens: list[str]) -> None:
    if len(token) > 1:
        tokens.append(token)
    elif len(token) == 1:
        # blang silently drops one-character tokens; that changes the meaning, so refuse.
        if token == "-":
            raise _range_error(
                text,
                'hyphen ranges ("1.0.0 - 2.0.0") are not supported by OLM',
                'write ">=1.0.0 <=2.0.0"',
            )
        if token == "!":
            raise _range_error(
                text,
                '"!" stands apart from its version (blang/semver would drop it and read '
                'the version as "=")',
                'write "!=1.0.0" with no space',
            )
        raise _range_error(text, f"{_q(token)} on its own is not a comparison")


def _split_or_parts(text: str, tokens: list[str]) -> list[list[str]]:
    if not tokens:
        raise _range_error(text, "it is empty", 'write e.g. ">=1.0.0" (any version: ">=0.0.0-0")')
    groups: list[list[str]] = [[]]
    for i, token in enumerate(tokens):
        if token == "||":
            if i == 0:
                raise _range_error(text, 'it starts with "||"')
            if not groups[-1]:
                raise _range_error(text, 'it has "||" twice in a row')
            groups.append([])
        else:
            groups[-1].append(token)
    if not groups[-1]:
        raise _range_error(text, 'it ends with "||"')
    return groups


def _first_digit(s: str) -> int:
    for i, ch in enumerate(s):
        if ch.isdecimal():
            return i
    return -1


def _split_comparator(text: str, token: str) -> tuple[str, str]:
    if "||" in token:
        raise _range_error(
            text,
            f'"||" in {_q(token)} needs a space on each side',
            'write e.g. "<1.0.0 || >=2.0.0"',
        )
    i = _first_digit(token)
    if i < 0:
        raise _range_error(text, f"{_q(token)} has no version in it")
    return token[:i].strip(), token[i:]


_COMPARATORS: Final = frozenset({"", "=", "==", "!", "!=", "<", "<=", ">", ">="})


def _expand_wildcards(text: str, group: list[str]) -> list[str]:
    """blang's expandWildcardVersion for one AND group, byte for byte."""
    out: list[str] = []
    for token in group:
        if "x" not in token:
            out.append(token)
            continue
        op, vstr = _split_comparator(text, token)
        if op not in _COMPARATORS:
            raise _comparator_error(text, token, op, vstr)
        parts = vstr.split(".")
        wildcard = len(parts) if parts[-1] == "x" and len(parts) in (2, 3) else 0
        flat = vstr.replace(".x.x", ".x", 1).replace(".x", ".0", 1)
        if len(flat.split(".")) == 2:
            flat += ".0"
        increment = True
        if op == ">":
            result_op = ">="
        elif op == ">=":
            result_op, increment = ">=", False
        elif op == "<":
            result_op, increment = "<", False
        elif op == "<=":
            result_op = "<"
        elif op in ("", "=", "=="):
            out.append(">=" + flat)
            result_op = "<"
        else:  # "!", "!="
            out.append("<" + flat)
            result_op = ">="
        if not increment:
            out.append(result_op + flat)
            continue
        bumped = _bump(flat, 1 if wildcard == 3 else 0) if wildcard else None
        if bumped is None:
            raise _range_error(
                text,
                f'{_q(token)} has an "x" that blang/semver takes for a wildcard but cannot '
                f'expand after "{op or "="}"',
                'write the bound without "x", e.g. ">=1.0.0 <2.0.0" for 1.x',
            )
        out.append(result_op + bumped)
    return out


def _bump(flat: str, index: int) -> str | None:
    """blang's incrementMajor/MinorVersion: Atoi the part, add one (None where Atoi fails)."""
    parts = flat.split(".")
    if not re.fullmatch(r"[+-]?[0-9]+", parts[index]) or abs(int(parts[index])) >= 2**63:
        return None  # Go's Atoi fails on these (int64)
    parts[index] = str(int(parts[index]) + 1)
    return ".".join(parts)


def _comparator_error(text: str, token: str, op: str, vstr: str) -> VersionError:
    if op.endswith(("v", "V")) and op[:-1] in _COMPARATORS:
        return _range_error(
            text,
            f'{_q(token)} has a "v" before its version, which ranges do not allow',
            f"write {_q(op[:-1] + vstr)}",
        )
    if op in ("~", "^", "~>", "=>", "=<"):
        return _range_error(
            text, f"{_q(op)} in {_q(token)} is not an operator OLM knows", _OPERATORS_HINT
        )
    return _range_error(text, f"{_q(token)} is not a comparison", _RANGE_HINT)


def _comparison(text: str, token: str) -> VersionRange:
    op, vstr = _split_comparator(text, token)
    if op not in _COMPARATORS:
        raise _comparator_error(text, token, op, vstr)
    try:
        v = _parse_strict(vstr)
    except VersionError as err:
        hint = err.hint
        if re.fullmatch(r"[0-9]+(\.[0-9]+)?", vstr):
            hint = f"ranges need all three numbers: write {_q(op + _fill_short(vstr))}"
        raise _range_error(
            text, f"{_q(vstr)} in {_q(token)} is not a version: {err.problem}", hint
        ) from None
    if op in ("", "=", "=="):
        return VersionRange.exactly(v)
    if op in ("!", "!="):
        return VersionRange.exactly(v).complement()
    if op == "<":
        return VersionRange.less_than(v)
    if op == "<=":
        return VersionRange.at_most(v)
    if op == ">":
        return VersionRange.greater_than(v)
    return VersionRange.at_least(v)


@lru_cache(maxsize=8192)
def _parse_range(text: str) -> VersionRange:
    groups = _split_or_parts(text, _split_and_trim(text))
    result = VersionRange.none()
    for group in groups:
        conjunction = VersionRange.any()
        for token in _expand_wildcards(text, group):
            conjunction = conjunction.intersection(_comparison(text, token))
        result = result.union(conjunction)
    return VersionRange(result.intervals, text=text)
