"""``deppy fleet plan``: each cluster's plan equals what ``deppy upgrades`` answers for that
cluster alone; bad clusters are error records, not the end of the run; a --since comparison;
RBAC growth; the roll-up; the same output in this process and on dask (tests/test_fleet_dask.py
runs a real dask cluster and kills a worker)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from benchmarks.fleet_exports import write_fleet

from deppy.resolution.request_parsing import parse_catalog
from deppy.workflows.catalog_loading import load_catalogs
from deppy.workflows.fleet.fanout import default_batch_size, plan_fleet
from deppy.workflows.fleet.inputs import cluster_refs
from deppy.workflows.fleet.plan import FleetSettings, Planner
from deppy.workflows.fleet.rollup import Rollup, plan_key
from tests.conftest import shared_path
from tests.workflow_helpers import run

COMMUNITY = str(shared_path("catalogs", "community-operators-prod-v4.18"))
EXCERPTS = shared_path("catalogs", "redhat-operator-index-excerpts")
TARGET = "4.20"  # 52 community bundles stop at 4.18 or 4.19: some installs block it
COUNT = 30


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """30 seeded exports of the community catalog; every tenth damaged in one of three ways."""
    directory = tmp_path_factory.mktemp("fleet")
    source = load_catalogs([parse_catalog(COMMUNITY)])
    write_fleet(source, directory, COUNT, low=3, high=12, damaged=True)
    return directory


@pytest.fixture(scope="module")
def records(fleet: Path) -> list[dict[str, Any]]:
    settings = FleetSettings(catalogs=(COMMUNITY,), target_ocp=TARGET)
    found = plan_fleet(cluster_refs([str(fleet)]), settings, workers=0)
    return [orjson.loads(r) for batch in found for r in batch]


def upgrades(export: str, *more: str) -> list[dict[str, Any]]:
    code, out, err = run("upgrades", "--cluster", export, "--catalog", COMMUNITY, "-o", "json",
                         *more)  # fmt: skip
    assert code == 0, err
    return json.loads(out)  # type: ignore[no-any-return]


def test_every_cluster_has_one_record_in_input_order(records: list[dict[str, Any]]) -> None:
    assert [r["index"] for r in records] == list(range(COUNT))
    assert [Path(r["cluster"]).name for r in records] == [
        f"cluster-{n:05d}.json" for n in range(COUNT)
    ]


def test_a_directory_lists_its_exports_in_name_order_depth_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files of a directory in name order, then its subdirectories'; dot files, other
    suffixes and symlinked directories left out; a symlinked export read where it points."""
    elsewhere = tmp_path / "elsewhere"
    (tmp_path / "fleet" / "eu" / "west").mkdir(parents=True)
    (tmp_path / "fleet" / ".old").mkdir()
    elsewhere.mkdir()
    for name in ("fleet/b.yaml", "fleet/A.json", "fleet/.tmp.json", "fleet/notes.txt",
                 "fleet/eu/c.YML", "fleet/eu/west/d.json", "fleet/.old/e.json",
                 "elsewhere/f.json"):  # fmt: skip
        (tmp_path / name).write_text("{}")
    (tmp_path / "fleet" / "eu" / "linked.json").symlink_to(elsewhere / "f.json")
    (tmp_path / "fleet" / "linkdir").symlink_to(elsewhere)
    monkeypatch.chdir(tmp_path)
    refs = cluster_refs(["fleet/"])
    assert [r.name for r in refs] == [
        "fleet/A.json", "fleet/b.yaml", "fleet/eu/c.YML", "fleet/eu/linked.json",
        "fleet/eu/west/d.json",
    ]  # fmt: skip
    real = tmp_path.resolve()
    assert [r.path for r in refs] == [
        str(real / "fleet/A.json"), str(real / "fleet/b.yaml"), str(real / "fleet/eu/c.YML"),
        str(real / "elsewhere/f.json"), str(real / "fleet/eu/west/d.json"),
    ]  # fmt: skip
    monkeypatch.chdir(tmp_path / "fleet" / "eu")
    assert [r.name for r in cluster_refs(["."])] == ["c.YML", "linked.json", "west/d.json"]


def test_cluster_plans_are_what_upgrades_answers_for_each_alone(
    records: list[dict[str, Any]],
) -> None:
    """A sample: the first planned clusters, and the first ones with blockers."""
    planned = [r for r in records if "error" not in r]
    sample = planned[:2] + [r for r in planned[2:] if r["blockers"]][:2]
    assert len(sample) == 4
    for record in sample:
        _same_as_alone(record)


