"""A normal install works: the wheel holds every file deppy reads at run time, and ``deppy serve``
from a wheel installed outside the checkout serves the web UI (issue 26, group 1).

The wheel is built by setuptools' own PEP 517 backend (what ``pip install .`` and ``pip wheel``
call) from a copy of the sources, and installed with uv (the installer ``make install`` brings,
in .venv-tools) into a fresh virtual environment that borrows only the third-party packages of
the running one: no network, a few seconds.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, free_port

UV = ROOT / ".venv-tools" / "bin" / "uv"
SOURCE = ROOT / "src" / "deppy"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """deppy's wheel, built from a copy of the checkout (the build leaves nothing in it)."""
    tree = tmp_path_factory.mktemp("deppy-source")
    shutil.copy(ROOT / "pyproject.toml", tree)
    shutil.copy(ROOT / "README.md", tree)
    shutil.copytree(
        ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    out = tmp_path_factory.mktemp("deppy-wheel")
    build = "from setuptools import build_meta as b; import sys; print(b.build_wheel(sys.argv[1]))"
    done = subprocess.run(
        [sys.executable, "-c", build, str(out)],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return out / done.stdout.strip().splitlines()[-1]


def test_the_wheel_holds_every_file_of_the_package(wheel: Path) -> None:
    """Not a list of known files: every file under src/deppy but bytecode, so a file added
    later (a template, a schema, a new static asset) cannot be left out unnoticed."""
    wanted = {
        "deppy/" + path.relative_to(SOURCE).as_posix()
        for path in SOURCE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    with zipfile.ZipFile(wheel) as archive:
        shipped = set(archive.namelist())
    assert "deppy/service/static/index.html" in wanted
    assert sorted(wanted - shipped) == []


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin directory of a fresh venv outside the checkout holding deppy from the wheel; its
    dependencies come from the running environment's site-packages (a path in a .pth file,
    whose own .pth files — the checkout's editable deppy among them — are not read)."""
    if not UV.exists():
        pytest.skip(f"{UV} is missing: `make .venv/.installed` brings the installer this test uses")
    venv = tmp_path_factory.mktemp("deppy-installed") / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "borrowed-dependencies.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "VIRTUAL_ENV"))}
    subprocess.run(
        [UV, "pip", "install", "--offline", "--no-deps", "--quiet", "--python", python, wheel],
        check=True,
        timeout=300,
        env=env,
    )
    return venv / "bin"


def _clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "DEPPY_HOME": str(home)}


def test_the_installed_deppy_is_the_wheels(installed: Path, tmp_path: Path) -> None:
    where = subprocess.run(
        [installed / "python", "-c", "import deppy; print(deppy.__file__)"],
        cwd=tmp_path,
        env=_clean_env(tmp_path),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(installed.parent), where


@pytest.fixture
def served(installed: Path, tmp_path: Path) -> Iterator[str]:
    """``deppy serve`` of the installed wheel on a free loopback port, run from a directory
    outside the checkout; stopped (SIGTERM) afterwards."""
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [installed / "deppy", "serve", "--port", str(port), "--reload-interval", "0"],
            cwd=tmp_path,
            env=_clean_env(tmp_path / "home"),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, log.read_text(errors="replace")
            try:
                urllib.request.urlopen(f"{url}/api/v1/healthz", timeout=2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, log.read_text(errors="replace")
                time.sleep(0.2)
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def test_deppy_serve_from_the_wheel_serves_the_web_ui(served: str) -> None:
    with urllib.request.urlopen(f"{served}/", timeout=10) as page:
        html = page.read().decode()
        assert page.status == 200 and page.headers["content-type"].startswith("text/html")
    assert "<title>deppy</title>" in html and "/static/app.css" in html
    for asset in ("app.css", "app.js"):
        with urllib.request.urlopen(f"{served}/static/{asset}", timeout=10) as got:
            assert got.status == 200
            assert got.read() == (SOURCE / "service" / "static" / asset).read_bytes()
    with urllib.request.urlopen(f"{served}/api/v1/catalogs", timeout=10) as catalogs:
        assert b"embedded" in catalogs.read()  # the example catalog: deppy/data ships too
