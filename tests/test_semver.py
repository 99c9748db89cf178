"""Versions and ranges as blang/semver v4 reads them, and the range algebra built on them."""

from __future__ import annotations

import itertools
import json
import operator
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from deppy.catalog.semver import (
    UINT64_MAX,
    Interval,
    Version,
    VersionError,
    VersionRange,
)
from tests.conftest import shared_path

V = Version.parse
R = VersionRange.parse


# --------------------------------------------------------------------------------------------------
# Version parsing


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("0.0.0", (0, 0, 0, (), ())),
        ("1.2.3", (1, 2, 3, (), ())),
        ("10.20.30", (10, 20, 30, (), ())),
        ("1.0.0-alpha", (1, 0, 0, ("alpha",), ())),
        ("1.0.0-alpha.1", (1, 0, 0, ("alpha", 1), ())),
        ("1.0.0-0.3.7", (1, 0, 0, (0, 3, 7), ())),
        ("1.0.0-x.7.z.92", (1, 0, 0, ("x", 7, "z", 92), ())),
        ("1.0.0-rc-1", (1, 0, 0, ("rc-1",), ())),
        ("1.0.0--", (1, 0, 0, ("-",), ())),
        ("1.0.0-0a", (1, 0, 0, ("0a",), ())),
        ("1.0.0+001", (1, 0, 0, (), ("001",))),
        ("1.0.0-beta+exp.sha.5114f85", (1, 0, 0, ("beta",), ("exp", "sha", "5114f85"))),
        ("1.0.0+build-1", (1, 0, 0, (), ("build-1",))),
        ("1.31.0-nightly-2026-08-10", (1, 31, 0, ("nightly-2026-08-10",), ())),
        (f"{UINT64_MAX}.0.0", (UINT64_MAX, 0, 0, (), ())),
    ],
)
def test_parse_valid(text: str, parts: tuple[Any, ...]) -> None:
    v = V(text)
    assert (v.major, v.minor, v.patch, v.prerelease, v.build) == parts
    assert str(v) == text
    assert v.canonical == text


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "it is empty"),
        ("1", "three dot-separated numbers"),
        ("1.2", 'write "1.2.0"'),
        ("v1.2.3", 'leading "v"; write "1.2.3"'),
        ("01.2.3", 'major number "01" has a leading zero'),
        ("1.02.3", 'minor number "02" has a leading zero'),
        ("1.2.03", 'patch number "03" has a leading zero'),
        ("1.2.3-01", 'numeric prerelease identifier "01" has a leading zero'),
        ("1.2.3-", "prerelease has an empty identifier"),
        ("1.2.3-a..b", "prerelease has an empty identifier"),
        ("1.2.3+", "build metadata has an empty identifier"),
        ("1.2.3-a_b", 'prerelease identifier "a_b" has characters other than'),
        ("1.2.3+a+b", 'build identifier "a+b" has characters other than'),
        ("1.2.3.4", 'patch number "3.4"'),
        ("1..3", "minor number is empty"),
        (" 1.2.3", 'major number " 1"'),
        ("1.2.3 ", 'patch number "3 "'),
        ("1.2.٣", "patch number"),  # a non-ASCII digit
        (f"{UINT64_MAX + 1}.0.0", "larger than 2^64-1"),
        (f"1.0.0-{UINT64_MAX + 1}", "larger than 2^64-1"),
    ],
)
def test_parse_invalid(text: str, problem: str) -> None:
    with pytest.raises(VersionError) as info:
        V(text)
    message = str(info.value)
    assert message.startswith(f"invalid version {json.dumps(text, ensure_ascii=False)}: ")
    assert problem in message
    assert "write" in message  # every message says what to write instead
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("1.2.3", "1.2.3"),
        ("v1.2.3", "1.2.3"),
        ("  v1.2.3  ", "1.2.3"),
        ("4.8", "4.8.0"),
        ("v4.12", "4.12.0"),
        ("4", "4.0.0"),
        ("01.02.03", "1.2.3"),
        ("1.2.0-rc.1", "1.2.0-rc.1"),
        ("1.2.00-rc", "1.2.0-rc"),
        ("1.22.0+k3s1", "1.22.0+k3s1"),
    ],
)
def test_parse_tolerant(text: str, canonical: str) -> None:
    v = Version.parse_tolerant(text)
    assert v.canonical == canonical
    assert str(v) == text.strip()
    assert v == V(canonical)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "major number is empty"),
        ("v", "major number is empty"),
        ("V1.2.3", 'major number "V1"'),
        ("vv1.2.3", 'leading "v"; write "1.2.3"'),
        ("4.8-rc", "a short version cannot carry -PRERELEASE or +BUILD"),
        ("1.2.3-01", "leading zero"),
        ("4.x", 'minor number "x"'),
    ],
)
def test_parse_tolerant_invalid(text: str, problem: str) -> None:
    with pytest.raises(VersionError, match=re.escape(problem)) as info:
        Version.parse_tolerant(text)
    assert json.dumps(text.strip()) in str(info.value)


