"""File-Based Catalog loading: the real catalogs in ../shared, and every kind of bad input."""

from __future__ import annotations

import base64
import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest
import yaml

from deppy.catalog.fbc import load_catalog
from deppy.catalog.model import GVK, Catalog
from deppy.catalog.semver import Version
from deppy.errors import InputError
from tests.conftest import shared_path

COMMUNITY = "community-operators-prod-v4.18"


@pytest.fixture(scope="module")
def community() -> Catalog:
    return load_catalog(shared_path("catalogs", COMMUNITY))


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def jsonl(*objs: object) -> str:
    return "".join(json.dumps(o) + "\n" for o in objs)


def package(name: str, default: str = "stable") -> dict[str, object]:
    return {"schema": "olm.package", "name": name, "defaultChannel": default}


def channel(pkg: str, *entries: dict[str, object], name: str = "stable") -> dict[str, object]:
    return {"schema": "olm.channel", "package": pkg, "name": name, "entries": list(entries)}


def bundle(pkg: str, version: str, *props: dict[str, object], **extra: object) -> dict[str, object]:
    return {
        "schema": "olm.bundle",
        "name": f"{pkg}.v{version}",
        "package": pkg,
        "image": f"example.com/{pkg}:{version}",
        "properties": [
            {"type": "olm.package", "value": {"packageName": pkg, "version": version}},
            *props,
        ],
        **extra,
    }


def problems_text(catalog: Catalog) -> str:
    return "\n".join(str(p) for p in catalog.problems)


# --- the real catalogs ---------------------------------------------------------------------------


def test_community_catalog_counts(community: Catalog) -> None:
    assert (len(community.packages), len(community.channels), len(community.bundles)) == (
        312,
        535,
        5572,
    )
    assert community.name == COMMUNITY
    assert community.others == {}


def test_community_catalog_facts_from_readme(community: Catalog) -> None:
    bundles = list(community.bundles.values())
    assert sum(1 for b in bundles if b.required_packages) == 116
    assert sum(1 for b in bundles if b.required_gvks) == 63
    assert sum(1 for b in bundles if b.constraints) == 1
    assert sum(1 for b in bundles if b.max_openshift_version is not None) == 52
    assert len({g for b in bundles for g in b.provided_gvks}) == 1510
    assert all(b.csv_metadata is not None for b in bundles)
    sizes = Counter(b.package for b in bundles)
    assert sizes.most_common(6) == [
        ("project-quay", 152),
        ("keycloak-operator", 107),
        ("hive-operator", 106),
        ("ack-ec2-controller", 104),
        ("ack-eks-controller", 94),
        ("opentelemetry-operator", 94),
    ]


def test_community_gvks_provided_by_several_packages(community: Catalog) -> None:
    providers: dict[GVK, set[str]] = defaultdict(set)
    for b in community.bundles.values():
        for gvk in b.provided_gvks:
            providers[gvk].add(b.package)
    shared = {str(g): sorted(p) for g, p in providers.items() if len(p) > 1}
    assert len(shared) == 6
    assert shared["DNSEndpoint (externaldns.k8s.io/v1alpha1)"] == [
        "global-load-balancer-operator",
        "k8gb",
    ]
    assert shared["ApicurioRegistry3 (registry.apicur.io/v1)"] == [
        "apicurio-api-controller",
        "apicurio-registry-3",
    ]
    assert sum(1 for g in shared if "(jumpstarter.dev/" in g) == 4


def test_community_known_dependency_failures_are_loaded_as_declared(community: Catalog) -> None:
    che_needs = {
        r.package for b in community.bundles_of("eclipse-che") for r in b.required_packages
    }
    assert "devworkspace-operator" in che_needs
    assert not community.bundles_of("devworkspace-operator")

    kuadrant = community.bundles[("kuadrant-operator", "kuadrant-operator.v0.7.1")]
    pins = {r.package: r for r in kuadrant.required_packages}
    assert pins["dns-operator"].text == "0.2.0"
    assert pins["dns-operator"].version_range.contains(Version.parse("0.2.0"))
    assert not pins["dns-operator"].version_range.contains(Version.parse("0.2.1"))
    assert pins["limitador-operator"].text == "0.8.0"

    nhc = community.bundles[("node-healthcheck-operator", "node-healthcheck-operator.v0.1.1")]
    poison = GVK("poison-pill.medik8s.io", "v1alpha1", "PoisonPillRemediation")
    assert poison in nhc.required_gvks
    assert not any(poison in b.provided_gvks for b in community.bundles.values())


