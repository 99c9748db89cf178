"""Semantic versions and version ranges exactly as OLM reads them (blang/semver v4).

operator-registry and OLM parse bundle versions with ``semver.Parse``, CSV and OpenShift versions
with ``semver.ParseTolerant`` and every range (olm.package.required, skipRange, olm.constraint) with
``semver.ParseRange``. A generic semver library would disagree with them on real catalogs (spaces
after operators, wildcard expansion, no ``~``/``^``, no leading ``v`` inside ranges), so this module
follows blang's algorithm step by step, including its documented quirks, and only refuses input that
blang would silently misread (see :meth:`VersionRange.parse`).

Ranges are also a small algebra (as pubgrub-rs's version sets): a normalised union of disjoint
intervals, so the resolver can intersect, complement and compare them, and explain a failure as
"versions 1.2.0 to 1.4.0 exist but the range >=2.0.0 excludes them".
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final, TypeAlias

__all__ = ["MIN_VERSION", "UINT64_MAX", "Interval", "Version", "VersionError", "VersionRange"]

UINT64_MAX: Final = 2**64 - 1
"""blang stores numbers as uint64; larger numbers are parse errors there, so here too."""

_IdentifierKey: TypeAlias = tuple[int, int] | tuple[int, str]
SortKey: TypeAlias = tuple[int, int, int, int, tuple[_IdentifierKey, ...]]

_STRICT = re.compile(
    r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
)
_DIGITS = re.compile(r"[0-9]*")
_ALNUM = re.compile(r"[0-9A-Za-z-]*")

_VERSION_HINT = 'write MAJOR.MINOR.PATCH, e.g. "1.2.3" or "1.2.3-rc.1"'
_RANGE_HINT = 'write e.g. ">=1.0.0 <2.0.0"'
_OPERATORS_HINT = (
    'OLM knows < <= > >= = != (AND by space, OR by " || ", wildcards like 1.x); '
    'write e.g. ">=1.0.0 <2.0.0"'
)


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


class VersionError(ValueError):
    """A version or range that OLM would refuse; the message quotes it and says what to write."""

    def __init__(self, kind: str, text: str, problem: str, hint: str) -> None:
        self.kind = kind
        self.text = text
        self.problem = problem
        self.hint = hint
        super().__init__(f"invalid {kind} {_q(text)}: {problem}; {hint}")


# --------------------------------------------------------------------------------------------------
# Version


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Version:
    """A semver 2.0 version, ordered by precedence.

    Equality and hashing follow precedence too, as blang's ``Compare``/``Equals`` do: versions that
    differ only in build metadata (``1.0.0+a``, ``1.0.0+b``) are equal and collapse in sets. Keep
    the :attr:`text` when the exact spelling matters. ``text`` is what ``str()`` returns: the
    input as written (``"v4.8"`` for a tolerant parse), or the canonical form when built directly.
    """

    major: int
    minor: int
    patch: int
    prerelease: tuple[int | str, ...] = ()
    build: tuple[str, ...] = ()
    text: str = ""
    sort_key: SortKey = field(init=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("major", "minor", "patch"):
            number = getattr(self, name)
            if type(number) is not int or not 0 <= number <= UINT64_MAX:
                raise VersionError(
                    "version",
                    repr(number),
                    f"the {name} number must be an integer 0..2^64-1",
                    _VERSION_HINT,
                )
        pre = tuple(_check_prerelease_identifier(i) for i in self.prerelease)
        object.__setattr__(self, "prerelease", pre)
        for ident in self.build:
            if not isinstance(ident, str) or not ident or not _ALNUM.fullmatch(ident):
                raise VersionError(
                    "version",
                    str(ident),
                    "build identifiers must be non-empty [0-9A-Za-z-]",
                    _VERSION_HINT,
                )
        object.__setattr__(self, "build", tuple(self.build))
        if not self.text:
            object.__setattr__(self, "text", self.canonical)
        object.__setattr__(
            self, "sort_key", _sort_key(self.major, self.minor, self.patch, self.prerelease)
        )

    @classmethod
    def _trusted(
        cls,
        major: int,
        minor: int,
        patch: int,
        prerelease: tuple[int | str, ...],
        build: tuple[str, ...],
        text: str,
    ) -> Version:
        """Skips validation for parts the parser has already checked (parsing is hot)."""
        v = object.__new__(cls)
        setter = object.__setattr__
        setter(v, "major", major)
        setter(v, "minor", minor)
        setter(v, "patch", patch)
        setter(v, "prerelease", prerelease)
        setter(v, "build", build)
        setter(v, "text", text)
        setter(v, "sort_key", _sort_key(major, minor, patch, prerelease))
        return v

    # -- parsing -----------------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> Version:
        """blang ``Parse``: strict MAJOR.MINOR.PATCH[-PRE][+BUILD], no "v", no leading zeros."""
        if not isinstance(text, str):
            raise VersionError("version", repr(text), "it is not a string", _VERSION_HINT)
        return _parse_strict(text)

    @classmethod
    def parse_tolerant(cls, text: str) -> Version:
        """blang ``ParseTolerant``, which OLM uses for CSV, Kubernetes and OpenShift versions.

        It trims spaces, drops one leading "v", removes leading zeros from the three numbers and
        fills a missing minor/patch with 0 ("4.8" is 4.8.0); a short version may not carry
        -PRERELEASE or +BUILD. ``str()`` of the result is ``text`` without surrounding spaces.
        """
        if not isinstance(text, str):
            raise VersionError("version", repr(text), "it is not a string", _VERSION_HINT)
        return _parse_tolerant(text)

    @classmethod
    def coerce(cls, value: object) -> Version:
        """A version from a JSON value, read tolerantly: catalogs write ``4.8`` as a number too.

        Numbers lose their spelling before they get here (YAML reads ``4.10`` as 4.1), so keep
        the raw text instead where the source has one.
        """
        if isinstance(value, str):
            return _parse_tolerant(value)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise VersionError(
                "version",
                repr(value),
                f"a {type(value).__name__} is not a version",
                'write a string such as "4.12"',
            )
        if isinstance(value, float) and not math.isfinite(value):
            raise VersionError("version", repr(value), "it is not a finite number", _VERSION_HINT)
        return _parse_tolerant(repr(value) if isinstance(value, float) else str(value))

    # -- derived -----------------------------------------------------------------------------------

    @property
    def canonical(self) -> str:
        """MAJOR.MINOR.PATCH[-PRE][+BUILD] as blang's ``String()`` prints it."""
        out = f"{self.major}.{self.minor}.{self.patch}"
        if self.prerelease:
            out += "-" + ".".join(str(i) for i in self.prerelease)
        if self.build:
            out += "+" + ".".join(self.build)
        return out

    def without_build(self) -> Version:
        if not self.build and self.text == self.canonical:
            return self
        return Version._trusted(
            self.major,
            self.minor,
            self.patch,
            self.prerelease,
            (),
            _canonical(self.major, self.minor, self.patch, self.prerelease),
        )

    def successor(self) -> Version:
        """The lowest version above this one: 1.0.0 -> 1.0.1-0, 1.0.0-rc -> 1.0.0-rc.0.

        Semver versions are not dense at these points, so ">1.0.0" and ">=1.0.1-0" are the same
        set; range normalisation relies on this to make equal sets equal objects.
        """
        if self.prerelease:
            return _make(self.major, self.minor, self.patch, (*self.prerelease, 0))
        return _make(self.major, self.minor, self.patch + 1, (0,))

    def predecessor(self) -> Version | None:
        """The highest version below this one, when there is one (the inverse of successor)."""
        pre = self.prerelease
        if len(pre) >= 2 and pre[-1] == 0:
            return _make(self.major, self.minor, self.patch, pre[:-1])
        if pre == (0,) and self.patch > 0:
            return _make(self.major, self.minor, self.patch - 1, ())
        return None

    def compare(self, other: Version) -> int:
        """-1, 0 or 1 as blang's ``Compare`` (build metadata ignored)."""
        a, b = self.sort_key, other.sort_key
        return 0 if a == b else (-1 if a < b else 1)

    # -- protocol ----------------------------------------------------------------------------------

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Version({self.text!r})"

    def __hash__(self) -> int:
        return hash(self.sort_key)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self.sort_key == other.sort_key

    def __lt__(self, other: Version) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self.sort_key < other.sort_key

    def __le__(self, other: Version) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self.sort_key <= other.sort_key

    def __gt__(self, other: Version) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self.sort_key > other.sort_key

    def __ge__(self, other: Version) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self.sort_key >= other.sort_key


