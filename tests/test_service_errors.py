"""Bad input gets one problem+json naming the field, with the CLI's own words; limits (body,
deadline, busy solvers), the bearer token and catalog reloads (small real catalogs)."""

from __future__ import annotations

import io
import shutil
import tarfile
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from deppy.service.app import create_app
from deppy.service.catalogs import CatalogState
from deppy.service.config import ServiceConfig, is_loopback
from tests.conftest import shared_path
from tests.service_support import client, paths_app
from tests.workflow_helpers import run

ODF = ("catalogs", "odf-operator-dev-catalog")
HUB = ("catalogs", "operatorhubio-upstream-2021")


@pytest.fixture(scope="module")
def api() -> TestClient:
    app = paths_app(f"{shared_path(*HUB)}=hub:1", f"{shared_path(*ODF)}=odf", max_body=64 * 1024)
    with client(app) as c:
        yield c


BAD_BODIES = [
    ("spec: [", 400, "body", "invalid YAML"),
    ("kind: ActiveResolution\n", 422, "spec", "'spec' mapping"),
    ("- 1\n- 2\n", 400, "body", "expected an ActiveResolution object"),
    ("spec: {sources: hub}\n", 422, "spec.sources", "expected a list"),
    ("spec:\n  constraints: [42]\n", 422, "spec.constraints[0]", "required: {...}"),
    (
        "spec:\n  constraints: ['required(a)', 'required(b)', "
        "{required: {name: c, versionRange: '>=1.0.0 <<2'}}]\n",
        422,
        "spec.constraints[2].required.versionRange",
        "invalid version range",
    ),
    (
        "spec:\n  constraints: [{installed: {name: a, version: 1.0.0, channnel: x}}]\n",
        422,
        "spec.constraints[0].installed.channnel",
        "unknown field",
    ),
    ("spec:\n  cluster: {kubernetesVersion: latest}\n", 422, "spec.cluster.kubernetesVersion", ""),
    ("spec:\n  exclude: [olm.label=beta]\n", 422, "spec.exclude[0]", "{type: ..., value: ...}"),
    ("spec:\n  constraints: []\n", 422, "spec.constraints", "nothing to resolve"),
    (
        "spec:\n  sources: [hub, community]\n  constraints: ['required(etcd)']\n",
        422,
        "spec.sources[1]",
        "no loaded catalog is named 'community'",
    ),
    (
        "spec:\n  catalogs: [{path: /etc}]\n  constraints: ['required(etcd)']\n",
        422,
        "spec.catalogs",
        "not catalog paths",
    ),
]


@pytest.mark.parametrize(("text", "status", "field", "message"), BAD_BODIES)
def test_a_bad_body_is_one_problem_naming_the_field(
    api: TestClient, tmp_path: Path, text: str, status: int, field: str, message: str
) -> None:
    response = api.post(
        "/api/v1/resolve", content=text, headers={"Content-Type": "application/yaml"}
    )
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["status"] == status and problem["field"] == field
    assert message in problem["detail"] and "Traceback" not in response.text
    if field.startswith("spec.") and "catalogs" not in field and "sources[" not in field:
        # the CLI refuses the same file for the same reason, in the same words
        file = tmp_path / "request.yaml"
        file.write_text(text, encoding="utf-8")
        code, _, err = run("resolve", "-f", str(file), "--catalog", str(shared_path(*ODF)))
        assert code == 2
        assert problem["detail"] in err or message in err


def test_json_bodies_and_content_types(api: TestClient) -> None:
    bad = api.post(
        "/api/v1/resolve", content=b"{nope", headers={"Content-Type": "application/json"}
    )
    assert bad.status_code == 400 and bad.json()["detail"].startswith("invalid JSON")
    other = api.post("/api/v1/resolve", content=b"x", headers={"Content-Type": "text/csv"})
    assert other.status_code == 415 and other.json()["field"] == "header.Content-Type"
    empty = api.post("/api/v1/resolve", content=b"")
    assert empty.status_code == 400
    good = api.post("/api/v1/resolve", json={"spec": {"constraints": ["required(etcd)"]}})
    assert good.status_code == 200 and good.json()["resolved"]


def test_oversize_bodies_get_413(api: TestClient) -> None:
    big = b"#" * (64 * 1024 + 1)
    declared = api.post("/api/v1/resolve", content=big)
    assert declared.status_code == 413
    assert declared.headers["content-type"] == "application/problem+json"

    def chunks():  # no Content-Length: counted while it streams
        for _ in range(20):
            yield b"#" * 8192

    streamed = api.post("/api/v1/resolve", content=chunks())
    assert streamed.status_code == 413 and streamed.json()["field"] == "body"
    assert (
        api.post("/api/v1/resolve", content=b"spec: {constraints: ['required(etcd)']}").status_code
        == 200
    )


def test_query_and_route_errors_are_problems(api: TestClient) -> None:
    for path, status in (
        ("/api/v1/packages?limit=-1&q=x", 422),
        ("/api/v1/packages?q=%20", 422),
        ("/api/v1/nowhere", 404),
        ("/api/v1/packages/etcd/graph.svg?catalog=odf", 404),
        ("/api/v1/resolve?timeout=-3", 405),
    ):
        response = api.get(path)
        assert response.status_code == status, path
        assert response.headers["content-type"] == "application/problem+json"
    limit = api.get("/api/v1/packages?limit=-1&q=x").json()
    assert limit["field"] == "query.limit"
    cluster = api.get("/api/v1/catalogs/hub/check?ocpVersion=four")
    assert cluster.status_code == 422 and cluster.json()["field"] == "query.ocpVersion"


