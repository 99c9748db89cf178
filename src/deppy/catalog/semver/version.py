"""Semantic versions exactly as OLM reads them (blang/semver v4): Parse, ParseTolerant, order.

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

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final, TypeAlias

from deppy.errors import quoted

__all__ = ["MIN_VERSION", "UINT64_MAX", "Version", "VersionError"]

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
    """A version as messages quote it: JSON-escaped, and cut short when it is long."""
    return quoted(text)


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
