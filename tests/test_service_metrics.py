"""``deppy serve``'s /metrics, scraped before and after real resolutions on a real catalog (ODF),
read back with prometheus-client's own parser; and ``--log-format json`` from the real command."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import free_port, shared_path
from tests.service_support import client, paths_app

ODF = ("catalogs", "odf-operator-dev-catalog")
RESOLVED = "spec: {constraints: ['required(noobaa-operator)']}"
UNSATISFIABLE = "spec: {constraints: ['required(odf-operator)']}"  # nothing installable
INVALID = "spec: {constraints: ['required(']}"
JSON_LOGS = ("--log-format", "json", "--reload-interval", "0")
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(api: TestClient, **headers: str) -> Samples:
    """Every sample of /metrics, by name and labels, as prometheus-client parses it."""
    answer = api.get("/metrics", headers=headers)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
    found: Samples = {}
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    path = tmp_path / "odf"
    shutil.copytree(shared_path(*ODF), path)
    return path


@pytest.fixture
def api(catalog: Path) -> Iterator[TestClient]:
    with client(paths_app(f"{catalog}=odf", solvers=3)) as c:
        yield c


def test_resolutions_move_the_counters_by_outcome(api: TestClient) -> None:
    before = scrape(api)
    for outcome in ("resolved", "unsatisfiable", "invalid", "deadline", "busy"):
        assert value(before, "deppy_resolutions_total", outcome=outcome) == 0
    assert value(before, "deppy_solver_slots") == 3
    assert value(before, "process_resident_memory_bytes") > 10_000_000
    assert api.post("/api/v1/resolve", content=RESOLVED).json()["resolved"] is True
    assert api.post("/api/v1/resolve", content=RESOLVED).json()["resolved"] is True
    assert api.post("/api/v1/resolve", content=UNSATISFIABLE).json()["resolved"] is False
    assert api.post("/api/v1/resolve", content=INVALID).status_code in (400, 422)
    late = api.post("/api/v1/resolve?timeout=0.000000001", content=RESOLVED)
    assert late.status_code == 503
    after = scrape(api)
    moved = {
        outcome: value(after, "deppy_resolutions_total", outcome=outcome)
        - value(before, "deppy_resolutions_total", outcome=outcome)
        for outcome in ("resolved", "unsatisfiable", "invalid", "deadline", "busy")
    }
    assert moved == {"resolved": 2, "unsatisfiable": 1, "invalid": 1, "deadline": 1, "busy": 0}
    assert value(after, "deppy_resolution_duration_seconds_count") == 5
    # the solver ran for the two answers and the explanation, not for the refused ones
    assert value(after, "deppy_solver_duration_seconds_count") == 3
    assert (
        0
        < value(after, "deppy_solver_duration_seconds_sum")
        <= value(after, "deppy_resolution_duration_seconds_sum")
    )
    assert value(after, "deppy_solves_in_flight") == 0
    assert not [name for name, _labels in after if name.endswith("_created")]
    ok = {"route": "/api/v1/resolve", "method": "POST", "status": "200"}
    assert value(after, "deppy_http_requests_total", **ok) == 3
    assert value(after, "deppy_http_requests_total", **{**ok, "status": "503"}) == 1
    # the scrape before this one is counted too, under its own route
    metrics = {"route": "/metrics", "method": "GET", "status": "200"}
    assert value(after, "deppy_http_requests_total", **metrics) == 1


def test_routes_are_templates_not_paths(api: TestClient) -> None:
    for name in ("no-such-package", "another-missing-one"):
        assert api.get(f"/api/v1/packages/{name}").status_code == 404
    api.get("/nowhere/at/all")
    after = scrape(api)
    route = {"route": "/api/v1/packages/{package}", "method": "GET", "status": "404"}
    assert value(after, "deppy_http_requests_total", **route) == 2
    unmatched = {"route": "unmatched", "method": "GET", "status": "404"}
    assert value(after, "deppy_http_requests_total", **unmatched) == 1
    assert not any("no-such-package" in str(key) for key in after)


def test_catalogs_and_their_reloads(api: TestClient, catalog: Path) -> None:
    listed = api.get("/api/v1/catalogs").json()["catalogs"][0]
    before = scrape(api)
    assert value(before, "deppy_catalog_bundles", catalog="odf") == listed["bundles"]
    assert value(before, "deppy_catalog_packages", catalog="odf") == listed["packages"]
    assert value(before, "deppy_catalog_generation") == 1
    time.sleep(0.2)
    assert value(scrape(api), "deppy_catalog_content_age_seconds", catalog="odf") >= 0.2
    (catalog / "cephcsi.yaml").unlink()
    assert api.post("/api/v1/catalogs/reload").json()["reloaded"] is True
    shutil.rmtree(catalog)  # the catalog is gone: the reload fails, the content loaded stays
    failed = api.post("/api/v1/catalogs/reload").json()
    assert failed["reloaded"] is False and failed["error"]
    after = scrape(api)
    assert value(after, "deppy_catalog_reloads_total", result="ok") == 1
    assert value(after, "deppy_catalog_reloads_total", result="failed") == 1
    assert value(after, "deppy_catalog_reload_failing") == 1
    assert value(after, "deppy_catalog_generation") == 2
    assert value(after, "deppy_catalog_bundles", catalog="odf") < listed["bundles"]
    assert value(after, "deppy_catalog_content_age_seconds", catalog="odf") < 0.2 + 5


def test_metrics_are_open_unless_a_metrics_token_is_set(catalog: Path) -> None:
    with client(paths_app(f"{catalog}=odf", token="api-secret")) as api:
        assert api.post("/api/v1/resolve", content=RESOLVED).status_code == 401
        scrape(api)  # open, like the probes: the API's token is not needed
    with client(paths_app(f"{catalog}=odf", metrics_token="scrape-secret")) as api:
        refused = api.get("/metrics")
        assert refused.status_code == 401
        assert refused.headers["content-type"] == "application/problem+json"
        assert "--metrics-token-file" in refused.json()["fix"]
        assert (
            api.get("/metrics", headers={"Authorization": "Bearer api-secret"}).status_code == 401
        )
        scrape(api, Authorization="Bearer scrape-secret")


def test_openmetrics_is_served_to_a_scraper_that_asks_for_it(api: TestClient) -> None:
    from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse

    answer = api.get("/metrics", headers={"Accept": "application/openmetrics-text"})
    assert answer.headers["content-type"].startswith("application/openmetrics-text")
    names = {family.name for family in parse(answer.text)}
    assert {"deppy_resolutions", "deppy_catalog_bundles", "deppy_http_requests"} <= names


def test_serve_logs_json_lines(catalog: Path, tmp_path: Path) -> None:
    """The real command: every line of stderr is one JSON object; a resolution's line says its
    outcome and duration."""
    port = free_port()
    deppy = str(Path(sys.executable).with_name("deppy"))
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [deppy, "serve", "--port", str(port), "--catalog", f"{catalog}=odf", *JSON_LOGS],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ},
        )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/v1/healthz", timeout=2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
        ask = urllib.request.Request(
            f"{url}/api/v1/resolve",
            data=RESOLVED.encode(),
            headers={"Content-Type": "application/yaml"},
        )
        urllib.request.urlopen(ask, timeout=30).close()
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert lines and all({"time", "level", "logger", "message"} <= set(x) for x in lines)
    resolution = [x for x in lines if x.get("reason") == "resolved"]
    assert len(resolution) == 1 and resolution[0]["duration"] > 0
    assert any("serving on" in x["message"] for x in lines)


def test_a_bad_metrics_token_file_is_one_line(tmp_path: Path) -> None:
    from tests.workflow_helpers import run

    missing = tmp_path / "no-such-token"
    code, _, err = run("serve", "--metrics-token-file", str(missing))
    assert code == 2 and err.count("\n") == 1
    assert f"--metrics-token-file {missing}" in err and "cannot read" in err


def test_unknown_methods_fold_into_one_series(catalog: Path) -> None:
    """Issue 26, group 7: every distinct method a client makes up was a new series, before
    authentication: /metrics and memory grew without bound. They count as ``other``."""
    with client(paths_app(f"{catalog}=odf", token="api-secret")) as api:
        for n in range(50):
            api.request(f"X{n}METHOD", "/api/v1/resolve")
            api.request(f"BREW{n}", "/nowhere")
        api.request("GET", "/api/v1/healthz")
        after = scrape(api)
    methods = {
        dict(labels)["method"] for name, labels in after if name == "deppy_http_requests_total"
    }
    assert methods == {"other", "GET"}
    other = sum(
        count
        for (name, labels), count in after.items()
        if name == "deppy_http_requests_total" and dict(labels)["method"] == "other"
    )
    assert other == 100


@pytest.mark.parametrize("option", ["--token-file", "--metrics-token-file"])
@pytest.mark.parametrize("content", [b"\xff\xfe-not-utf-8", b"tok\x1b]0;x\x07en", b"two words"])
def test_a_token_file_a_header_cannot_carry_is_one_line(
    tmp_path: Path, option: str, content: bytes
) -> None:
    """Issue 26, group 8: a non-UTF-8 token file was a traceback. Refused at start, naming
    the file and what to do."""
    from tests.workflow_helpers import run

    path = tmp_path / "token"
    path.write_bytes(content)
    code, _, err = run("serve", option, str(path))
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"{option} {path}" in err and "token_urlsafe" in err


def test_a_non_ascii_token_authenticates_the_same_for_api_and_metrics(catalog: Path) -> None:
    """Issue 26, group 8: a non-ASCII metrics token was accepted, but the right token never
    authenticated (the header was decoded as Latin-1, the token encoded as UTF-8). Both
    tokens go through one check on the header's bytes."""
    token = "pässwörd-☃"
    right = {"Authorization": f"Bearer {token}".encode()}
    wrong = {"Authorization": "Bearer pässwörd-x".encode()}
    with client(paths_app(f"{catalog}=odf", token=token, metrics_token=token)) as api:
        assert api.get("/api/v1/catalogs", headers=right).status_code == 200
        assert api.get("/metrics", headers=right).status_code == 200
        assert api.get("/api/v1/catalogs", headers=wrong).status_code == 401
        assert api.get("/metrics", headers=wrong).status_code == 401
