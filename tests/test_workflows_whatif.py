"""``deppy resolve … --dry-run-next``: what the next cluster version does to each package
(tests/data/workflows/whatif: bundles whose olm.maxOpenShiftVersion is the current version, and
one that needs the next Kubernetes)."""

from __future__ import annotations

import json
import re

import pytest

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.catalog.semver import Version
from deppy.errors import InputError
from deppy.resolution.request import ClusterFacts, ResolutionRequest
from deppy.resolution.request_parsing import parse_installed, parse_require
from deppy.workflows.whatif import next_cluster, parse_next, what_if
from tests.workflow_helpers import WORKFLOWS, run

DATA = WORKFLOWS / "whatif"
NOW = ClusterFacts(Version.parse_tolerant("4.18"), Version.parse_tolerant("1.31.0"))


@pytest.fixture(scope="module")
def catalogs() -> CatalogSet:
    return CatalogSet([load_catalog(DATA, name="whatif")])


def request(*packages: str) -> ResolutionRequest:
    return ResolutionRequest(required=tuple(parse_require(p) for p in packages), cluster=NOW)


def test_next_versions_are_the_next_minors() -> None:
    later = next_cluster(ClusterFacts(Version.parse_tolerant("4.18"), Version.parse("1.31.2")))
    assert (str(later.openshift_version), str(later.kube_version)) == ("4.19", "1.32.0")
    assert next_cluster(ClusterFacts()) == ClusterFacts()
    assert parse_next("next", NOW) == next_cluster(NOW)
    explicit = parse_next("ocp=4.20", NOW)
    assert str(explicit.openshift_version) == "4.20" and explicit.kube_version == NOW.kube_version
    with pytest.raises(InputError, match="add --ocp-version"):
        parse_next("next", ClusterFacts())
    with pytest.raises(InputError, match=re.escape("write ocp=4.19,kube=1.32.0")):
        parse_next("openshift=4.19", NOW)


def test_per_package_unchanged_changes_and_why(catalogs: CatalogSet) -> None:
    report = what_if(catalogs, request("app", "steady", "kubeish"), next_cluster(NOW))
    assert report.after.resolved and not report.breaks
    fate = {c.package: (c.status, c.before, c.after, c.why) for c in report.changes}
    assert fate["steady"] == ("unchanged", "2.0.0", "2.0.0", ())
    assert fate["app"][:3] == ("unchanged", "1.0.0", "1.0.0")
    assert fate["mesh"] == (
        "changes",
        "1.1.0",
        "1.0.0",
        (
            "mesh 1.1.0 supports OpenShift up to 4.18 (olm.maxOpenShiftVersion); "
            "the cluster runs 4.19",
        ),
    )
    assert fate["kubeish"][:3] == ("changes", "1.0.0", "2.0.0")
    assert "kubeish 2.0.0 needs Kubernetes 1.32.0 or newer" in fate["kubeish"][3][0]


def test_a_package_whose_only_bundle_ends_at_this_version_breaks(catalogs: CatalogSet) -> None:
    report = what_if(catalogs, request("app", "legacy"), next_cluster(NOW))
    assert report.before.resolved and report.breaks
    fate = {c.package: c for c in report.changes}
    assert fate["legacy"].status == "breaks"
    assert fate["legacy"].explanation is not None
    assert (
        "legacy 0.5.0 supports OpenShift up to 4.18 (olm.maxOpenShiftVersion); "
        "the cluster runs 4.19"
    ) in fate["legacy"].why
    # resolved on their own, the other requirements still work
    assert (fate["mesh"].status, fate["mesh"].after) == ("changes", "1.0.0")
    assert fate["app"].status == "unchanged"


BASE = ["resolve", "--catalog", f"{DATA}=whatif", "--ocp-version", "4.18"]


def test_cli_report_breaks_first_and_exits_1() -> None:
    code, out, _ = run(*BASE, "--require", "app", "--require", "legacy", "--dry-run-next")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "Now: OpenShift 4.18. Next: OpenShift 4.19."
    assert lines[2] == "legacy: breaks (now 0.5.0)"
    assert "mesh: changes version 1.1.0 -> 1.0.0" in lines
    assert "app: unchanged (1.0.0)" in lines
    assert lines[-1] == "Summary: 1 unchanged, 1 changes version, 1 breaks."


def test_cli_explicit_target_and_json() -> None:
    code, out, _ = run(*BASE, "--require", "mesh", "--dry-run-next=ocp=4.20", "-o", "json")
    assert code == 0
    data = json.loads(out)
    assert (data["current"], data["next"]) == ("OpenShift 4.18", "OpenShift 4.20")
    assert data["packages"][0]["status"] == "changes"


def test_cli_without_a_current_version_is_exit_2() -> None:
    code, _, err = run("resolve", "--catalog", str(DATA), "--require", "app", "--dry-run-next")
    assert code == 2
    assert err.startswith("deppy: error: --dry-run-next: the next version is counted from")


def test_an_installed_bundle_the_next_version_refuses_breaks(catalogs: CatalogSet) -> None:
    installed = (parse_installed("legacy@0.5.0"), parse_installed("mesh@1.0.0"))
    report = what_if(
        catalogs, ResolutionRequest(installed=installed, cluster=NOW), next_cluster(NOW)
    )
    fate = {c.package: (c.status, c.before, c.after) for c in report.changes}
    assert fate == {"legacy": ("breaks", "0.5.0", None), "mesh": ("changes", "1.1.0", "1.0.0")}
    legacy = next(c for c in report.changes if c.package == "legacy")
    assert legacy.explanation is not None
    # asked alone (which package breaks), uninstalling it would leave nothing to resolve
    texts = [s.text for s in legacy.explanation.suggestions]
    assert texts == ["legacy 0.5.0 would install on OpenShift 4.18 or older"]


def test_a_deadline_bounds_all_the_resolutions_together(catalogs: CatalogSet) -> None:
    from deppy.solver import SolveTimeout

    some = request(*sorted(catalogs.package_names()))
    with pytest.raises(SolveTimeout):
        what_if(catalogs, some, next_cluster(NOW), timeout=1e-9)
    assert what_if(catalogs, some, next_cluster(NOW), timeout=60).as_dict() == (
        what_if(catalogs, some, next_cluster(NOW)).as_dict()
    )
