"""A running ``deppy serve`` reloads its catalogs when the store's catalogs change, never when
another command only reads them (issue 40: "any CLI command that reads the store makes a
running deppy serve reload every catalog" — 16 reloads in 3 minutes, each ~1 s of CPU)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.conftest import shared_path

DEPPY = str(Path(sys.executable).with_name("deppy"))
ETCD = shared_path("catalogs", "community-operators-prod-v4.18", "etcd")
LOOK = 0.2  # seconds between the server's looks for a change


class _Server:
    """``deppy serve`` over the store in ``home``, its log gathered as it is written."""

    def __init__(self, home: Path, *args: str) -> None:
        self.env = {**os.environ, "DEPPY_HOME": str(home)}
        self.process = subprocess.Popen(
            [DEPPY, "serve", "--port", "0", "--reload-interval", str(LOOK), *args],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        self.serving = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        assert self.serving.wait(60), self.log

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            if "serving on" in line:
                self.serving.set()

    @property
    def log(self) -> str:
        return "".join(self.lines)

    def reloads(self) -> int:
        return sum("catalogs reloaded" in line for line in self.lines)

    def deppy(self, *args: str) -> None:
        done = subprocess.run([DEPPY, *args], env=self.env, capture_output=True, text=True)
        assert done.returncode == 0, (args, done.stderr)

    def settle(self) -> None:
        """Long enough for several looks (and a reload, if one is coming) to happen."""
        time.sleep(LOOK * 8)

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=30)


def _added(home: Path, tmp_path: Path, name: str) -> None:
    catalog = tmp_path / name
    shutil.copytree(ETCD, catalog / "etcd")
    added = subprocess.run(
        [DEPPY, "catalog", "add", name, str(catalog)],
        env={**os.environ, "DEPPY_HOME": str(home)},
        capture_output=True,
        text=True,
    )
    assert added.returncode == 0, added.stderr


def test_reads_never_reload_and_each_change_reloads_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _added(home, tmp_path, "hub")
    server = _Server(home)
    try:
        for _ in range(2):
            server.deppy("search", "etcd", "-q")
            server.deppy("show", "etcd")
            server.deppy("resolve", "--require", "etcd", "-o", "json")
            server.deppy("catalog", "list")
        server.settle()
        assert server.reloads() == 0, server.log
        _added(home, tmp_path, "second")
        server.settle()
        assert server.reloads() == 1, server.log
        assert "second" in server.log
        server.deppy("catalog", "remove", "second")
        server.settle()
        assert server.reloads() == 2, server.log
    finally:
        server.stop()


def test_a_server_of_named_catalogs_reloads_when_one_is_refreshed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _added(home, tmp_path, "hub")
    server = _Server(home, "--catalog", "hub")
    try:
        server.deppy("search", "etcd", "-q")
        server.deppy("catalog", "refresh", "hub")  # nothing changed: nothing written
        server.settle()
        assert server.reloads() == 0, server.log
        (tmp_path / "hub" / "etcd" / "more.json").write_text(
            '{"schema": "olm.package", "name": "more"}\n'
        )
        server.deppy("catalog", "refresh", "hub")
        server.settle()
        assert server.reloads() == 1, server.log
    finally:
        server.stop()
