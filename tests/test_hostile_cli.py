"""The command line's doors under the seventh campaign (issue 45): standard input under
``--timeout``, float options that are not numbers, ``-`` for a trace or a cluster, a command
that fails leaving nothing on stdout, and click's usage errors in deppy's one line."""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from benchmarks.fleet_exports import write_fleet

from deppy.resolution.request_parsing import parse_catalog
from deppy.workflows.catalog_loading import load_catalogs
from tests.test_hostile_input import DATA, deppy, refused
from tests.test_store_support import DEPPY


def silent_writer() -> subprocess.Popen[bytes]:
    """A writer that keeps its end of the pipe open and says nothing for a minute."""
    return subprocess.Popen(["sleep", "60"], stdout=subprocess.PIPE)


# -- 4. --timeout covers reading standard input ------------------------------------------------


@pytest.mark.parametrize("args", [("resolve", "-f", "-"), ("solve", "-")], ids=lambda a: a[0])
def test_a_silent_writer_on_standard_input_ends_at_the_deadline(
    args: tuple[str, ...], tmp_path: Path
) -> None:
    writer = silent_writer()
    try:
        started = time.monotonic()
        result = subprocess.run(
            [*DEPPY, *args, "--timeout", "1"],
            stdin=writer.stdout,
            env=dict(os.environ, DEPPY_HOME=str(tmp_path)),
            capture_output=True,
            text=True,
            timeout=50,
        )
        took = time.monotonic() - started
    finally:
        writer.kill()
        writer.wait()
    refused(result, "--timeout 1: the command did not finish in time")
    assert took < 40, took  # the writer would have held it 60 s
    assert result.stdout == ""


def test_at_a_terminal_deppy_says_it_reads_standard_input(tmp_path: Path) -> None:
    """`deppy solve -` typed at a prompt waits for the user: stderr says so, and Ctrl-D (the
    end of the terminal's input) ends the waiting."""
    request = DATA / "request.yaml"
    leader, follower = pty.openpty()
    try:
        command = subprocess.Popen(
            [*DEPPY, "resolve", "-f", "-", "--timeout", "60"],
            stdin=follower,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(os.environ, DEPPY_HOME=str(tmp_path)),
            cwd=request.parent,
        )
        os.write(leader, request.read_bytes().replace(b"\n", b"\r") + b"\r\x04")
        out, err = command.communicate(timeout=60)
    finally:
        os.close(leader)
        os.close(follower)
    assert "deppy: reading the file from standard input (Ctrl-D ends it)" in err.decode()
    assert command.returncode == 0, err.decode()
    assert b"webapp" in out


# -- 5. float options: NaN and infinities are refused at the option ----------------------------


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("resolve", "--require", "x", "--registry-timeout"), "--registry-timeout"),
        (("serve", "--deadline"), "--deadline"),
        (("serve", "--reload-interval"), "--reload-interval"),
        (("solve", "x.json", "--timeout"), "--timeout"),
        (("resolve", "--require", "x", "--timeout"), "--timeout"),
    ],
    ids=lambda a: a if isinstance(a, str) else a[0],
)
@pytest.mark.parametrize("value", ["nan", "NaN", "-nan", "inf", "-inf"])
def test_every_float_option_refuses_nan_and_infinity(
    args: tuple[str, ...], option: str, value: str, tmp_path: Path
) -> None:
    error = refused(deppy(*args, value, home=tmp_path), option, repr(value), "finite")
    assert error.startswith("deppy: error: ") and len(error.splitlines()) == 1


def test_a_usage_mistake_is_one_line(tmp_path: Path) -> None:
    """Nothing to resolve, an unknown option or command: deppy's one line, not click's block."""
    for args, words in [
        (("resolve",), "nothing to resolve"),
        (("resolve", "--bogus"), "--bogus"),
        (("--bogus",), "--bogus"),
        (("catalog", "add"), "NAME"),
    ]:
        error = refused(deppy(*args, home=tmp_path), words)
        assert error.startswith("deppy: error: ") and len(error.splitlines()) == 1, error
        assert "Usage:" not in error


# -- 11. no writable temporary directory: one line, nothing on stdout --------------------------