def test_community_problems_are_the_v_prefixed_skip_ranges(community: Catalog) -> None:
    # blang/semver (and so OLM) cannot parse "<v2.6.1"; the entries stay, without the range.
    assert len(community.problems) == 10
    assert all("skipRange" in p.why and "percona-" in p.obj for p in community.problems)
    entries = {
        e.name: e for c in community.channels_of("percona-postgresql-operator") for e in c.entries
    }
    entry = entries["percona-postgresql-operator.v2.6.1"]
    assert entry.skip_range is None and entry.skip_range_text == "<v2.6.1"


def test_community_channels_and_skip_ranges(community: Catalog) -> None:
    quay = community.channels_of("project-quay")
    assert quay and all(c.package == "project-quay" for c in quay)
    assert [c.name for c in quay] == sorted(c.name for c in quay)
    ranged = [e for c in community.channels.values() for e in c.entries if e.skip_range_text]
    assert len(ranged) > 1000
    assert all(e.skip_range is not None for e in ranged if not e.skip_range_text.startswith("<v"))
    # Every entry of every channel names a bundle of the catalog.
    for ch in community.channels.values():
        for entry in ch.entries:
            assert (ch.package, entry.name) in community.bundles


def test_community_max_openshift_and_min_kube(community: Catalog) -> None:
    capped = [b for b in community.bundles.values() if b.max_openshift_version is not None]
    assert {b.package for b in capped} == {"gitlab-operator-kubernetes"}
    assert Counter(str(b.max_openshift_version) for b in capped) == {
        "4.18": 6,
        "4.19": 14,
        "4.20": 13,
        "4.21": 13,
        "4.22": 6,
    }
    assert min(b.max_openshift_version for b in capped) == Version.parse_tolerant("4.18")
    with_kube = [b for b in community.bundles.values() if b.min_kube_version is not None]
    assert len(with_kube) == 1467
    assert Version.parse("1.16.0") in {b.min_kube_version for b in with_kube}


def test_bundle_sources_point_at_the_object(community: Catalog) -> None:
    for key in [
        ("project-quay", community.bundles_of("project-quay")[0].name),
        ("alloydb-omni-operator", "alloydb-omni-operator.v1.3.0"),
    ]:
        b = community.bundles[key]
        file, line = b.source.rsplit(":", 1)
        text = Path(file).read_text(encoding="utf-8").splitlines()
        window = "\n".join(text[int(line) - 1 : int(line) + 3])
        assert b.name in window, b.source


def test_bundles_are_hashable_and_ordered(community: Catalog) -> None:
    assert len(set(community.bundles.values())) == len(community.bundles)
    assert list(community.bundles) == sorted(community.bundles)
    assert list(community.packages) == sorted(community.packages)
    quay = community.bundles_of("project-quay")
    assert [b.version for b in quay] == sorted((b.version for b in quay), reverse=True)
    assert len(quay) == 152


def test_loading_is_deterministic() -> None:
    path = shared_path("catalogs", "operatorhubio-upstream-2021")
    a, b = load_catalog(path), load_catalog(path)
    assert list(a.bundles) == list(b.bundles)
    assert list(a.bundles.values()) == list(b.bundles.values())
    assert [x.source for x in a.bundles.values()] == [x.source for x in b.bundles.values()]
    assert a.channels == b.channels


def test_operatorhubio_2021_counts() -> None:
    cat = load_catalog(shared_path("catalogs", "operatorhubio-upstream-2021"), priority=-1)
    assert (len(cat.packages), len(cat.channels), len(cat.bundles)) == (193, 250, 998)
    assert cat.problems == ()
    assert cat.priority == -1
    assert sum(1 for b in cat.bundles.values() if b.max_openshift_version) == 10