def _same_as_alone(record: dict[str, Any]) -> None:
    alone = upgrades(record["cluster"])
    assert [o["package"] for o in record["operators"]] == [a["package"] for a in alone]
    for operator, answer in zip(record["operators"], alone, strict=True):
        channel = answer["channel"]
        newest = channel["newest"] if channel else None
        moves = newest is not None and newest != answer["bundle"]
        assert operator["installed"] == answer["installed"]
        assert operator["bundle"] == answer["bundle"]
        assert operator["inCatalog"] == answer["inCatalog"]
        assert operator["newest"] == (newest if moves else None)
        assert operator["path"] == (channel["path"] if moves else [])
        others = [(c["channel"], c["newest"]) for c in answer["otherChannels"]]
        assert [(c["channel"], c["newest"]) for c in operator["otherChannels"]] == others
    # at the target: each blocker's fix is what `deppy upgrades --ocp-version TARGET` picks
    later = {a["package"]: a for a in upgrades(record["cluster"], "--ocp-version", TARGET)}
    for blocker in record["blockers"]:
        answer = later[blocker["package"]]
        fix = blocker["unblockedBy"]
        assert fix is not None  # every gitlab-operator-kubernetes install has a way to 4.20
        if not fix["switchChannel"]:
            assert fix["bundle"] == answer["channel"]["newest"]
            assert fix["path"] == answer["channel"]["path"]


def test_the_fleet_has_blockers_at_the_target_and_says_why(records: list[dict[str, Any]]) -> None:
    blockers = [b for r in records if "error" not in r for b in r["blockers"]]
    assert blockers, "the seeded fleet installs bundles that stop before OpenShift 4.20"
    assert all("olm.maxOpenShiftVersion" in b["reasons"][0] for b in blockers)
    assert {b["package"] for b in blockers} == {"gitlab-operator-kubernetes"}
    for blocker in blockers:  # unblocked by a version that runs on 4.20: 2.6.0 and later
        version = tuple(int(x) for x in blocker["unblockedBy"]["version"].split("."))
        assert version >= (2, 6, 0), blocker
    # a package the target does not block is none of the cluster's blockers
    for record in records:
        for blocker in record.get("blockers", []):
            assert blocker["package"] in {o["package"] for o in record["operators"]}


def test_bad_clusters_are_error_records_and_the_run_goes_on(
    records: list[dict[str, Any]],
) -> None:
    by_index = {r["index"]: r for r in records}
    cut_short = [by_index[n] for n in range(3, COUNT, 10)]
    unknown = [by_index[n] for n in range(6, COUNT, 10)]
    assert all("not YAML or JSON" in r["error"] for r in cut_short)
    assert all("no-such-operator" in r["error"] for r in unknown)
    assert sum("error" in r for r in records) == len(cut_short) + len(unknown)
    # the same error `deppy upgrades` gives for that cluster alone
    code, _, err = run("upgrades", "--cluster", unknown[0]["cluster"], "--catalog", COMMUNITY)
    assert code == 2 and unknown[0]["error"] in err


def test_a_removed_install_with_no_edge_out_is_stranded(records: list[dict[str, Any]]) -> None:
    for n in range(8, COUNT, 10):
        record = records[n]
        first = record["operators"][0]
        assert not first["inCatalog"] and first["stranded"], first
        assert record["stranded"] == [first["package"]]
        assert record["needsChange"]


def test_an_unreachable_context_is_an_error_record(tmp_path: Path) -> None:
    config = tmp_path / "kubeconfig"
    config.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "gone", "cluster": {"server": "https://127.0.0.1:9"}}],
                "users": [{"name": "u", "user": {"token": "t"}}],
                "contexts": [{"name": "gone", "context": {"cluster": "gone", "user": "u"}}],
                "current-context": "gone",
            }
        )
    )
    settings = FleetSettings(catalogs=(COMMUNITY,), kubeconfig=str(config))
    record = Planner.load(settings).plan(cluster_refs(["context:gone"])[0])
    assert record["cluster"] == "context:gone"
    assert "127.0.0.1:9" in record["error"]


def test_a_kubernetes_target_is_blocked_by_min_kube_version_alone(fleet: Path) -> None:
    settings = FleetSettings(catalogs=(COMMUNITY,), target_kube="1.25.0")
    found = plan_fleet(cluster_refs([str(fleet)]), settings, workers=0)
    records = [orjson.loads(r) for batch in found for r in batch]
    reasons = [why for r in records for b in r.get("blockers", []) for why in b["reasons"]]
    assert reasons and all("minKubeVersion" in why for why in reasons)
    assert all(r["target"]["kubernetesVersion"] == "1.25.0" for r in records if "error" not in r)