def test_coerce_reads_json_numbers_tolerantly() -> None:
    assert Version.coerce(4.8) == V("4.8.0")
    assert Version.coerce(4) == V("4.0.0")
    assert Version.coerce("v4.12") == V("4.12.0")
    for bad in (True, None, [4, 8], float("nan"), float("inf")):
        with pytest.raises(VersionError):
            Version.coerce(bad)


def test_direct_construction_validates() -> None:
    assert Version(1, 2, 3, ("rc", "1")).prerelease == ("rc", 1)
    assert str(Version(1, 2, 3, ("rc", 1), ("b",))) == "1.2.3-rc.1+b"
    for bad in [(-1, 0, 0), (1, 0, 0, ("01",)), (1, 0, 0, ("",)), (1, 0, 0, (), ("a_b",))]:
        with pytest.raises(VersionError):
            Version(*bad)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------------
# Version ordering


SPEC_ORDER = [
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-alpha.beta",
    "1.0.0-beta",
    "1.0.0-beta.2",
    "1.0.0-beta.11",
    "1.0.0-rc.1",
    "1.0.0",
    "2.0.0",
    "2.1.0",
    "2.1.1",
]


def test_semver_spec_precedence() -> None:
    versions = [V(t) for t in SPEC_ORDER]
    for i, a in enumerate(versions):
        for j, b in enumerate(versions):
            assert (a < b) == (i < j), (a, b)
            assert (a <= b) == (i <= j)
            assert (a > b) == (i > j)
            assert (a >= b) == (i >= j)
            assert (a == b) == (i == j)
            assert a.compare(b) == (i > j) - (i < j)
    assert sorted(reversed(versions)) == versions


@pytest.mark.parametrize(
    ("low", "high"),
    [
        ("1.0.0-2", "1.0.0-11"),  # numbers compare numerically
        ("1.0.0-11", "1.0.0-1a"),  # numbers below alphanumerics
        ("1.0.0-B", "1.0.0-a"),  # alphanumerics by ASCII
        ("1.0.0-rc", "1.0.0-rc.0"),  # a prefix is lower
        ("1.9.0", "1.10.0"),
        ("0.0.0-0", "0.0.0"),
    ],
)
def test_precedence_details(low: str, high: str) -> None:
    assert V(low) < V(high)
    assert V(high) > V(low)


def test_build_metadata_is_ignored_for_precedence_and_equality() -> None:
    a, b, c = V("1.0.0+a"), V("1.0.0+b"), V("1.0.0")
    assert a == b == c
    assert hash(a) == hash(b) == hash(c)
    assert len({a, b, c}) == 1
    assert a.compare(b) == 0
    assert str(a) != str(b)  # the spelling is kept


def test_versions_are_frozen_and_not_equal_to_strings() -> None:
    v = V("1.0.0")
    with pytest.raises(AttributeError):
        v.major = 2  # type: ignore[misc]
    assert v != "1.0.0"
    with pytest.raises(TypeError):
        _ = v < "1.0.0"  # type: ignore[operator]


