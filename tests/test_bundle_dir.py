"""Bundle directories (manifests/ + metadata/): the 25 full and 369 metadata-only real bundles."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from deppy.catalog.bundle_dir import BundleDir, load_bundle_dir, looks_like_bundle_dir
from deppy.catalog.fbc import load_catalog
from deppy.catalog.model import GVK, Bundle
from deppy.catalog.semver import Version
from deppy.errors import InputError
from tests.conftest import shared_path

OPERATORS = "community-operators-prod/operators"


def bundle_dirs(kind: str) -> list[Path]:
    root = shared_path("bundles", kind)
    return sorted(p.parent for p in root.rglob("metadata") if p.is_dir())


@pytest.fixture(scope="module")
def full() -> dict[str, BundleDir]:
    return {
        str(d.relative_to(shared_path("bundles", "full"))): load_bundle_dir(d)
        for d in bundle_dirs("full")
    }


@pytest.fixture(scope="module")
def metadata_only() -> dict[str, BundleDir]:
    root = shared_path("bundles", "metadata-only")
    return {str(d.relative_to(root)): load_bundle_dir(d) for d in bundle_dirs("metadata-only")}


def built(result: BundleDir) -> Bundle:
    assert result.bundle is not None, [str(p) for p in result.problems]
    return result.bundle


def test_every_full_bundle_loads(full: dict[str, BundleDir]) -> None:
    assert len(full) == 25
    for rel, result in full.items():
        b = built(result)
        package_dir = Path(rel).parts[-2]
        assert result.package == b.package == package_dir, rel
        assert result.channels, rel
        assert b.name and isinstance(b.version, Version)
        assert b.csv_metadata is not None and "displayName" in b.csv_metadata
    # The only problem in the full set is the malformed dependencies.yaml of eventing-kogito.
    problems = [p for r in full.values() for p in r.problems]
    assert len(problems) == 1
    assert problems[0].file.endswith("eventing-kogito/1.2.0/metadata/dependencies.yaml")
    assert "operator-registry ignores this file" in problems[0].why


def test_full_bundle_counts(full: dict[str, BundleDir]) -> None:
    bundles = [built(r) for r in full.values()]
    assert sum(1 for b in bundles if b.required_packages) == 15
    assert sum(len(b.required_packages) for b in bundles) == 22
    assert sum(1 for b in bundles if b.required_gvks) == 10
    assert sum(1 for b in bundles if b.constraints) == 1
    assert sum(1 for b in bundles if b.max_openshift_version) == 3
    assert sum(1 for r in full.values() if r.default_channel) == 12


def test_full_bundles_match_their_rendering_in_the_fbc(full: dict[str, BundleDir]) -> None:
    """A bundle directory gives the bundle ``opm render`` gave the real catalogs."""
    catalogs = [
        load_catalog(shared_path("catalogs", name))
        for name in ("community-operators-prod-v4.18", "operatorhubio-upstream-2021")
    ]
    compared = 0
    for result in full.values():
        mine = built(result)
        for catalog in catalogs:
            theirs = catalog.bundles.get(mine.key)
            if theirs is None:
                continue
            compared += 1
            assert mine.version == theirs.version
            assert set(mine.provided_gvks) == set(theirs.provided_gvks), mine.name
            assert set(mine.required_gvks) == set(theirs.required_gvks), mine.name
            assert {(r.package, r.text) for r in mine.required_packages} == {
                (r.package, r.text) for r in theirs.required_packages
            }, mine.name
            assert mine.constraints == theirs.constraints
            assert mine.max_openshift_version == theirs.max_openshift_version
            assert mine.min_kube_version == theirs.min_kube_version
            # opm adds the bundle image, which a directory cannot know.
            assert set(mine.related_images) == set(theirs.related_images) - {theirs.image}
    assert compared == 15


def test_properties_yaml_holding_dependencies(full: dict[str, BundleDir]) -> None:
    b = built(full[f"{OPERATORS}/pelorus-operator/0.0.9"])
    assert [(r.package, r.text) for r in b.required_packages] == [
        ("prometheus", "0.47.0"),
        ("grafana-operator", "4.8.0"),
    ]


def test_malformed_dependencies_yaml_is_reported_and_the_bundle_kept(
    full: dict[str, BundleDir],
) -> None:
    result = full[f"{OPERATORS}/eventing-kogito/1.2.0"]
    b = built(result)
    assert b.name == "eventing-kogito.v1.2.0"
    assert b.required_gvks == ()
    assert len(result.problems) == 1
    assert "invalid YAML at line 22" in result.problems[0].why


def test_file_named_dependency_yaml(full: dict[str, BundleDir]) -> None:
    b = built(full[f"{OPERATORS}/ndmspc-operator/0.20250209.0"])
    assert [(r.package, r.text) for r in b.required_packages] == [
        ("knative-operator", ">=1.17.0"),
        ("sailoperator", ">=0.2.0"),
    ]


def test_made_up_property_types_are_kept_raw(full: dict[str, BundleDir]) -> None:
    result = full["certified-operators/operators/lightbits-operator/1.2.2"]
    b = built(result)
    assert result.problems == ()
    types = Counter(p.type for p in b.properties)
    assert types["supports-install-mode"] == 4
    for made_up in ("olm.maxVersion", "olm.minKubeVersion", "olm.channels", "relatedImage"):
        assert types[made_up] == 1
    # A made-up olm.minKubeVersion property is not the CSV's minKubeVersion.
    raw = next(p for p in b.properties if p.type == "olm.minKubeVersion")
    assert raw.value == {"name": "1.28.0"}
    assert b.min_kube_version == Version.parse("1.28.0")
    assert b.replaces is None


def test_constraint_with_any(full: dict[str, BundleDir]) -> None:
    b = built(full[f"{OPERATORS}/dbaas-operator/0.5.0"])
    assert len(b.constraints) == 1
    constraint = b.constraints[0]
    assert constraint["failureMessage"] == "Service Binding Operator is required"
    alternatives = constraint["any"]["constraints"]
    assert [a["package"]["packageName"] for a in alternatives] == [
        "rh-service-binding-operator",
        "service-binding-operator",
    ]
    assert [(r.package, r.text) for r in b.required_packages] == [
        ("ack-rds-controller", ">=0.0.27 <=0.1.3")
    ]


def test_exact_version_pins(full: dict[str, BundleDir]) -> None:
    result = full[f"{OPERATORS}/kuadrant-operator/0.11.1"]
    assert result.default_channel == "stable"
    pins = {r.package: r.version_range for r in built(result).required_packages}
    assert set(pins) == {"authorino-operator", "limitador-operator", "dns-operator"}
    assert pins["dns-operator"].contains(Version.parse("0.6.0"))
    assert not pins["dns-operator"].contains(Version.parse("0.6.1"))
    assert not pins["dns-operator"].contains(Version.parse("0.5.9"))


def test_csv_fields(full: dict[str, BundleDir]) -> None:
    b = built(full[f"{OPERATORS}/pelorus-operator/0.0.9"])
    assert b.replaces == "pelorus-operator.v0.0.8"
    assert b.skips[0] == "pelorus-operator.v0.0.8" and len(b.skips) == 8
    # the operator's containerImage is not the bundle image, which a directory cannot know
    assert b.image == ""
    nhc = built(full[f"{OPERATORS}/node-healthcheck-operator/0.7.0"])
    assert GVK("remediation.medik8s.io", "v1alpha1", "NodeHealthCheck") in nhc.provided_gvks
    assert nhc.source.endswith("node-healthcheck-operator/0.7.0")


def test_every_metadata_only_bundle_loads(metadata_only: dict[str, BundleDir]) -> None:
    assert len(metadata_only) == 369
    whys: Counter[str] = Counter()
    for rel, result in metadata_only.items():
        b = built(result)
        assert b.package == result.package
        # Without a CSV the version comes from the directory name, and a problem says so.
        assert any("no ClusterServiceVersion" in p.why for p in result.problems), rel
        expected = Path(rel).parts[-1] if Path(rel).name != "bundle" else Path(rel).parts[-2]
        assert b.version == Version.parse_tolerant(expected)
        whys.update(
            "no CSV" if "no ClusterServiceVersion" in p.why else p.why[:12] for p in result.problems
        )
    assert whys == {"no CSV": 369, "invalid YAML": 2}


def test_metadata_only_dependency_counts(metadata_only: dict[str, BundleDir]) -> None:
    bundles = [built(r) for r in metadata_only.values()]
    assert sum(1 for b in bundles if b.required_packages) == 277
    assert sum(len(b.required_packages) for b in bundles) == 390
    assert sum(1 for b in bundles if b.required_gvks) == 106
    assert sum(1 for b in bundles if b.constraints) == 1
    assert sum(1 for b in bundles if b.max_openshift_version) == 8
    assert all(b.provided_gvks == () for b in bundles)


def test_looks_like_bundle_dir(tmp_path: Path) -> None:
    assert all(looks_like_bundle_dir(d) for d in bundle_dirs("full"))
    assert not looks_like_bundle_dir(shared_path("catalogs", "odf-operator-dev-catalog"))
    assert not looks_like_bundle_dir(tmp_path / "missing")


def test_not_a_bundle_dir_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="bundle directory not found"):
        load_bundle_dir(tmp_path / "missing")
    with pytest.raises(InputError, match="not a bundle directory"):
        load_bundle_dir(tmp_path)


def write_bundle(root: Path, metadata: dict[str, str], csv: str | None = None) -> Path:
    (root / "metadata").mkdir(parents=True)
    for name, text in metadata.items():
        (root / "metadata" / name).write_text(text)
    if csv is not None:
        (root / "manifests").mkdir()
        (root / "manifests" / "op.clusterserviceversion.yaml").write_text(csv)
    return root


ANNOTATIONS = """annotations:
  operators.operatorframework.io.bundle.package.v1: op
  operators.operatorframework.io.bundle.channels.v1: "stable, fast"