def test_odf_catalog_reads_csvs_embedded_as_bundle_objects() -> None:
    cat = load_catalog(shared_path("catalogs", "odf-operator-dev-catalog"), name="odf")
    assert (len(cat.packages), len(cat.channels), len(cat.bundles)) == (16, 16, 15)
    # The odf-operator bundle is not in the tree: its channel entry is the one problem.
    assert len(cat.problems) == 1
    assert "odf-operator.v4.22.0" in cat.problems[0].why
    assert cat.problems[0].file.endswith("index.yaml")
    assert cat.channels[("odf-operator", "alpha")].entries == ()
    assert all(b.catalog == "odf" for b in cat.bundles.values())
    # No olm.csv.metadata here: metadata comes from the embedded ClusterServiceVersion.
    assert all(b.csv_metadata and b.csv_metadata.get("displayName") for b in cat.bundles.values())
    deps = cat.bundles[("odf-dependencies", "odf-dependencies.v4.22.0")]
    assert deps.max_openshift_version == Version.parse("4.23.0")
    pins = {r.package: r for r in deps.required_packages}
    assert len(pins) == 10
    assert pins["ocs-operator"].version_range.contains(Version.parse("4.22.0"))
    assert not pins["ocs-operator"].version_range.contains(Version.parse("4.22.1"))


def test_redhat_excerpts_each_load_cleanly() -> None:
    root = shared_path("catalogs", "redhat-operator-index-excerpts")
    counts = {}
    for sub in sorted(p for p in root.iterdir() if p.is_dir()):
        cat = load_catalog(sub)
        assert cat.problems == (), problems_text(cat)
        assert all(b.csv_metadata for b in cat.bundles.values())
        counts[sub.name] = (len(cat.packages), len(cat.channels), len(cat.bundles))
    assert counts == {
        "aws-load-balancer-operator": (1, 2, 1),
        "jaeger-product": (1, 1, 6),
        "node-observability-operator-older": (1, 1, 1),
        "v4.14-node-observability-operator": (1, 1, 1),
    }


def test_redhat_excerpts_as_one_tree_reports_the_duplicate_package() -> None:
    cat = load_catalog(shared_path("catalogs", "redhat-operator-index-excerpts"))
    assert len(cat.packages) == 3
    whys = [p.why for p in cat.problems]
    assert any(w.startswith("duplicate package") for w in whys)
    assert any(w.startswith("duplicate channel") for w in whys)


# --- formats -------------------------------------------------------------------------------------


def small_catalog(pkg: str = "a") -> list[dict[str, object]]:
    return [
        package(pkg),
        channel(
            pkg, {"name": f"{pkg}.v1.0.0"}, {"name": f"{pkg}.v1.1.0", "replaces": f"{pkg}.v1.0.0"}
        ),
        bundle(pkg, "1.0.0"),
        bundle(pkg, "1.1.0"),
    ]


def test_every_stream_layout_loads(tmp_path: Path) -> None:
    objs = small_catalog
    pretty = "\n".join(json.dumps(o, indent=4) for o in objs("b"))
    concatenated = "".join(json.dumps(o) for o in objs("c"))
    multi_yaml = "# a comment\n" + "".join("---\n" + yaml.safe_dump(o) for o in objs("d"))
    flow_yaml = "\n---\n".join(
        "{" + ", ".join(f"{k}: {json.dumps(v)}" for k, v in o.items()) + "}" for o in objs("e")
    )
    write(
        tmp_path,
        {
            "a/catalog.json": jsonl(*objs("a")),
            "b/catalog.json": pretty,
            "c/catalog.json": concatenated,
            "d/catalog.yaml": multi_yaml,
            "e/catalog.yaml": flow_yaml,
            "f/noext": "\ufeff" + jsonl(*objs("f")),
        },
    )
    cat = load_catalog(tmp_path)
    assert cat.problems == (), problems_text(cat)
    assert sorted(cat.packages) == ["a", "b", "c", "d", "e", "f"]
    assert len(cat.bundles) == 12
    assert cat.bundles[("d", "d.v1.1.0")].source.endswith("catalog.yaml:25")
    assert cat.bundles[("a", "a.v1.1.0")].source.endswith("catalog.json:4")


def test_a_single_file_is_a_catalog(tmp_path: Path) -> None:
    file = tmp_path / "index.json"
    file.write_text(jsonl(*small_catalog()))
    cat = load_catalog(file)
    assert cat.name == "index"
    assert len(cat.bundles) == 2