@pytest.mark.parametrize(
    ("text", "successor"),
    [
        ("1.0.0", "1.0.1-0"),
        ("1.0.0-rc", "1.0.0-rc.0"),
        ("1.0.0-rc.1", "1.0.0-rc.1.0"),
        ("0.0.0-0", "0.0.0-0.0"),
    ],
)
def test_successor_and_predecessor(text: str, successor: str) -> None:
    v, s = V(text), V(successor)
    assert v.successor() == s
    assert s.predecessor() == v
    assert v < s


@pytest.mark.parametrize("text", ["0.0.0-0", "1.0.0-0", "1.2.0-0", "1.0.0", "1.0.0-rc", "1.0.0-1"])
def test_versions_without_predecessor(text: str) -> None:
    assert V(text).predecessor() is None


# --------------------------------------------------------------------------------------------------
# Ranges: parsing and membership

# (range, members, non-members). Includes every case of blang/semver v4's own TestParseRange.
RANGE_CASES = [
    (">1.2.3", ["1.2.4", "1.2.4-0"], ["1.2.2", "1.2.3", "1.2.3+b"]),
    (">=1.2.3", ["1.2.3", "1.2.4"], ["1.2.2", "1.2.3-rc"]),
    ("<1.2.3", ["1.2.2", "1.2.3-rc"], ["1.2.3", "1.2.4"]),
    ("<=1.2.3", ["1.2.2", "1.2.3", "1.2.3+b"], ["1.2.4", "1.2.4-0"]),
    ("1.2.3", ["1.2.3", "1.2.3+b"], ["1.2.2", "1.2.4", "1.2.3-rc"]),
    ("=1.2.3", ["1.2.3"], ["1.2.2", "1.2.4"]),
    ("==1.2.3", ["1.2.3"], ["1.2.2", "1.2.4"]),
    ("!=1.2.3", ["1.2.2", "1.2.4"], ["1.2.3"]),
    ("!1.2.3", ["1.2.2", "1.2.4"], ["1.2.3"]),
    (">1.2.2 <1.2.4", ["1.2.3"], ["1.2.2", "1.2.4"]),
    ("<1.2.2 <1.2.4", ["1.2.1"], ["1.2.2", "1.2.3", "1.2.4"]),
    (">1.2.2 <1.2.5 !=1.2.4", ["1.2.3"], ["1.2.2", "1.2.4", "1.2.5"]),
    (">1.2.2 <1.2.5 !1.2.4", ["1.2.3"], ["1.2.2", "1.2.4", "1.2.5"]),
    (">1.2.2 || <1.2.4", ["1.2.2", "1.2.3", "1.2.4"], []),
    ("<1.2.2 || >1.2.4", ["1.2.1", "1.2.5"], ["1.2.2", "1.2.3", "1.2.4"]),
    (">1.x", ["2.0.0", "3.0.0"], ["0.1.9", "1.2.6", "1.9.0", "2.0.0-rc"]),
    (">1.2.x", ["1.3.0"], ["1.1.9", "1.2.6"]),
    (">1.2.2 <1.2.4 || >=2.0.0", ["1.2.3", "2.0.0", "2.0.1"], ["1.2.2", "1.2.4"]),
    ("1.x || >=2.0.x <2.2.x", ["1.2.2", "2.0.0", "2.1.8"], ["0.9.2", "2.2.0"]),
    (
        ">1.2.2 <1.2.4 || >=2.0.0 <3.0.0",
        ["1.2.3", "2.0.0", "2.0.1", "2.9.9"],
        ["1.2.2", "1.2.4", "3.0.0"],
    ),
    # Spacing blang accepts (its TestSplitAndTrim) and forms found in real catalogs.
    ("     1.2.3     1.2.3     ", ["1.2.3"], ["1.2.4"]),
    ("  >=   1.2.3   <=  1.2.3   ", ["1.2.3"], ["1.2.2", "1.2.4"]),
    ("      1.2.3      ||     >=1.2.4     <1.2.6    ", ["1.2.3", "1.2.5"], ["1.2.6"]),
    ("< 1.23.0", ["1.22.9"], ["1.23.0"]),
    (">=1.22.8 < 1.23.0 || >=1.25.0 <1.26.0", ["1.22.8", "1.25.3"], ["1.23.0", "1.24.0"]),
    ("> = 1.0.0", ["1.0.0"], ["0.9.0"]),
    ("!= 1.0.0", ["1.0.1"], ["1.0.0"]),
    (">=1.0.0 <1.31.0-nightly-2026-08-10", ["1.30.9", "1.31.0-alpha"], ["1.31.0", "1.31.0-rc"]),
    (">=3.3.x <3.7.1", ["3.3.0", "3.7.0"], ["3.2.9", "3.7.1"]),
    # Wildcards, as blang's expandWildcardVersion rewrites them.
    ("1.2.x", ["1.2.0", "1.2.99"], ["1.3.0", "1.2.0-rc"]),
    ("=1.x", ["1.0.0", "1.99.0"], ["2.0.0"]),
    (">=1.x", ["1.0.0", "5.0.0"], ["1.0.0-rc"]),
    ("<=1.x", ["1.9.9", "2.0.0-rc"], ["2.0.0"]),
    ("<1.x", ["0.9.0"], ["1.0.0"]),
    ("<=1.2.x", ["1.2.9"], ["1.3.0"]),
    ("1.x.x", ["1.0.0"], ["1.1.0", "2.0.0"]),  # blang reads 1.x.x as a patch wildcard: <1.1.0
    ("<=1.x.x", ["1.0.9"], ["1.1.0"]),
    ("!=1.x", [], ["0.9.0", "1.0.0", "2.0.0"]),  # blang ANDs <1.0.0 and >=2.0.0: empty
    ("!=1.2.x", [], ["1.1.0", "1.2.0", "1.3.0"]),
    (">=1.0.0-x", ["1.0.0-x", "1.0.0"], ["1.0.0-w"]),  # an "x" that is no wildcard
    ("1.x.3", [], ["1.0.3", "1.0.0"]),  # flattens to 1.0.3, then "<" has no bound: refused
]


