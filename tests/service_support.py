"""What the service tests share: a store holding community-operators-prod-v4.18 (built once per
test run), apps over it or over catalog paths, and the CLI to compare their answers with."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from deppy.resolution.request_parsing import CatalogSpec
from deppy.service.app import create_app
from deppy.service.config import ServiceConfig
from tests.conftest import shared_path

COMMUNITY = ("catalogs", "community-operators-prod-v4.18")


@functools.cache
def community_store() -> Path:
    """A store home with community-operators-prod-v4.18 added as ``community``."""
    from deppy.catalog.fbc import load_catalog
    from deppy.store import Store

    home = Path(tempfile.mkdtemp(prefix="deppy-service-store-"))
    atexit.register(shutil.rmtree, home, True)
    Store(home).add(load_catalog(shared_path(*COMMUNITY), name="community"))
    return home


def store_app(**options: object) -> FastAPI:
    """The service over the community store, as ``deppy serve`` with that store."""
    config = ServiceConfig(store=community_store(), reload_interval=0, **options)  # type: ignore[arg-type]
    return create_app(config)


def paths_app(*specs: str, **options: object) -> FastAPI:
    """The service over catalog paths, as ``deppy serve --catalog SPEC…``."""
    from deppy.resolution.request_parsing import parse_catalog

    catalogs: tuple[CatalogSpec, ...] = tuple(parse_catalog(s) for s in specs)
    return create_app(ServiceConfig(catalogs=catalogs, reload_interval=0, **options))  # type: ignore[arg-type]


def client(app: FastAPI) -> TestClient:
    return TestClient(app, raise_server_exceptions=False)


def post_request(
    api: TestClient, text: str, *, as_json: bool, path: str = "/api/v1/resolve"
) -> Any:
    """POST a YAML request text as JSON (parsed) or as it is (application/yaml)."""
    import yaml

    if as_json:
        return api.post(path, json=yaml.safe_load(text))
    return api.post(path, content=text, headers={"Content-Type": "application/yaml"})


def serve_started(home: Path, *args: str) -> tuple[subprocess.Popen[str], list[str], str]:
    """``deppy serve --port 0 ARGS`` (store home ``home``) once it says it is serving: the
    process, the log lines (stdout and stderr) it wrote until then, and its URL."""
    process = subprocess.Popen(
        [str(Path(sys.executable).with_name("deppy")), "serve", "--port", "0", *args],
        env={**os.environ, "DEPPY_HOME": str(home)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(line)
        if "serving on " in line:
            return process, lines, line.split("serving on ")[1].split()[0]
    process.wait(timeout=10)
    raise AssertionError("deppy serve did not start:\n" + "".join(lines))
