"""``deppy fleet plan`` on a read-only root, as ``docker run --read-only`` runs it (issue 45,
item 11): with no writable temporary directory the embedded dask cluster's forkserver died
with a FileNotFoundError traceback, exit 1 ("no solution"), after half a JSON document had
gone to stdout. Now: one ``deppy: error:`` line naming the directory and asking for a
writable TMPDIR, exit 2, nothing on stdout; ``--workers 0`` needs no temporary directory.

The root is made read-only by bubblewrap (``bwrap --ro-bind / /``), which a root user can run
and others can where user namespaces are allowed; skipped, with a message, where it cannot."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from benchmarks.fleet_exports import write_fleet

from deppy.resolution.request_parsing import parse_catalog
from deppy.workflows.catalog_loading import load_catalogs
from tests.conftest import shared_path

COMMUNITY = str(shared_path("catalogs", "community-operators-prod-v4.18"))
DEPPY = str(Path(sys.executable).parent / "deppy")
READ_ONLY = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("bwrap") is None:
        pytest.skip("needs bubblewrap (bwrap) for a read-only root")
    probe = subprocess.run([*READ_ONLY, "true"], capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        pytest.skip(f"bwrap cannot make a read-only root here: {probe.stderr.strip()}")
    directory = tmp_path_factory.mktemp("fleet")
    write_fleet(load_catalogs([parse_catalog(COMMUNITY)]), directory, 6, low=2, high=4)
    return directory


def _plan_read_only(
    fleet: Path, tmpdir: str | None, *more: str
) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("TMPDIR", "TEMP", "TMP")}
    if tmpdir is not None:
        env["TMPDIR"] = tmpdir
    return subprocess.run(
        [*READ_ONLY, "--chdir", str(fleet), "--", DEPPY, "fleet", "plan", str(fleet),
         "--catalog", COMMUNITY, "-o", "json", *more],
        capture_output=True, env=env, timeout=240,
    )  # fmt: skip


@pytest.mark.parametrize("kind", ["read-only", "missing", "unset"])
def test_no_writable_temporary_directory_is_one_line_exit_2_and_nothing_on_stdout(
    fleet: Path, tmp_path: Path, kind: str
) -> None:
    tmpdir = {"read-only": str(tmp_path), "missing": str(tmp_path / "gone"), "unset": None}[kind]
    done = _plan_read_only(fleet, tmpdir, "--workers", "2")
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert done.stdout == b""
    lines = err.splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    named = f"TMPDIR {tmpdir}" if tmpdir else "/tmp"
    assert lines[0].startswith(f"deppy: error: {named}: "), err
    assert "writable temporary directory" in err and "set TMPDIR" in err
    assert ("no such directory" if kind == "missing" else "not writable") in err


def test_in_this_process_it_plans_on_a_read_only_root(fleet: Path, tmp_path: Path) -> None:
    """``--workers 0`` (the line's other way out) starts no worker and needs no temporary
    directory: the same document as on a writable machine."""
    done = _plan_read_only(fleet, str(tmp_path), "--workers", "0")
    assert done.returncode == 0, done.stderr.decode()
    writable = subprocess.run(
        [DEPPY, "fleet", "plan", str(fleet), "--catalog", COMMUNITY, "-o", "json",
         "--workers", "0"],
        capture_output=True, cwd=fleet, timeout=240,
    )  # fmt: skip
    assert done.stdout == writable.stdout and done.stdout.startswith(b'{"clusters": [')
