"""OLM v1's resolver behaviours, restated (operator-controller internal/operator-controller/
resolve/catalog_test.go, catalogmetadata/filter/successors_test.go, compare/compare_test.go and
docs/concepts/upgrade-support.md); each test names the behaviour it restates.

Catalogs are real FBC files on disk; requests are ClusterExtension objects as a user writes them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.model import Catalog
from deppy.errors import InputError
from deppy.resolution.answer import Resolution
from deppy.resolution.olmv1 import request_from_objects
from deppy.resolution.resolver import resolve
from tests.olm_builders import Obj, bundle, channel, deprecations, entry, make_catalog, package
from tests.olmv1_objects import cluster_catalog

MakeCatalog = Callable[..., Catalog]


@pytest.fixture
def make(tmp_path: Path) -> MakeCatalog:
    def build(objs: Sequence[Obj], *, name: str, priority: int = 0) -> Catalog:
        return make_catalog(tmp_path, objs, name=name, priority=priority)

    return build


def gen_package(pkg: str = "pkg") -> list[Obj]:
    """OLM v1's test package: alpha (0.1.0 .. 2.0.0 by skipRange), beta (0.1.0, 1.0.2), gamma
    (3.0.0); 1.0.0 and 1.0.1 deprecated."""
    return [
        package(pkg, "alpha"),
        channel(
            pkg,
            "alpha",
            entry(f"{pkg}.v0.1.0"),
            entry(f"{pkg}.v1.0.0", skipRange="<1.0.0"),
            entry(f"{pkg}.v1.0.1", skipRange="<1.0.1"),
            entry(f"{pkg}.v1.0.2", skipRange="<1.0.2"),
            entry(f"{pkg}.v2.0.0", skipRange=">=1.0.0 <2.0.0"),
        ),
        channel(pkg, "beta", entry(f"{pkg}.v0.1.0"), entry(f"{pkg}.v1.0.2", skipRange="<1.0.2")),
        channel(pkg, "gamma", entry(f"{pkg}.v3.0.0", skipRange=">=2.0.0 <3.0.0")),
        *(bundle(pkg, v) for v in ("0.1.0", "1.0.0", "1.0.1", "1.0.2", "2.0.0", "3.0.0")),
        deprecations(
            pkg,
            ("olm.bundle", f"{pkg}.v1.0.0", "deprecated"),
            ("olm.bundle", f"{pkg}.v1.0.1", "deprecated"),
        ),
    ]


def extension(
    pkg: str = "pkg",
    *,
    version: str | None = None,
    channels: Sequence[str] = (),
    policy: str | None = None,
    installed: str | None = None,
    selector: dict[str, Any] | None = None,
    name: str = "ext",
) -> dict[str, Any]:
    catalog: dict[str, Any] = {"packageName": pkg}
    if version is not None:
        catalog["version"] = version
    if channels:
        catalog["channels"] = list(channels)
    if policy is not None:
        catalog["upgradeConstraintPolicy"] = policy
    if selector is not None:
        catalog["selector"] = selector
    doc: dict[str, Any] = {
        "apiVersion": "olm.operatorframework.io/v1",
        "kind": "ClusterExtension",
        "metadata": {"name": name},
        "spec": {"namespace": "ns", "source": {"sourceType": "Catalog", "catalog": catalog}},
    }
    if installed is not None:
        doc["status"] = {
            "install": {"bundle": {"name": f"{pkg}.v{installed}", "version": installed}}
        }
    return doc


def run(catalogs: Sequence[Catalog], *docs: dict[str, Any]) -> Resolution:
    content = [(c.name, c.priority) for c in catalogs]
    found = request_from_objects(list(docs), "test.yaml", content)
    return resolve(CatalogSet(catalogs), found.request)


def chosen(resolution: Resolution) -> str:
    assert resolution.selection is not None, resolution.explanation
    (only,) = resolution.selection
    return only.version


def failure(resolution: Resolution) -> str:
    assert resolution.explanation is not None, f"resolved: {resolution.selection}"
    return " ".join(c.text for c in resolution.explanation.causes)


# --- which bundle, with no installed bundle ---------------------------------------------------


def test_package_exists_highest_version_in_any_channel(make: MakeCatalog) -> None:
    """TestPackageExists: no channel named means the highest version in any channel (3.0.0
    is only in gamma, not the default channel)."""
    catalogs = [make([], name="a"), make(gen_package(), name="c")]
    assert chosen(run(catalogs, extension())) == "3.0.0"


def test_version_range_picks_highest_inside(make: MakeCatalog) -> None:
    """TestVersionExists: ">=1.0.0 <2.0.0" gives 1.0.2."""
    catalogs = [make(gen_package(), name="c")]
    assert chosen(run(catalogs, extension(version=">=1.0.0 <2.0.0"))) == "1.0.2"


def test_version_does_not_exist_says_olm_v1s_message(make: MakeCatalog) -> None:
    """TestVersionDoesNotExist: OLM v1's message, with deppy's per-catalog figures."""
    catalogs = [make([], name="a"), make(gen_package(), name="c")]
    text = failure(run(catalogs, extension(version="4.0.0")))
    assert 'no bundles found for package "pkg" matching version "4.0.0"' in text
    assert "catalog c (priority 0): 6 bundles, 0 in range 4.0.0" in text
    assert "catalog a: no such package" in text


def test_channel_does_not_exist(make: MakeCatalog) -> None:
    """TestChannelDoesNotExist."""
    text = failure(run([make(gen_package(), name="c")], extension(channels=["stable"])))
    assert 'no bundles found for package "pkg" in channels [stable]' in text


def test_channel_exists_picks_its_highest(make: MakeCatalog) -> None:
    """TestChannelExists: [beta] gives 1.0.2."""
    assert chosen(run([make(gen_package(), name="c")], extension(channels=["beta"]))) == "1.0.2"


def test_channel_exists_but_not_version_and_version_exists_but_not_channel(
    make: MakeCatalog,
) -> None:
    """TestChannelExistsButNotVersion, TestVersionExistsButNotChannel."""
    catalogs = [make(gen_package(), name="c")]
    text = failure(run(catalogs, extension(channels=["beta"], version="3.0.0")))
    assert 'no bundles found for package "pkg" matching version "3.0.0" in channels [beta]' in text
    text = failure(run(catalogs, extension(channels=["stable"], version="1.0.0")))
    assert 'matching version "1.0.0" in channels [stable]' in text


def test_channel_and_version_exist(make: MakeCatalog) -> None:
    """TestChannelAndVersionExist: [alpha] and "0.1.0" give 0.1.0."""
    catalogs = [make(gen_package(), name="c")]
    assert chosen(run(catalogs, extension(channels=["alpha"], version="0.1.0"))) == "0.1.0"


def test_a_list_of_channels_means_any_of_them(make: MakeCatalog) -> None:
    """TestMultipleChannels: [beta, alpha] gives 2.0.0 (alpha's highest)."""
    catalogs = [make(gen_package(), name="c")]
    assert chosen(run(catalogs, extension(channels=["beta", "alpha"]))) == "2.0.0"


def test_non_deprecated_before_a_higher_deprecated(make: MakeCatalog) -> None:
    """TestPreferNonDeprecated: ">=0.1.0 <=1.0.0" gives 0.1.0, not the deprecated 1.0.0."""
    catalogs = [make(gen_package(), name="c")]
    assert chosen(run(catalogs, extension(version=">=0.1.0 <=1.0.0"))) == "0.1.0"


def test_deprecated_accepted_when_nothing_else(make: MakeCatalog) -> None:
    """TestAcceptDeprecated: ">=1.0.0 <=1.0.1" gives the deprecated 1.0.1 (with a warning)."""
    resolution = run([make(gen_package(), name="c")], extension(version=">=1.0.0 <=1.0.1"))
    assert chosen(resolution) == "1.0.1"
    assert any("pkg.v1.0.1 is deprecated" in w for w in resolution.warnings)


def test_only_bundle_deprecations_reorder(make: MakeCatalog) -> None:
    """ByDeprecationFunc: a deprecated channel or package does not move a bundle."""
    objs = [
        package("pkg", "alpha"),
        channel("pkg", "alpha", entry("pkg.v1.0.0"), entry("pkg.v2.0.0", "pkg.v1.0.0")),
        bundle("pkg", "1.0.0"),
        bundle("pkg", "2.0.0"),
        deprecations("pkg", ("olm.channel", "alpha", "old channel"), ("olm.package", None, "old")),
    ]
    assert chosen(run([make(objs, name="c")], extension())) == "2.0.0"


# --- several catalogs -------------------------------------------------------------------------


def one_bundle(version: str, *, deprecated: bool = False, pkg: str = "pkg") -> list[Obj]:
    objs = [
        package(pkg, "alpha"),
        channel(pkg, "alpha", entry(f"{pkg}.v{version}")),
        bundle(pkg, version),
    ]
    if deprecated:
        objs.append(deprecations(pkg, ("olm.bundle", f"{pkg}.v{version}", "deprecated")))
    return objs


def variations(make: MakeCatalog) -> list[Catalog]:
    """TestPackageVariationsBetweenCatalogs' catalogs a..f."""
    return [
        make([], name="a"),
        make(one_bundle("1.0.0", deprecated=True), name="b"),
        make(one_bundle("1.0.1", deprecated=True), name="c"),
        make(one_bundle("1.0.2"), name="d"),
        make(one_bundle("1.0.3", deprecated=True), name="e"),
        make(
            [
                package("pkg", "alpha"),
                channel("pkg", "alpha", entry("pkg.v1.0.4"), entry("pkg.v1.0.5")),
                bundle("pkg", "1.0.4"),
                bundle("pkg", "1.0.5"),
            ],
            name="f",
        ),
    ]


def test_the_only_catalog_with_a_non_deprecated_candidate_wins(make: MakeCatalog) -> None:
    """PackageVariationsBetweenCatalogs: deprecated in all but one catalog."""
    resolution = run(variations(make), extension(version=">=1.0.0 <=1.0.3"))
    assert chosen(resolution) == "1.0.2"
    assert resolution.selection is not None and resolution.selection[0].catalog == "d"


def test_equal_priority_deprecated_candidates_are_an_error_naming_both(make: MakeCatalog) -> None:
    """PackageVariationsBetweenCatalogs: deprecated in several catalogs of one priority."""
    text = failure(run(variations(make), extension(version=">=1.0.0 <=1.0.1")))
    assert "in multiple catalogs with the same priority [b c]" in text


def test_equal_priority_candidates_are_an_error_naming_both(make: MakeCatalog) -> None:
    """PackageVariationsBetweenCatalogs: not deprecated in several catalogs of one priority."""
    text = failure(run(variations(make), extension(version=">=1.0.0 <=1.0.4")))
    assert 'found bundles for package "pkg" matching version ">=1.0.0 <=1.0.4"' in text
    assert "in multiple catalogs with the same priority [d f]" in text


def test_highest_within_one_catalog(make: MakeCatalog) -> None:
    """PackageVariationsBetweenCatalogs: all candidates in one catalog, highest wins."""
    assert chosen(run(variations(make), extension(version=">=1.0.4 <=1.0.5"))) == "1.0.5"


def test_higher_priority_wins_over_a_higher_version(make: MakeCatalog) -> None:
    """TestUnequalPriority: priority 1's 1.0.0 beats priority 0's 1.1.0."""
    catalogs = [make(one_bundle("1.0.0"), name="a"), make(one_bundle("1.1.0"), name="b")]
    found = run(catalogs, cluster_catalog("a", priority=1), cluster_catalog("b"), extension())
    assert chosen(found) == "1.0.0"


def test_top_priority_shared_names_every_catalog_in_the_running(make: MakeCatalog) -> None:
    """TestMultiplePriority: a and c (priority 1) tie; OLM v1's message lists a, b and c."""
    catalogs = [make(gen_package(), name=n) for n in ("a", "b", "c")]
    text = failure(
        run(
            catalogs,
            cluster_catalog("a", priority=1),
            cluster_catalog("b", priority=0),
            cluster_catalog("c", priority=1),
            extension(version=">=1.0.0 <=1.0.1"),
        )
    )
    assert "in multiple catalogs with the same priority [a b c]" in text


def test_command_line_priority_used_when_no_clustercatalog_states_one(make: MakeCatalog) -> None:
    """--catalog DIR=NAME:PRIORITY stands in for spec.priority."""
    catalogs = [
        make(one_bundle("1.0.0"), name="a", priority=5),
        make(one_bundle("1.1.0"), name="b"),
    ]
    assert chosen(run(catalogs, extension())) == "1.0.0"


def test_selector_by_catalog_name_label(make: MakeCatalog) -> None:
    """TestClusterExtensionMatchLabel / NoMatchLabel: olm.operatorframework.io/metadata.name."""
    catalogs = [make(one_bundle("1.0.0"), name="a"), make(one_bundle("2.0.0"), name="b")]
    by_name = {"matchLabels": {"olm.operatorframework.io/metadata.name": "a"}}
    assert chosen(run(catalogs, extension(selector=by_name))) == "1.0.0"
    not_b = {
        "matchExpressions": [
            {"key": "olm.operatorframework.io/metadata.name", "operator": "NotIn", "values": ["b"]}
        ]
    }
    assert chosen(run(catalogs, extension(selector=not_b))) == "1.0.0"
    only_empty = [make([], name="a"), make(one_bundle("2.0.0"), name="b")]
    assert 'no bundles found for package "pkg"' in failure(
        run(only_empty, extension(selector=by_name))
    )


def test_selector_with_an_invalid_operator_is_bad_input(make: MakeCatalog) -> None:
    """TestInvalidClusterExtensionCatalogMatchExpressions: names the field."""
    bad = {"matchExpressions": [{"key": "name", "operator": "bad", "values": ["value"]}]}
    with pytest.raises(InputError) as caught:
        run([make(one_bundle("1.0.0"), name="a")], extension(selector=bad))
    assert "spec.source.catalog.selector.matchExpressions[0].operator" in str(caught.value)
    assert '"bad" is not a valid label selector operator' in str(caught.value)


def test_unavailable_catalogs_are_not_used(make: MakeCatalog) -> None:
    """TestAllCatalogsDisabled / TestSomeCatalogsDisabled."""
    catalogs = [make(gen_package(), name="on", priority=1), make(gen_package(), name="off")]
    docs = [
        cluster_catalog("on", priority=1),
        cluster_catalog("off", available=False),
        extension(version=">=1.0.0"),
    ]
    assert chosen(run(catalogs, *docs)) == "3.0.0"
    docs[0] = cluster_catalog("on", priority=1, available=False)
    assert 'no bundles found for package "pkg"' in failure(run(catalogs, *docs))


# --- upgrades ---------------------------------------------------------------------------------


def test_catalog_provided_upgrades_to_a_direct_successor(make: MakeCatalog) -> None:
    """TestUpgradeFoundLegacy: installed 0.1.0 goes to 1.0.2 (its skipRange names 0.1.0), one
    step, in any channel."""
    resolution = run([make(gen_package(), name="c")], extension(installed="0.1.0"))
    assert resolution.selection is not None
    (item,) = resolution.selection
    assert (item.version, item.action, item.path) == (
        "1.0.2",
        "upgrade",
        ("pkg.v0.1.0", "pkg.v1.0.2"),
    )


def test_catalog_provided_without_a_successor_in_range(make: MakeCatalog) -> None:
    """TestUpgradeNotFoundLegacy: OLM v1's message, prefixed with the installed version."""
    text = failure(
        run([make(gen_package(), name="c")], extension(version="<1.0.0 >=2.0.0", installed="0.1.0"))
    )
    assert (
        'error upgrading from currently installed version "0.1.0": no bundles found for '
        'package "pkg" matching version "<1.0.0 >=2.0.0"'
    ) in text


def test_self_certified_downgrades(make: MakeCatalog) -> None:
    """TestDowngradeFound: SelfCertified, "<1.0.2", installed 1.0.2 gives 0.1.0 (1.0.0 and
    1.0.1 are deprecated)."""
    resolution = run(
        [make(gen_package(), name="c")],
        extension(version="<1.0.2", policy="SelfCertified", installed="1.0.2"),
    )
    assert resolution.selection is not None
    (item,) = resolution.selection
    assert (item.version, item.action) == ("0.1.0", "downgrade")


def test_self_certified_with_nothing_in_range(make: MakeCatalog) -> None:
    """TestDowngradeNotFound."""
    text = failure(
        run(
            [make(gen_package(), name="c")],
            extension(version=">0.1.0 <1.0.0", policy="SelfCertified", installed="1.0.2"),
        )
    )
    assert 'error upgrading from currently installed version "1.0.2"' in text


def successor_catalog() -> list[Obj]:
    return [
        package("pkg", "stable"),
        channel(
            "pkg",
            "stable",
            entry("pkg.v1.0.0"),
            entry("pkg.v1.0.1", "pkg.v1.0.0"),
            entry("pkg.v1.0.2", skips=["pkg.v1.0.1"]),
            entry("pkg.v1.1.0", skipRange=">=1.0.2 <1.1.0"),
        ),
        *(bundle("pkg", v) for v in ("1.0.0", "1.0.1", "1.0.2", "1.1.0")),
    ]


@pytest.mark.parametrize(
    ("installed", "expected"),
    [("1.0.0", "1.0.1"), ("1.0.1", "1.0.2"), ("1.0.2", "1.1.0"), ("1.1.0", "1.1.0")],
)
def test_successors_by_replaces_skips_and_skiprange_or_itself(
    make: MakeCatalog, installed: str, expected: str
) -> None:
    """TestSuccessorsPredicate: replaces, skips, skipRange; the installed bundle itself."""
    assert (
        chosen(run([make(successor_catalog(), name="c")], extension(installed=installed)))
        == expected
    )


def test_installed_bundle_in_no_catalog_is_upgraded_by_a_bundle_naming_it(
    make: MakeCatalog,
) -> None:
    """Successors are found by name: an installed bundle no catalog lists is still upgraded."""
    objs = [
        package("pkg", "stable"),
        channel("pkg", "stable", entry("pkg.v2.0.0")),
        channel("pkg", "fast", entry("pkg.v2.1.0", "pkg.v1.0.0")),
        bundle("pkg", "2.0.0"),
        bundle("pkg", "2.1.0"),
    ]
    resolution = run([make(objs, name="c")], extension(installed="1.0.0"))
    assert resolution.selection is not None
    (item,) = resolution.selection
    assert (item.version, item.action, item.from_version) == ("2.1.0", "upgrade", "1.0.0")


def test_highest_successor_not_the_nearest_to_the_head(make: MakeCatalog) -> None:
    """upgrade-support.md: v3 skips v2, v2's skipRange covers 1.0.0: installed 1.0.0 goes to
    2.0.0 (no replaces chain needed); of several successors the highest version wins."""
    objs = [
        package("example", "stable"),
        channel(
            "example",
            "stable",
            entry("example.v3.0.0", skips=["example.v2.0.0"]),
            entry("example.v2.0.0", skipRange=">=1.0.0 <2.0.0"),
            entry("example.v1.5.0", "example.v1.0.0"),
        ),
        *(bundle("example", v) for v in ("1.0.0", "1.5.0", "2.0.0", "3.0.0")),
    ]
    found = run([make(objs, name="c")], extension("example", installed="1.0.0"))
    assert chosen(found) == "2.0.0"


def test_successor_edges_only_from_the_requested_channels(make: MakeCatalog) -> None:
    """resolve/catalog.go keeps only the requested channels before looking for successors."""
    objs = [
        package("pkg", "stable"),
        channel("pkg", "stable", entry("pkg.v1.0.0"), entry("pkg.v2.0.0")),
        channel("pkg", "fast", entry("pkg.v2.0.0", "pkg.v1.0.0")),
        bundle("pkg", "1.0.0"),
        bundle("pkg", "2.0.0"),
    ]
    catalogs = [make(objs, name="c")]
    assert chosen(run(catalogs, extension(installed="1.0.0"))) == "2.0.0"
    assert chosen(run(catalogs, extension(installed="1.0.0", channels=["stable"]))) == "1.0.0"


def test_registry_v1_build_metadata_is_a_release(make: MakeCatalog) -> None:
    """ByVersionAndRelease: 1.0.0+2 above 1.0.0+1 (registry+v1 release in build metadata); a
    version constraint ignores the release (TestNewVersionRange: build metadata)."""
    objs = [
        package("pkg", "stable"),
        channel("pkg", "stable", entry("pkg.v1.0.0+1"), entry("pkg.v1.0.0+2", "pkg.v1.0.0+1")),
        bundle("pkg", "1.0.0+1", name="pkg.v1.0.0+1"),
        bundle("pkg", "1.0.0+2", name="pkg.v1.0.0+2"),
    ]
    resolution = run([make(objs, name="c")], extension(version="1.0.0+1"))
    assert resolution.selection is not None
    assert resolution.selection[0].bundle == "pkg.v1.0.0+2"


def test_several_extensions_resolve_together(make: MakeCatalog) -> None:
    """One ClusterExtension per package; a file may hold several."""
    catalogs = [make([*gen_package(), *one_bundle("1.0.0", pkg="other")], name="c")]
    resolution = run(catalogs, extension(), extension("other", name="other"))
    assert resolution.selection is not None
    assert {(s.package, s.version) for s in resolution.selection} == {
        ("pkg", "3.0.0"),
        ("other", "1.0.0"),
    }


def test_installed_bundle_matcher_is_exact_release_included(make: MakeCatalog) -> None:
    """TestSuccessorsPredicate "installed bundle matcher is exact": installed 2.0.0+1 (release
    1) is not 2.0.0, so 2.1.0 (which replaces 2.0.0) is no successor; 2.2.0 skips 2.0.0+1."""
    objs = [
        package("test-package", "stable"),
        channel(
            "test-package",
            "stable",
            entry("test-package.v2.0.0"),
            entry("test-package.v2.0.0+1"),
            entry("test-package.v2.1.0", "test-package.v2.0.0"),
            entry("test-package.v2.2.0", "test-package.v2.1.0", skips=["test-package.v2.0.0+1"]),
        ),
        bundle("test-package", "2.0.0"),
        bundle("test-package", "2.0.0+1", name="test-package.v2.0.0+1"),
        bundle("test-package", "2.1.0"),
        bundle("test-package", "2.2.0"),
    ]
    catalogs = [make(objs, name="c")]
    plain = extension("test-package", installed="2.0.0")
    assert chosen(run(catalogs, plain)) == "2.1.0"
    released = extension("test-package", installed="2.0.0+1")
    resolution = run(catalogs, released)
    assert resolution.selection is not None
    assert resolution.selection[0].bundle == "test-package.v2.2.0"
    stay = extension("test-package", installed="2.0.0+1", version="<2.1.0")
    resolution = run(catalogs, stay)
    assert resolution.selection is not None
    assert (resolution.selection[0].bundle, resolution.selection[0].action) == (
        "test-package.v2.0.0+1",
        "keep",
    )
