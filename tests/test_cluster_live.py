"""deppy against a real kube-apiserver (../shared/k8s) holding OLM objects.

The module applies the test OLM CRDs, serves a catalog cut from the community index over gRPC
(as a CatalogSource's registry pod would), creates CSVs from the real bundles in
../shared/bundles — subscribed ones, hand-installed ones with and without the properties
annotation, one with a broken annotation, one without a version — and asks deppy the same
questions through the live cluster, an export file, a directory of kubectl output and plain
``--installed`` flags.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result

from deppy.catalog.model import Property
from deppy.cli.main import cli
from deppy.cluster import annotation_value
from tests.cluster_helpers import (
    OLM_CRDS,
    as_stream,
    bundle_csv,
    catalog_source,
    closed_port,
    http_catalog,
    load_subset,
    on_cluster,
    operator_group,
    registry,
    subscription,
)
from tests.kube import KubeCluster

NHC = ("node-healthcheck-operator", "0.7.0")
KOGITO = ("eventing-kogito", "1.2.0")
RABBIT = ("rabbitmq-messaging-topology-operator", "1.19.3")
PELORUS = ("pelorus-operator", "0.0.9")


@dataclass(frozen=True)
class OLMCluster:
    kube: KubeCluster
    address: str
    subs: str  # namespace with subscribed operators only
    hand: str  # namespace with operators installed by hand
    clash: str  # a hand-installed operator serving an API a catalog package also serves
    broken_catalog: str

    def deppy(self, *args: str) -> Result:
        return CliRunner().invoke(cli, list(args))

    def live(self, *args: str) -> Result:
        return self.deppy(*args, "--kubeconfig", str(self.kube.kubeconfig))

    @property
    def flags_catalog(self) -> str:
        return f"grpc://{self.address}=community:10"


def _apply(kube: KubeCluster, objects: list[dict[str, Any]]) -> None:
    kube.kubectl("apply", "-f", "-", input=as_stream(objects))


@pytest.fixture(scope="module")
def olm(kube: KubeCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OLMCluster]:
    crds = [p for p in sorted(OLM_CRDS.iterdir()) if "operators.coreos.com" in p.name]
    for crd in crds:
        kube.kubectl("apply", "-f", str(crd))
    names = [f"crd/{p.name.removesuffix('.yaml')}" for p in crds]
    kube.kubectl("wait", "--for=condition=established", "--timeout=60s", *names)
    catalog = load_subset(tmp_path_factory.mktemp("subset"))
    with registry(catalog) as address:
        subs, hand, clash = (kube.new_namespace(p) for p in ("subs", "hand", "clash"))
        broken = f"127.0.0.1:{closed_port()}"
        nhc, kogito, rabbit = bundle_csv(*NHC), bundle_csv(*KOGITO), bundle_csv(*RABBIT)
        _apply(
            kube,
            [
                catalog_source(subs, "community", address, priority=10),
                catalog_source(subs, "down", broken),
                operator_group(subs),
                on_cluster(nhc, subs),
                on_cluster(kogito, subs),
                on_cluster(rabbit, subs),
                subscription(subs, "nhc", NHC[0], "stable", "community", nhc["metadata"]["name"]),
                subscription(
                    subs, "kogito", KOGITO[0], "alpha", "community", "eventing-kogito.v1.2.0"
                ),
                # names a CatalogSource that is not on the cluster
                subscription(subs, "rmq", RABBIT[0], "stable", "elsewhere", f"{RABBIT[0]}.v1.19.3"),
                # not installed yet: no installedCSV
                subscription(subs, "later", "pelorus-operator", "alpha", "community", None),
            ],
        )
        pelorus = bundle_csv(*PELORUS)
        annotated = annotation_value(
            [
                Property("olm.package", {"packageName": "pelorus-operator", "version": "0.0.9"}),
                *(
                    Property("olm.gvk", {"group": g, "kind": k, "version": v})
                    for g, k, v in [("charts.pelorus.dora-metrics.io", "Pelorus", "v1alpha1")]
                ),
            ]
        )
        no_version = on_cluster(bundle_csv("silicom-sts-operator", "0.0.1"), hand)
        del no_version["spec"]["version"]
        copied = on_cluster(kogito, hand)
        copied["metadata"].setdefault("labels", {})["olm.copiedFrom"] = subs
        _apply(
            kube,
            [
                on_cluster(rabbit, hand),
                on_cluster(pelorus, hand, **{"operatorframework.io/properties": annotated}),
                on_cluster(
                    bundle_csv("alloydb-omni-operator", "1.3.0"),
                    hand,
                    **{"operatorframework.io/properties": "{not json"},
                ),
                no_version,
                copied,
            ],
        )
        clone = on_cluster(rabbit, clash)
        clone["metadata"]["name"] = "my-rabbit.v2.0.0"
        clone["spec"]["version"] = "2.0.0"
        clone["metadata"]["labels"] = {f"operators.coreos.com/my-rabbit.{clash}": ""}
        _apply(kube, [clone])
        yield OLMCluster(kube, address, subs, hand, clash, broken)


@contextmanager
def _kinds(kube: KubeCluster, crds: list[Path], plural: tuple[str, ...]) -> Iterator[None]:
    """The CRDs applied and established for the test; afterwards every object of ``plural``
    and the CRDs are removed (they are cluster-scoped: other tests must not see them)."""
    try:
        for crd in crds:
            kube.kubectl("apply", "-f", str(crd))
        names = [f"crd/{p.name.removesuffix('.yaml')}" for p in crds]
        kube.kubectl("wait", "--for=condition=established", "--timeout=60s", *names)
        yield
    finally:
        for name in plural:
            kube.kubectl("delete", name, "--all", "--ignore-not-found", check=False)
        for crd in crds:
            kube.kubectl("delete", "-f", str(crd), "--ignore-not-found", check=False)


def _json(result: Result) -> Any:
    # 3: resolved, OLM v1 refuses part of the plan as written (a bundle declaring a dependency)
    assert result.exit_code in (0, 1, 3), result.output + result.stderr
    return json.loads(result.stdout)


def _installed_flags(olm: OLMCluster) -> list[str]:
    # in the order of their Subscriptions' names: kogito, nhc, rmq
    return [
        "--installed",
        f"{KOGITO[0]}@{KOGITO[1]},channel=alpha,catalog=community,bundle=eventing-kogito.v1.2.0",
        "--installed",
        f"{NHC[0]}@{NHC[1]},channel=stable,catalog=community,bundle=node-healthcheck-operator.v0.7.0",
        "--installed",
        f"{RABBIT[0]}@{RABBIT[1]},channel=stable,bundle={RABBIT[0]}.v1.19.3",
    ]


def test_resolve_live_equals_the_same_question_with_installed_flags(olm: OLMCluster) -> None:
    live = olm.live("resolve", "--namespace", olm.subs, "--rules", "deppy", "-o", "json")
    data = _json(live)
    flags = olm.deppy(
        "resolve", "--catalog", olm.flags_catalog, *_installed_flags(olm),
        "--kube-version", "1.20.2", "-o", "json",
    )  # fmt: skip
    assert data["selection"] == _json(flags)["selection"]
    chosen = {s["package"]: (s["action"], s["version"]) for s in data["selection"]}
    assert chosen[NHC[0]] == ("upgrade", "0.10.0")
    assert chosen[KOGITO[0]] == ("keep", "1.2.0")
    assert chosen["rabbitmq-cluster-operator"][0] == "install"  # a dependency of rabbitmq
    # without --rules an OLM v0 cluster is answered as OLM v0 would: one InstallPlan's step
    olm_v0 = _json(olm.live("resolve", "--namespace", olm.subs, "-o", "json"))
    assert olm_v0["rules"] == "olm-v0"
    moved = {s["package"]: s for s in olm_v0["selection"]}[NHC[0]]
    assert moved["action"] == "upgrade" and len(moved["path"]) == 2, moved
    warnings = "\n".join(data["warnings"])
    assert f"CatalogSource {olm.subs}/down" in warnings  # its endpoint is down: named, skipped
    assert "elsewhere" in warnings  # the Subscription names a CatalogSource that does not exist
    assert f"Subscription {olm.subs}/later has not installed a CSV yet" in warnings


def test_every_selected_bundle_carries_the_properties_resolution_used(olm: OLMCluster) -> None:
    data = _json(olm.live("resolve", "--namespace", olm.subs, "-o", "json"))
    for item in data["selection"]:
        types = [p["type"] for p in item["properties"]]
        assert types.count("olm.package") == 1, item["bundle"]
        assert {"type": "olm.package", "value": {"packageName": item["package"],
                "version": item["version"]}} in item["properties"]  # fmt: skip
        assert "olm.csv.metadata" not in types and "olm.bundle.object" not in types


def test_upgrades_live_equals_installed_flags(olm: OLMCluster) -> None:
    live = olm.live("upgrades", "--namespace", olm.subs, "-o", "json")
    flags = olm.deppy(
        "upgrades",
        "--catalog",
        olm.flags_catalog,
        *_installed_flags(olm),
        "--kube-version",
        "1.20.2",
        "--rules",
        "olm-v0",
        "-o",
        "json",
    )  # fmt: skip  (an OLM v0 cluster's answer is OLM v0's: the flags ask for its rules)
    assert live.exit_code == 0, live.output
    assert json.loads(live.stdout) == json.loads(flags.stdout)


def test_export_then_resolve_from_the_file_and_from_kubectl_output(
    olm: OLMCluster, tmp_path: Path
) -> None:
    exported = olm.live("cluster", "export")
    assert exported.exit_code == 0, exported.output
    document = yaml.safe_load(exported.stdout)
    assert document["kind"] == "ClusterExport"
    assert document["cluster"]["kubernetesVersion"].startswith("v1.20")
    csv_names = {c["metadata"]["name"] for c in document["clusterServiceVersions"]}
    assert "node-healthcheck-operator.v0.7.0" in csv_names
    copies = [
        c for c in document["clusterServiceVersions"] if c["metadata"]["namespace"] == olm.hand
    ]
    assert all("olm.copiedFrom" not in c["metadata"].get("labels", {}) for c in copies)
    assert all("managedFields" not in c["metadata"] for c in document["clusterServiceVersions"])
    priorities = {
        c["metadata"]["name"]: c["spec"].get("priority") for c in document["catalogSources"]
    }
    assert priorities["community"] == 10
    assert olm.live("cluster", "export").stdout == exported.stdout  # byte-identical
    path = tmp_path / "cluster.yaml"
    path.write_text(exported.stdout)
    live = _json(olm.live("resolve", "--namespace", olm.subs, "-o", "json"))
    from_file = _json(
        olm.deppy("resolve", "--cluster", str(path), "--namespace", olm.subs, "-o", "json")
    )
    assert from_file["selection"] == live["selection"]
    kubectl_dir = tmp_path / "kubectl"
    kubectl_dir.mkdir()
    (kubectl_dir / "olm.yaml").write_text(
        olm.kube.kubectl("get", "csv,sub,catsrc,og", "-A", "-o", "yaml")
    )
    (kubectl_dir / "version.json").write_text(olm.kube.kubectl("version", "-o", "json"))
    from_dir = _json(
        olm.deppy("resolve", "--cluster", str(kubectl_dir), "--namespace", olm.subs, "-o", "json")
    )
    assert from_dir["selection"] == live["selection"]


def test_hand_installed_operators_stay_and_their_properties_take_part(olm: OLMCluster) -> None:
    result = olm.live("resolve", "--namespace", olm.hand, "--require", RABBIT[0], "-o", "json")
    data = _json(result)
    assert data["resolved"], result.output
    kept = {s["package"]: s for s in data["selection"]}
    rabbit = kept[RABBIT[0]]
    assert (rabbit["action"], rabbit["catalog"], rabbit["version"]) == (
        "keep",
        "(cluster)",
        "1.19.3",
    )
    assert kept["pelorus-operator"]["properties"][0]["value"]["packageName"] == "pelorus-operator"
    warnings = data["warnings"]
    synthesised = [w for w in warnings if "had no properties annotation" in w]
    # rabbitmq (none), alloydb (broken, falls back), silicom (none, and no version)
    assert synthesised == [
        "3 installed operators had no properties annotation; synthesised from their CSVs"
    ]
    assert any(f"ClusterServiceVersion {olm.hand}/alloydb-omni-operator.v1.3.0: annotation" in w
               and "not JSON" in w for w in warnings)  # fmt: skip
    assert any(f"{olm.hand}/silicom-sts-operator.v0.0.1 has no spec.version" in w for w in warnings)
    assert KOGITO[0] not in kept  # OLM's copy of a CSV in another namespace is no install


def test_a_second_provider_of_a_hand_installed_api_is_refused(olm: OLMCluster) -> None:
    result = olm.live("resolve", "--namespace", olm.clash, "--require", RABBIT[0])
    assert result.exit_code == 1, result.output
    assert "my-rabbit" in result.stdout
    assert "RabbitmqCluster" in result.stdout or "API" in result.stdout


def test_dry_run_next_reads_versions_from_the_cluster(olm: OLMCluster) -> None:
    result = olm.live("resolve", "--namespace", olm.subs, "--dry-run-next", "-o", "json")
    assert result.exit_code in (0, 1), result.output
    report = json.loads(result.stdout)
    assert "1.21" in json.dumps(report)  # Kubernetes 1.20 (the cluster's) -> 1.21


def test_unreachable_cluster_and_refused_credentials_are_one_line(
    olm: OLMCluster, tmp_path: Path
) -> None:
    config = yaml.safe_load(olm.kube.kubeconfig.read_text())
    for cluster in config["clusters"]:
        cluster["cluster"]["server"] = f"https://127.0.0.1:{closed_port()}"
    down = tmp_path / "down.kubeconfig"
    down.write_text(yaml.safe_dump(config))
    result = olm.deppy("resolve", "--kubeconfig", str(down), "--require", "x")
    assert result.exit_code == 2
    assert "cannot be reached" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    config = yaml.safe_load(olm.kube.kubeconfig.read_text())
    for user in config["users"]:
        user["user"] = {"token": "not-a-valid-token"}
    refused = tmp_path / "refused.kubeconfig"
    refused.write_text(yaml.safe_dump(config))
    result = olm.deppy("cluster", "export", "--kubeconfig", str(refused))
    assert result.exit_code == 2
    assert "401" in result.stderr and "Traceback" not in result.output


def test_olm_v1_and_openshift_objects_are_read_too(olm: OLMCluster, tmp_path: Path) -> None:
    """A ClusterCatalog read over HTTP, a ClusterExtension as an installed bundle, OpenShift's
    ClusterVersion; the cluster-scoped test objects and their CRDs are removed afterwards."""
    crds = [p for p in sorted(OLM_CRDS.iterdir()) if "operators.coreos.com" not in p.name]
    hub = load_subset(tmp_path / "hub", name="hub", priority=20)
    kinds = ("clustercatalogs", "clusterextensions", "clusterversions")
    with http_catalog(hub) as base, _kinds(olm.kube, crds, kinds):
        _apply(olm.kube, [
            {"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterCatalog",
             "metadata": {"name": "hub"}, "spec": {"priority": 20},
             "status": {"urls": {"base": base}}},
            {"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterExtension",
             "metadata": {"name": "pelorus"},
             "spec": {"source": {"sourceType": "Catalog", "catalog": {
                 "packageName": "pelorus-operator", "channels": ["alpha"]}}},
             "status": {"install": {"bundle": {"name": "pelorus-operator.v0.0.9",
                                               "version": "0.0.9"}}}},
            {"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion",
             "metadata": {"name": "version"},
             "status": {"desired": {"version": "4.19.0"},
                        "history": [{"state": "Completed", "version": "4.18.3"}]}},
        ])  # fmt: skip
        document = yaml.safe_load(olm.live("cluster", "export").stdout)
        assert document["cluster"]["openshiftVersion"] == "4.18.3"
        assert [c["metadata"]["name"] for c in document["clusterCatalogs"]] == ["hub"]
        assert [c["metadata"]["name"] for c in document["clusterExtensions"]] == ["pelorus"]
        data = _json(olm.live("resolve", "--namespace", olm.subs, "-o", "json"))
        pelorus = next(s for s in data["selection"] if s["package"] == "pelorus-operator")
        assert pelorus["catalog"] == "hub"  # the ClusterCatalog, read over HTTP, priority 20
        assert pelorus["reasons"] == ["installed: pelorus-operator 0.0.9 (channel alpha)"]
        assert not any("ClusterCatalog hub" in w for w in data["warnings"])
        ahead = _json(olm.live("resolve", "--namespace", olm.subs, "--dry-run-next", "-o", "json"))
        assert "4.19" in json.dumps(ahead)  # OpenShift 4.18 (the cluster's) -> 4.19


def test_a_clusterextension_request_takes_the_live_clustercatalogs(
    olm: OLMCluster, tmp_path: Path
) -> None:
    """OLM v1 on a live cluster: a ClusterExtension file resolved with --kubeconfig takes the
    ClusterCatalogs' content over HTTP, their labels (selector), priority and availability, and
    the installed bundle of the cluster's ClusterExtension of the same name."""
    crds = [p for p in sorted(OLM_CRDS.iterdir()) if "olm.operatorframework.io" in p.name]
    hub = load_subset(tmp_path / "hub", name="hub", priority=20)
    mirror = load_subset(tmp_path / "mirror", name="mirror", priority=0)
    request = tmp_path / "pelorus.yaml"

    def ask(selector: dict[str, Any] | None = None) -> Result:
        catalog: dict[str, Any] = {"packageName": "pelorus-operator"}
        if selector:
            catalog["selector"] = selector
        extension = {
            "apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterExtension",
            "metadata": {"name": "pelorus"},
            "spec": {"namespace": "pelorus", "serviceAccount": {"name": "installer"},
                     "source": {"sourceType": "Catalog", "catalog": catalog}},
        }  # fmt: skip
        request.write_text(yaml.safe_dump(extension), encoding="utf-8")
        return olm.live("resolve", "-f", str(request), "--namespace", olm.subs, "-o", "json")

    def cluster_catalog(name: str, base: str, tier: str, priority: int, mode: str) -> Any:
        return {
            "apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterCatalog",
            "metadata": {"name": name, "labels": {"tier": tier}},
            "spec": {"priority": priority, "availabilityMode": mode},
            "status": {"urls": {"base": base}},
        }  # fmt: skip

    kinds = ("clustercatalogs", "clusterextensions")
    catalogs = http_catalog(hub), http_catalog(mirror)
    with catalogs[0] as hub_base, catalogs[1] as mirror_base, _kinds(olm.kube, crds, kinds):
        _apply(olm.kube, [
            cluster_catalog("hub", hub_base, "gold", 20, "Available"),
            cluster_catalog("mirror", mirror_base, "bronze", 0, "Available"),
            {"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterExtension",
             "metadata": {"name": "pelorus"},
             "spec": {"source": {"sourceType": "Catalog", "catalog": {
                 "packageName": "pelorus-operator"}}},
             "status": {"install": {"bundle": {"name": "pelorus-operator.v0.0.9",
                                               "version": "0.0.9"}}}},
        ])  # fmt: skip
        data = _json(ask())
        pelorus = next(s for s in data["selection"] if s["package"] == "pelorus-operator")
        assert (pelorus["catalog"], pelorus["action"]) == ("hub", "keep")  # priority 20
        data = _json(ask({"matchLabels": {"tier": "bronze"}}))
        pelorus = next(s for s in data["selection"] if s["package"] == "pelorus-operator")
        assert pelorus["catalog"] == "mirror"
        _apply(olm.kube, [cluster_catalog("mirror", mirror_base, "bronze", 0, "Unavailable")])
        data = _json(ask({"matchLabels": {"tier": "bronze"}}))
        assert not data["resolved"]
        assert "ClusterCatalog mirror is Unavailable" in json.dumps(data["explanation"])