def test_the_html_report_is_the_same_bytes_each_run(fleet: Path) -> None:
    args = ("fleet", "plan", str(fleet), "--catalog", COMMUNITY, "--workers", "0", "-o", "html")
    first, second = run(*args), run(*args)
    assert first[0] == 0 and first[1] == second[1]
    assert first[1].count("<svg") == 3


def test_the_rollup_groups_identical_plans_into_waves(records: list[dict[str, Any]]) -> None:
    rollup = Rollup()
    for record in records:
        rollup.add(record)
    summary = rollup.summary()
    planned = [r for r in records if "error" not in r]
    assert summary["planned"] == len(planned) and len(summary["errors"]) == COUNT - len(planned)
    in_waves = sum(w["clusters"] for w in summary["waves"])
    assert in_waves + summary["needNoChange"]["count"] == len(planned)
    keys = {plan_key(r) for r in planned if r["needsChange"]}
    assert len(summary["waves"]) == len(keys)
    installs = sum(len(r["operators"]) for r in planned)
    assert sum(v["clusters"] for vs in summary["versions"].values() for v in vs) == installs
    blocked = sum(len(r["blockers"]) for r in planned)
    assert sum(b["clusters"] for b in summary["blockers"]) == blocked


def test_same_plan_same_wave(records: list[dict[str, Any]]) -> None:
    record = next(r for r in records if "error" not in r and r["needsChange"])
    twin = {**record, "index": 99, "cluster": "twin"}
    rollup = Rollup()
    rollup.add(record)
    rollup.add(twin)
    (wave,) = rollup.summary()["waves"]
    assert wave["clusters"] == 2 and wave["members"] == [record["cluster"], "twin"]