def test_an_expired_deadline_is_503_with_the_reason(api: TestClient) -> None:
    text = "spec:\n  constraints: ['required(etcd)', 'required(prometheus)']\n"
    response = api.post("/api/v1/resolve?timeout=0.000001", content=text)
    assert response.status_code == 503
    problem = response.json()
    assert problem["type"] == "urn:deppy:problem:deadline"
    assert "deadline" in problem["detail"]


def test_busy_solvers_turn_away_a_request_after_its_deadline() -> None:
    app = paths_app(str(shared_path(*ODF)), solvers=1)
    gate = app.state.service.gate
    with client(app) as api:
        assert gate._free.acquire()  # another request holds the only slot
        try:
            response = api.post(
                "/api/v1/resolve?timeout=0.2",
                content="spec: {constraints: ['required(odf-operator)']}",
            )
        finally:
            gate._free.release()
        assert response.status_code == 503
        assert response.json()["type"] == "urn:deppy:problem:busy"
        assert response.headers["retry-after"] == "1"
        again = api.post(
            "/api/v1/resolve", content="spec: {constraints: ['required(odf-operator)']}"
        )
        assert again.status_code == 200


def test_a_token_guards_the_api_but_not_the_probes() -> None:
    app = paths_app(str(shared_path(*ODF)), token="s3cret")
    with client(app) as api:
        refused = api.get("/api/v1/catalogs")
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"] == "Bearer"
        wrong = api.get("/api/v1/catalogs", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        ok = api.get("/api/v1/catalogs", headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200
        assert api.get("/api/v1/healthz").status_code == 200
        assert api.get("/").status_code == 200  # the page itself holds no data


def test_serve_refuses_to_listen_beyond_loopback_without_a_token(tmp_path: Path) -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.4")
    code, _, err = run("serve", "--host", "0.0.0.0", "--catalog", str(shared_path(*ODF)))
    assert code == 2 and "needs a bearer token" in err and "--token-file" in err
    empty = tmp_path / "token"
    empty.write_text("\n", encoding="utf-8")
    code, _, err = run("serve", "--host", "0.0.0.0", "--token-file", str(empty))
    assert code == 2 and "one token" in err


def test_a_changed_catalog_is_reloaded(tmp_path: Path) -> None:
    catalog = tmp_path / "odf"
    shutil.copytree(shared_path(*ODF), catalog)
    app = paths_app(f"{catalog}=odf")
    with client(app) as api:
        before = api.get("/api/v1/catalogs").json()
        assert api.post("/api/v1/catalogs/reload").json()["reloaded"] is False
        (catalog / "cephcsi.yaml").unlink()
        answer = api.post("/api/v1/catalogs/reload").json()
        assert answer == {"reloaded": True, "generation": before["generation"] + 1, "error": None}
        after = api.get("/api/v1/catalogs").json()
        assert after["catalogs"][0]["bundles"] == before["catalogs"][0]["bundles"] - 1
        gone = api.get("/api/v1/packages/cephcsi-operator/bundles/cephcsi-operator.v4.22.0")
        assert gone.status_code == 404


def test_a_store_that_gets_a_catalog_is_reloaded(tmp_path: Path) -> None:
    from deppy.catalog.fbc import load_catalog
    from deppy.store import Store

    home = tmp_path / "home"
    state = CatalogState((), home)
    state.load()
    assert state.current is not None and state.current.origin == "embedded"
    app = create_app(ServiceConfig(store=home, reload_interval=0), state)
    with client(app) as api:
        Store(home).add(load_catalog(shared_path(*ODF), name="odf"))
        assert api.post("/api/v1/catalogs/reload").json()["reloaded"] is True
        listing = api.get("/api/v1/catalogs").json()
        assert listing["origin"] == "store" and listing["catalogs"][0]["name"] == "odf"


def test_a_reload_waits_for_requests_using_the_old_catalogs(tmp_path: Path) -> None:
    from deppy.catalog.fbc import load_catalog
    from deppy.store import Store

    home = tmp_path / "home"
    Store(home).add(load_catalog(shared_path(*ODF), name="odf"))
    state = CatalogState((), home)
    first = state.load()
    with state.lease() as leased:
        Store(home).remove("odf")
        Store(home).add(load_catalog(shared_path(*ODF), name="odf2"))
        assert state.reload_if_changed()
        assert not first.closed  # still in use: its read transaction stays open
        assert leased.source.names() == ["odf"]
        assert leased.source.bundles_of(leased.source.package_names()[0])
    assert first.closed
    assert state.current is not None and state.current.source.names() == ["odf2"]
    state.close()


@pytest.mark.parametrize(
    ("name", "kind", "why"),
    [
        ("../escape.yaml", tarfile.REGTYPE, "a path outside the archive"),
        ("/etc/escape.yaml", tarfile.REGTYPE, "a path outside the archive"),
        ("link", tarfile.SYMTYPE, "only files and directories"),
    ],
)
def test_validate_refuses_archives_that_reach_outside_themselves(
    api: TestClient, name: str, kind: bytes, why: str
) -> None:
    """Checked by deppy itself, on every Python 3.11 (tarfile's data filter is 3.11.4+)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        member = tarfile.TarInfo(name)
        member.type = kind
        member.linkname = "/etc/passwd" if kind == tarfile.SYMTYPE else ""
        archive.addfile(member, io.BytesIO(b"") if kind == tarfile.REGTYPE else None)
    response = api.post(
        "/api/v1/validate", content=buffer.getvalue(), headers={"Content-Type": "application/gzip"}
    )
    assert response.status_code == 422 and response.json()["field"] == "body"
    assert why in response.json()["detail"]