def _check_prerelease_identifier(ident: object) -> int | str:
    if type(ident) is int and 0 <= ident <= UINT64_MAX:
        return ident
    if isinstance(ident, str) and ident and _ALNUM.fullmatch(ident):
        if not _DIGITS.fullmatch(ident):
            return ident
        if len(ident) == 1 or ident[0] != "0":
            number = int(ident)
            if number <= UINT64_MAX:
                return number
    raise VersionError(
        "version",
        str(ident),
        "prerelease identifiers are non-empty [0-9A-Za-z-], numbers without leading zeros",
        _VERSION_HINT,
    )


def _sort_key(major: int, minor: int, patch: int, pre: tuple[int | str, ...]) -> SortKey:
    # A release sorts above all of its prereleases; numeric identifiers below alphanumeric ones;
    # a shorter identifier list below a longer one it prefixes (tuple order does that).
    if not pre:
        return (major, minor, patch, 1, ())
    return (
        major,
        minor,
        patch,
        0,
        tuple((0, i) if isinstance(i, int) else (1, i) for i in pre),
    )


def _canonical(major: int, minor: int, patch: int, pre: tuple[int | str, ...]) -> str:
    out = f"{major}.{minor}.{patch}"
    return out + "-" + ".".join(str(i) for i in pre) if pre else out


