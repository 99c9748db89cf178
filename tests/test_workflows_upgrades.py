"""``deppy upgrades``: updates along the channel (replaces, skips, skipRange), updates only by
switching channel (CrossChannelUpdateFound) and the path to the newest
(tests/data/workflows/upgrades)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.catalog.semver import Version
from deppy.resolution.request import ClusterFacts
from deppy.resolution.request_parsing import parse_installed
from deppy.workflows.upgrades import ChannelUpdates, GraphMemo, UpgradeReport, upgrade_reports
from tests.test_everyday_answers import invalid_channels_catalog
from tests.workflow_helpers import WORKFLOWS, run

DATA = WORKFLOWS / "upgrades"


@pytest.fixture(scope="module")
def catalogs() -> CatalogSet:
    return CatalogSet([load_catalog(DATA, name="upgrades")])


def report(catalogs: CatalogSet, spec: str, cluster: ClusterFacts | None = None) -> UpgradeReport:
    (found,), _ = upgrade_reports(catalogs, [parse_installed(spec)], cluster or ClusterFacts())
    return found


def versions(updates: ChannelUpdates) -> list[str]:
    return [str(u.bundle.version) for u in updates.updates]


def path(updates: ChannelUpdates) -> list[str]:
    return [str(b.version) for b in updates.path]


def test_skiprange_reaches_the_head_in_one_step(catalogs: CatalogSet) -> None:
    found = report(catalogs, "etcd@1.0.0")
    assert found.channel is not None
    assert (found.channel.channel, versions(found.channel)) == (
        "stable",
        ["1.3.0", "1.2.0", "1.1.0"],
    )
    assert path(found.channel) == ["1.0.0", "1.3.0"]
    # fast's skipRange (>=1.1.0 <2.0.0) does not cover 1.0.0, candidate starts at 1.1.0
    assert not found.cross_channel_update_found


def test_skips_offer_a_way_back_from_a_branch(catalogs: CatalogSet) -> None:
    found = report(catalogs, "etcd@1.1.1,channel=candidate")
    assert found.channel is not None
    assert found.channel.channel == "candidate" and versions(found.channel) == []
    assert found.cross_channel_update_found
    other = {c.channel: c for c in found.other_channels}
    # stable: 1.2.0 skips 1.1.1, 1.3.0's skipRange covers it
    assert versions(other["stable"]) == ["1.3.0", "1.2.0"]
    assert path(other["stable"]) == ["1.1.1", "1.3.0"]
    assert versions(other["fast"]) == ["2.1.0", "2.0.0"]
    assert path(other["fast"]) == ["1.1.1", "2.0.0", "2.1.0"]


def test_cross_channel_updates_exclude_what_the_channel_offers(catalogs: CatalogSet) -> None:
    found = report(catalogs, "etcd@1.1.0")
    assert found.channel is not None and versions(found.channel) == ["1.3.0", "1.2.0"]
    other = {c.channel: versions(c) for c in found.other_channels}
    assert other == {"candidate": ["1.1.1"], "fast": ["2.1.0", "2.0.0"]}
    assert found.as_dict()["crossChannelUpdateFound"] is True


def test_cluster_limits_mark_updates_and_shorten_the_path(catalogs: CatalogSet) -> None:
    found = report(catalogs, "etcd@1.1.0", ClusterFacts(Version.parse_tolerant("4.19")))
    fast = next(c for c in found.other_channels if c.channel == "fast")
    blocked = {str(u.bundle.version): u.blocked for u in fast.updates}
    assert blocked["2.0.0"] == ()
    assert blocked["2.1.0"] == (
        "etcd 2.1.0 supports OpenShift up to 4.18 (olm.maxOpenShiftVersion); the cluster runs 4.19",
    )
    assert fast.newest is not None and str(fast.newest.version) == "2.0.0"
    assert path(fast) == ["1.1.0", "2.0.0"]


def test_an_installed_bundle_no_catalog_lists_follows_edges_that_name_it(
    catalogs: CatalogSet,
) -> None:
    found = report(catalogs, "etcd@1.0.5")  # in no catalog; stable's skipRange covers it
    assert not found.in_catalog
    assert found.channel is not None and versions(found.channel) == ["1.3.0"]


def test_cli_text_and_json() -> None:
    args = ["upgrades", "--catalog", f"{DATA}=upgrades", "--installed", "etcd@1.1.0"]
    code, out, _ = run(*args, "--ocp-version", "4.19")
    assert code == 0
    assert out.splitlines() == [
        "etcd 1.1.0 (etcd.v1.1.0; channel stable, catalog upgrades)",
        "  updates: 1.3.0, 1.2.0",
        "  newest 1.3.0 in 1 step: 1.1.0 → 1.3.0",
        "  only by switching channel (CrossChannelUpdateFound):",
        "    channel candidate (catalog upgrades):",
        "      updates: 1.1.1",
        "      newest 1.1.1 in 1 step: 1.1.0 → 1.1.1",
        "    channel fast (catalog upgrades):",
        "      updates: 2.1.0 (cannot run here), 2.0.0",
        "      newest 2.0.0 in 1 step: 1.1.0 → 2.0.0",
        "        2.1.0: etcd 2.1.0 supports OpenShift up to 4.18 (olm.maxOpenShiftVersion); "
        "the cluster runs 4.19",
    ]
    code, out, _ = run(*args, "-o", "json")
    assert code == 0
    (data,) = json.loads(out)
    assert data["channel"]["path"] == ["etcd.v1.1.0", "etcd.v1.3.0"]
    assert [c["channel"] for c in data["otherChannels"]] == ["candidate", "fast"]
    assert data["otherChannels"][1]["path"] == ["etcd.v1.1.0", "etcd.v2.0.0", "etcd.v2.1.0"]


def test_cli_bad_spec_is_one_line() -> None:
    code, _, err = run("upgrades", "--catalog", str(DATA), "--installed", "etcd")
    assert code == 2
    assert err == (
        "deppy: error: --installed 'etcd': the installed version is missing; "
        "write PACKAGE@VERSION\n"
    )


def test_reports_kept_between_calls_say_each_time_what_a_fresh_call_says(
    tmp_path: Path,
) -> None:
    """A fleet plan keeps the candidate order from one ``upgrade_reports`` call to the next
    (GraphMemo); each call still hears the invalid-channel warnings of the packages it looks
    at, and the same reports, as a call on its own."""
    source = CatalogSet([load_catalog(invalid_channels_catalog(tmp_path), name="invalid")])
    kept = GraphMemo()
    specs = ["twoheads@1.0.0", "fine@1.0.0", "twoheads@1.0.0", "loop@1.0.0", "fine@1.0.0"]
    for spec in specs:
        alone = upgrade_reports(source, [parse_installed(spec)], ClusterFacts())
        again = upgrade_reports(source, [parse_installed(spec)], ClusterFacts(), graphs=kept)
        assert again == alone
        assert bool(again[1]) == (not spec.startswith("fine"))
