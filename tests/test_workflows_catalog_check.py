"""``deppy catalog check``: the known failures of community-operators-prod-v4.18 (its README)
are found, each for the right reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.catalog.semver import Version
from deppy.resolution.request import ClusterFacts
from deppy.workflows.catalog_check import (
    CLUSTER,
    MISSING_API,
    MISSING_PACKAGE,
    NO_VERSION,
    BundleCheck,
    CatalogCheck,
    Checker,
    check_catalog,
)
from tests.conftest import shared_path
from tests.workflow_helpers import WORKFLOWS, run

COMMUNITY = ("catalogs", "community-operators-prod-v4.18")
WHATIF = WORKFLOWS / "whatif"


@pytest.fixture(scope="module")
def community() -> CatalogSet:
    return CatalogSet([load_catalog(shared_path(*COMMUNITY), name="community")])


@pytest.fixture(scope="module")
def report(community: CatalogSet) -> CatalogCheck:
    return check_catalog(community, "community", ClusterFacts())


def failures(report: CatalogCheck, package: str) -> dict[str, BundleCheck]:
    return {str(f.bundle.version): f for f in report.failures if f.bundle.package == package}


def test_every_bundle_is_checked_and_only_those_that_can_fail_are_resolved(
    report: CatalogCheck,
) -> None:
    assert report.bundles == 5572
    # 116 bundles declare olm.package.required, 63 olm.gvk.required (some both), 1 olm.constraint
    assert 116 <= report.resolved <= 116 + 63 + 1
    assert 0 < len(report.failures) < report.resolved


def test_eclipse_che_lacks_the_devworkspace_operator(report: CatalogCheck) -> None:
    che = failures(report, "eclipse-che")
    assert che and all(f.reasons == (MISSING_PACKAGE,) for f in che.values())
    assert che["7.121.0"].unmet == (
        "needs package devworkspace-operator >=0.11.0: no catalog (community) contains package "
        "devworkspace-operator",
    )
    assert any(">=0.8.0" in text for f in che.values() for text in f.unmet)


def test_kuadrant_pins_versions_this_catalog_does_not_have(report: CatalogCheck) -> None:
    kuadrant = failures(report, "kuadrant-operator")
    assert sorted(kuadrant) == ["0.7.1", "0.7.2"]
    for failure in kuadrant.values():
        assert failure.reasons == (NO_VERSION,)
        assert [text.split(":")[0] for text in failure.unmet] == [
            "needs package dns-operator 0.2.0",
            "needs package limitador-operator 0.8.0",
        ]


def test_node_healthcheck_needs_an_api_nobody_provides(report: CatalogCheck) -> None:
    (failure,) = failures(report, "node-healthcheck-operator").values()
    assert str(failure.bundle.version) == "0.1.1" and failure.reasons == (MISSING_API,)
    assert failure.unmet == (
        "needs API PoisonPillRemediation (poison-pill.medik8s.io/v1alpha1): no bundle in any "
        "catalog provides the API PoisonPillRemediation (poison-pill.medik8s.io/v1alpha1)",
    )


def test_summary_by_reason_counts_every_failure(report: CatalogCheck) -> None:
    by_reason = report.by_reason()
    assert list(by_reason)[:4] == [MISSING_PACKAGE, MISSING_API, NO_VERSION, CLUSTER]
    assert by_reason[CLUSTER] == 0  # no cluster version given
    assert sum(by_reason.values()) >= len(report.failures)
    assert by_reason[NO_VERSION] == 2


def test_the_next_openshift_adds_cluster_version_failures(community: CatalogSet) -> None:
    checker = Checker(community, ClusterFacts(Version.parse_tolerant("4.19")))
    limited = [
        b
        for b in community.all_bundles()
        if b.max_openshift_version is not None and str(b.max_openshift_version) == "4.18"
    ]
    assert limited and all(checker.may_fail(b) for b in limited)
    for bundle in limited:
        failure = checker.check(bundle)
        assert failure is not None and CLUSTER in failure.reasons


def test_cli_on_a_path_groups_failures_and_summarises() -> None:
    code, out, err = run("catalog", "check", str(WHATIF), "--ocp-version", "4.19")
    assert code == 1
    assert out.splitlines() == [
        "Catalog whatif: 7 bundles in 5 packages; 3 have dependencies or cluster limits and "
        "were resolved; 2 cannot be installed on their own.",
        "",
        "legacy 0.5.0: cluster version",
        "  - legacy 0.5.0 supports OpenShift up to 4.18 (olm.maxOpenShiftVersion); the cluster "
        "runs 4.19",
        "",
        "mesh 1.1.0: cluster version",
        "  - mesh 1.1.0 supports OpenShift up to 4.18 (olm.maxOpenShiftVersion); the cluster "
        "runs 4.19",
        "",
        "By reason (bundles; a bundle may have more than one reason):",
        "  missing package      0",
        "  missing API          0",
        "  no version in range  0",
        "  cluster version      2",
        "",
        "Total: 2 of 7 bundles (2 of 5 packages) cannot be installed on their own.",
    ]
    assert err.startswith("deppy: checked 7 bundles in ")
    code, out, _ = run("catalog", "check", str(WHATIF), "-o", "json")
    assert code == 0 and json.loads(out)["failing"] == 0


def test_cli_unknown_name_is_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path))  # an empty store: only the embedded catalog
    code, _, err = run("catalog", "check", "nope")
    assert code == 2
    assert err == (
        "deppy: error: nope: neither a catalog directory nor a stored catalog; give a "
        "File-Based Catalog directory or one of: embedded\n"
    )
    code, out, _ = run("catalog", "check", "embedded")
    assert code == 0 and out.startswith("Catalog embedded: ")
