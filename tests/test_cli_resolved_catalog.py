"""``deppy resolve -f CLUSTEREXTENSION -o clusterextensions --resolved-catalog DEST`` on the real
community catalog, pushed to a real registry (Debian's docker-registry on 127.0.0.1) and read
back with skopeo: OLM v1 installs the whole plan, because every bundle a ClusterExtension of the
plan pins, in the catalog it selects, declares no dependency property."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import shared_path
from tests.olmv1_objects import TOPOLOGY
from tests.registry import Registry, registry_for_tests, skopeo, unpacked_configs
from tests.workflow_helpers import run

COMMUNITY = f"{shared_path('catalogs', 'community-operators-prod-v4.18')}=community"
PACKAGE = "rabbitmq-messaging-topology-operator"
DEPENDENCIES = ("olm.package.required", "olm.gvk.required", "olm.constraint")
REQUEST = TOPOLOGY


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registry]:
    yield from registry_for_tests(tmp_path_factory.mktemp("registry"))


@pytest.fixture()
def request_file(tmp_path: Path) -> Path:
    path = tmp_path / "topology.yaml"
    path.write_text(REQUEST, encoding="utf-8")
    return path


def _bundles(configs: Path) -> dict[str, dict[str, Any]]:
    """The olm.bundle documents under an FBC directory (JSON streams or YAML)."""
    found = {}
    for file in sorted(configs.rglob("catalog.*")):
        if file.suffix == ".json":
            docs = [json.loads(line) for line in file.read_text().splitlines() if line.strip()]
        else:
            docs = list(yaml.load_all(file.read_text(), Loader=yaml.CSafeLoader))
        found.update({d["name"]: d for d in docs if d and d.get("schema") == "olm.bundle"})
    return found


def test_json_says_olm_v1_refuses_it_as_written(request_file: Path) -> None:
    code, out, _ = run("resolve", "-f", str(request_file), "--catalog", COMMUNITY, "-o", "json")
    assert code == 3
    olmv1 = json.loads(out)["olmv1"]
    (refused,) = [e for e in olmv1["extensions"] if not e["installsAsWritten"]]
    assert refused["name"] == "topology"
    assert refused["refusal"]["message"] == (
        f'validating bundle "{refused["bundle"]}": bundle "{refused["bundle"]}" has a '
        'dependency declared via property "olm.gvk.required" which is currently not supported'
    )


def test_a_resolved_catalog_makes_the_whole_plan_installable(
    registry: Registry, request_file: Path, tmp_path: Path
) -> None:
    dest = f"docker://{registry.address}/deppy/resolved:t1"
    args = ("resolve", "-f", str(request_file), "--catalog", COMMUNITY, "-o", "clusterextensions")
    code, out, err = run(*args, "--resolved-catalog", dest, "--tls-verify=false")
    assert code == 0, err
    catalog, *extensions = yaml.safe_load_all(out)
    assert catalog["kind"] == "ClusterCatalog" and catalog["metadata"]["name"] == "deppy-topology"
    ref = catalog["spec"]["source"]["image"]["ref"]
    assert ref.startswith(f"{registry.address}/deppy/resolved@sha256:")
    assert catalog["spec"]["priority"] == -(2**31)
    inspected = registry.skopeo("inspect", f"docker://{registry.address}/deppy/resolved:t1")
    assert inspected.returncode == 0, inspected.stderr
    facts = json.loads(inspected.stdout)
    assert facts["Labels"]["operators.operatorframework.io.index.configs.v1"] == "/configs"
    assert facts["Digest"] == ref.split("@", 1)[1]
    copied = registry.skopeo("copy", f"docker://{ref}", f"oci:{tmp_path / 'layout'}:got")
    assert copied.returncode == 0, copied.stderr
    resolved = _bundles(unpacked_configs(tmp_path / "layout", "got", tmp_path / "unpacked"))
    for extension in extensions:
        source = extension["spec"]["source"]["catalog"]
        selected = source["selector"]["matchLabels"]["olm.operatorframework.io/metadata.name"]
        bundles = (
            resolved
            if selected == "deppy-topology"
            else _bundles(
                shared_path("catalogs", "community-operators-prod-v4.18", source["packageName"])
            )
        )
        (bundle,) = [
            b
            for b in bundles.values()
            if b["package"] == source["packageName"]
            and any(
                p["type"] == "olm.package" and p["value"]["version"] == source["version"]
                for p in b["properties"]
            )
        ]
        assert not [p for p in bundle["properties"] if p["type"] in DEPENDENCIES], bundle["name"]
        assert extension["metadata"]["annotations"]["deppy.io/installs-as-written"] == "true"
    assert [e["metadata"]["name"] for e in extensions] == ["rabbitmq-cluster-operator", "topology"]
    # the same plan, the same digest
    code, again, _ = run(*args, "--resolved-catalog", dest, "--tls-verify=false")
    assert code == 0 and again == out


def test_without_a_dependency_nothing_is_built_and_the_plan_says_so(
    registry: Registry, tmp_path: Path
) -> None:
    path = tmp_path / "cluster-operator.yaml"
    path.write_text(REQUEST.replace(PACKAGE, "rabbitmq-cluster-operator"), encoding="utf-8")
    dest = f"docker://{registry.address}/deppy/unused:t1"
    code, out, err = run(
        "resolve", "-f", str(path), "--catalog", COMMUNITY, "-o", "json",
        "--resolved-catalog", dest, "--tls-verify=false",
    )  # fmt: skip
    assert code == 0, err
    olmv1 = json.loads(out)["olmv1"]
    assert olmv1["resolvedCatalog"] is None
    assert "no bundle of the plan declares a dependency" in olmv1["note"]
    assert registry.skopeo("inspect", dest.replace("docker://", "docker://", 1)).returncode != 0


@pytest.mark.parametrize(
    ("dest", "words"),
    [
        ("docker://127.0.0.1:1/deppy/resolved:t1", "127.0.0.1:1"),
        ("docker://127.0.0.1:5000", "no repository"),
        ("ftp://example/x", "unknown transport"),
        ("docker://127.0.0.1:5000/Bad Repo", "--resolved-catalog"),
    ],
)
def test_a_bad_destination_is_one_line_and_exit_2(
    request_file: Path, dest: str, words: str
) -> None:
    code, out, err = run(
        "resolve", "-f", str(request_file), "--catalog", COMMUNITY, "-o", "clusterextensions",
        "--resolved-catalog", dest, "--tls-verify=false",
    )  # fmt: skip
    assert code == 2, err
    assert out == ""
    lines = err.strip().splitlines()
    assert lines[-1].startswith("deppy: error:") and words in lines[-1]
    assert "Traceback" not in err


def test_an_unwritable_layout_directory_is_one_line(request_file: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    code, _, err = run(
        "resolve", "-f", str(request_file), "--catalog", COMMUNITY,
        "--resolved-catalog", f"oci:{blocked}/layout:t1",
    )  # fmt: skip
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("deppy: error:")
    assert blocked.read_text() == "not a directory"


def test_text_output_says_what_was_pushed(registry: Registry, request_file: Path) -> None:
    """The table alone once hid the push: no image, no digest, no ClusterCatalog (issue 40)."""
    dest = f"docker://{registry.address}/deppy/said:t1"
    code, out, err = run(
        "resolve", "-f", str(request_file), "--catalog", COMMUNITY,
        "--resolved-catalog", dest, "--tls-verify=false",
    )  # fmt: skip
    assert code == 0, err
    inspected = registry.skopeo("inspect", f"docker://{registry.address}/deppy/said:t1")
    digest = json.loads(inspected.stdout)["Digest"]
    said = out.split("\n\n")[-1].splitlines()
    assert said[0] == f"Resolved catalog pushed to {registry.address}/deppy/said:t1"
    assert said[1].split() == ["digest:", digest]
    assert said[2].split() == ["image:", f"{registry.address}/deppy/said@{digest}"]
    assert said[3].split()[:2] == ["ClusterCatalog:", "deppy-topology"]
    assert said[4].split() == ["bundles:", f"{PACKAGE}.v1.19.3"]


def test_a_layout_with_two_images_is_written_and_named_by_tag(
    request_file: Path, tmp_path: Path
) -> None:
    """skopeo refuses ``oci:DIR`` once the layout holds two images: the text and the hint name
    the tag, and the hint's source is one skopeo copies."""
    layout = tmp_path / "layout"
    for tag in ("first", "second"):
        code, out, err = run(
            "resolve", "-f", str(request_file), "--catalog", COMMUNITY,
            "--resolved-catalog", f"oci:{layout}:{tag}",
        )  # fmt: skip
        assert code == 0, err
    assert f"Resolved catalog written to the OCI layout oci:{layout}:second\n" in out
    (hint,) = [line for line in err.replace("\n  ", " ").splitlines() if "skopeo copy" in line]
    source = hint.split("skopeo copy ")[1].split()[0]
    assert source == f"oci:{layout}:second"
    copied = skopeo("copy", source, f"oci:{tmp_path / 'copy'}:got")
    assert copied.returncode == 0, copied.stderr
    assert skopeo("inspect", f"oci:{layout}").returncode != 0  # what the tag is for