def test_indexignore(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            ".indexignore": "# comment\n\n*.md\nscratch/\n",
            "README.md": "# not a catalog\n",
            "scratch/bad.json": "{not json",
            "a/catalog.json": jsonl(*small_catalog("a")),
            "a/.indexignore": "notes.txt\nold/*.json\n!old/keep.json\n",
            "a/notes.txt": "ignored",
            "a/old/drop.json": "{broken",
            "a/old/keep.json": jsonl(*small_catalog("k")),
            "b/notes.txt": "not ignored here: the pattern applies below a/ only",
        },
    )
    cat = load_catalog(tmp_path)
    assert sorted(cat.packages) == ["a", "k"]
    assert len(cat.problems) == 1
    assert cat.problems[0].file.endswith("b/notes.txt")
    assert "no 'schema' field" in cat.problems[0].why


# --- bad input -----------------------------------------------------------------------------------


def test_invalid_objects_are_reported_and_skipped(tmp_path: Path) -> None:
    good = small_catalog("a")
    bad = [
        {"name": "no-schema"},
        {"schema": "olm.package"},
        package("a"),
        {"schema": "olm.bundle", "name": "a.v9.0.0", "package": "a", "properties": []},
        bundle("a", "1.2"),
        bundle(
            "a",
            "1.3.0",
            {"type": "olm.package.required", "value": {"packageName": "x", "versionRange": ">=>1"}},
        ),
        bundle("a", "1.4.0", {"type": "olm.gvk", "value": "Kind"}),
        {**bundle("a", "1.5.0"), "package": "other"},
        bundle("a", "1.0.0"),
        {"schema": "olm.template.basic", "entries": []},
        channel(
            "a",
            {"name": "a.v1.0.0", "skipRange": "not a range"},
            {"replaces": "x"},
            {"name": "a.v2.0.0"},
            name="candidate",
        ),
    ]
    write(tmp_path, {"a/catalog.json": jsonl(*good, *bad)})
    cat = load_catalog(tmp_path)
    assert sorted(cat.bundles) == [("a", "a.v1.0.0"), ("a", "a.v1.1.0")]
    assert cat.others == {"olm.template.basic": 1}
    text = problems_text(cat)
    expected = [
        "line 5: object has no 'schema' field",
        "olm.package without a name (line 6): field 'name' is missing",
        "olm.package a (line 7): duplicate package, first defined at",
        "olm.bundle a.v9.0.0 (line 8): no olm.package property",
        'olm.bundle a.v1.2 (line 9): olm.package property: version: invalid version "1.2"',
        "olm.bundle a.v1.3.0 (line 10): olm.package.required property for x: versionRange:",
        "olm.bundle a.v1.4.0 (line 11): olm.gvk property: value must be an object",
        "olm.bundle a.v1.5.0 (line 12): its olm.package property names package 'a' but the "
        "bundle is in package 'other'",
        "olm.bundle a.v1.0.0 (line 13): duplicate bundle, first defined at",
        'entry 1 (a.v1.0.0): skipRange: invalid version range "not a range"',
        "entry 2: field 'name' is missing",
        "entry a.v2.0.0 has no valid olm.bundle in this catalog",
    ]
    for fragment in expected:
        assert fragment in text, fragment
    assert len(cat.problems) == len(expected)
    assert all(p.file.endswith("a/catalog.json") for p in cat.problems)
    assert all("skipped" in p.why or "kept" in p.why for p in cat.problems if "bundle" in p.obj)
    candidate = cat.channels[("a", "candidate")]
    assert [e.name for e in candidate.entries] == ["a.v1.0.0"]
    assert candidate.entries[0].skip_range is None


def test_broken_documents_do_not_stop_the_file(tmp_path: Path) -> None:
    objs = small_catalog("a")
    lines = jsonl(*objs).splitlines()
    lines.insert(2, '{"schema": "olm.bundle", "name": ')
    docs = [yaml.safe_dump(o) for o in small_catalog("y")]
    docs.insert(1, "schema: olm.bundle\nname: [unclosed\n")
    write(
        tmp_path,
        {
            "a/catalog.json": "\n".join(lines) + "\n",
            "y/catalog.yaml": "---\n" + "---\n".join(docs),
            "z/binary.json": "",
        },
    )
    (tmp_path / "z" / "binary.json").write_bytes(b'{"schema": "olm.package", "name": "\xff"}\n')
    cat = load_catalog(tmp_path)
    assert sorted(cat.bundles) == [
        ("a", "a.v1.0.0"),
        ("a", "a.v1.1.0"),
        ("y", "y.v1.0.0"),
        ("y", "y.v1.1.0"),
    ]
    by_file = {Path(p.file).parent.name: p for p in cat.problems}
    assert len(cat.problems) == 3
    assert by_file["a"].obj == "object at line 3" and "invalid JSON" in by_file["a"].why
    assert "invalid YAML" in by_file["y"].why and by_file["y"].obj == "document at line 6"
    assert "UTF-8" in by_file["z"].why or "invalid JSON" in by_file["z"].why


