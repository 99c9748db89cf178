"""The service's resolve endpoint takes a ClusterExtension body (OLM v1) and answers what
``deppy resolve -f FILE -o json`` prints; bad input is a 422 problem naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from tests.service_support import client, paths_app, post_request
from tests.workflow_helpers import run

EXAMPLE = Path(__file__).resolve().parents[1] / "src" / "deppy" / "data" / "catalog"
BODY = """\
apiVersion: olm.operatorframework.io/v1
kind: ClusterExtension
metadata: {name: observability}
spec:
  namespace: monitoring
  serviceAccount: {name: installer}
  source:
    sourceType: Catalog
    catalog:
      packageName: observability-stack
      version: VERSION
"""


@pytest.fixture(scope="module")
def api() -> TestClient:
    with client(paths_app(f"{EXAMPLE}=example")) as c:
        yield c


@pytest.mark.parametrize("version", ['">=1.0, <2"', '"~2.0"'])
@pytest.mark.parametrize("as_json", [False, True], ids=["yaml", "json"])
def test_a_clusterextension_body_answers_what_the_cli_prints(
    api: TestClient, tmp_path: Path, version: str, as_json: bool
) -> None:
    text = BODY.replace("VERSION", version)
    file = tmp_path / "ce.yaml"
    file.write_text(text, encoding="utf-8")
    code, expected, err = run(
        "resolve", "-f", str(file), "--catalog", f"{EXAMPLE}=example", "-o", "json"
    )
    assert code in (0, 1, 3), err  # 3: resolved, OLM v1 refuses part of the plan as written
    response = post_request(api, text, as_json=as_json)
    assert response.status_code == 200, response.text
    assert response.text == expected


def test_a_kubectl_list_body_and_bad_input(api: TestClient) -> None:
    one = yaml.safe_load(BODY.replace("VERSION", '"1.0.0"'))
    listed = api.post("/api/v1/resolve", json={"apiVersion": "v1", "kind": "List", "items": [one]})
    assert listed.status_code == 200 and listed.json()["selection"][-1]["version"] == "1.0.0"
    bad = yaml.safe_load(BODY.replace("VERSION", '"==1.0.0"'))
    refused = api.post("/api/v1/resolve", json=bad)
    assert refused.status_code == 422
    problem = refused.json()
    assert problem["field"] == "ClusterExtension observability: spec.source.catalog.version"
    assert '"==" is not an OLM v1 operator' in problem["detail"]


def test_the_answer_says_olm_v1_refuses_a_bundle_with_dependencies(api: TestClient) -> None:
    """observability-stack 1.1.0 declares olm.package.required: the service's answer says,
    per ClusterExtension of the plan, whether OLM v1 installs it as written, and why not."""
    response = post_request(api, BODY.replace("VERSION", '"1.1.0"'), as_json=True)
    assert response.status_code == 200
    olmv1 = response.json()["olmv1"]
    assert olmv1["installsAsWritten"] is False
    verdicts = {e["name"]: e for e in olmv1["extensions"]}
    assert verdicts["observability"]["refusal"]["message"].startswith(
        'validating bundle "observability-stack.v1.1.0": bundle "observability-stack.v1.1.0" '
        "has a dependency declared via property"
    )
    assert verdicts["grafana-operator"]["installsAsWritten"] is True
    assert verdicts["grafana-operator"]["requiredBy"] == "observability"


INSTALLED = BODY.replace("      version: VERSION\n", "") + (
    "status:\n  install:\n    bundle: {name: observability-stack.v1.0.0, version: 1.0.0}\n"
)


def test_the_upgrades_of_installed_clusterextensions_are_what_the_cli_prints(
    api: TestClient, tmp_path: Path
) -> None:
    """The Upgrades page's OLM v1 mode asks POST /upgrades with the objects."""
    file = tmp_path / "installed.yaml"
    file.write_text(INSTALLED, encoding="utf-8")
    code, expected, err = run(
        "upgrades", "-f", str(file), "--catalog", f"{EXAMPLE}=example", "-o", "json"
    )
    assert code == 0, err
    response = post_request(api, INSTALLED, as_json=False, path="/api/v1/upgrades")
    assert response.status_code == 200, response.text
    assert response.text == expected
    # observability-stack 1.1.0 declares olm.package.required: OLM v1 would stop there
    assert response.json()[0]["refused"]["version"] == "1.1.0"
    plain = api.post("/api/v1/upgrades", json={"apiVersion": "deppy.io/v1alpha1"})
    assert plain.status_code in (400, 422) and plain.json()["field"]