@pytest.mark.parametrize(("text", "members", "others"), RANGE_CASES)
def test_parse_range(text: str, members: list[str], others: list[str]) -> None:
    if text == "1.x.3":
        with pytest.raises(VersionError):
            R(text)
        return
    r = R(text)
    assert str(r) == text
    for m in members:
        assert r.contains(V(m)), m
        assert V(m) in r
    for o in others:
        assert not r.contains(V(o)), o


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "it is empty"),
        ("   ", "it is empty"),
        (">=1.0.0 <<2", '"<<2" is not a comparison; write e.g. ">=1.0.0 <2.0.0"'),
        (">>1.2.3", '">>1.2.3" is not a comparison'),
        ("=>1.2.3", '"=>" in "=>1.2.3" is not an operator OLM knows'),
        ("~1.2.3", '"~" in "~1.2.3" is not an operator OLM knows'),
        ("^1.2.3", '"^" in "^1.2.3" is not an operator OLM knows'),
        ("~1.x", '"~" in "~1.x" is not an operator OLM knows'),
        ("<v1.17.0", '"v" before its version, which ranges do not allow; write "<1.17.0"'),
        ("v1.0.0", 'write "1.0.0"'),
        (">=1.0", 'ranges need all three numbers: write ">=1.0.0"'),
        ("1.0", 'write "1.0.0"'),
        ("string", '"string" has no version in it'),
        ("fo.ob.ar.x", '"fo.ob.ar.x" has no version in it'),
        ("foox", '"foox" has no version in it'),
        (">=1.0.0 || ", 'it ends with "||"'),
        ("|| >=1.0.0", 'it starts with "||"'),
        (">=1.0.0 || || <0.1.0", 'it has "||" twice in a row'),
        (">=1.0.0||<0.1.0", '"||" in ">=1.0.0||<0.1.0" needs a space on each side'),
        ("1.0.0 - 2.0.0", "hyphen ranges"),
        ("! 1.2.3", '"!" stands apart from its version'),
        (">=1.0.0 x", '"x" on its own is not a comparison'),
        ("1", '"1" on its own'),
        (">1.0.0-x", "cannot expand"),
        ("1.2.x.x", "cannot expand"),
        (">=1.0.0-01", 'numeric prerelease identifier "01"'),
        (">=01.0.0", 'major number "01" has a leading zero'),
        ("<", '"<" on its own'),
        (">= ", '">=" has no version in it'),
    ],
)
def test_parse_range_invalid(text: str, problem: str) -> None:
    with pytest.raises(VersionError) as info:
        R(text)
    message = str(info.value)
    assert message.startswith(f"invalid version range {json.dumps(text)}: "), message
    assert problem in message, message