def test_channel_and_bundle_of_an_unknown_package(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "a/catalog.json": jsonl(*small_catalog("a")),
            "ghost/catalog.json": jsonl(*small_catalog("ghost")[1:]),
        },
    )
    cat = load_catalog(tmp_path)
    assert "ghost" not in {b.package for b in cat.bundles.values()}
    assert len(cat.problems) == 1
    assert cat.problems[0].obj == "package ghost"
    assert "3 channel/bundle objects" in cat.problems[0].why
    assert "add {schema: olm.package, name: ghost" in cat.problems[0].why


def test_bundle_outside_every_channel_and_bad_default_channel(tmp_path: Path) -> None:
    objs = [package("a", default="fast"), *small_catalog("a")[1:], bundle("a", "3.0.0")]
    write(tmp_path, {"a/catalog.json": jsonl(*objs)})
    cat = load_catalog(tmp_path)
    assert ("a", "a.v3.0.0") not in cat.bundles
    assert cat.packages["a"].default_channel is None
    text = problems_text(cat)
    assert "olm.bundle a.v3.0.0: no olm.channel of its package lists it" in text
    assert "its defaultChannel 'fast' is not one of its channels" in text


def test_nothing_valid_is_an_input_error(tmp_path: Path) -> None:
    write(tmp_path, {"README.md": "# hello\n\nThis is not a catalog.\n"})
    with pytest.raises(InputError) as err:
        load_catalog(tmp_path)
    assert "no valid bundle" in str(err.value)
    assert "README.md" in str(err.value)


def test_missing_path_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="catalog not found"):
        load_catalog(tmp_path / "nope")


# --- properties ----------------------------------------------------------------------------------


def test_typed_properties(tmp_path: Path) -> None:
    props = [
        {"type": "olm.gvk", "value": {"group": "example.com", "version": "v1", "kind": "Thing"}},
        {"type": "olm.gvk", "value": {"group": "example.com", "version": "v1", "kind": "Thing"}},
        {"type": "olm.gvk.required", "value": {"group": "", "version": "v1", "kind": "Secret"}},
        {"type": "olm.package.required", "value": {"packageName": "b", "versionRange": "< 2.0.0"}},
        {"type": "olm.label", "value": {"label": "fast"}},
        {"type": "olm.label.required", "value": {"label": "slow"}},
        {"type": "olm.constraint", "value": {"failureMessage": "m", "cel": {"rule": "true"}}},
        {"type": "olm.maxOpenShiftVersion", "value": 4.8},
        {"type": "olm.channel", "value": {"name": "stable"}},
        {"type": "vendor.example/flavour", "value": [1, 2]},
        {"type": "olm.csv.metadata", "value": {"displayName": "A", "minKubeVersion": "1.25"}},
    ]
    objs = [
        package("a"),
        channel("a", {"name": "a.v1.0.0"}),
        bundle("a", "1.0.0", *props, relatedImages=[{"name": "x", "image": "img:1"}]),
    ]
    write(tmp_path, {"a/catalog.json": jsonl(*objs)})
    cat = load_catalog(tmp_path)
    assert cat.problems == ()
    b = cat.bundles[("a", "a.v1.0.0")]
    assert b.provided_gvks == (GVK("example.com", "v1", "Thing"),)
    assert str(b.provided_gvks[0]) == "Thing (example.com/v1)"
    assert b.required_gvks == (GVK("", "v1", "Secret"),)
    assert [(r.package, r.text) for r in b.required_packages] == [("b", "< 2.0.0")]
    assert b.required_packages[0].version_range.contains(Version.parse("1.9.0"))
    assert (b.labels, b.required_labels) == (("fast",), ("slow",))
    assert b.constraints == ({"failureMessage": "m", "cel": {"rule": "true"}},)
    assert b.max_openshift_version == Version.parse("4.8.0")
    assert b.min_kube_version == Version.parse("1.25.0")
    assert b.related_images == ("img:1",)
    assert b.csv_metadata == {"displayName": "A", "minKubeVersion": "1.25"}
    assert [p.type for p in b.properties][-2:] == ["vendor.example/flavour", "olm.csv.metadata"]


