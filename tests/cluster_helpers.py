"""Real parts for the cluster tests: CSVs from ../shared/bundles, a small catalog cut from the
community index, and catalog servers on 127.0.0.1 (gRPC as opm serve, HTTP as catalogd)."""

from __future__ import annotations

import copy
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from deppy.catalog.fbc import load_catalog
from deppy.catalog.model import Catalog
from deppy.cluster.http_catalog import start_http_server
from deppy.cluster.registry_server import start_registry_server
from tests.conftest import free_port, shared_path

DATA = Path(__file__).resolve().parent / "data"
OLM_CRDS = DATA / "olm-crds"
# Packages of the community index the cluster tests install and resolve against.
SUBSET = (
    "eventing-kogito",
    "node-healthcheck-operator",
    "pelorus-operator",
    "rabbitmq-messaging-topology-operator",
    "self-node-remediation",
    "rabbitmq-cluster-operator",
    "grafana-operator",  # pelorus-operator's dependencies
    "prometheus",
)


def community() -> Path:
    return shared_path("catalogs", "community-operators-prod-v4.18")


def subset_catalog(target: Path) -> Path:
    """A catalog directory holding only the SUBSET packages of the community index."""
    for package in SUBSET:
        shutil.copytree(community() / package, target / package)
    return target


def load_subset(target: Path, name: str = "community", priority: int = 10) -> Catalog:
    return load_catalog(subset_catalog(target), name=name, priority=priority)


def bundle_csv(package: str, version: str) -> dict[str, Any]:
    """The ClusterServiceVersion of a real bundle directory in ../shared/bundles/full."""
    root = shared_path("bundles", "full", "community-operators-prod", "operators", package, version)
    for path in sorted((root / "manifests").iterdir()):
        if "clusterserviceversion" in path.name:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            assert data["kind"] == "ClusterServiceVersion"
            return dict(data)
    raise AssertionError(f"no CSV in {root}")


def on_cluster(csv: dict[str, Any], namespace: str, **annotations: str) -> dict[str, Any]:
    """A copy of ``csv`` as it would sit in ``namespace``, with extra annotations."""
    obj = copy.deepcopy(csv)
    obj["metadata"]["namespace"] = namespace
    if annotations:
        obj["metadata"].setdefault("annotations", {}).update(annotations)
    return obj


def subscription(
    namespace: str, name: str, package: str, channel: str, source: str, installed: str | None
) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "Subscription",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "name": package,
            "channel": channel,
            "source": source,
            "sourceNamespace": namespace,
        },
    }
    if installed:
        obj["status"] = {"installedCSV": installed}
    return obj


def catalog_source(namespace: str, name: str, address: str, priority: int = 0) -> dict[str, Any]:
    return {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "CatalogSource",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"sourceType": "grpc", "address": address, "priority": priority},
    }


def operator_group(namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "operators.coreos.com/v1",
        "kind": "OperatorGroup",
        "metadata": {"name": "og", "namespace": namespace},
        "spec": {},
    }


def as_stream(objects: list[dict[str, Any]]) -> str:
    """Objects for ``kubectl apply -f -``."""
    return yaml.safe_dump_all(objects, sort_keys=False)


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (it was free a moment ago)."""
    return free_port()


@contextmanager
def registry(catalog: Catalog) -> Iterator[str]:
    """The catalog served over gRPC on 127.0.0.1; yields HOST:PORT."""
    server, port = start_registry_server(catalog)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(0).wait()


@contextmanager
def http_catalog(catalog: Catalog) -> Iterator[str]:
    """The catalog served as catalogd serves it; yields the base URL (add /api/v1/all)."""
    server, port = start_http_server(catalog)
    try:
        yield f"http://127.0.0.1:{port}/catalogs/{catalog.name}"
    finally:
        server.shutdown()
        server.server_close()
