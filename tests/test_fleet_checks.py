"""``deppy fleet plan`` on the sample exports of examples/fleet/ (issue 40): a catalog that does
not exist fails before any worker starts; the report names the target it was given; an error
names the export's object, not a flag the user never typed; counts are singular or plural."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import shared_path
from tests.docs_pages import ROOT
from tests.workflow_helpers import run

SAMPLES = ROOT / "examples" / "fleet"
BROKEN = SAMPLES / "olm-v0" / "cluster-00003.json"  # cut short: not JSON
UNKNOWN = SAMPLES / "olm-v0" / "cluster-00006.json"  # subscribes to no-such-operator
HEALTHY = SAMPLES / "olm-v0" / "cluster-00001.json"


@pytest.fixture(scope="module")
def community() -> str:
    return str(shared_path("catalogs", "community-operators-prod-v4.18"))


@pytest.mark.parametrize("option", ["--catalog", "--since"])
def test_a_catalog_that_does_not_exist_fails_before_any_worker(community: str, option: str) -> None:
    """Default workers (a dask cluster would start): one line, exit 2, nothing on stdout."""
    catalogs = ["--catalog", "NOSUCH"]
    if option == "--since":
        catalogs = ["--catalog", community, "--since", "NOSUCH"]
    code, out, err = run("fleet", "plan", str(SAMPLES), *catalogs, "-o", "html")
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"deppy: error: {option} NOSUCH: no such catalog: not a path, a URL nor a stored "
        "catalog's name; give a catalog's directory or a name 'deppy catalog list' shows"
    ]


@pytest.mark.parametrize(
    ("export", "target", "named"),
    [
        (BROKEN, ("--ocp-version", "4.20"), "OpenShift 4.20"),  # no cluster could be planned
        (HEALTHY, ("--kube-version", "1.33"), "Kubernetes 1.33"),  # not the cluster's OpenShift
    ],
)
def test_the_report_names_the_target_given(
    community: str, export: Path, target: tuple[str, str], named: str
) -> None:
    code, out, err = run("fleet", "plan", str(export), "--catalog", community, *target,
                         "-o", "html", "--workers", "0")  # fmt: skip
    assert code == (2 if export == BROKEN else 0), err
    assert f"Blockers per package ({named})" in out
    assert "no target given" not in out


def test_an_error_names_the_exports_object_and_one_cluster_is_singular(community: str) -> None:
    code, out, err = run("fleet", "plan", str(UNKNOWN), str(HEALTHY), "--catalog", community,
                         "--workers", "0")  # fmt: skip
    assert code == 0, err
    assert "Errors (1 cluster; -o json lists each):" in out
    assert "cluster-00006.json: Subscription openshift-operators/no-such-operator: " in out
    assert "--installed" not in out
