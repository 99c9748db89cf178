"""``deppy validate BUNDLE_DIR``: real bundle directories (../shared/bundles/full) resolved
against community-operators-prod-v4.18, the bundle preferred to the catalog's own copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from deppy.catalog.bundle_dir import load_bundle_dir
from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.catalog.semver import Version
from deppy.resolution.answer import Resolution
from deppy.resolution.request import ClusterFacts
from deppy.workflows.validate import BUNDLE_CATALOG, validate_bundle
from tests.conftest import shared_path
from tests.workflow_helpers import WORKFLOWS, run

COMMUNITY = ("catalogs", "community-operators-prod-v4.18")
OPERATORS = ("bundles", "full", "community-operators-prod", "operators")


@pytest.fixture(scope="module")
def community() -> CatalogSet:
    return CatalogSet([load_catalog(shared_path(*COMMUNITY), name="community")])


def bundle_dir(package: str, version: str) -> Path:
    return shared_path(*OPERATORS, package, version)


def validate(catalogs: CatalogSet, package: str, version: str, **cluster: str) -> Resolution:
    facts = ClusterFacts(**{k: Version.parse_tolerant(v) for k, v in cluster.items()})
    directory = bundle_dir(package, version)
    return validate_bundle(load_bundle_dir(directory), str(directory), catalogs, facts)


def chosen(resolution: Resolution) -> list[tuple[str, str, str]]:
    assert resolution.selection is not None, resolution.explanation
    return [(s.package, s.version, s.catalog) for s in resolution.selection]


def test_exact_pins_resolve_to_the_pinned_versions(community: CatalogSet) -> None:
    # kuadrant-operator 0.11.1 pins authorino 0.13.0, limitador 0.11.0 and dns-operator 0.6.0
    assert chosen(validate(community, "kuadrant-operator", "0.11.1")) == [
        ("authorino-operator", "0.13.0", "community"),
        ("limitador-operator", "0.11.0", "community"),
        ("dns-operator", "0.6.0", "community"),
        ("kuadrant-operator", "0.11.1", BUNDLE_CATALOG),
    ]


def test_the_bundle_counts_as_required_from_its_own_catalog(community: CatalogSet) -> None:
    resolution = validate(community, "node-healthcheck-operator", "0.7.0")
    assert chosen(resolution) == [
        ("self-node-remediation", "0.11.0", "community"),
        ("node-healthcheck-operator", "0.7.0", BUNDLE_CATALOG),
    ]
    assert resolution.selection is not None
    assert resolution.selection[-1].reasons == (
        f"required: node-healthcheck-operator 0.7.0 from catalog {BUNDLE_CATALOG}",
    )


def test_dependencies_from_a_properties_file(community: CatalogSet) -> None:
    # pelorus-operator 0.0.9 declares its dependencies in metadata/properties.yaml
    packages = [p for p, _, _ in chosen(validate(community, "pelorus-operator", "0.0.9"))]
    assert packages[-1] == "pelorus-operator"
    assert {"prometheus", "grafana-operator"} <= set(packages)


@pytest.mark.parametrize(
    ("package", "version", "missing"),
    [
        ("eclipse-che", "7.121.0", "contains package devworkspace-operator"),
        ("l5-operator", "0.0.3", "contains package crunchy-postgres-operator"),
        ("bpfman-operator", "0.5.6", "provides the API SelinuxProfile"),
    ],
)
def test_what_cannot_be_installed_is_explained(
    community: CatalogSet, package: str, version: str, missing: str
) -> None:
    resolution = validate(community, package, version)
    assert resolution.explanation is not None
    texts = [c.text for c in resolution.explanation.causes if c.kind == "missing"]
    assert len(texts) == 1 and missing in texts[0]
    assert texts[0].startswith(f"{package} {version} needs ")
    # advice for the bundle's author: what to change in the bundle, not in a request
    advice = [s.text for s in resolution.explanation.suggestions]
    assert advice and all("require '" not in a and "drop the requirement" not in a for a in advice)
    assert any("metadata/dependencies.yaml" in a for a in advice), advice
    assert all(s.change["kind"] == "edit-bundle" for s in resolution.explanation.suggestions)


def test_cluster_versions_apply_to_the_bundle(community: CatalogSet) -> None:
    # kuadrant-operator 0.11.1 has minKubeVersion 1.19.0
    resolution = validate(community, "kuadrant-operator", "0.11.1", kube_version="1.18.0")
    assert resolution.explanation is not None
    assert any(c.kind == "kubernetes" for c in resolution.explanation.causes)
    [advice] = resolution.explanation.suggestions
    assert "lower the CSV's spec.minKubeVersion" in advice.text


def test_cli_prints_the_verdict_and_the_install_order() -> None:
    catalog = f"{shared_path(*COMMUNITY)}=community"
    code, out, _ = run(
        "validate", str(bundle_dir("kuadrant-operator", "0.11.1")), "--catalog", catalog
    )
    assert code == 0
    assert out.startswith("kuadrant-operator.v0.11.1 (kuadrant-operator 0.11.1) installs\n")
    [dns] = [line for line in out.splitlines() if line[:1].isdigit() and " dns-operator " in line]
    assert dns.split()[1:3] == ["dns-operator", "0.6.0"]
    assert dns.endswith("quay.io/community-operator-pipeline-prod/dns-operator:0.6.0")
    small = WORKFLOWS / "whatif"
    code, out, _ = run(
        "validate", str(bundle_dir("eclipse-che", "7.121.0")), "--catalog", str(small)
    )
    assert code == 1
    assert out.startswith("eclipse-che.v7.121.0 (eclipse-che 7.121.0) cannot be installed\n")
    assert "devworkspace-operator" in out


def test_cli_not_a_bundle_directory_is_exit_2(tmp_path: Path) -> None:
    code, _, err = run("validate", str(tmp_path), "--catalog", str(tmp_path))
    assert code == 2
    assert err == (
        f"deppy: error: {tmp_path}: not a bundle directory (no manifests/ or metadata/ inside); "
        "give the directory that holds manifests/ and metadata/\n"
    )