def test_csv_annotation_properties_are_honoured(tmp_path: Path) -> None:
    annotations = {
        "olm.properties": json.dumps([{"type": "olm.maxOpenShiftVersion", "value": "4.14"}])
    }
    csv = {"displayName": "A", "annotations": annotations}
    objs = [
        package("a"),
        channel("a", {"name": "a.v1.0.0"}),
        bundle("a", "1.0.0", {"type": "olm.csv.metadata", "value": csv}),
    ]
    write(tmp_path, {"a/catalog.json": jsonl(*objs)})
    b = load_catalog(tmp_path).bundles[("a", "a.v1.0.0")]
    assert b.max_openshift_version == Version.parse("4.14.0")
    assert b.properties[-1].type == "olm.maxOpenShiftVersion"


def test_embedded_csv_in_bundle_object(tmp_path: Path) -> None:
    csv = {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {
            "name": "a.v1.0.0",
            "annotations": {
                "olm.properties": '[{"type": "olm.maxOpenShiftVersion", "value": "4.16"}]'
            },
        },
        "spec": {"displayName": "Operator A", "minKubeVersion": "1.27.0", "keywords": ["k"]},
    }
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"}
    objects = [
        {
            "type": "olm.bundle.object",
            "value": {"data": base64.b64encode(json.dumps(o).encode()).decode()},
        }
        for o in (crd, csv)
    ]
    objs = [package("a"), channel("a", {"name": "a.v1.0.0"}), bundle("a", "1.0.0", *objects)]
    write(tmp_path, {"a/catalog.json": jsonl(*objs)})
    b = load_catalog(tmp_path).bundles[("a", "a.v1.0.0")]
    assert b.csv_metadata is not None
    assert b.csv_metadata["displayName"] == "Operator A"
    assert b.csv_metadata["keywords"] == ["k"]
    assert b.min_kube_version == Version.parse("1.27.0")
    assert b.max_openshift_version == Version.parse("4.16.0")


def test_deprecations(tmp_path: Path) -> None:
    deprecations = {
        "schema": "olm.deprecations",
        "package": "a",
        "entries": [
            {"reference": {"schema": "olm.package"}, "message": "use b"},
            {"reference": {"schema": "olm.channel", "name": "stable"}, "message": "use fast"},
            {"reference": {"schema": "olm.bundle", "name": "a.v1.0.0"}, "message": "CVE"},
            {"reference": {"schema": "olm.bundle", "name": "a.v7.0.0"}, "message": "gone"},
            {"reference": {"schema": "olm.channel"}, "message": "which?"},
        ],
    }
    write(tmp_path, {"a/catalog.json": jsonl(*small_catalog("a"), deprecations)})
    cat = load_catalog(tmp_path)
    assert [(d.schema, d.name, d.message) for d in cat.deprecations_of("a")] == [
        ("olm.package", None, "use b"),
        ("olm.channel", "stable", "use fast"),
        ("olm.bundle", "a.v1.0.0", "CVE"),
    ]
    text = problems_text(cat)
    assert "bundle a.v7.0.0 is not a bundle of a" in text
    assert "entry 5: a reference to olm.channel needs the olm.channel name" in text
    assert len(cat.problems) == 2


def test_a_catalog_held_in_memory_loads_as_the_same_catalog_from_disk(tmp_path: Path) -> None:
    """An FBC from an HTTP body or ConfigMap keys gives the catalog its files would give."""
    from deppy.catalog.fbc import load_catalog_documents

    root = shared_path("catalogs", "community-operators-prod-v4.18", "etcd")
    files = {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }
    from_disk = load_catalog(root, name="c")
    in_memory = load_catalog_documents(files, name="c", where="http://127.0.0.1/api/v1/all")
    assert sorted(in_memory.bundles) == sorted(from_disk.bundles)
    assert in_memory.bundles == from_disk.bundles
    assert in_memory.packages == from_disk.packages
