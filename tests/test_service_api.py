"""The HTTP API answers what the CLI answers: every endpoint on real catalogs (../shared), the
bodies compared byte for byte with ``deppy ... -o json`` on the same question."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from tests.conftest import shared_path
from tests.service_support import client, community_store, post_request, store_app
from tests.workflow_helpers import run

QUESTIONS = {
    "one package": "spec:\n  constraints: ['required(\"etcd\")']\n",
    "dependencies": (
        "spec:\n  cluster: {openshiftVersion: '4.18'}\n"
        '  constraints: [\'required("kuadrant-operator", ">=0.11.0")\']\n'
    ),
    "no answer": 'spec:\n  constraints: [\'required("eclipse-che", "7.121.0")\']\n',
    "upgrade": (
        "spec:\n  constraints:\n"
        "    - installed: {name: etcd, version: 0.9.2, channel: singlenamespace-alpha}\n"
        "    - required: {name: etcd}\n"
    ),
    "excluded": (
        "spec:\n  exclude: [{type: olm.package, value: etcd}]\n"
        "  constraints: ['required(\"etcd\")']\n"
    ),
}


@pytest.fixture(scope="module")
def api() -> TestClient:
    with client(store_app()) as c:
        yield c


@pytest.fixture
def store_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI reads the same store as the service."""
    monkeypatch.setenv("DEPPY_HOME", str(community_store()))


def cli_json(*args: str, codes: tuple[int, ...] = (0, 1)) -> str:
    code, out, err = run(*args)
    assert code in codes, err
    return out


@pytest.mark.parametrize("name", sorted(QUESTIONS))
@pytest.mark.parametrize("as_json", [False, True], ids=["yaml", "json"])
def test_resolve_answers_what_the_cli_prints(
    api: TestClient, store_cli: None, tmp_path: Path, name: str, as_json: bool
) -> None:
    text = QUESTIONS[name]
    file = tmp_path / "request.yaml"
    file.write_text(text, encoding="utf-8")
    expected = cli_json("resolve", "-f", str(file), "-o", "json")
    response = post_request(api, text, as_json=as_json)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    assert response.text == expected
    if name == "no answer":
        answer = response.json()
        assert not answer["resolved"] and "devworkspace-operator" in json.dumps(answer)
        verbose = api.post("/api/v1/resolve?verbose=true", json=yaml.safe_load(text))
        assert verbose.text == cli_json("resolve", "-f", str(file), "-o", "json", "-v")


def test_dry_run_next_answers_what_the_cli_prints(
    api: TestClient, store_cli: None, tmp_path: Path
) -> None:
    text = QUESTIONS["dependencies"]
    file = tmp_path / "request.yaml"
    file.write_text(text, encoding="utf-8")
    for value in ("next", "ocp=4.20"):
        expected = cli_json("resolve", "-f", str(file), "-o", "json", f"--dry-run-next={value}")
        response = api.post(
            "/api/v1/resolve",
            params={"dryRunNext": value},
            content=text,
            headers={"Content-Type": "application/yaml"},
        )
        assert response.status_code == 200 and response.text == expected
    bad = api.post("/api/v1/resolve?dryRunNext=ocp", content=text)
    assert bad.status_code == 422 and bad.json()["field"] == "query.dryRunNext"


def test_a_trace_replays_to_the_same_answer(
    api: TestClient, store_cli: None, tmp_path: Path
) -> None:
    text = QUESTIONS["dependencies"]
    traced = api.post("/api/v1/resolve?trace=true", content=text)
    assert traced.status_code == 200
    assert traced.headers["content-type"] == "application/x-ndjson"
    file = tmp_path / "run.trace.jsonl"
    file.write_bytes(traced.content)
    answer = api.post("/api/v1/resolve", content=text).json()
    replayed = json.loads(cli_json("replay", str(file), "-o", "json"))
    # the load problems of the catalogs the answer used too: the trace keeps them for the
    # replay, which reads no catalog
    assert replayed == answer
    assert any("deppy catalog problems" in w for w in answer["warnings"])


def test_resolution_graph_follows_the_reasons(api: TestClient) -> None:
    response = api.post("/api/v1/resolve/graph", content=QUESTIONS["dependencies"])
    data = response.json()
    assert (
        data["resolution"] == api.post("/api/v1/resolve", content=QUESTIONS["dependencies"]).json()
    )
    names = {n["id"]: n for n in data["graph"]["nodes"]}
    selection = data["resolution"]["selection"]
    assert [n["bundle"] for n in names.values() if n["kind"] == "bundle"] == [
        s["bundle"] for s in selection
    ]
    assert sum(len(s["reasons"]) for s in selection) == len(data["graph"]["edges"])
    kuadrant = next(s["bundle"] for s in selection if s["package"] == "kuadrant-operator")
    brought = {
        names[e["to"]]["package"]
        for e in data["graph"]["edges"]
        if e["from"] == f"bundle/{kuadrant}"
    }
    assert {"authorino-operator", "limitador-operator", "dns-operator"} <= brought
    assert data["svg"].startswith("<svg") and "kuadrant-operator" in data["svg"]


