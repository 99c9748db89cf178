"""The README's five most common tasks run as written, from a fresh clone after ``make install``
(issue 40: task 4 named an ``exports/`` nothing created and a catalog nothing stored), and the
site's home page shows the same five tasks."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.conftest import shared_path
from tests.docs_pages import ROOT, page
from tests.ports import free_port

SECTION = re.compile(r"^## The five most common tasks\n(.*?)^(?:And to run deppy|## )", re.M | re.S)
COMMAND = re.compile(r"^    ```sh\n    (.*?)\n    ```", re.M)  # 4 spaces: in the list item
OLM_V1_REFUSES_PART = 3  # task 2's plan: OLM v1 would refuse one ClusterExtension as written


def _tasks(text: str) -> str:
    found = SECTION.search(text)
    assert found is not None
    return found.group(1)


def _commands() -> list[str]:
    return COMMAND.findall(_tasks((ROOT / "README.md").read_text(encoding="utf-8")))


def _clone(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A checkout's files (src/, tests/, examples/) with ../shared beside it, an empty store,
    and ``deppy`` on PATH as ``source .venv/bin/activate`` puts it."""
    clone = tmp_path / "deppy"
    clone.mkdir()
    for folder in ("src", "tests", "examples"):
        (clone / folder).symlink_to(ROOT / folder)
    (tmp_path / "shared").symlink_to(shared_path())
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "DEPPY_HOME": str(tmp_path / "home"),
    }
    return clone, env


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def test_the_site_home_page_shows_the_readme_tasks() -> None:
    readme = _tasks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert _tasks(page("index.md")) == readme.replace("](docs/", "](")


def test_each_of_the_five_tasks_runs_as_written(tmp_path: Path) -> None:
    clone, env = _clone(tmp_path)
    *one_shot, serve = _commands()
    assert len(one_shot) == 4 and serve.startswith("deppy serve ")
    for command in one_shot:
        done = subprocess.run(["bash", "-c", command], cwd=clone, env=env, capture_output=True,
                              text=True, timeout=300)  # fmt: skip
        assert done.returncode in (0, OLM_V1_REFUSES_PART), f"$ {command}\n{done.stderr}"
        assert done.stdout or "> " in command, command
    report = (clone / "fleet.html").read_text(encoding="utf-8")
    assert "Blockers per package (OpenShift 4.20)" in report
    _serves_its_page(serve, clone, env)


def _serves_its_page(command: str, clone: Path, env: dict[str, str]) -> None:
    """``deppy serve --port 8080`` answers its web UI at / (on another free port when 8080 is
    taken on this machine), then stops on Ctrl-C."""
    port = int(command.rsplit(" ", 1)[1])
    if not _port_free(port):
        port = free_port()
        command = command.replace(f"--port {command.rsplit(' ', 1)[1]}", f"--port {port}")
    process = subprocess.Popen(command.split(), cwd=clone, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert process.stderr is not None
        for line in process.stderr:
            if "serving on" in line:
                break
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as answer:
            assert answer.status == 200
            assert b"<title>deppy" in answer.read()
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)


def test_the_documented_port_0_line_is_the_one_serve_logs(tmp_path: Path) -> None:
    documented = " ".join(page("service/index.md").split())
    shown = re.search(r"`--port 0` logs the port the system chose, after the time \(`(.*?)`\)",
                      documented)  # fmt: skip
    assert shown is not None
    process = subprocess.Popen(
        [str(Path(sys.executable).with_name("deppy")), "serve", "--port", "0"],
        env={**os.environ, "DEPPY_HOME": str(tmp_path)},
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    try:
        line = next(line for line in process.stderr if "serving on" in line)
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)
    real = re.sub(r"^\S+ \S+ ", "", line.strip())  # after the date and time
    assert re.sub(r":\d+/", ":41234/", real) == shown.group(1)