def test_an_olm_v1_way_out_applied_to_the_objects_resolves(api: TestClient) -> None:
    """The web UI's "Try this" for an OLM v1 way out: the service edits the pasted objects
    (YAML) as the change says, and what comes back resolves."""
    text = BODY.replace("VERSION", '"9.9.9"')
    answer = post_request(api, text, as_json=False).json()
    assert not answer["resolved"]
    ways = answer["explanation"]["suggestions"]
    assert ways and ways[0]["change"]["kind"] == "change-extension"
    edited = api.post("/api/v1/olmv1/changed", json={"objects": text, "change": ways[0]["change"]})
    assert edited.status_code == 200, edited.text
    objects = edited.json()["objects"]
    assert yaml.safe_load(objects)["metadata"] == {"name": "observability"}
    assert post_request(api, objects, as_json=False).json()["resolved"]
    wrong = {**ways[0]["change"], "extension": "nobody"}
    refused = api.post("/api/v1/olmv1/changed", json={"objects": text, "change": wrong})
    assert refused.status_code == 422 and refused.json()["field"] == "change.extension"


def test_upgrades_offer_the_ways_out_the_cli_offers(tmp_path: Path) -> None:
    """Two catalogs at one priority (issue 40): POST /api/v1/upgrades answers what deppy
    upgrades -f -o json prints, OLM v1's error with the ways out resolve offers, and each
    applied by POST /api/v1/olmv1/changed gives a ClusterExtension that upgrades."""
    from tests.test_cli_olmv1 import catalog_dir, extension, write

    specs = [catalog_dir(tmp_path, name, "1.0.0", "1.1.0") for name in ("a", "b")]
    file = write(tmp_path, extension(installed="1.0.0"))
    text = Path(file).read_text(encoding="utf-8")
    code, expected, _ = run(
        "upgrades", "-f", file, *(f"--catalog={s}" for s in specs), "-o", "json"
    )
    assert code == 1
    with client(paths_app(*specs)) as api:
        response = post_request(api, text, as_json=False, path="/api/v1/upgrades")
        assert response.status_code == 200 and response.text == expected
        (report,) = response.json()
        assert len(report["suggestions"]) == 2
        for way in report["suggestions"]:
            edited = api.post(
                "/api/v1/olmv1/changed", json={"objects": text, "change": way["change"]}
            )
            assert edited.status_code == 200, edited.text
            moved = post_request(
                api, edited.json()["objects"], as_json=False, path="/api/v1/upgrades"
            )
            assert moved.json()[0]["next"]["version"] == "1.1.0"


@pytest.mark.parametrize(
    "path",
    ["/api/v1/resolve", "/api/v1/resolve/graph", "/api/v1/resolve/clusterextensions",
     "/api/v1/upgrades"],
)  # fmt: skip
@pytest.mark.parametrize(
    ("metadata", "field"),
    [
        ("{name: observability, annotations: oops}", "metadata.annotations"),
        ("{name: observability, annotations: [1, 2]}", "metadata.annotations"),
        ("{name: observability, annotations: 3}", "metadata.annotations"),
        ("null", "metadata"),
    ],
)
def test_bad_metadata_is_a_422_naming_the_field_on_every_route(
    api: TestClient, path: str, metadata: str, field: str
) -> None:
    """Issue 39: /resolve/clusterextensions answered 500 for annotations that are no mapping."""
    text = INSTALLED.replace("metadata: {name: observability}", f"metadata: {metadata}")
    response = post_request(api, text, as_json=False, path=path)
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["field"].endswith(f": {field}")
