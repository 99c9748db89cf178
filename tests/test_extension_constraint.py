"""OLM v1 version constraints (ClusterExtension spec.source.catalog.version), restating
operator-controller's docs/concepts/version-ranges.md, compare_test.go and Masterminds/semver
v3's constraint syntax; each case names the behaviour."""

from __future__ import annotations

import pytest

from deppy.catalog.semver import Version, VersionError
from deppy.catalog.semver.extension_constraint import ExtensionConstraint
from deppy.catalog.semver.release import release_of, version_release_key

VERSIONS = [
    "0.0.3",
    "0.0.4",
    "0.1.0",
    "0.2.3",
    "0.2.9",
    "0.3.0",
    "1.0.0",
    "1.2.0",
    "1.2.3",
    "1.2.9",
    "1.3.0",
    "1.9.0",
    "2.0.0",
    "2.3.0",
    "2.3.5",
    "2.4.0",
    "3.0.0",
    "3.5.0",
    "3.6.0",
    "1.2.3-rc.1",
    "2.0.0-alpha",
]


def matching(text: str) -> list[str]:
    constraint = ExtensionConstraint.parse(text)
    return [v for v in VERSIONS if constraint.contains(Version.parse(v))]


def below(limit: str) -> list[str]:
    return [v for v in VERSIONS if "-" not in v and Version.parse(v) < Version.parse(limit)]


def between(low: str, high: str) -> list[str]:
    lo, hi = Version.parse(low), Version.parse(high)
    return [v for v in VERSIONS if "-" not in v and lo <= Version.parse(v) < hi]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # version-ranges.md, "Wildcards in comparisons"
        ("1.2.x", between("1.2.0", "1.3.0")),
        (">= 1.2.x", between("1.2.0", "99.0.0")),
        ("<= 2.x", below("3.0.0")),
        ("*", between("0.0.0", "99.0.0")),
        # "Patch release or tilde (~) range comparison"
        ("~1.2.3", between("1.2.3", "1.3.0")),
        ("~1", between("1.0.0", "2.0.0")),
        ("~2.3", between("2.3.0", "2.4.0")),
        ("~1.2.x", between("1.2.0", "1.3.0")),
        ("~1.x", between("1.0.0", "2.0.0")),
        ("~>1.2", between("1.2.0", "1.3.0")),
        # "Major release or caret (^) range comparisons"
        ("^1.2.3", between("1.2.3", "2.0.0")),
        ("^1.2.x", between("1.2.0", "2.0.0")),
        ("^2.3", between("2.3.0", "3.0.0")),
        ("^2.x", between("2.0.0", "3.0.0")),
        ("^0.2.3", between("0.2.3", "0.3.0")),
        ("^0.2", between("0.2.0", "0.3.0")),
        ("^0.0.3", between("0.0.3", "0.0.4")),
        ("^0.0", between("0.0.0", "0.1.0")),
        ("^0", between("0.0.0", "1.0.0")),
        # "Range comparisons": comma is AND
        (">=3.0, <3.6", between("3.0.0", "3.6.0")),
        # space is AND too; || with and without spaces
        (">=1.0.0 <1.3.0", between("1.0.0", "1.3.0")),
        ("~0.2||~3.5", [*between("0.2.0", "0.3.0"), *between("3.5.0", "3.6.0")]),
        ("~0.2 || ~3.5", [*between("0.2.0", "0.3.0"), *between("3.5.0", "3.6.0")]),
        # a v prefix, => and =<, = and a bare version, !=
        ("v1.2.3", ["1.2.3"]),
        ("=1.2.3", ["1.2.3"]),
        ("=>3.5.0", between("3.5.0", "99.0.0")),
        ("=<0.0.4", ["0.0.3", "0.0.4"]),
        ("!=1.2.3", [v for v in VERSIONS if "-" not in v and v != "1.2.3"]),
    ],
)
def test_version_ranges_doc_and_masterminds_syntax(text: str, expected: list[str]) -> None:
    assert matching(text) == expected


def test_prereleases_only_where_the_constraint_names_one() -> None:
    """Masterminds: a prerelease version matches only an OR group naming a prerelease."""
    assert "1.2.3-rc.1" not in matching(">=1.0.0")
    assert "1.2.3-rc.1" in matching(">=1.2.3-0 <2.0.0")
    # per OR group: the second names a prerelease, the first (where 2.0.0-alpha falls) not
    assert "2.0.0-alpha" not in matching(">=1.9.0 <2.1.0 || >=3.0.0-0")


def test_build_metadata_takes_no_part() -> None:
    """TestNewVersionRange: "1.0.0+1" matches 1.0.0, 1.0.0+1 and 1.0.0+2; "1.0.0" 1.0.0+1."""
    for version in ("1.0.0", "1.0.0+1", "1.0.0+2"):
        assert ExtensionConstraint.parse("1.0.0+1").contains(Version.parse(version))
    assert ExtensionConstraint.parse("1.0.0").contains(Version.parse("1.0.0+1"))
    assert not ExtensionConstraint.parse(">=2.0.0").contains(Version.parse("1.0.0"))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("==1.2.3", '"==" is not an OLM v1 operator'),
        ("!1.2.3", '"!" alone is not an operator'),
        (
            "foobar",
            "CEL rule: invalid version expression",
        ),  # TestInvalidClusterExtensionVersionRange
        ("1.0.0 - 2.0.0", "hyphen ranges"),
        (">=01.0.0", "invalid version expression"),
        ("1.2.3.4", "invalid version expression"),
        ("", "it is empty"),
        (">=1.0.0 <2.0.0 || " + "1.0.0 || " * 6, "at most 64 characters"),
    ],
)
def test_what_the_clusterextension_api_refuses(text: str, words: str) -> None:
    with pytest.raises(VersionError) as caught:
        ExtensionConstraint.parse(text)
    message = str(caught.value)
    assert message.startswith(f'invalid version constraint "{text[:20]}')
    assert words in message


def test_registry_v1_release_order() -> None:
    """TestByVersionAndRelease: 1.0.0 > 1.0.0-alpha+2 > 1.0.0-alpha+1 > 0.0.1; build metadata
    that is not a release (leading zeros) is no release."""
    names = ["1.0.0-alpha+1", "0.0.1", "1.0.0-alpha+2", "1.0.0"]
    ordered = sorted(names, key=lambda v: version_release_key(Version.parse(v)), reverse=True)
    assert ordered == ["1.0.0", "1.0.0-alpha+2", "1.0.0-alpha+1", "0.0.1"]
    assert release_of(Version.parse("1.0.0+2")) == (2,)
    assert release_of(Version.parse("1.0.0+002")) == ()
    assert version_release_key(Version.parse("1.0.0+1")) > version_release_key(
        Version.parse("1.0.0")
    )