"""

CSV = """apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: op.v1.2.3
  annotations:
    olm.skipRange: ">=1.0.0 <1.2.3"
    olm.properties: '[{"type": "olm.maxOpenShiftVersion", "value": "4.15"}]'
spec:
  version: 1.2.3
  replaces: op.v1.2.2
  minKubeVersion: 1.26.0
  customresourcedefinitions:
    owned:
    - name: widgets.example.com
      version: v1
      kind: Widget
    required:
    - name: gadgets.other.io
      version: v2
      kind: Gadget
  apiservicedefinitions:
    owned:
    - group: metrics.example.com
      version: v1beta1
      kind: Metric
  install:
    spec:
      deployments:
      - spec:
          template:
            spec:
              containers:
              - image: example.com/op:1.2.3
"""


def test_synthetic_bundle_dir(tmp_path: Path) -> None:
    deps = """dependencies:
- type: olm.label
  value: {label: fast}
- type: olm.gvk
  value: {group: db.io, version: v1, kind: Database}
- type: olm.constraint
  value: {failureMessage: needs cel, cel: {rule: 'true'}}
"""
    root = write_bundle(
        tmp_path / "op" / "1.2.3", {"annotations.yaml": ANNOTATIONS, "deps.yaml": deps}, CSV
    )
    result = load_bundle_dir(root, catalog="local")
    assert result.problems == ()
    assert result.channels == ("stable", "fast") and result.default_channel is None
    b = built(result)
    assert (b.name, b.catalog, b.replaces, b.skip_range) == (
        "op.v1.2.3",
        "local",
        "op.v1.2.2",
        ">=1.0.0 <1.2.3",
    )
    assert set(b.provided_gvks) == {
        GVK("example.com", "v1", "Widget"),
        GVK("metrics.example.com", "v1beta1", "Metric"),
    }
    assert set(b.required_gvks) == {GVK("other.io", "v2", "Gadget"), GVK("db.io", "v1", "Database")}
    assert b.required_labels == ("fast",)
    assert b.constraints == ({"failureMessage": "needs cel", "cel": {"rule": "true"}},)
    assert b.max_openshift_version == Version.parse("4.15.0")
    assert b.min_kube_version == Version.parse("1.26.0")
    assert b.related_images == ("example.com/op:1.2.3",)


def test_broken_bundle_dirs_report_what_to_fix(tmp_path: Path) -> None:
    no_annotations = load_bundle_dir(write_bundle(tmp_path / "a", {}, CSV))
    assert no_annotations.bundle is None and no_annotations.package == ""
    assert "no annotations file" in no_annotations.problems[0].why

    bad_version = CSV.replace("version: 1.2.3", "version: '1.2'")
    result = load_bundle_dir(write_bundle(tmp_path / "b", {"a.yaml": ANNOTATIONS}, bad_version))
    assert result.bundle is None and result.package == "op"
    assert any(
        'invalid version "1.2"' in p.why and "no bundle is built" in p.why for p in result.problems
    )

    no_csv = load_bundle_dir(write_bundle(tmp_path / "latest", {"a.yaml": ANNOTATIONS}))
    assert no_csv.bundle is None
    assert "no bundle can be built (a bundle needs a version)" in no_csv.problems[0].why

    twice = {
        "a.yaml": ANNOTATIONS,
        "b.yaml": "dependencies: [{type: olm.label, value: {label: x}}]",
        "c.yaml": "dependencies: [{type: olm.label, value: {label: y}}]",
    }
    result = load_bundle_dir(write_bundle(tmp_path / "c", twice, CSV))
    assert built(result).required_labels == ("x",)
    assert "operator-registry uses only the first such file" in result.problems[0].why
