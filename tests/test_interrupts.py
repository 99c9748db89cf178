"""Ctrl-C and SIGTERM on any command (issue 40): one line, exit 130 (143 for SIGTERM), no
process left and nothing half-written; ``deppy serve`` stops as servers do. Real processes,
signalled as a terminal signals them (the whole process group), while they work: each command
reads the community catalog with the parse cache off, about a second of CPU. A fixed sleep
before the signal raced fast machines (CI's ``show`` had answered before it came), so the
group is stopped once it has worked a while, signalled, and let go: the signal is then
delivered mid-work on any machine."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import shared_path
from tests.service_support import serve_started

COMMUNITY = str(shared_path("catalogs", "community-operators-prod-v4.18"))
DEPPY = str(Path(sys.executable).parent / "deppy")
WORKING = 0.3  # CPU seconds into a command that reads COMMUNITY for about 1 s of CPU


def _stopped(args: list[str], home: Path, how: signal.Signals) -> tuple[int, str]:
    """``deppy ARGS`` signalled while it works; its exit status and stderr, once neither it nor
    a process it started is left."""
    process = subprocess.Popen(
        [DEPPY, *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "DEPPY_HOME": str(home), "DEPPY_CACHE": "off"},
        start_new_session=True,
    )
    try:
        _stop_while_working(process)
        os.killpg(process.pid, how)
        os.killpg(process.pid, signal.SIGCONT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert _group_ends(process.pid), f"a process of deppy {args[0]} outlived it"
    return process.returncode, err.decode()


def _stop_while_working(process: subprocess.Popen[bytes]) -> None:
    """SIGSTOP the process group once it has used WORKING seconds of CPU, still working."""
    deadline = time.monotonic() + 60
    while _group_cpu(process.pid) < WORKING:
        assert process.poll() is None, "deppy answered before it had worked: nothing to interrupt"
        assert time.monotonic() < deadline, "deppy did not start working within 60 s"
        time.sleep(0.005)
    os.killpg(process.pid, signal.SIGSTOP)
    assert process.poll() is None, "deppy answered before it could be stopped"


def _group_cpu(group: int) -> float:
    """CPU seconds used by the processes of GROUP alive now, and the children they reaped."""
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group:  # pgrp; utime, stime, cutime, cstime follow at 11..14
            ticks += sum(int(value) for value in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def _group_ends(group: int, within: float = 20.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


COMMANDS = {
    "resolve": ["resolve", "--require", "etcd", "--catalog", COMMUNITY],
    "show": ["show", "etcd", "--catalog", COMMUNITY],
    "catalog problems": ["catalog", "problems", COMMUNITY],
    "catalog add": ["catalog", "add", "community", COMMUNITY],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_ctrl_c_says_so_in_one_line_and_exits_130(tmp_path: Path, command: str) -> None:
    """Not click's "Aborted!" and exit 1, which is the code for "no answer"."""
    code, err = _stopped(COMMANDS[command], tmp_path / "home", signal.SIGINT)
    assert (code, err) == (130, "deppy: interrupted\n")


def test_sigterm_says_so_in_one_line_and_exits_143(tmp_path: Path) -> None:
    code, err = _stopped(COMMANDS["resolve"], tmp_path / "home", signal.SIGTERM)
    assert (code, err) == (143, "deppy: terminated\n")


def test_an_interrupted_catalog_add_stores_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    code, _ = _stopped(COMMANDS["catalog add"], home, signal.SIGINT)
    assert code == 130
    listed = subprocess.run(
        [DEPPY, "catalog", "list", "-o", "json"],
        capture_output=True,
        env={**os.environ, "DEPPY_HOME": str(home)},
        timeout=60,
    )
    assert listed.returncode == 0, listed.stderr
    assert b"community" not in listed.stdout


def _serving(home: Path) -> tuple[subprocess.Popen[str], list[str]]:
    """``deppy serve`` once ``/api/v1/healthz`` answers, and the log lines it wrote until then."""
    process, lines, url = serve_started(home)
    with urllib.request.urlopen(f"{url}api/v1/healthz", timeout=10) as answer:
        assert answer.status == 200
    return process, lines


@pytest.mark.parametrize(
    ("how", "status"),
    [(signal.SIGTERM, 0), (signal.SIGINT, 130)],
    ids=["SIGTERM: a supervisor's stop, exit 0", "SIGINT: Ctrl-C, exit 130"],
)
def test_serve_stops_cleanly(tmp_path: Path, how: signal.Signals, status: int) -> None:
    process, lines = _serving(tmp_path / "home")
    try:
        process.send_signal(how)
        rest, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    log = "".join(lines) + rest
    assert process.returncode == status, log
    assert rest.splitlines()[-1].endswith(f"INFO deppy.service: stopped ({how.name})"), log
    assert "Traceback" not in log and "Aborted" not in log, log