def test_upgrades_answer_what_the_cli_prints(api: TestClient, store_cli: None) -> None:
    specs = ["etcd@0.9.2,channel=singlenamespace-alpha", "kuadrant-operator@0.7.0"]
    args = [a for s in specs for a in ("--installed", s)]
    expected = cli_json("upgrades", *args, "--ocp-version", "4.18", "-o", "json")
    response = api.get("/api/v1/upgrades", params={"installed": specs, "ocpVersion": "4.18"})
    assert response.status_code == 200 and response.text == expected
    bad = api.get("/api/v1/upgrades", params={"installed": ["etcd", "x@1"]})
    assert bad.status_code == 422
    assert bad.json()["field"] == "query.installed[0]"
    assert bad.json()["detail"] == "query.installed[0]: the installed version is missing"


@pytest.mark.parametrize(("term", "limit"), [("redis", 30), ("etcd", 0), ("database", 5)])
def test_search_ranks_as_the_cli(api: TestClient, store_cli: None, term: str, limit: int) -> None:
    expected = cli_json("search", term, "-o", "json", "--limit", str(limit))
    response = api.get("/api/v1/packages", params={"q": term, "limit": limit})
    assert response.status_code == 200 and response.text == expected


def test_a_package_has_what_show_shows(api: TestClient, store_cli: None) -> None:
    data = api.get("/api/v1/packages/etcd").json()
    (view,) = data["catalogs"]
    assert view["defaultChannel"] == "singlenamespace-alpha"
    text = cli_json("show", "etcd", codes=(0,))
    channels = ", ".join(
        f"{c['name']} ({c['bundles']} bundle{'s' if c['bundles'] != 1 else ''}, head "
        f"{', '.join(c['heads'])})"
        for c in view["channels"]
    )
    assert f"Channels: {channels}\n" in text
    for row in view["versions"]:
        assert f"  {row['version']}" in text and row["bundle"] in text
    assert view["providedApis"]["apis"] == [
        "EtcdBackup (etcd.database.coreos.com/v1beta2)",
        "EtcdCluster (etcd.database.coreos.com/v1beta2)",
        "EtcdRestore (etcd.database.coreos.com/v1beta2)",
    ]
    deps = api.get("/api/v1/packages/kuadrant-operator").json()["catalogs"][0]
    pinned = next(v for v in deps["versions"] if v["version"] == "0.11.1")
    assert "authorino-operator 0.13.0" in " ".join(pinned["requires"]["packages"])


def test_the_upgrade_graph_has_the_edges_of_show_dot(api: TestClient, store_cli: None) -> None:
    dot = cli_json("show", "infinispan", "--graph", "dot", codes=(0,))
    data = api.get("/api/v1/packages/infinispan/graph").json()
    edges = sum(len(c["edges"]) for c in data["channels"])
    assert edges == dot.count(" -> ") and edges > 100
    assert {e["kind"] for c in data["channels"] for e in c["edges"]} == {
        "replaces",
        "skips",
        "skipRange",
    }
    heads = [b["name"] for c in data["channels"] for b in c["bundles"] if b["head"]]
    assert heads == [h for c in data["channels"] for h in c["heads"]]
    last = data["channels"][-1]["channel"]
    one = api.get("/api/v1/packages/infinispan/graph", params={"channel": last})
    assert [c["channel"] for c in one.json()["channels"]] == [last]
    missing = api.get("/api/v1/packages/infinispan/graph", params={"channel": "nope"})
    assert missing.status_code == 404 and "its channels:" in missing.json()["fix"]
    svg = api.get("/api/v1/packages/infinispan/graph.svg", params={"channel": last}).text
    assert 'class="e skipRange"' in svg and 'class="e replaces"' in svg


def test_the_graph_svg_draws_every_bundle_and_edge(api: TestClient) -> None:
    import xml.etree.ElementTree as ET

    data = api.get("/api/v1/packages/etcd/graph").json()["channels"][0]
    response = api.get("/api/v1/packages/etcd/graph.svg")
    assert response.headers["content-type"] == "image/svg+xml"
    root = ET.fromstring(response.text)
    ns = {"s": "http://www.w3.org/2000/svg"}
    labels = [t.text or "" for t in root.iterfind(".//s:g[@class]/s:a/s:text", ns)]
    for bundle in data["bundles"]:
        assert any(bundle["name"] in label for label in labels)
    paths = [p for p in root.iterfind(".//s:path", ns) if "e " in (p.get("class") or "")]
    assert len(paths) >= len([e for e in data["edges"] if e["kind"] != "skipRange"])
    head = root.find(".//s:g[@class='n head']", ns)
    assert head is not None and "head" in "".join(head.itertext())


