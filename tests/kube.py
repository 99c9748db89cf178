"""A real Kubernetes API server for the cluster and controller tests (../shared/k8s).

One control plane per test session (kube-apiserver 1.20 + etcd + kube-controller-manager for
namespace deletion and garbage collection), started by ``start.sh`` and always stopped by
``stop.sh``. Tests that need it take the ``kube`` fixture; without ``../shared/k8s`` (and without
``DEPPY_TEST_KUBECONFIG`` naming a throw-away cluster) they skip with a message. A user's own
``KUBECONFIG`` is never used: the tests create CRDs and namespaces.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

TEST_KUBECONFIG = "DEPPY_TEST_KUBECONFIG"


def skip_test(message: str) -> NoReturn:
    """pytest's skip in a test; outside pytest (benchmarks/soak.py, after ``make install``,
    which brings no test tool), the message and exit status 2."""
    if "pytest" not in sys.modules:
        raise SystemExit(f"cannot run: {message}")
    import pytest

    pytest.skip(message)


def fail_test(message: str) -> NoReturn:
    """pytest's fail in a test (no traceback of this helper); outside pytest, the message and
    exit status 2."""
    if "pytest" not in sys.modules:
        raise SystemExit(f"failed: {message}")
    import pytest

    pytest.fail(message, pytrace=False)


@dataclass(frozen=True)
class KubeCluster:
    """Where the test API server is: its kubeconfig, and the matching kubectl (if shipped)."""

    kubeconfig: Path
    kubectl_path: Path | None
    run_dir: Path | None

    def kubectl(self, *args: str, input: str | None = None, check: bool = True) -> str:
        """Run kubectl against the test server; returns stdout, fails the test on error."""
        if self.kubectl_path is None:
            skip_test("no kubectl beside the test cluster")
        done = subprocess.run(
            [str(self.kubectl_path), f"--kubeconfig={self.kubeconfig}", *args],
            input=input,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=None if input is not None else subprocess.DEVNULL,
        )
        if check and done.returncode != 0:
            fail_test(f"kubectl {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    def new_namespace(self, prefix: str = "t") -> str:
        """A fresh namespace for one test (deleted with the server at the end of the session)."""
        name = f"{prefix}-{uuid.uuid4().hex[:8]}"
        self.kubectl("create", "namespace", name)
        return name


def start_cluster(shared: Path) -> Iterator[KubeCluster]:
    """Start ../shared/k8s for the session, or use DEPPY_TEST_KUBECONFIG; else skip."""
    given = os.environ.get(TEST_KUBECONFIG)
    if given:
        yield KubeCluster(Path(given), None, None)
        return
    start, stop = shared / "k8s" / "start.sh", shared / "k8s" / "stop.sh"
    if not start.exists():
        skip_test(
            f"no test cluster: {start} is missing and {TEST_KUBECONFIG} is not set "
            "(CI provides ../shared/k8s)"
        )
    done = subprocess.run(
        ["bash", str(start)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
        env={**os.environ, "K8S_RUN": ""},
    )
    if done.returncode != 0:
        fail_test(f"../shared/k8s/start.sh failed:\n{done.stderr[-4000:]}")
    exports: dict[str, str] = {}
    for line in done.stdout.splitlines():
        words = shlex.split(line)
        if len(words) == 2 and words[0] == "export" and "=" in words[1]:
            key, _, value = words[1].partition("=")
            exports[key] = value
    run_dir = Path(exports["K8S_RUN"])
    saved = os.environ.get("KUBECONFIG")
    os.environ["KUBECONFIG"] = exports["KUBECONFIG"]
    try:
        kubectl = Path(exports["K8S_BIN"]) / "kubectl"
        yield KubeCluster(
            Path(exports["KUBECONFIG"]), kubectl if kubectl.exists() else None, run_dir
        )
    finally:
        if saved is None:
            os.environ.pop("KUBECONFIG", None)
        else:
            os.environ["KUBECONFIG"] = saved
        _stop(stop, run_dir)


def _stop(stop: Path, run_dir: Path) -> None:
    """``stop.sh``; if it has not finished in 5 minutes (a very busy machine), the processes
    it records are killed, so that no server outlives the session and teardown never fails."""
    try:
        subprocess.run(
            ["bash", str(stop), str(run_dir)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=300,
        )
    except subprocess.TimeoutExpired:
        for pid_file in run_dir.glob("*.pid"):
            with contextlib.suppress(ValueError, OSError):
                pid = int(pid_file.read_text().split()[0])
                # as stop.sh: only a process whose command line names the run directory
                if str(run_dir).encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                    os.kill(pid, signal.SIGKILL)
