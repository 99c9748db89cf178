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
from tests.olmv1_objects import cluster_catalog, cluster_extension
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


def planned(directory: Path, settings: FleetSettings) -> list[dict[str, Any]]:
    """The records of a fleet plan of ``directory`` in this process."""
    found = plan_fleet(cluster_refs([str(directory)]), settings, workers=0)
    return [orjson.loads(r) for lines in found for r in lines.data.splitlines()]


@pytest.fixture(scope="module")
def records(fleet: Path) -> list[dict[str, Any]]:
    return planned(fleet, FleetSettings(catalogs=(COMMUNITY,), target_ocp=TARGET))


def export_of(record: dict[str, Any]) -> str:
    """The export file a planned cluster was read from (its record names it relatively)."""
    return str(record["source"]).split(" (exported from ")[0]


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
        "A.json", "b.yaml", "eu/c.YML", "eu/linked.json", "eu/west/d.json",
    ]  # fmt: skip
    assert [r.name for r in cluster_refs([str(tmp_path / "fleet")])] == [r.name for r in refs]
    several = cluster_refs(["fleet/eu/west", str(tmp_path / "fleet" / "b.yaml"), "elsewhere"])
    assert [r.name for r in several] == ["west/d.json", "b.yaml", "elsewhere/f.json"]
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
    alone = upgrades(export_of(record))
    assert [o["package"] for o in record["operators"]] == [a["package"] for a in alone]
    for operator, answer in zip(record["operators"], alone, strict=True):
        assert answer["rules"] == record["rules"] == "olm-v0"  # OLM v0 exports: OLM v0's rules
        plans = answer["installPlans"]  # OLM v0's next step, and the next, ...
        newest, path = (plans[-1], [answer["bundle"], *plans]) if plans else (None, [])
        moves = newest is not None and newest != answer["bundle"]
        assert operator["installed"] == answer["installed"]
        assert operator["bundle"] == answer["bundle"]
        assert operator["inCatalog"] == answer["inCatalog"]
        assert operator["newest"] == (newest if moves else None)
        assert operator["path"] == (path if moves else [])
        others = [(c["channel"], c["newest"]) for c in answer["otherChannels"]]
        assert [(c["channel"], c["newest"]) for c in operator["otherChannels"]] == others
    # at the target: each blocker's fix is what `deppy upgrades --ocp-version TARGET` picks
    later = {a["package"]: a for a in upgrades(export_of(record), "--ocp-version", TARGET)}
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
    # said of the target, not of the cluster (which does not run 4.20 yet)
    assert all(b["reasons"][0].endswith(f"; the target is {TARGET}") for b in blockers)
    assert {b["package"] for b in blockers} == {"gitlab-operator-kubernetes"}
    for blocker in blockers:  # unblocked by a version that runs on 4.20: 2.6.0 and later
        version = tuple(int(x) for x in blocker["unblockedBy"]["version"].split("."))
        assert version >= (2, 6, 0), blocker
    # a package the target does not block is none of the cluster's blockers
    for record in records:
        for blocker in record.get("blockers", []):
            assert blocker["package"] in {o["package"] for o in record["operators"]}


