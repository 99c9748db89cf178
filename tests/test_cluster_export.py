"""Cluster state from files: the export format, kubectl output, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from deppy.cli.main import cli
from deppy.cluster import ClusterState, export_document, read_cluster_files
from deppy.errors import InputError
from tests.cluster_helpers import bundle_csv, catalog_source, on_cluster, subscription


def _objects() -> list[dict[str, object]]:
    nhc = on_cluster(bundle_csv("node-healthcheck-operator", "0.7.0"), "ops")
    nhc["metadata"]["managedFields"] = [{"manager": "kubectl"}]
    sub = subscription("ops", "nhc", "node-healthcheck-operator", "stable", "community", None)
    sub["status"] = {"installedCSV": "node-healthcheck-operator.v0.7.0"}
    return [nhc, sub, catalog_source("ops", "community", "127.0.0.1:1", 5)]


def test_export_round_trips_and_is_stable(tmp_path: Path) -> None:
    nhc, sub, source = _objects()
    state = ClusterState(
        "cluster https://x",
        csvs=(nhc,),
        subscriptions=(sub,),
        catalog_sources=(source,),
        kube_version="v1.31.2",
        openshift_version="4.18.3",
    )
    document = export_document(state)
    assert list(document)[:3] == ["apiVersion", "kind", "cluster"]
    assert document["cluster"]["openshiftVersion"] == "4.18.3"
    (csv,) = document["clusterServiceVersions"]
    assert "managedFields" not in csv["metadata"] and "icon" not in csv["spec"]
    path = tmp_path / "export.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    again = read_cluster_files(path)
    assert again.where == f"{path} (exported from cluster https://x)"
    assert (again.kube_version, again.openshift_version) == ("v1.31.2", "4.18.3")
    assert export_document(again)["subscriptions"] == document["subscriptions"]
    assert yaml.safe_dump(export_document(again)["clusterServiceVersions"]) == yaml.safe_dump(
        document["clusterServiceVersions"]
    )


def test_kubectl_lists_multi_documents_and_version_json(tmp_path: Path) -> None:
    nhc, sub, source = _objects()
    (tmp_path / "csvs.yaml").write_text(
        yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [nhc]})
    )
    (tmp_path / "more.yaml").write_text(
        yaml.safe_dump_all(
            [sub, source, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}]
        )
    )
    (tmp_path / "version.json").write_text(
        json.dumps({"serverVersion": {"gitVersion": "v1.29.1", "major": "1", "minor": "29"}})
    )
    (tmp_path / "cv.yaml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "config.openshift.io/v1",
                "kind": "ClusterVersion",
                "metadata": {"name": "version"},
                "status": {"history": [{"state": "Partial", "version": "4.19.0"},
                                       {"state": "Completed", "version": "4.18.7"}]},
            }
        )
    )  # fmt: skip
    state = read_cluster_files(tmp_path)
    assert (len(state.csvs), len(state.subscriptions), len(state.catalog_sources)) == (1, 1, 1)
    assert (state.kube_version, state.openshift_version) == ("v1.29.1", "4.18.7")


def test_bad_files_get_one_message_naming_them(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_cluster_files(tmp_path / "absent.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: [unclosed\n")
    with pytest.raises(InputError, match=r"bad\.yaml: not YAML or JSON"):
        read_cluster_files(bad)
    other = tmp_path / "other.yaml"
    other.write_text(
        yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}})
    )
    with pytest.raises(InputError, match="holds no ClusterServiceVersion"):
        read_cluster_files(other)
    nameless = tmp_path / "nameless.yaml"
    nameless.write_text(
        yaml.safe_dump_all([{"kind": "Subscription", "metadata": {}}, _objects()[0]])
    )
    state = read_cluster_files(nameless)
    assert any("Subscription without metadata.name" in p for p in state.problems)
    result = CliRunner().invoke(cli, ["resolve", "--cluster", str(bad), "--require", "x"])
    assert result.exit_code == 2
    assert result.stderr.startswith("deppy: error: ") and len(result.stderr.splitlines()) == 1


def test_cluster_options_are_checked(tmp_path: Path) -> None:
    both = CliRunner().invoke(
        cli, ["resolve", "--cluster", str(tmp_path), "--kubeconfig", "k", "--require", "x"]
    )
    assert both.exit_code == 2 and "name two clusters" in both.stderr
    namespace = CliRunner().invoke(cli, ["resolve", "--namespace", "a", "--require", "x"])
    assert namespace.exit_code == 2 and "--namespace needs a cluster" in namespace.output
    upgrades = CliRunner().invoke(cli, ["upgrades"])
    assert upgrades.exit_code == 2 and "--installed" in upgrades.output


def test_resolve_without_a_cluster_imports_neither_kubernetes_nor_grpc() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from deppy.cli.main import cli\n"
        "try:\n    cli(['resolve', '--require', 'prometheus', '-o', 'json'])\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('kubernetes', 'grpc')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr
