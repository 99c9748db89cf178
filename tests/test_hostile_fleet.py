"""Round 5 of hostile input on ``deppy fleet plan``: what an exports directory may hold besides
exports (a name that is not UTF-8, a symlink loop, a FIFO, a link to a device) is one error
record each, never the end of the run, a lost batch or a blocked read; and Ctrl-C stops a run
on workers with one line, no traceback, and no process left behind."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from benchmarks.fleet_exports import write_fleet

from deppy.resolution.request_parsing import parse_catalog
from deppy.workflows.catalog_loading import load_catalogs
from tests.conftest import shared_path

COMMUNITY = str(shared_path("catalogs", "community-operators-prod-v4.18"))
DEPPY = str(Path(sys.executable).parent / "deppy")
GOOD = 12
BUSY = 2000  # clusters: 4 s of planning after the workers start, for a Ctrl-C to land in
# (120 took 1.5 s, too close to the 0.9 s the last Ctrl-C waits on a fast machine)
EXAMPLE = Path(__file__).resolve().parents[1] / "src" / "deppy" / "data" / "catalog"


@pytest.fixture(scope="module")
def source() -> object:
    return load_catalogs([parse_catalog(COMMUNITY)])


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory, source: object) -> Path:
    """12 good exports, with entries of every hostile kind among the first and further in."""
    directory = tmp_path_factory.mktemp("hostile")
    write_fleet(source, directory, GOOD, low=2, high=5)  # type: ignore[arg-type]
    raw = os.fsencode(directory)
    good = (directory / "cluster-00001.json").read_bytes()
    for name in (b"a\xff.json", b"cluster-00006\xfe.json", b"z-\xc3.yaml"):
        Path(os.fsdecode(raw + b"/" + name)).write_bytes(good)
    (directory / "b-loop1.json").symlink_to(directory / "b-loop2.json")
    (directory / "b-loop2.json").symlink_to(directory / "b-loop1.json")
    os.mkfifo(directory / "cluster-00004-fifo.json")
    (directory / "cluster-00008-zero.json").symlink_to("/dev/zero")
    return directory


def _plan(directory: Path, *more: str) -> tuple[int, list[dict[str, object]], str]:
    done = subprocess.run(
        [DEPPY, "fleet", "plan", str(directory), "--catalog", COMMUNITY, "-o", "jsonl", *more],
        capture_output=True,
        timeout=240,
    )
    records = [orjson.loads(line) for line in done.stdout.splitlines()]
    return done.returncode, records, done.stderr.decode()


EXPECTED_ERRORS = {
    "a\\xff.json": "the file name is not UTF-8",
    "b-loop1.json": "too many levels of symbolic links",
    "b-loop2.json": "too many levels of symbolic links",
    "cluster-00004-fifo.json": "is a FIFO (named pipe), not a file",
    "cluster-00006\\xfe.json": "the file name is not UTF-8",
    "cluster-00008-zero.json": "is a character device, not a file",
    "z-\\xc3.yaml": "the file name is not UTF-8",
}


@pytest.mark.parametrize("workers", ["0", "2"])
def test_every_good_cluster_is_planned_and_each_hostile_entry_is_one_error_record(
    hostile: Path, workers: str
) -> None:
    code, records, err = _plan(hostile, "--workers", workers, "--batch-size", "2")
    assert code == 0, err
    assert "Traceback" not in err
    assert [r["index"] for r in records] == list(range(GOOD + len(EXPECTED_ERRORS)))
    errors = {Path(str(r["cluster"])).name: str(r["error"]) for r in records if "error" in r}
    assert set(errors) == set(EXPECTED_ERRORS)
    for name, what in EXPECTED_ERRORS.items():
        assert what in errors[name], errors[name]
    planned = sorted(Path(str(r["cluster"])).name for r in records if "error" not in r)
    assert planned == [f"cluster-{n:05d}.json" for n in range(GOOD)]
    assert f"{len(EXPECTED_ERRORS)} of {len(records)} clusters could not be planned" in err


def test_a_fifo_or_a_device_given_as_a_cluster_is_refused_without_reading_it(
    hostile: Path,
) -> None:
    for name in ("cluster-00004-fifo.json", "cluster-00008-zero.json"):
        done = subprocess.run(
            [DEPPY, "upgrades", "--cluster", str(hostile / name), "--catalog", COMMUNITY],
            capture_output=True,
            timeout=60,
        )
        assert done.returncode == 2
        assert b", not a file" in done.stderr, done.stderr


def _session_members(session: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getsid(int(entry)) == session:
                    found.append(int(entry))
            except OSError:
                continue  # ended meanwhile
    return found


def _fleet_plan_on_workers(directory: Path, output: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [DEPPY, "fleet", "plan", str(directory), "--catalog", COMMUNITY, "--workers", "2",
         "--batch-size", "2", "-o", output],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip


def test_ctrl_c_on_workers_says_so_in_one_line_and_leaves_no_process(
    tmp_path: Path, source: object
) -> None:
    """As a terminal sends it: SIGINT to the whole process group (the command and the dask
    worker processes it started)."""
    write_fleet(source, tmp_path, BUSY, low=3, high=10)  # type: ignore[arg-type]

    def planning(process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        assert process.stdout.readline()  # the workers are planning

    _interrupted_in_one_line(tmp_path, planning)


def _forkserver_started(session: int) -> bool:
    for pid in _session_members(session):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if b"forkserver" in cmdline.read():
                    return True
        except OSError:
            continue
    return False


@pytest.mark.parametrize("after", [0.0, 0.3, 0.6, 0.9])
def test_ctrl_c_while_the_workers_start_says_so_in_one_line_and_leaves_no_process(
    tmp_path: Path, source: object, after: float
) -> None:
    """Ctrl-C once the workers' forkserver runs, while dask starts its cluster (about a
    second): the cluster once failed to close with a traceback of dask's, and a worker still
    starting died with another."""
    write_fleet(source, tmp_path, BUSY, low=3, high=10)  # type: ignore[arg-type]

    def starting(process: subprocess.Popen[bytes]) -> None:
        deadline = time.monotonic() + 60
        while not _forkserver_started(process.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(after)

    _interrupted_in_one_line(tmp_path, starting)


def test_ctrl_c_half_way_through_a_json_document_writes_none_of_it(
    tmp_path: Path, source: object
) -> None:
    """``-o json`` is one document, written once whole: Ctrl-C while the workers plan left
    its first half (``{"clusters": [`` and the records so far) on stdout (issue 45, item 11)."""
    write_fleet(source, tmp_path, BUSY, low=3, high=10)  # type: ignore[arg-type]

    def planning(process: subprocess.Popen[bytes]) -> None:
        deadline = time.monotonic() + 60
        while not _forkserver_started(process.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(2)  # the cluster up, the first batches planned

    out, err = _interrupted_in_one_line(tmp_path, planning, output="json")
    assert out == b""
    assert "planned, nothing written" in err


def _interrupted_in_one_line(
    directory: Path,
    moment: Callable[[subprocess.Popen[bytes]], None],
    *,
    output: str = "jsonl",
) -> tuple[bytes, str]:
    """``fleet plan`` on workers, SIGINT to its process group at ``moment``: one line, exit
    130, and no process of the group left. Its stdout and stderr."""
    process = _fleet_plan_on_workers(directory, output)
    try:
        moment(process)
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    text = err.decode()
    assert process.returncode == 130, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1 and "fleet plan interrupted" in lines[0], text
    deadline = time.monotonic() + 20
    while _session_members(process.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _session_members(process.pid) == []
    return out, text


def test_a_catalog_directory_skips_such_entries_as_problems(tmp_path: Path) -> None:
    """The same entries in a catalog directory (``catalog diff ''`` once read the current
    directory, and blocked on a FIFO there): each one problem, the rest of the catalog read."""
    catalog = tmp_path / "catalog"
    shutil.copytree(EXAMPLE, catalog)
    os.mkfifo(catalog / "fifo.yaml")
    (catalog / "zero.json").symlink_to("/dev/zero")
    (catalog / "loop.yaml").symlink_to(catalog / "loop.yaml")
    done = subprocess.run(
        [DEPPY, "catalog", "problems", str(catalog)],
        capture_output=True, timeout=60, env={**os.environ, "DEPPY_CACHE": "off"},
    )  # fmt: skip
    out = done.stdout.decode()
    assert "fifo.yaml: is a FIFO (named pipe), not a file; skipped" in out, done.stderr
    assert "zero.json: is a character device, not a file; skipped" in out
    assert "loop.yaml: cannot read: Too many levels of symbolic links; skipped" in out
    done = subprocess.run(
        [DEPPY, "resolve", "--require", "grafana-operator", "--catalog", str(catalog)],
        capture_output=True, timeout=60, env={**os.environ, "DEPPY_CACHE": "off"},
    )  # fmt: skip
    assert done.returncode == 0 and b"grafana-operator" in done.stdout