def _make(major: int, minor: int, patch: int, pre: tuple[int | str, ...]) -> Version:
    return Version._trusted(major, minor, patch, pre, (), _canonical(major, minor, patch, pre))


MIN_VERSION: Final = _make(0, 0, 0, (0,))
"""0.0.0-0, the lowest of all versions: ">=0.0.0-0" is every version, "<0.0.0-0" none."""


@lru_cache(maxsize=16384)
def _parse_strict(text: str) -> Version:
    m = _STRICT.fullmatch(text)
    if m is None:
        raise _diagnose(text, text)
    major, minor, patch = int(m[1]), int(m[2]), int(m[3])
    pre: tuple[int | str, ...] = ()
    if m[4] is not None:
        pre = tuple(_prerelease_identifier(i, text) for i in m[4].split("."))
    if max(major, minor, patch) > UINT64_MAX:
        raise _diagnose(text, text)
    build = tuple(m[5].split(".")) if m[5] is not None else ()
    return Version._trusted(major, minor, patch, pre, build, text)


def _prerelease_identifier(ident: str, text: str) -> int | str:
    if not _DIGITS.fullmatch(ident):
        return ident
    if len(ident) > 1 and ident[0] == "0":
        raise VersionError(
            "version",
            text,
            f"the numeric prerelease identifier {_q(ident)} has a leading zero",
            _VERSION_HINT,
        )
    number = int(ident)
    if number > UINT64_MAX:
        raise VersionError(
            "version", text, f"the prerelease number {ident} is larger than 2^64-1", _VERSION_HINT
        )
    return number