def test_fleet_plan_without_a_writable_temporary_directory(tmp_path: Path) -> None:
    """As under ``docker run --read-only``: every directory read-only (bubblewrap binds the
    root read-only) and TMPDIR naming a missing one. The embedded dask cluster cannot start:
    one line asking for a writable TMPDIR, exit 2, and no half JSON document on stdout."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        pytest.skip("bubblewrap (bwrap) is not installed: it makes the read-only root")
    fleet = tmp_path / "fleet"
    fleet.mkdir()
    write_fleet(load_catalogs([parse_catalog(str(DATA / "apps"))]), fleet, 2, low=1, high=1)
    sandbox = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    sandbox += ["--chdir", str(tmp_path), "--setenv", "TMPDIR", str(tmp_path / "missing")]
    sandbox += ["--setenv", "DEPPY_HOME", str(tmp_path / "home")]
    probe = subprocess.run([*sandbox, "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"bubblewrap cannot make a sandbox here: {probe.stderr.strip()}")
    plan = ["fleet", "plan", str(fleet), "--catalog", str(DATA / "apps"), "--workers", "1"]
    result = subprocess.run(
        [*sandbox, *DEPPY, *plan, "-o", "json"], capture_output=True, text=True, timeout=120
    )
    refused(result, "TMPDIR", "writable temporary directory")
    assert result.stdout == "" and len(result.stderr.splitlines()) == 1, result.stderr
    in_process = subprocess.run(
        [*sandbox, *DEPPY, *plan[:-1], "0", "-o", "json"], capture_output=True, timeout=120
    )
    assert in_process.returncode == 0, in_process.stderr[-2000:]
    assert json.loads(in_process.stdout)["summary"]["planned"] == 2


# -- 7. `-`: standard input where it is read, refused where it would be written ----------------


def test_trace_dash_is_refused_and_writes_no_file(tmp_path: Path) -> None:
    """The answer goes to standard output: a trace there would be mixed into it. ``--trace
    -`` wrote a file named ``-``; now one line, before anything runs, and no file."""
    for args in (
        ("resolve", "--catalog", str(DATA / "apps"), "--require", "webapp"),
        ("replay", str(tmp_path / "run.jsonl")),
    ):
        result = subprocess.run(
            [*DEPPY, *args, "--trace", "-"],
            env=dict(os.environ, DEPPY_HOME=str(tmp_path / "home")),
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        error = refused(result, "--trace", "standard output carries the answer")
        assert len(error.splitlines()) == 1 and result.stdout == ""
        assert not (tmp_path / "-").exists()


def test_cluster_dash_reads_standard_input_once(tmp_path: Path) -> None:
    """``--cluster -`` reads the export from standard input, as ``-f -`` reads a request: the
    same answer as from the file. Both at once cannot share one pipe: one line."""
    fleet = tmp_path / "fleet"
    fleet.mkdir()
    write_fleet(load_catalogs([parse_catalog(str(DATA / "apps"))]), fleet, 1, low=1, high=1)
    export = next(fleet.iterdir())
    upgrades = ("upgrades", "--catalog", str(DATA / "apps"), "-o", "json", "--cluster")
    env = dict(os.environ, DEPPY_HOME=str(tmp_path / "home"))
    from_file = deppy(*upgrades, str(export), home=tmp_path / "home")
    from_pipe = subprocess.run(
        [*DEPPY, *upgrades, "-"], input=export.read_text(), env=env, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert from_file.returncode == from_pipe.returncode == 0, from_pipe.stderr
    assert json.loads(from_pipe.stdout) == json.loads(from_file.stdout)
    both = subprocess.run(
        [*DEPPY, "resolve", "-f", "-", "--cluster", "-", "--catalog", str(DATA / "apps")],
        input=export.read_text(), env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    refused(both, "standard input is read as")
    assert len(both.stderr.splitlines()) == 1


def test_fleet_plan_dash_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "-").write_text("not a cluster")  # a file named -: still not read as one
    result = subprocess.run(
        [*DEPPY, "fleet", "plan", "-", "--catalog", str(DATA / "apps"), "--workers", "0"],
        env=dict(os.environ, DEPPY_HOME=str(tmp_path / "home")),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    refused(result, "a fleet is not read from standard input")
    assert len(result.stderr.splitlines()) == 1 and result.stdout == ""


# -- 17. messages ------------------------------------------------------------------------------


def test_a_corrected_channel_is_the_one_the_why_line_names(tmp_path: Path) -> None:
    catalogs = ("--catalog", str(DATA / "apps"), "--catalog", str(DATA / "infra"))
    result = deppy("resolve", "--installed", "webapp@1.0.0,channel=stabel", *catalogs,
                   home=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "channel stabel; using stable" in " ".join(result.stderr.split())
    assert "why: installed: webapp 1.0.0 (channel stable)" in result.stdout
    assert "stabel" not in result.stdout


def test_a_misspelt_package_suggests_searching_for_the_correction(tmp_path: Path) -> None:
    result = deppy("upgrades", "--installed", "webap@1.0.0", "--catalog", str(DATA / "apps"),
                   home=tmp_path)  # fmt: skip
    refused(result, "did you mean webapp? try deppy search webapp")
    assert "search webap\n" not in result.stderr


def test_a_misspelt_catalog_directory_offers_its_neighbours(tmp_path: Path) -> None:
    """``…-v4.81`` for ``…-v4.18``: the directories beside it spelt almost the same."""
    (tmp_path / "catalogs" / "community-operators-prod-v4.18").mkdir(parents=True)
    (tmp_path / "catalogs" / "redhat-operator-index-v4.18").mkdir()
    missing = tmp_path / "catalogs" / "community-operators-prod-v4.81"
    for args in (
        ("resolve", "--require", "webapp", "--catalog", str(missing)),
        ("fleet", "plan", str(tmp_path), "--catalog", str(missing)),
    ):
        error = refused(deppy(*args, home=tmp_path / "home"), "catalog not found")
        assert f"did you mean {missing.parent}/community-operators-prod-v4.18?" in error
        assert "redhat" not in error and len(error.splitlines()) == 1