def test_parse_range_refuses_non_strings() -> None:
    with pytest.raises(VersionError, match="not a string"):
        R(1.0)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------------
# Ranges in real catalogs


def _json_stream(text: str) -> Iterator[Any]:
    decoder = json.JSONDecoder()
    i = 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return
        obj, i = decoder.raw_decode(text, i)
        yield obj


def _ranges_in(obj: Any) -> Iterator[str]:
    """Every skipRange (entries, CSV annotations) and versionRange anywhere in a catalog object."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key in ("skipRange", "olm.skipRange", "versionRange") and isinstance(value, str):
                yield value
            else:
                yield from _ranges_in(value)
    elif isinstance(obj, list):
        for item in obj:
            yield from _ranges_in(item)


def _catalog_ranges(root: Path) -> set[str]:
    found: set[str] = set()
    for path in sorted(root.glob("*/catalog.*")):
        text = path.read_text(encoding="utf-8")
        if "Range" not in text:
            continue
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        docs = _json_stream(text) if path.suffix == ".json" else yaml.load_all(text, loader)
        for doc in docs:
            found.update(_ranges_in(doc))
    return found


# blang/semver rejects these too ("<v" is no comparator); operator-registry's `opm validate`
# refuses them as invalid skipRanges. They are channel-entry skipRanges and olm.skipRange
# annotations of percona-xtradb-cluster-operator and percona-postgresql-operator.
KNOWN_BAD_CATALOG_RANGES = {
    "<v1.17.0", "<v1.18.0", "<v1.19.0", "<v1.19.1",
    "<v2.6.1", "<v2.7.0", "<v2.8.0", "<v2.8.1", "<v2.8.2", "<v2.9.0",
}  # fmt: skip


def test_every_range_in_community_operators_parses() -> None:
    ranges = _catalog_ranges(shared_path("catalogs", "community-operators-prod-v4.18"))
    assert len(ranges) > 500
    failing = {}
    for text in sorted(ranges):
        try:
            R(text)
        except VersionError as err:
            failing[text] = str(err)
    assert set(failing) == KNOWN_BAD_CATALOG_RANGES
    for text, message in failing.items():
        assert f'write "{text.replace("v", "")}"' in message


def test_every_range_in_bundle_dependencies_parses() -> None:
    """dependencies.yaml olm.package versions, including "< 1.26.0 ||" forms."""
    seen = []
    root = shared_path("bundles")
    for path in sorted(root.rglob("dependencies.yaml")):
        try:
            doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError:
            continue  # eventing-kogito 1.2.0 is malformed on purpose; operator-registry skips it
        for dep in (doc or {}).get("dependencies") or []:
            if dep.get("type") == "olm.package":
                seen.append(dep["value"]["version"])
    assert len(seen) > 100
    assert any("||" in s for s in seen) and any("< " in s for s in seen)
    for text in seen:
        R(text)


# --------------------------------------------------------------------------------------------------
# The algebra: hand-picked facts


def test_equal_sets_written_differently_are_equal() -> None:
    assert R(">1.0.0") == R(">=1.0.1-0")
    assert R("<=1.0.0") == R("<1.0.1-0")
    assert R(">=0.0.0-0") == VersionRange.any()
    assert R("<0.0.0-0") == VersionRange.none()
    assert R("1.0.1-0") == R(">1.0.0 <1.0.1-0.0")
    assert R(">1.0.0 <1.0.1-0") == VersionRange.none()
    assert R(">=1.0.0 <2.0.0 || >=2.0.0 <3.0.0") == R(">=1.0.0 <3.0.0")
    assert R("<=1.0.0 || >1.0.0") == VersionRange.any()
    assert R("<1.0.0 || >1.0.0") == R("!=1.0.0")
    assert R("=1.0.0+build") == R("1.0.0")
    assert R("1.x") == R(">=1.0.0 <2.0.0")
    assert hash(R(">1.0.0")) == hash(R(">=1.0.1-0"))
    assert R(">1.0.0") != R(">=1.0.0")


def test_constructors() -> None:
    v = V("1.2.0")
    assert VersionRange.exactly(v) == R("1.2.0")
    assert VersionRange.at_least(v) == R(">=1.2.0")
    assert VersionRange.greater_than(v) == R(">1.2.0")
    assert VersionRange.at_most(v) == R("<=1.2.0")
    assert VersionRange.less_than(v) == R("<1.2.0")
    assert VersionRange.between(v, V("2.0.0")) == R(">=1.2.0 <2.0.0")
    assert VersionRange.of([V("1.0.0"), V("1.1.0")]) == R("1.0.0 || 1.1.0")
    assert VersionRange.any().is_any() and VersionRange.none().is_empty()
    assert str(VersionRange.at_least(v)) == ">=1.2.0"


def test_operations_on_known_sets() -> None:
    a, b = R(">=1.0.0 <2.0.0"), R(">=1.5.0")
    assert a & b == R(">=1.5.0 <2.0.0")
    assert a | b == R(">=1.0.0")
    assert ~a == R("<1.0.0 || >=2.0.0")
    assert a - b == R(">=1.0.0 <1.5.0")
    assert R("<1.0.0").is_disjoint(R(">=1.0.0"))
    assert R("1.2.0").is_subset(a) and not a.is_subset(R("1.2.0"))
    assert a.filter([V("0.9.0"), V("1.0.0"), V("1.9.9"), V("2.0.0")]) == [V("1.0.0"), V("1.9.9")]
    available = VersionRange.of([V("1.2.0"), V("1.4.0"), V("1.3.0")])
    assert available.hull() == R(">=1.2.0 <=1.4.0")
    assert available.hull().describe() == ">=1.2.0, <=1.4.0"
    assert R("<1.0.0 || >2.0.0").hull() == VersionRange.any()


def test_ranges_are_immutable_and_hashable() -> None:
    r = R(">=1.0.0")
    with pytest.raises(AttributeError):
        r.intervals = ()  # type: ignore[misc]
    assert {r: 1}[R(">= 1.0.0")] == 1


@pytest.mark.parametrize(
    ("text", "range_text", "words"),
    [
        (">=1.0.0 <2.0.0", ">=1.0.0 <2.0.0", ">=1.0.0, <2.0.0"),
        (">= 1.0.0", ">=1.0.0", ">=1.0.0"),
        ("!=1.2.0", "<1.2.0 || >1.2.0", "any version except 1.2.0"),
        ("!=1.2.0 !=1.3.0", "<1.2.0 || >1.2.0 <1.3.0 || >1.3.0",
         "any version except 1.2.0 and 1.3.0"),
        ("1.2.0 || 1.4.0", "1.2.0 || 1.4.0", "1.2.0 or 1.4.0"),
        (">=0.0.0-0", ">=0.0.0-0", "any version"),
        ("<0.0.0-0", "<0.0.0-0", "no version"),
        ("1.0.1-0", "1.0.1-0", "1.0.1-0"),
        (">=1.0.1-0", ">1.0.0", ">1.0.0"),
        ("<1.0.1-0", "<=1.0.0", "<=1.0.0"),
        ("1.x || 3.x", ">=1.0.0 <2.0.0 || >=3.0.0 <4.0.0", ">=1.0.0, <2.0.0 or >=3.0.0, <4.0.0"),
    ],
)  # fmt: skip
def test_rendering(text: str, range_text: str, words: str) -> None:
    r = R(text)
    assert str(r) == text
    assert r.range_text() == range_text
    assert r.describe() == words
    assert R(r.range_text()) == r


def test_intervals_are_canonical_and_inspectable() -> None:
    (iv,) = R(">=1.0.0+b <=2.0.0+c").intervals
    assert iv == Interval(V("1.0.0"), True, V("2.0.0"), True)
    assert iv.lower is not None and iv.lower.build == ()
    assert iv.contains(V("1.5.0")) and not iv.contains(V("2.0.1"))
    assert R("1.0.1-0").intervals[0].point == V("1.0.1-0")


# --------------------------------------------------------------------------------------------------
# The algebra: properties over a small universe
#
# Every set built from intervals whose bounds are in UNIVERSE is a union of "cells": the points
# of UNIVERSE and the open gaps between neighbours. A gap (a, b) has a member iff a.successor() < b,
# so membership at WITNESSES (UNIVERSE, successors, the lowest version) decides set equality.

UNIVERSE = [
    V(t)
    for t in [
        "0.0.0-0", "0.0.0", "0.1.0", "1.0.0-0", "1.0.0-alpha", "1.0.0-alpha.0", "1.0.0-alpha.1",
        "1.0.0", "1.0.1-0", "1.0.1", "1.1.0", "1.2.3-rc.1", "1.2.3", "2.0.0-0", "2.0.0", "3.0.0",
    ]
]  # fmt: skip
WITNESSES = sorted(set(UNIVERSE) | {v.successor() for v in UNIVERSE})

versions = st.sampled_from(UNIVERSE)
leaf_ranges = st.one_of(
    st.just(VersionRange.any()),
    st.just(VersionRange.none()),
    versions.map(VersionRange.exactly),
    versions.map(VersionRange.at_least),
    versions.map(VersionRange.greater_than),
    versions.map(VersionRange.at_most),
    versions.map(VersionRange.less_than),
)
ranges = st.recursive(
    leaf_ranges,
    lambda children: st.one_of(
        st.tuples(children, children).map(lambda ab: ab[0] & ab[1]),
        st.tuples(children, children).map(lambda ab: ab[0] | ab[1]),
        children.map(lambda a: ~a),
    ),
    max_leaves=8,
)


def members(r: VersionRange) -> tuple[bool, ...]:
    return tuple(r.contains(w) for w in WITNESSES)


@given(ranges, ranges)
def test_operations_agree_with_boolean_logic(a: VersionRange, b: VersionRange) -> None:
    for w in WITNESSES:
        assert (a & b).contains(w) == (a.contains(w) and b.contains(w))
        assert (a | b).contains(w) == (a.contains(w) or b.contains(w))
        assert (~a).contains(w) == (not a.contains(w))
        assert (a - b).contains(w) == (a.contains(w) and not b.contains(w))
        assert a.contains(w) == any(iv.contains(w) for iv in a.intervals)


@given(ranges, ranges, ranges)
def test_algebraic_laws_hold_as_object_equality(
    a: VersionRange, b: VersionRange, c: VersionRange
) -> None:
    assert ~(a | b) == ~a & ~b  # De Morgan
    assert ~(a & b) == ~a | ~b
    assert ~~a == a
    assert a & ~a == VersionRange.none()
    assert a | ~a == VersionRange.any()
    assert a & b == b & a and a | b == b | a
    assert (a & b) & c == a & (b & c)
    assert a & (b | c) == (a & b) | (a & c)
    assert (a & b) | (a & ~b) == a
    assert a.is_subset(a | b) and (a & b).is_subset(a)


@given(ranges, ranges)
def test_normal_form_is_canonical(a: VersionRange, b: VersionRange) -> None:
    same_set = members(a) == members(b)
    assert (a == b) == same_set
    if same_set:
        assert hash(a) == hash(b)
        assert a.range_text() == b.range_text() and a.describe() == b.describe()


@given(ranges)
def test_normal_form_invariants(a: VersionRange) -> None:
    ivs = a.intervals
    for iv in ivs:
        if iv.lower is not None and iv.lower_inclusive:
            assert iv.lower.predecessor() is None
        if iv.upper is not None and not iv.upper_inclusive:
            assert iv.upper.predecessor() is None
    for left, right in itertools.pairwise(ivs):
        assert left.upper is not None and right.lower is not None
        assert left.upper <= right.lower  # sorted, disjoint, and never touching:
        assert not (left.upper == right.lower and left.upper_inclusive != right.lower_inclusive)


@given(ranges)
def test_hull_is_the_smallest_interval_around(a: VersionRange) -> None:
    hull = a.hull()
    assert len(hull.intervals) <= 1 and a.is_subset(hull)
    if a.intervals:
        assert hull.intervals[0].lower == a.intervals[0].lower
        assert hull.intervals[0].upper == a.intervals[-1].upper


@given(ranges)
def test_range_text_parses_back(a: VersionRange) -> None:
    again = R(a.range_text())
    assert again == a
    assert members(again) == members(a)


# Parsing against a direct reading of the comparator string (blang's closures, not intervals).

COMPARE: dict[str, Callable[[int], bool]] = {
    "": lambda c: c == 0,
    "=": lambda c: c == 0,
    "==": lambda c: c == 0,
    "!": lambda c: c != 0,
    "!=": lambda c: c != 0,
    "<": lambda c: c < 0,
    "<=": lambda c: c <= 0,
    ">": lambda c: c > 0,
    ">=": lambda c: c >= 0,
}


def _wildcard_check(op: str, major: int, minor: int | None) -> Callable[[Version], bool]:
    """blang's documented wildcard table (expandWildcardVersion), read literally."""
    low = V(f"{major}.{minor or 0}.0")
    high = V(f"{major + 1}.0.0") if minor is None else V(f"{major}.{minor + 1}.0")
    table: dict[str, Callable[[Version], bool]] = {
        ">=": lambda v: v >= low,
        ">": lambda v: v >= high,
        "<": lambda v: v < low,
        "<=": lambda v: v < high,
        "!=": lambda v: v < low and v >= high,
    }
    table["!"] = table["!="]
    return table.get(op, lambda v: low <= v < high)