def test_deprecated_bundles_are_marked(api: TestClient) -> None:
    graphs = api.get("/api/v1/packages/cass-operator-community/graph").json()["channels"]
    view = api.get("/api/v1/packages/cass-operator-community").json()["catalogs"][0]
    deprecated = {d["name"] for d in view["deprecations"] if d["scope"] == "bundle"}
    marked = {b["name"] for g in graphs for b in g["bundles"] if b["deprecated"]}
    assert marked == deprecated
    if deprecated:
        svg = api.get("/api/v1/packages/cass-operator-community/graph.svg").text
        assert "deprecated" in svg


def test_a_bundle_has_its_properties(api: TestClient) -> None:
    data = api.get("/api/v1/packages/etcd/bundles/etcdoperator.v0.9.4").json()
    assert (data["package"], data["version"], data["catalog"]) == ("etcd", "0.9.4", "community")
    assert [c["name"] for c in data["channels"]] == ["singlenamespace-alpha"]
    assert {p["type"] for p in data["properties"]} >= {"olm.package", "olm.gvk"}
    missing = api.get("/api/v1/packages/etcd/bundles/etcdoperator.v9")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"


def test_catalogs_are_listed_and_checked_as_the_cli_checks(
    api: TestClient, store_cli: None
) -> None:
    listing = api.get("/api/v1/catalogs").json()
    assert listing["origin"] == "store"
    assert [(c["name"], c["packages"], c["bundles"]) for c in listing["catalogs"]] == [
        ("community", 312, 5572)
    ]
    expected = cli_json("catalog", "check", "community", "--ocp-version", "4.18", "-o", "json")
    response = api.get("/api/v1/catalogs/community/check", params={"ocpVersion": "4.18"})
    assert response.status_code == 200 and response.text == expected
    assert api.get("/api/v1/catalogs/nope/check").status_code == 404


def tar_gz(directory: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(directory, arcname=directory.name)
    return buffer.getvalue()


def test_validate_answers_what_the_cli_prints(api: TestClient, store_cli: None) -> None:
    directory = shared_path(
        "bundles", "full", "community-operators-prod", "operators", "kuadrant-operator", "0.11.1"
    )
    expected = cli_json("validate", str(directory), "-o", "json")
    response = api.post(
        "/api/v1/validate", content=tar_gz(directory), headers={"Content-Type": "application/gzip"}
    )
    assert response.status_code == 200, response.text
    assert response.text == expected
    garbage = api.post("/api/v1/validate", content=b"not a tarball")
    assert garbage.status_code == 400 and garbage.json()["field"] == "body"


def test_probes(api: TestClient) -> None:
    assert api.get("/api/v1/healthz").json() == {"status": "ok"}
    assert api.get("/api/v1/readyz").json()["status"] == "ready"


def test_openapi_and_docs_and_ui_are_served(api: TestClient) -> None:
    schema = api.get("/openapi.json").json()
    paths = set(schema["paths"])
    assert {
        "/api/v1/resolve",
        "/api/v1/resolve/graph",
        "/api/v1/upgrades",
        "/api/v1/packages",
        "/api/v1/packages/{package}",
        "/api/v1/packages/{package}/graph",
        "/api/v1/packages/{package}/graph.svg",
        "/api/v1/packages/{package}/bundles/{bundle}",
        "/api/v1/catalogs",
        "/api/v1/catalogs/{catalog}/check",
        "/api/v1/catalogs/reload",
        "/api/v1/validate",
        "/api/v1/healthz",
        "/api/v1/readyz",
    } <= paths
    assert "spec" in json.dumps(schema["paths"]["/api/v1/resolve"]["post"]["requestBody"])
    for page in ("/", "/docs"):
        response = api.get(page)
        assert response.status_code == 200 and "text/html" in response.headers["content-type"]


def test_every_shipped_asset_works_offline() -> None:
    import re

    from deppy.service.app import STATIC

    assets = [p for p in STATIC.rglob("*") if p.is_file()]
    assert {p.suffix for p in assets} >= {".html", ".css", ".js"}
    for asset in assets:
        text = asset.read_text(encoding="utf-8")
        external = [
            u
            for u in re.findall(r"(?:https?:)?//[\w.-]+\.\w+[^\s\"')]*", text)
            if "www.w3.org" not in u
        ]
        assert not external, f"{asset.name} loads {external}"


Problem = dict[str, Any]