def test_bad_clusters_are_error_records_and_the_run_goes_on(
    records: list[dict[str, Any]], fleet: Path
) -> None:
    by_index = {r["index"]: r for r in records}
    cut_short = [by_index[n] for n in range(3, COUNT, 10)]
    unknown = [by_index[n] for n in range(6, COUNT, 10)]
    assert all("not YAML or JSON" in r["error"] for r in cut_short)
    assert all("no-such-operator" in r["error"] for r in unknown)
    assert sum("error" in r for r in records) == len(cut_short) + len(unknown)
    # the same error `deppy upgrades` gives for that cluster alone, which names the export
    export = str(fleet / unknown[0]["cluster"])
    code, _, err = run("upgrades", "--cluster", export, "--catalog", COMMUNITY)
    assert code == 2 and unknown[0]["error"] in err
    assert f"deppy: error: {export} (exported from " in err, err


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
    records = planned(fleet, FleetSettings(catalogs=(COMMUNITY,), target_kube="1.25.0"))
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
    records: list[dict[str, Any]],
    v1_records: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the client gets from the workers (each batch summed up there) sums up to what the
    records say one by one, wave members and operator errors (kept up to a limit, in input
    order) included; OLM v0 and OLM v1 records alike."""
    monkeypatch.setattr("deppy.workflows.fleet.rollup.SHOWN_MEMBERS", 2)
    both = records + v1_records
    doubled = both + [{**r, "cluster": f"{r['cluster']}-twin"} for r in both]
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
    ("clusters", "workers"),
    [(10_000, 2), (10_000, 16), (100_000, 14), (500, 2), (24, 2), (1, 8)],
)
def test_the_default_batch_keeps_every_worker_busy_and_dask_costs_few(
    clusters: int, workers: int
) -> None:
    """Batches of at most 500 clusters (dask's few ms of CPU per batch, in the command and on
    the worker, stay small against planning them) and enough of them for each worker to get
    at least 8 when the fleet allows (the last batches, where workers wait for one another,
    stay short), and no fewer clusters than that leaves (dask's CPU per batch in the command,
    the same for 60 clusters as for 375, spread over as many as it can be)."""
    size = default_batch_size(clusters, workers)
    batches = -(-clusters // size)
    assert 1 <= size <= 500
    assert batches >= min(8 * workers, clusters)
    assert size >= min(500, clusters // (8 * workers))


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


@pytest.mark.parametrize("kind", ["Subscription", "ClusterExtension"])
def test_an_update_asking_for_more_rbac_is_named(tmp_path: Path, kind: str) -> None:
    """A catalog that embeds its CSVs (olm.bundle.object), as Red Hat's index does: 1.1.0
    asks to list pods and to read secrets cluster-wide, which 1.0.0 did not; the same for an
    OLM v0 Subscription and an OLM v1 ClusterExtension."""
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
    if kind == "Subscription":
        _export(clusters / "one.json", "op", "op.v1.0.0", "1.0.0", "stable")
    else:
        _v1_export(clusters / "one.json", [cluster_extension("op", "op", "1.0.0")],
                   catalog="redhat-operators")  # fmt: skip
    settings = FleetSettings(catalogs=(f"{catalog}=redhat-operators",))
    (record,) = (Planner.load(settings).plan(r) for r in cluster_refs([str(clusters)]))
    assert [o["kind"] for o in record["operators"]] == [kind]
    (change,) = record["moreRbac"]
    assert (change["from"], change["to"]) == ("op.v1.0.0", "op.v1.1.0")
    assert change["added"] == [
        'get secrets in apiGroups "" (cluster-wide)',
        'get,list pods in apiGroups "" (in the namespace)',
    ]


# -- OLM v1: ClusterExtensions in the fleet plan --------------------------------------------------

CATALOG_NAME = Path(COMMUNITY).name  # the ClusterCatalog whose content --catalog COMMUNITY is
GITLAB = "gitlab-operator-kubernetes"  # 2.5.2 stops at OpenShift 4.19; 2.6.0 runs on 4.20
ARGOCD = "argocd-operator"  # one replaces chain; 0.1.0 replaces 0.0.15, which is in no catalog


def _v1_export(
    path: Path,
    extensions: list[dict[str, Any]],
    *,
    subscribed: bool = False,
    catalog: str = CATALOG_NAME,
) -> None:
    """An export as ``deppy cluster export`` writes it (``export_document``): the cluster's
    ClusterCatalog of the community content, its ClusterExtensions and, with ``subscribed``,
    an OLM v0 Subscription of gitlab-operator-kubernetes 2.5.2 beside them."""
    from deppy.cluster import ClusterState
    from deppy.cluster.export import export_document

    subscriptions: tuple[dict[str, Any], ...] = ()
    csvs: tuple[dict[str, Any], ...] = ()
    if subscribed:
        csv = f"{GITLAB}.v2.5.2"
        subscriptions = ({
            "apiVersion": "operators.coreos.com/v1alpha1", "kind": "Subscription",
            "metadata": {"name": GITLAB, "namespace": "gitlab"},
            "spec": {"name": GITLAB, "channel": "stable", "source": CATALOG_NAME,
                     "sourceNamespace": "openshift-marketplace"},
            "status": {"installedCSV": csv},
        },)  # fmt: skip
        csvs = ({
            "apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
            "metadata": {"name": csv, "namespace": "gitlab"},
            "spec": {"version": "2.5.2"}, "status": {"phase": "Succeeded"},
        },)  # fmt: skip
    state = ClusterState(
        where=f"https://api.{path.stem}.example:6443",
        csvs=csvs,
        subscriptions=subscriptions,
        cluster_catalogs=(cluster_catalog(catalog),),
        cluster_extensions=tuple(extensions),
        kube_version="v1.31.2",
        openshift_version="4.18.3",
    )
    path.write_text(json.dumps(export_document(state)))


@pytest.fixture(scope="module")
def v1_fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("v1-fleet")
    _v1_export(directory / "a-mixed.json", [cluster_extension("argocd", ARGOCD, "0.16.0")],
               subscribed=True)  # fmt: skip
    _v1_export(directory / "b-gitlab.json", [cluster_extension("gitlab", GITLAB, "2.5.2")])
    _v1_export(directory / "c-pinned.json",
               [cluster_extension("gitlab", GITLAB, "2.5.2", version="~2.5")])  # fmt: skip
    _v1_export(directory / "d-selfcertified.json",
               [cluster_extension("gitlab", GITLAB, "2.5.2", version="<2.7.0",
                                   upgradeConstraintPolicy="SelfCertified")])  # fmt: skip
    _v1_export(directory / "e-bad.json", [
        cluster_extension("argocd", ARGOCD, "0.0.15"),  # in no catalog; 0.1.0 replaces it
        cluster_extension("gone", ARGOCD, "0.0.1"),  # in no catalog, nothing names it
        cluster_extension("pending", ARGOCD, None),
        cluster_extension("gold", ARGOCD, "0.16.0", selector={"matchLabels": {"tier": "gold"}}),
        cluster_extension("typo", "no-such-operator", "1.0.0"),
    ])  # fmt: skip
    return directory


@pytest.fixture(scope="module")
def v1_records(v1_fleet: Path) -> list[dict[str, Any]]:
    return planned(v1_fleet, FleetSettings(catalogs=(COMMUNITY,), target_ocp=TARGET))


def _by_name(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {Path(r["cluster"]).stem: r for r in records}


def _extension_alone(export: Path, extension: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    """What ``deppy upgrades -f EXTENSION --cluster EXPORT`` answers for one extension."""
    file = tmp_path / f"{extension['metadata']['name']}.yaml"
    file.write_text(yaml.safe_dump(extension))
    code, out, err = run("upgrades", "-f", str(file), "--cluster", str(export), "--catalog",
                         COMMUNITY, "-o", "json")  # fmt: skip
    (answer,) = json.loads(out)
    assert code == (0 if answer["error"] is None else 1), err  # 1: OLM v1 finds no bundle
    return answer  # type: ignore[no-any-return]


def test_extension_plans_are_what_upgrades_answers_for_each_alone(
    v1_fleet: Path, v1_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    compared = 0
    for record in v1_records:
        assert "error" not in record, record
        export = json.loads(Path(export_of(record)).read_text())
        extensions = {e["metadata"]["name"]: e for e in export["clusterExtensions"]}
        for operator in record["operators"]:
            if operator["kind"] != "ClusterExtension":
                continue
            answer = _extension_alone(Path(export_of(record)),
                                      extensions[operator["extension"]], tmp_path)  # fmt: skip
            steps = [b["name"] for b in answer["path"]]
            assert operator["package"] == answer["package"]
            assert operator["policy"] == answer["policy"]
            assert (operator["bundle"], operator["installed"]) == (
                answer["installed"]["name"], answer["installed"]["version"])  # fmt: skip
            assert operator["next"] == (steps[0] if steps else None)
            assert operator["newest"] == (steps[-1] if steps else None)
            assert operator["path"] == ([operator["bundle"], *steps] if steps else [])
            assert operator["resolutionError"] == answer["error"]
            compared += 1
    assert compared == 6


def test_extensions_move_one_bundle_per_reconciliation_under_their_policy(
    v1_records: list[dict[str, Any]],
) -> None:
    records = _by_name(v1_records)
    (argocd,) = [o for o in records["a-mixed"]["operators"] if o["kind"] == "ClusterExtension"]
    assert (argocd["extension"], argocd["policy"]) == ("argocd", "CatalogProvided")
    assert argocd["path"] == [f"{ARGOCD}.v0.16.0", f"{ARGOCD}.v0.17.0", f"{ARGOCD}.v0.18.0"]
    assert argocd["next"] == f"{ARGOCD}.v0.17.0" and argocd["newestVersion"] == "0.18.0"
    (free,) = records["d-selfcertified"]["operators"]
    assert free["path"] == [f"{GITLAB}.v2.5.2", f"{GITLAB}.v2.6.2"]  # straight to the best in range
    bad = records["e-bad"]
    followed, gone = bad["operators"]
    assert not followed["inCatalog"] and followed["next"] == f"{ARGOCD}.v0.1.0"
    assert not followed["stranded"]
    assert gone["stranded"] and gone["next"] is None
    assert gone["resolutionError"] == (
        'error upgrading from currently installed version "0.0.1": '
        f'no bundles found for package "{ARGOCD}"'
    )
    assert bad["stranded"] == [ARGOCD]


def test_both_kinds_on_one_cluster_are_planned_each_under_its_own_rules(
    v1_records: list[dict[str, Any]],
) -> None:
    mixed = _by_name(v1_records)["a-mixed"]
    kinds = [(o["kind"], o["package"]) for o in mixed["operators"]]
    assert kinds == [("Subscription", GITLAB), ("ClusterExtension", ARGOCD)]
    subscribed = mixed["operators"][0]
    assert subscribed["channel"] == "stable" and subscribed["path"][0] == f"{GITLAB}.v2.5.2"
    (blocker,) = mixed["blockers"]  # the Subscription's install blocks 4.20, argocd's does not
    assert (blocker["kind"], blocker["package"]) == ("Subscription", GITLAB)


def test_an_extension_blocking_the_target_is_unblocked_along_its_own_path(
    v1_records: list[dict[str, Any]],
) -> None:
    records = _by_name(v1_records)
    (blocker,) = records["b-gitlab"]["blockers"]
    (operator,) = records["b-gitlab"]["operators"]
    assert (blocker["kind"], blocker["extension"]) == ("ClusterExtension", "gitlab")
    assert "olm.maxOpenShiftVersion" in blocker["reasons"][0]
    fix = blocker["unblockedBy"]
    assert fix["specChange"] == []  # the extension's own terms get there
    assert fix["version"] == "2.6.0"  # the first reconciliation that runs on 4.20
    assert fix["path"] == operator["path"][: len(fix["path"])]
    assert fix["path"][-1] == fix["bundle"]


def test_a_version_range_that_keeps_the_blocker_says_the_spec_must_change(
    v1_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    record = _by_name(v1_records)["c-pinned"]
    (blocker,) = record["blockers"]
    fix = blocker["unblockedBy"]
    (change,) = fix["specChange"]
    assert change["field"] == "spec.source.catalog.version" and change["from"] == "~2.5"
    assert change["to"] == ">=2.5.2, <=2.6.0"
    assert fix["version"] == "2.6.0"
    # with the range proposed, `deppy upgrades` walks the extension to the fix
    changed = cluster_extension("gitlab", GITLAB, "2.5.2", version=change["to"])
    answer = _extension_alone(Path(export_of(record)), changed, tmp_path)
    assert [fix["path"][0], *(b["name"] for b in answer["path"])] == fix["path"]


def test_bad_extensions_are_operator_errors_and_the_cluster_is_planned(
    v1_records: list[dict[str, Any]],
) -> None:
    bad = _by_name(v1_records)["e-bad"]
    errors = {e["extension"]: e for e in bad["operatorErrors"]}
    assert sorted(errors) == ["gold", "pending", "typo"]
    assert all(e["kind"] == "ClusterExtension" for e in errors.values())
    assert "status.install.bundle" in errors["pending"]["error"]
    assert (
        "selector" in errors["gold"]["error"]
        and "matches no ClusterCatalog" in (errors["gold"]["error"])
    )
    assert "no-such-operator" in errors["typo"]["error"]
    assert bad["needsChange"]


def test_the_rollup_and_the_text_show_both_kinds(
    v1_fleet: Path, v1_records: list[dict[str, Any]]
) -> None:
    rollup = Rollup()
    for record in v1_records:
        rollup.add(record)
    summary = rollup.summary()
    assert summary["kinds"] == {"ClusterExtension": 6, "Subscription": 1}
    assert summary["operatorErrors"]["count"] == 3
    actions = [a for w in summary["waves"] for a in w["actions"]]
    assert f"OLM v1 moves {ARGOCD} 0.16.0 -> 0.18.0 (ClusterExtension argocd)" in actions
    code, text, _ = run("fleet", "plan", str(v1_fleet), "--catalog", COMMUNITY, "--workers", "0",
                        "--ocp-version", TARGET)  # fmt: skip
    assert code == 0
    assert "Installed: 1 Subscription, 6 ClusterExtensions" in text
    assert "Operator errors (3" in text
    code, html, _ = run("fleet", "plan", str(v1_fleet), "--catalog", COMMUNITY, "--workers", "0",
                        "-o", "html")  # fmt: skip
    assert code == 0 and "ClusterExtensions" in html and "typo" in html


def test_since_compares_extensions_too(tmp_path: Path) -> None:
    """The older excerpt has node-observability-operator 0.1.0, the 4.14 one 0.2.0."""
    package = "node-observability-operator"
    _v1_export(tmp_path / "a.json", [cluster_extension("nobs", package, "0.1.0")])
    new = f"{EXCERPTS / 'v4.14-node-observability-operator'}={CATALOG_NAME}"
    old = f"{EXCERPTS / 'node-observability-operator-older'}={CATALOG_NAME}"
    settings = FleetSettings(catalogs=(new,), since=(old,))
    (record,) = (Planner.load(settings).plan(r) for r in cluster_refs([str(tmp_path)]))
    (operator,) = record["operators"]
    assert operator["kind"] == "ClusterExtension", record
    assert operator["newest"] == f"{package}.v0.2.0"
    assert record["since"]["updatesChanged"] == [
        {"package": package, "before": None, "after": f"{package}.v0.2.0"}
    ]


def test_the_same_bytes_in_this_process_and_on_workers(v1_fleet: Path) -> None:
    args = ("fleet", "plan", str(v1_fleet), "--catalog", COMMUNITY, "--ocp-version", TARGET,
            "-o", "jsonl", "--batch-size", "2")  # fmt: skip
    here, one, two = run(*args, "--workers", "0"), run(*args, "--workers", "1"), run(
        *args, "--workers", "2")  # fmt: skip
    assert here[0] == one[0] == two[0] == 0, (here[2], one[2], two[2])
    assert here[1] == one[1] == two[1]


def test_an_extension_olm_v1_would_refuse_is_its_error_and_a_bad_catalog_the_clusters(
    tmp_path: Path,
) -> None:
    """A version OLM v1's API refuses stays with its extension, named by field; a
    ClusterCatalog that cannot be read fails the cluster (it fails every extension of it)."""
    broken = cluster_extension("argocd", ARGOCD, "0.16.0")
    broken["status"]["install"]["bundle"]["version"] = "latest"
    ranged = cluster_extension("ranged", ARGOCD, "0.16.0", version="==0.17.0")
    _v1_export(tmp_path / "a.json", [broken, ranged, cluster_extension("fine", ARGOCD, "0.17.0")])
    settings = FleetSettings(catalogs=(COMMUNITY,))
    planner = Planner.load(settings)
    (ref,) = cluster_refs([str(tmp_path / "a.json")])
    record = planner.plan(ref)
    assert [o["extension"] for o in record["operators"]] == ["fine"]
    errors = {e["extension"]: e["error"] for e in record["operatorErrors"]}
    assert "status.install.bundle.version" in errors["argocd"]
    assert "spec.source.catalog.version" in errors["ranged"] and "==0.17.0" in errors["ranged"]
    export = json.loads((tmp_path / "a.json").read_text())
    export["clusterCatalogs"][0]["spec"]["priority"] = "high"
    (tmp_path / "a.json").write_text(json.dumps(export))
    record = planner.plan(ref)
    assert "spec.priority" in record["error"] and "operators" not in record


def test_an_extension_whose_next_bundle_declares_a_dependency_stops_there(
    tmp_path: Path,
) -> None:
    """OLM v1 refuses rabbitmq-messaging-topology-operator 1.15.0 (it declares olm.gvk.required)
    and does not fall back: from 1.13.0 the extension moves to 1.14.2 and stops; from 1.14.2 it
    cannot move at all (stranded). Each record carries OLM v1's message and the way out."""
    package = "rabbitmq-messaging-topology-operator"
    clusters = tmp_path / "clusters"
    clusters.mkdir()
    _v1_export(clusters / "a.json", [cluster_extension("topology", package, "1.13.0")])
    _v1_export(clusters / "b.json", [cluster_extension("topology", package, "1.14.2")])
    records = _by_name(planned(clusters, FleetSettings(catalogs=(COMMUNITY,))))
    (moving,) = records["a"]["operators"]
    assert moving["newestVersion"] == "1.14.2" and not moving["stranded"]
    refused = moving["refused"]
    assert (refused["version"], refused["property"]) == ("1.15.0", "olm.gvk.required")
    assert refused["message"] == (
        f'validating bundle "{package}.v1.15.0": bundle "{package}.v1.15.0" has a dependency '
        'declared via property "olm.gvk.required" which is currently not supported'
    )
    assert "--resolved-catalog" in refused["wayOut"]
    (stuck,) = records["b"]["operators"]
    assert stuck["stranded"] and stuck["next"] is None
    assert stuck["refused"]["version"] == "1.15.0"
    assert records["b"]["stranded"] == [package]