def test_merged_rollups_of_consecutive_runs_equal_the_rollup_of_all(
    records: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the client gets from the workers (each batch summed up there) sums up to what the
    records say one by one, wave members (kept up to a limit, in input order) included."""
    monkeypatch.setattr("deppy.workflows.fleet.rollup.SHOWN_MEMBERS", 2)
    doubled = records + [{**r, "cluster": f"{r['cluster']}-twin"} for r in records]
    whole = Rollup()
    for record in doubled:
        whole.add(record)
    merged = Rollup()
    for start in range(0, len(doubled), 7):
        part = Rollup()
        for record in doubled[start : start + 7]:
            part.add(record)
        merged.merge(part)
    assert merged.summary() == whole.summary()
    assert orjson.dumps(merged.summary()) == orjson.dumps(whole.summary())


@pytest.mark.parametrize(
    ("clusters", "workers"), [(10_000, 2), (10_000, 16), (500, 2), (24, 2), (1, 8)]
)
def test_the_default_batch_keeps_every_worker_busy_and_dask_costs_few(
    clusters: int, workers: int
) -> None:
    """Batches of at most 200 clusters (dask's few ms of CPU per batch, in the command and on
    the worker, stay small against planning them) and enough of them for each worker to get
    at least 8 when the fleet allows (the last batches, where workers wait for one another,
    stay short)."""
    size = default_batch_size(clusters, workers)
    batches = -(-clusters // size)
    assert 1 <= size <= 200
    assert batches >= min(8 * workers, clusters)


def test_cli_json_is_the_records_and_the_summary(fleet: Path) -> None:
    code, out, _ = run("fleet", "plan", str(fleet), "--catalog", COMMUNITY, "--workers", "0",
                       "--ocp-version", TARGET, "-o", "json")  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert len(data["clusters"]) == COUNT and data["summary"]["clusters"] == COUNT
    code, text, _ = run("fleet", "plan", str(fleet), "--catalog", COMMUNITY, "--workers", "0",
                        "--ocp-version", TARGET)  # fmt: skip
    assert code == 0
    assert text.startswith(f"Fleet: {COUNT} clusters")
    assert len(text.splitlines()) <= 30  # a screen


def test_cli_refuses_two_targets_and_missing_paths(fleet: Path) -> None:
    code, _, err = run("fleet", "plan", str(fleet), "--ocp-version", "4.19", "--kube-version",
                       "1.31.0")  # fmt: skip
    assert code == 2 and "one target" in err
    code, _, err = run("fleet", "plan", str(fleet / "nope"), "--workers", "0")
    assert code == 2 and "no such file or directory" in err


def _export(path: Path, package: str, csv: str, version: str, channel: str) -> None:
    subscription = {
        "kind": "Subscription",
        "metadata": {"name": package, "namespace": "ops"},
        "spec": {"name": package, "channel": channel, "source": "redhat-operators",
                 "sourceNamespace": "openshift-marketplace"},
        "status": {"installedCSV": csv},
    }  # fmt: skip
    csv_object = {
        "kind": "ClusterServiceVersion",
        "metadata": {"name": csv, "namespace": "ops"},
        "spec": {"version": version},
    }
    path.write_text(json.dumps({"kind": "List", "items": [subscription, csv_object]}))


def test_since_says_what_the_new_release_changes(tmp_path: Path) -> None:
    """The older excerpt has node-observability-operator 0.1.0, the 4.14 one 0.2.0."""
    _export(tmp_path / "a.json", "node-observability-operator",
            "node-observability-operator.v0.1.0", "0.1.0", "alpha")  # fmt: skip
    new = f"{EXCERPTS / 'v4.14-node-observability-operator'}=redhat-operators"
    old = f"{EXCERPTS / 'node-observability-operator-older'}=redhat-operators"
    settings = FleetSettings(catalogs=(new,), since=(old,))
    (record,) = (Planner.load(settings).plan(r) for r in cluster_refs([str(tmp_path)]))
    (operator,) = record["operators"]
    since = record["since"]
    assert operator["newest"] == "node-observability-operator.v0.2.0", record
    assert since["updatesChanged"] == [
        {
            "package": "node-observability-operator",
            "before": None,
            "after": "node-observability-operator.v0.2.0",
        }
    ]
    assert since["newlyStranded"] == [] and since["newlyBlocked"] == []


def _csv_object(name: str, version: str, verbs: list[str], cluster: bool) -> str:
    csv: dict[str, Any] = {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {"name": name},
        "spec": {
            "version": version,
            "install": {
                "strategy": "deployment",
                "spec": {
                    "permissions": [
                        {"serviceAccountName": "op",
                         "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": verbs}]}
                    ],
                    **({"clusterPermissions": [
                        {"serviceAccountName": "op",
                         "rules": [{"apiGroups": [""], "resources": ["secrets"],
                                    "verbs": ["get"]}]}
                    ]} if cluster else {}),
                },
            },
        },
    }  # fmt: skip
    return base64.b64encode(json.dumps(csv).encode()).decode()


def test_an_update_asking_for_more_rbac_is_named(tmp_path: Path) -> None:
    """A catalog that embeds its CSVs (olm.bundle.object), as Red Hat's index does: 1.1.0
    asks to list pods and to read secrets cluster-wide, which 1.0.0 did not."""
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    docs: list[dict[str, Any]] = [
        {"schema": "olm.package", "name": "op", "defaultChannel": "stable"},
        {"schema": "olm.channel", "package": "op", "name": "stable",
         "entries": [{"name": "op.v1.0.0"}, {"name": "op.v1.1.0", "replaces": "op.v1.0.0"}]},
    ]  # fmt: skip
    for version, verbs, wide in (("1.0.0", ["get"], False), ("1.1.0", ["get", "list"], True)):
        docs.append(
            {
                "schema": "olm.bundle",
                "name": f"op.v{version}",
                "package": "op",
                "image": f"example.com/op:{version}",
                "properties": [
                    {"type": "olm.package", "value": {"packageName": "op", "version": version}},
                    {
                        "type": "olm.bundle.object",
                        "value": {"data": _csv_object(f"op.v{version}", version, verbs, wide)},
                    },
                ],
            }
        )
    (catalog / "catalog.json").write_text("\n".join(json.dumps(d) for d in docs))
    clusters = tmp_path / "clusters"
    clusters.mkdir()
    _export(clusters / "one.json", "op", "op.v1.0.0", "1.0.0", "stable")
    settings = FleetSettings(catalogs=(f"{catalog}=redhat-operators",))
    (record,) = (Planner.load(settings).plan(r) for r in cluster_refs([str(clusters)]))
    (change,) = record["moreRbac"]
    assert (change["from"], change["to"]) == ("op.v1.0.0", "op.v1.1.0")
    assert change["added"] == [
        'get secrets in apiGroups "" (cluster-wide)',
        'get,list pods in apiGroups "" (in the namespace)',
    ]
