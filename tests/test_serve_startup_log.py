"""``deppy serve`` says each start-up warning once (issue 36: "the service logs its start-up
warnings twice"), whether its catalogs come from paths, the store or the embedded example, and
no later look for changed files loads (and warns) again while nothing changed."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import shared_path
from tests.service_support import serve_started

DEPPY = str(Path(sys.executable).with_name("deppy"))
ETCD = shared_path("catalogs", "community-operators-prod-v4.18", "etcd")


def _catalog_with_a_problem(tmp_path: Path) -> Path:
    catalog = tmp_path / "hub"
    shutil.copytree(ETCD, catalog / "etcd")
    (catalog / "etcd" / "broken.json").write_text('{"schema":"olm.bundle","name":"broken"}\n')
    return catalog


def _serve_log(home: Path, *args: str) -> str:
    """Everything ``deppy serve ARGS`` wrote from its start until three looks for changed
    files (every 0.3 s) after it said it was serving, then a clean stop."""
    process, lines, _ = serve_started(home, "--reload-interval", "0.3", *args)
    time.sleep(1.2)
    process.send_signal(signal.SIGINT)
    rest, _ = process.communicate(timeout=30)
    return "".join(lines) + rest


def _warnings(log: str) -> list[str]:
    return [re.sub(r"^\S+ \S+ ", "", line) for line in log.splitlines() if "WARNING" in line]


@pytest.mark.parametrize("origin", ["paths", "store", "stored name"])
def test_each_start_up_warning_is_said_once(tmp_path: Path, origin: str) -> None:
    catalog = _catalog_with_a_problem(tmp_path)
    home = tmp_path / "home"
    if origin == "paths":
        args: tuple[str, ...] = ("--catalog", str(catalog))
    else:
        added = subprocess.run(
            [DEPPY, "catalog", "add", "hub", str(catalog)],
            env={**os.environ, "DEPPY_HOME": str(home)},
            capture_output=True,
            text=True,
        )
        assert added.returncode == 0, added.stderr
        args = () if origin == "store" else ("--catalog", "hub")
    log = _serve_log(home, *args)
    warnings = _warnings(log)
    assert any("1 invalid object skipped" in w for w in warnings), log
    assert len(warnings) == len(set(warnings)), log
    assert "reloaded" not in log, log


def test_the_embedded_example_is_announced_once(tmp_path: Path) -> None:
    log = _serve_log(tmp_path / "home")
    warnings = _warnings(log)
    assert sum("embedded example catalog" in w for w in warnings) == 1, log
    assert not any("deppy: " in w for w in warnings), log  # the log names its source
    assert "reloaded" not in log, log


def test_the_start_up_line_says_who_can_reach_it(tmp_path: Path) -> None:
    """Issue 45: in a container, ``podman run -p 8080:8080 … serve`` reached nothing and the
    line said only ``serving on http://localhost:8080/``: on loopback it says that only this
    machine can reach it, and the options that change that."""
    log = _serve_log(tmp_path / "home")
    (line,) = [line for line in log.splitlines() if "serving on " in line]
    assert "only this machine can reach it" in line, line
    assert "add --host 0.0.0.0 --token-file FILE" in line, line
