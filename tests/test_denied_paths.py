"""A path this user may not use is one line, exit 2 (issue 45, item 10): an image run as another
uid than its home's owner (OpenShift runs each pod as an arbitrary uid in group 0) met a
``PermissionError`` traceback in every command that looks at the store under ``$HOME``.

deppy runs here as a user who may not look into its home: as root, without the capabilities that
bypass file permissions (setpriv); as anyone else, with the home's mode 0.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import shared_path
from tests.controller_env import DEPPY

JAEGER = shared_path("catalogs", "redhat-operator-index-excerpts", "jaeger-product")
DAC = "-dac_override,-dac_read_search"


def _unprivileged() -> list[str]:
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("as root these tests need setpriv (util-linux) to drop CAP_DAC_OVERRIDE")
    return ["setpriv", "--bounding-set", DAC, "--inh-caps", DAC]


@pytest.fixture
def locked_home(tmp_path: Path) -> Iterator[Path]:
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0)
    yield home
    home.chmod(0o700)


def deppy(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("DEPPY_HOME", "XDG_DATA_HOME")}
    return subprocess.run(
        [*_unprivileged(), DEPPY, *args], capture_output=True, text=True, timeout=120,
        env={**environment, "HOME": str(home)}, cwd=home.parent,
    )  # fmt: skip


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr and done.stdout == ""
    (line,) = done.stderr.splitlines()
    return line


@pytest.mark.parametrize(
    "args",
    [("catalog", "list"), ("search", "jaeger"), ("catalog", "add", "j", str(JAEGER))],
)
def test_a_home_this_user_may_not_look_into_is_the_store_s_one_line(
    locked_home: Path, args: tuple[str, ...]
) -> None:
    line = one_line(deppy(locked_home, *args))
    store = locked_home / ".local" / "share" / "deppy"
    assert line == (
        f"deppy: error: {store}: cannot use the catalog store directory: Permission denied; "
        "set DEPPY_HOME to a writable directory"
    )


def test_a_catalog_this_user_may_not_read_is_one_line(locked_home: Path, tmp_path: Path) -> None:
    writable = tmp_path / "writable"
    writable.mkdir()
    done = deppy(writable, "search", "jaeger", "--catalog", str(locked_home))
    line = one_line(done)
    assert line.startswith(f"deppy: error: {locked_home}/")
    assert "permission denied to this user (uid " in line and "give it access" in line