def _diagnose(text: str, shown: str) -> VersionError:
    """Why blang's Parse refuses ``text``, following its checks in order (for the message)."""

    def error(problem: str, hint: str = _VERSION_HINT) -> VersionError:
        return VersionError("version", shown, problem, hint)

    if not text:
        return error("it is empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        if text[0] in "vV" and len(parts) >= 1:
            return error(
                'it has a leading "v" and fewer than three numbers',
                f"write {_q(_fill_short(text[1:]))}",
            )
        return error(
            "it does not have three dot-separated numbers MAJOR.MINOR.PATCH",
            f"write {_q(_fill_short(text))}"
            if _DIGITS.fullmatch(text.replace(".", ""))
            else _VERSION_HINT,
        )
    patch_part, _, build_part = parts[2].partition("+")
    patch_str, _, pre_part = patch_part.partition("-")
    for name, number in (("major", parts[0]), ("minor", parts[1]), ("patch", patch_str)):
        if not number:
            return error(f"the {name} number is empty")
        if not _DIGITS.fullmatch(number):
            if name == "major" and number[0] == "v" and _DIGITS.fullmatch(number[1:]):
                return error('it has a leading "v"', f"write {_q(text[1:])}")
            return error(f"the {name} number {_q(number)} has characters other than digits")
        if len(number) > 1 and number[0] == "0":
            return error(f"the {name} number {_q(number)} has a leading zero")
        if int(number) > UINT64_MAX:
            return error(f"the {name} number {number} is larger than 2^64-1")
    if "-" in patch_part:
        for ident in pre_part.split("."):
            if not ident:
                return error("the prerelease has an empty identifier")
            if not _ALNUM.fullmatch(ident):
                return error(
                    f"the prerelease identifier {_q(ident)} has characters other than [0-9A-Za-z-]"
                )
            if _DIGITS.fullmatch(ident):
                try:
                    _prerelease_identifier(ident, shown)
                except VersionError as err:
                    return err
    if "+" in parts[2]:
        for ident in build_part.split("."):
            if not ident:
                return error("the build metadata has an empty identifier")
            if not _ALNUM.fullmatch(ident):
                return error(
                    f"the build identifier {_q(ident)} has characters other than [0-9A-Za-z-]"
                )
    return error("it is not a semantic version")  # pragma: no cover - the regex and blang agree


def _fill_short(text: str) -> str:
    parts = [p or "0" for p in text.split(".")][:3]
    return ".".join(parts + ["0"] * (3 - len(parts)))


@lru_cache(maxsize=4096)
def _parse_tolerant(text: str) -> Version:
    shown = text.strip()
    s = shown[1:] if shown.startswith("v") else shown
    parts = s.split(".", 2)
    for i, part in enumerate(parts):
        if len(part) > 1:
            part = part.lstrip("0")
            if not part or part[0] not in "0123456789":
                part = "0" + part
            parts[i] = part
    if len(parts) < 3:
        if "+" in parts[-1] or "-" in parts[-1]:
            raise VersionError(
                "version",
                shown,
                "a short version cannot carry -PRERELEASE or +BUILD",
                f"write all three numbers, e.g. {_q(_fill_short(parts[0]) + '-rc.1')}",
            )
        parts += ["0"] * (3 - len(parts))
    normalised = ".".join(parts)
    try:
        v = _parse_strict(normalised)
    except VersionError as err:
        # Explain in terms of what was written, not of blang's zero-trimmed rewrite ("V1" would
        # show as "0V1"), unless the only complaint left is a leading zero it removes.
        written = s.split(".", 2)
        explained = _diagnose(".".join(written + ["0"] * (3 - len(written))), shown)
        if "has a leading zero" in explained.problem and "prerelease" not in explained.problem:
            explained = VersionError("version", shown, err.problem, err.hint)
        raise explained from None
    return Version._trusted(v.major, v.minor, v.patch, v.prerelease, v.build, shown)


# --------------------------------------------------------------------------------------------------
# Intervals


@dataclass(frozen=True, slots=True)
class Interval:
    """One piece of a range: ``lower``/``upper`` None mean unbounded.

    Inside a :class:`VersionRange` intervals are canonical: bounds carry no build metadata, an
    inclusive lower bound never has a predecessor (``>=1.0.1-0`` is stored as ``>1.0.0``) and an
    exclusive upper bound never has one either (``<1.0.1-0`` is stored as ``<=1.0.0``).
    """

    lower: Version | None
    lower_inclusive: bool
    upper: Version | None
    upper_inclusive: bool

    @property
    def is_point(self) -> bool:
        return self.point is not None

    @property
    def point(self) -> Version | None:
        """The only member of a one-version interval, else None."""
        lo, hi = self.lower, self.upper
        if lo is None or hi is None or not self.upper_inclusive:
            return None
        if self.lower_inclusive:
            return hi if lo == hi else None
        return hi if lo.successor() == hi else None

    def contains(self, version: Version) -> bool:
        k = version.sort_key
        lo, hi = self.lower, self.upper
        if lo is not None and (k < lo.sort_key or (k == lo.sort_key and not self.lower_inclusive)):
            return False
        return hi is None or k < hi.sort_key or (k == hi.sort_key and self.upper_inclusive)

    def range_text(self) -> str:
        """The interval in ParseRange syntax (AND of at most two comparisons)."""
        point = self.point
        if point is not None:
            return point.canonical
        out = []
        if self.lower is not None:
            out.append((">=" if self.lower_inclusive else ">") + self.lower.canonical)
        if self.upper is not None:
            out.append(("<=" if self.upper_inclusive else "<") + self.upper.canonical)
        return " ".join(out) if out else ">=" + MIN_VERSION.canonical

    def describe(self) -> str:
        point = self.point
        if point is not None:
            return point.canonical
        if self.lower is None and self.upper is None:
            return "any version"
        return self.range_text().replace(" ", ", ")

    def __str__(self) -> str:
        return self.range_text()


# A cut sits between versions; its key orders cuts among themselves and against versions:
# (0,) is below everything, (1, k, 0) just below the version with sort key k, (1, k, 1) just
# above it, (2,) above everything.
_CutKey: TypeAlias = tuple[int] | tuple[int, SortKey, int]
_BOTTOM: Final[_CutKey] = (0,)
_TOP: Final[_CutKey] = (2,)


def _lower_key(iv: Interval) -> _CutKey:
    if iv.lower is None:
        return _BOTTOM
    return (1, iv.lower.sort_key, 0 if iv.lower_inclusive else 1)


def _upper_key(iv: Interval) -> _CutKey:
    if iv.upper is None:
        return _TOP
    return (1, iv.upper.sort_key, 1 if iv.upper_inclusive else 0)


def _canonical_interval(
    lower: Version | None, lower_inclusive: bool, upper: Version | None, upper_inclusive: bool
) -> Interval | None:
    """The canonical spelling of an interval, or None when it is empty."""
    if lower is not None:
        lower = lower.without_build()
        if lower_inclusive:
            if lower == MIN_VERSION:
                lower = None
            else:
                before = lower.predecessor()
                if before is not None:
                    lower, lower_inclusive = before, False
    if lower is None:
        lower_inclusive = False
    if upper is not None:
        upper = upper.without_build()
        if not upper_inclusive:
            if upper == MIN_VERSION:
                return None
            before = upper.predecessor()
            if before is not None:
                upper, upper_inclusive = before, True
    else:
        upper_inclusive = False
    iv = Interval(lower, lower_inclusive, upper, upper_inclusive)
    if lower is not None and upper is not None and _lower_key(iv) >= _upper_key(iv):
        return None
    return iv


def _normalise(intervals: Iterable[Interval]) -> tuple[Interval, ...]:
    """Canonical bounds, empties dropped, sorted, overlapping or touching pieces merged."""
    pieces = []
    for iv in intervals:
        c = _canonical_interval(iv.lower, iv.lower_inclusive, iv.upper, iv.upper_inclusive)
        if c is not None:
            pieces.append(c)
    pieces.sort(key=_lower_key)
    merged: list[Interval] = []
    for iv in pieces:
        if merged and _lower_key(iv) <= _upper_key(merged[-1]):
            last = merged[-1]
            if _upper_key(iv) > _upper_key(last):
                merged[-1] = Interval(
                    last.lower, last.lower_inclusive, iv.upper, iv.upper_inclusive
                )
        else:
            merged.append(iv)
    return tuple(merged)


def _complement(intervals: tuple[Interval, ...]) -> list[Interval]:
    gaps = []
    lower: Version | None = None
    lower_inclusive = False
    for iv in intervals:
        if iv.lower is not None:
            gaps.append(Interval(lower, lower_inclusive, iv.lower, not iv.lower_inclusive))
        if iv.upper is None:
            return gaps
        lower, lower_inclusive = iv.upper, not iv.upper_inclusive
    gaps.append(Interval(lower, lower_inclusive, None, False))
    return gaps


def _intersect(a: tuple[Interval, ...], b: tuple[Interval, ...]) -> list[Interval]:
    out = []
    i = j = 0
    while i < len(a) and j < len(b):
        x, y = a[i], b[j]
        lo = x if _lower_key(x) >= _lower_key(y) else y
        hi = x if _upper_key(x) <= _upper_key(y) else y
        out.append(Interval(lo.lower, lo.lower_inclusive, hi.upper, hi.upper_inclusive))
        if _upper_key(x) <= _upper_key(y):
            i += 1
        else:
            j += 1
    return out


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