ops = st.sampled_from(sorted(COMPARE))
comparisons = st.one_of(
    st.tuples(ops, versions, st.booleans()).map(
        lambda t: (
            t[0] + (" " if t[2] and t[0][-1:] in ("<", ">", "=") else "") + t[1].canonical,
            lambda v, op=t[0], w=t[1]: COMPARE[op](v.compare(w)),
        )
    ),
    st.tuples(ops, st.integers(0, 2), st.one_of(st.none(), st.integers(0, 2))).map(
        lambda t: (
            t[0] + (f"{t[1]}.x" if t[2] is None else f"{t[1]}.{t[2]}.x"),
            _wildcard_check(t[0], t[1], t[2]),
        )
    ),
)
range_strings = st.lists(st.lists(comparisons, min_size=1, max_size=3), min_size=1, max_size=3).map(
    lambda groups: (
        " || ".join("  ".join(text for text, _ in group) for group in groups),
        lambda v: any(all(check(v) for _, check in group) for group in groups),
    )
)


@settings(max_examples=300)
@given(range_strings)
def test_parse_agrees_with_direct_evaluation(case: tuple[str, Callable[[Version], bool]]) -> None:
    text, check = case
    r = R(text)
    probes = WITNESSES + [V(f"{a}.{b}.0") for a in range(4) for b in range(4)]
    for v in probes:
        assert r.contains(v) == check(v), (text, v)


def test_sorting_uses_precomputed_keys() -> None:
    texts = ["1.0.0", "1.0.0-rc.1", "0.9.0", "1.0.0-alpha", "1.0.0-rc.10", "1.0.0-rc.2"]
    ordered = sorted(map(V, texts))
    assert [str(v) for v in ordered] == [
        "0.9.0", "1.0.0-alpha", "1.0.0-rc.1", "1.0.0-rc.2", "1.0.0-rc.10", "1.0.0",
    ]  # fmt: skip
    assert sorted(map(V, texts), key=operator.attrgetter("sort_key")) == ordered
