"""The issue's case, end to end on real parts: a ClusterExtension for
rabbitmq-messaging-topology-operator against the community catalog (v4.18), resolved as
``deppy resolve -f`` does, its resolved catalog pushed to Debian's docker-registry and read
back by skopeo."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.fbc import load_catalog
from deppy.oci import CONFIGS_LABEL, parse_destination, publish
from deppy.resolution.answer import Resolution
from deppy.resolution.request_parsing import CatalogSpec, parse_catalog
from deppy.workflows.catalog_loading import load_catalogs
from deppy.workflows.olmv1 import extension_request, olmv1_documents_of
from deppy.workflows.olmv1.resolved_catalog import (
    DEPENDENCY_PROPERTIES,
    RESOLVED_DEPENDENCY,
    refused_bundles,
    resolved_catalog,
)
from deppy.workflows.resolve import resolve_with_options
from tests.olmv1_objects import cluster_extension
from tests.ports import shared_path
from tests.registry import Registry, registry_for_tests, unpacked_configs

TOPOLOGY = "rabbitmq-messaging-topology-operator"


def community_spec() -> CatalogSpec:
    """``--catalog DIR=operatorhubio``: the community catalog as the ClusterCatalog names it."""
    community = shared_path("catalogs", "community-operators-prod-v4.18")
    return parse_catalog(f"{community}=operatorhubio")


@pytest.fixture(scope="module")
def community() -> BundleSource:
    return load_catalogs(
        [
            parse_catalog(
                f"{shared_path('catalogs', 'community-operators-prod-v4.18')}=operatorhubio"
            )
        ]
    )


def resolve_topology(catalogs: BundleSource) -> Resolution:
    """What ``deppy resolve -f ce.yaml --catalog DIR=operatorhubio`` resolves."""
    document = cluster_extension("topology", TOPOLOGY, None, namespace="rabbit")
    documents = olmv1_documents_of(yaml.safe_dump(document).encode(), "ce.yaml")
    assert documents is not None
    spec = parse_catalog(
        f"{shared_path('catalogs', 'community-operators-prod-v4.18')}=operatorhubio"
    )
    olm, _ = extension_request(documents, "ce.yaml", [spec])
    resolution = resolve_with_options(
        catalogs, olm.request, timeout=None, pipeline=None, trace=None
    )
    assert resolution.selection is not None
    return resolution


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registry]:
    yield from registry_for_tests(tmp_path_factory.mktemp("registry"))


def test_the_topology_operators_catalog_is_pushed_and_installable_as_written(
    community: BundleSource, registry: Registry, tmp_path: Path
) -> None:
    resolution = resolve_topology(community)
    plan = {s.package: s for s in resolution.selection or ()}
    assert set(plan) == {TOPOLOGY, "rabbitmq-cluster-operator"}
    (refused,) = refused_bundles(resolution)
    assert (refused.package, refused.properties) == (
        TOPOLOGY, ("olm.gvk.required", "olm.package.required")
    )  # fmt: skip
    found = resolved_catalog(resolution, community)
    assert found is not None
    image = found.image()
    destination = f"docker://{registry.address}/deppy/resolved:t1"
    published = publish(image, parse_destination(destination), tls_verify=False)

    inspected = registry.skopeo("inspect", destination)
    assert inspected.returncode == 0, inspected.stderr
    facts = json.loads(inspected.stdout)
    assert facts["Labels"][CONFIGS_LABEL] == "/configs"
    assert facts["Digest"] == published.digest == image.digest
    copied = registry.skopeo("copy", destination, f"oci:{tmp_path / 'copy'}:t1")
    assert copied.returncode == 0, copied.stderr
    configs = unpacked_configs(tmp_path / "copy", "t1", tmp_path / "unpacked")
    assert [p.name for p in configs.iterdir()] == [TOPOLOGY]

    loaded = load_catalog(configs, name="resolved")
    assert loaded.problems == ()
    (bundle,) = loaded.bundles.values()
    assert bundle.name == plan[TOPOLOGY].bundle and bundle.image == plan[TOPOLOGY].image
    assert not {p.type for p in bundle.properties} & set(DEPENDENCY_PROPERTIES)
    records = [p.value for p in bundle.properties if p.type == RESOLVED_DEPENDENCY]
    assert sorted(r["property"]["type"] for r in records) == list(refused.properties)
    cluster_operator = plan["rabbitmq-cluster-operator"]
    for record in records:
        assert record["satisfiedBy"] == {
            "package": "rabbitmq-cluster-operator",
            "bundle": cluster_operator.bundle,
            "version": cluster_operator.version,
        }
    # the original channel entry: a later plan's bundle that replaces it is its successor
    (stable,) = loaded.channels.values()
    (entry,) = stable.entries
    assert (entry.name, entry.replaces) == (bundle.name, f"{TOPOLOGY}.v1.19.2")


def test_the_same_resolution_twice_gives_the_same_digest(community: BundleSource) -> None:
    first = resolved_catalog(resolve_topology(community), community)
    second = resolved_catalog(resolve_topology(community), community)
    assert first is not None and second is not None
    assert first.image().digest == second.image().digest
