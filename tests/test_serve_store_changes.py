"""What a running ``deppy serve`` answers from while the store changes under it (issue 45).

``--catalog NAME@N`` serves exactly those earlier contents for the server's whole life: it
answered from NAME's current contents, and a refresh (which renames NAME@1 to NAME@2) would
have moved it again. A server answering from the store never switches to the embedded example:
when the last stored catalog was removed (the first half of a remove-then-add) it answered
200 resolved:true from the demo catalog. Each test runs a real ``deppy serve`` over a real
store, and makes it look for changes with ``POST /api/v1/catalogs/reload``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, shared_path
from tests.service_support import serve_started

DEPPY = str(Path(sys.executable).with_name("deppy"))
ETCD = shared_path("catalogs", "community-operators-prod-v4.18", "etcd")
RELEASE = """
{{"schema": "olm.package", "name": "{name}", "defaultChannel": "stable"}}
{{"schema": "olm.channel", "package": "{name}", "name": "stable",
  "entries": [{{"name": "{name}.v1.0.0"}}]}}
{{"schema": "olm.bundle", "name": "{name}.v1.0.0", "package": "{name}",
  "image": "example.com/{name}:1.0.0",
  "properties": [{{"type": "olm.package", "value": {{"packageName": "{name}",
  "version": "1.0.0"}}}}]}}
"""


def _deppy(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [DEPPY, *args],
        env={**os.environ, "DEPPY_HOME": str(home)},
        capture_output=True,
        text=True,
    )
    assert done.returncode in (0, 1), (args, done.stderr)
    return done


def _hub(tmp_path: Path, home: Path) -> Path:
    catalog = tmp_path / "hub"
    shutil.copytree(ETCD, catalog / "etcd")
    _deppy(home, "catalog", "add", "hub", str(catalog))
    return catalog


def _release(home: Path, catalog: Path, package: str) -> None:
    """A new package in the catalog's directory, and the catalog refreshed: what it held
    before becomes hub@1, hub@1 becomes hub@2."""
    (catalog / f"{package}.json").write_text(RELEASE.format(name=package))
    _deppy(home, "catalog", "refresh", "hub", "--keep", "3")


def _call(url: str, path: str, body: object = None) -> tuple[int, str, Any]:
    """(status, content type, JSON) of a GET, or of a POST when there is a body."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url.rstrip("/") + path, data=data, method="GET")
    if body is not None:
        request.method = "POST"
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.headers["Content-Type"], json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], json.loads(error.read())


def _resolve(url: str, package: str) -> tuple[int, str, Any]:
    return _call(url, "/api/v1/resolve", {"spec": {"constraints": [f"required({package})"]}})


def _reloaded(url: str) -> Any:
    return _call(url, "/api/v1/catalogs/reload", {})[2]


@contextmanager
def _serving(home: Path, *args: str) -> Iterator[str]:
    process, _, url = serve_started(home, "--reload-interval", "0", *args)
    try:
        yield url
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)


@pytest.mark.parametrize("beside", [(), ("--catalog", "example")])
def test_earlier_contents_are_served_for_the_servers_whole_life(
    tmp_path: Path, beside: tuple[str, ...]
) -> None:
    """Alone, ``hub@1`` is never loaded again; beside a stored catalog, whose changes are
    loaded again, a reload keeps the contents ``hub@1`` named at start."""
    home = tmp_path / "home"
    catalog = _hub(tmp_path, home)
    if beside:
        _deppy(home, "catalog", "add", "example", str(ROOT / "src" / "deppy" / "data" / "catalog"))
    _release(home, catalog, "release-1")  # hub@1: etcd alone; hub: etcd and release-1
    stored = json.loads(_deppy(home, "catalog", "list", "-o", "json").stdout)["catalogs"]
    assert ("hub", 2) in [(c["name"], c["packages"]) for c in stored]
    asked = ("--catalog", "hub@1", *beside)
    cli = _deppy(home, "resolve", *asked, "--require", "release-1", "-o", "json")
    assert cli.returncode == 1
    with _serving(home, *asked) as url:
        for later, generation in enumerate((1, 2 if beside else 1), start=2):
            listing = _call(url, "/api/v1/catalogs")[2]
            assert listing["generation"] == generation, listing
            hub = [c["packages"] for c in listing["catalogs"] if c["name"] == "hub"]
            assert hub == [1], listing
            found = _call(url, "/api/v1/packages?q=release&limit=10")[2]
            assert found == [], generation
            status, _, answer = _resolve(url, "release-1")
            assert (status, answer["resolved"]) == (200, False), generation
            assert answer == json.loads(cli.stdout), generation
            assert _resolve(url, "etcd")[2]["resolved"], generation
            _release(home, catalog, f"release-{later}")  # hub@1 is no longer what it was
            reloaded = _reloaded(url)
            assert reloaded["reloaded"] == bool(beside), reloaded


def test_a_server_of_the_store_never_answers_from_the_example(tmp_path: Path) -> None:
    home = tmp_path / "home"
    catalog = _hub(tmp_path, home)
    with _serving(home) as url:
        assert _resolve(url, "etcd")[2]["resolved"]
        _deppy(home, "catalog", "remove", "hub")  # the first half of a remove-then-add
        assert _reloaded(url)["reloaded"]
        for path, body in [
            ("/api/v1/resolve", {"spec": {"constraints": ["required(prometheus-operator)"]}}),
            ("/api/v1/packages?q=prometheus", None),
            ("/api/v1/readyz", None),
        ]:
            status, kind, problem = _call(url, path, body)
            assert (status, kind) == (503, "application/problem+json"), (path, problem)
            assert problem["detail"].startswith("no catalog is stored"), problem
            assert "deppy catalog add NAME PATH" in problem["fix"], problem
        listing = _call(url, "/api/v1/catalogs")[2]
        assert (listing["origin"], listing["catalogs"]) == ("store", []), listing
        assert listing["empty"].startswith("no catalog is stored"), listing
        _deppy(home, "catalog", "add", "hub", str(catalog))  # the second half
        assert _reloaded(url)["reloaded"]
        assert _resolve(url, "etcd")[2]["resolved"]
        assert _call(url, "/api/v1/readyz")[0] == 200
