"""Property projection both ways, and how a cluster's objects become installed bundles."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from deppy.catalog.model import Property
from deppy.cli.main import cli
from deppy.cluster import (
    HAND_INSTALLED_CATALOG,
    ClusterState,
    annotation_value,
    installed_from_state,
    parse_annotation,
    project_csv,
    project_properties,
)
from tests.cluster_helpers import bundle_csv, on_cluster, subscription

ANNOTATION = "operatorframework.io/properties"


def _rabbit(namespace: str = "ops", **annotations: str) -> dict[str, Any]:
    return on_cluster(
        bundle_csv("rabbitmq-messaging-topology-operator", "1.19.3"), namespace, **annotations
    )


def test_synthesised_from_the_spec_package_version_and_apis() -> None:
    properties, warnings = project_properties(_rabbit())
    assert warnings == []
    assert properties[0] == Property(
        "olm.package",
        {"packageName": "rabbitmq-messaging-topology-operator", "version": "1.19.3"},
    )
    provided = [p.value for p in properties if p.type == "olm.gvk"]
    required = [p.value for p in properties if p.type == "olm.gvk.required"]
    assert {"group": "rabbitmq.com", "kind": "Queue", "version": "v1beta1"} in provided
    assert {"group": "rabbitmq.com", "kind": "RabbitmqCluster", "version": "v1beta1"} in required


def test_package_from_subscription_then_label_then_name() -> None:
    csv = _rabbit()
    assert project_csv(csv, "given").package == "given"
    csv["metadata"]["labels"] = {"operators.coreos.com/from-label.ops": ""}
    assert project_csv(csv).package == "from-label"
    csv["metadata"]["labels"] = {"operators.coreos.com/other.elsewhere": ""}  # not this namespace
    assert project_csv(csv).package == "rabbitmq-messaging-topology-operator"


def test_annotation_is_read_as_is_and_round_trips_byte_stable() -> None:
    props = [
        Property("olm.package", {"packageName": "p", "version": "1.0.0"}),
        Property("olm.gvk", {"version": "v1", "kind": "K", "group": "g"}),
        Property("olm.maxOpenShiftVersion", "4.18"),
    ]
    value = annotation_value(props)
    assert value == annotation_value(parse_annotation(value))
    assert value.startswith('{"properties":[{"type":"olm.package"')
    assert '"value":{"group":"g","kind":"K","version":"v1"}' in value  # keys sorted
    projection = project_csv(_rabbit(**{ANNOTATION: value}))
    assert (projection.synthesised, projection.package, projection.version) == (False, "p", "1.0.0")
    assert list(projection.properties) == props


def test_a_malformed_annotation_warns_once_naming_the_csv_and_falls_back() -> None:
    for raw, fault in (
        ("{not json", "not JSON"),
        ('{"properties": {}}', "must be a list"),
        ('{"properties": [{"value": 1}]}', "'type' string"),
    ):
        projection = project_csv(_rabbit(**{ANNOTATION: raw}))
        assert projection.synthesised
        assert projection.package == "rabbitmq-messaging-topology-operator"
        (warning,) = projection.warnings
        assert "ClusterServiceVersion ops/rabbitmq-messaging-topology-operator.v1.19.3" in warning
        assert fault in warning and "synthesised" in warning


def test_a_csv_without_a_version_is_left_out_with_a_message() -> None:
    csv = _rabbit()
    del csv["spec"]["version"]
    projection = project_csv(csv)
    assert projection.package is None
    assert any("has no spec.version" in w for w in projection.warnings)


def _state(*objects: dict[str, Any], **versions: str) -> ClusterState:
    kinds = {"ClusterServiceVersion": "csvs", "Subscription": "subscriptions"}
    grouped: dict[str, list[dict[str, Any]]] = {v: [] for v in kinds.values()}
    for obj in objects:
        grouped[kinds[obj["kind"]]].append(obj)
    return ClusterState(
        "test cluster",
        csvs=tuple(grouped["csvs"]),
        subscriptions=tuple(grouped["subscriptions"]),
        kube_version=versions.get("kube"),
        openshift_version=versions.get("ocp"),
    )


def test_installed_from_state_subscribed_hand_installed_and_the_note_once() -> None:
    nhc = on_cluster(bundle_csv("node-healthcheck-operator", "0.7.0"), "a")
    sub = subscription("a", "nhc", "node-healthcheck-operator", "stable", "community", None)
    sub["status"] = {"installedCSV": "node-healthcheck-operator.v0.7.0"}
    pelorus = on_cluster(bundle_csv("pelorus-operator", "0.0.9"), "b")
    state = _state(nhc, sub, _rabbit("b"), pelorus, kube="v1.27.6-gke.1248000", ocp="4.18.3")
    found = installed_from_state(state)
    (subscribed,) = found.subscribed
    assert (subscribed.package, str(subscribed.version), subscribed.channel) == (
        "node-healthcheck-operator",
        "0.7.0",
        "stable",
    )
    assert subscribed.catalog == "community"  # no CatalogSource listed: the name is kept
    assert subscribed.bundle == "node-healthcheck-operator.v0.7.0"
    pins = [i for i in found.installed if i.catalog == HAND_INSTALLED_CATALOG]
    assert sorted(i.package for i in pins) == [
        "pelorus-operator",
        "rabbitmq-messaging-topology-operator",
    ]
    assert found.catalog is not None and len(found.catalog.bundles) == 2
    assert (
        str(found.cluster.kube_version) == "1.27.6"
        and str(found.cluster.openshift_version) == "4.18.3"
    )
    notes = [w for w in found.warnings if "properties annotation" in w]
    assert notes == [
        "2 installed operators had no properties annotation; synthesised from their CSVs"
    ]
    only_a = installed_from_state(state, namespace="a")
    assert only_a.catalog is None and [i.package for i in only_a.installed] == [
        "node-healthcheck-operator"
    ]


def test_copies_and_leaving_csvs_are_not_installations() -> None:
    copy = _rabbit("c")
    copy["metadata"]["labels"] = {"olm.copiedFrom": "b"}
    leaving = on_cluster(bundle_csv("pelorus-operator", "0.0.9"), "c")
    leaving["status"] = {"phase": "Replacing"}
    assert installed_from_state(_state(copy, leaving)).installed == ()


def test_resolution_json_carries_the_properties_used(tmp_path: Path) -> None:
    catalog = Path(__file__).parent / "data" / "olm" / "cli"
    result = CliRunner().invoke(
        cli,
        ["resolve", "--catalog", f"{catalog / 'infra'}=infra", "--require", "db", "-o", "json"],
    )
    assert result.exit_code == 0, result.output
    (item,) = json.loads(result.stdout)["selection"]
    assert item["properties"][0]["type"] == "olm.package"
    assert all(
        p["type"] not in ("olm.csv.metadata", "olm.bundle.object") for p in item["properties"]
    )


def test_properties_command_sets_the_annotation_byte_stable(tmp_path: Path) -> None:
    import yaml

    path = tmp_path / "csv.yaml"
    path.write_text(yaml.safe_dump(_rabbit(**{ANNOTATION: '{"properties": []}'})))
    first = CliRunner().invoke(cli, ["properties", str(path)])
    second = CliRunner().invoke(cli, ["properties", str(path)])
    assert first.exit_code == 0, first.output
    assert first.stdout == second.stdout
    assert (
        "already has a operatorframework.io/properties annotation; it is overwritten"
        in first.stderr
    )
    printed = yaml.safe_load(first.stdout)
    value = printed["metadata"]["annotations"][ANNOTATION]
    assert value == annotation_value(project_properties(_rabbit())[0])
    only = CliRunner().invoke(cli, ["properties", str(path), "-o", "annotation"])
    assert only.stdout.strip() == value
    catalog = tmp_path / "catalog"
    from tests.cluster_helpers import subset_catalog

    subset_catalog(catalog)
    by_bundle = CliRunner().invoke(
        cli,
        [
            "properties", str(path), "--bundle", "rabbitmq-messaging-topology-operator.v1.19.3",
            "--catalog", str(catalog), "-o", "annotation",
        ],
    )  # fmt: skip
    assert by_bundle.exit_code == 0, by_bundle.output
    types = [p["type"] for p in json.loads(by_bundle.stdout)["properties"]]
    assert "olm.package.required" in types and "olm.csv.metadata" not in types
    missing = CliRunner().invoke(
        cli, ["properties", str(path), "--bundle", "nope.v1", "--catalog", str(catalog)]
    )
    assert missing.exit_code == 2 and "no bundle of this name" in missing.stderr
