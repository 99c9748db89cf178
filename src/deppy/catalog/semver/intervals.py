"""Ranges as an algebra: normalised unions of disjoint version intervals (as pubgrub-rs's
version sets), so ranges can be intersected, complemented and compared."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, TypeAlias

from deppy.catalog.semver.version import MIN_VERSION, SortKey, Version

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
