"""A kubeconfig that cannot be used is one line and exit 2, from every command that reads one
(issue 26, group 15): ``resolve --kubeconfig`` and ``cluster export`` said so already; the
controller (and ``approve``) printed the kubernetes client's traceback. One mechanism says it
for all of them: ``deppy.cluster.live.kube_configuration``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

DEPPY = str(Path(sys.executable).with_name("deppy"))
KUBECONFIGS = {
    "empty": b"",
    "blank lines": b"\n\n",
    "not YAML": b"{[: nope\n\t",
    "a list": b"- a\n- b\n",
    "no contexts": b"apiVersion: v1\nkind: Config\nclusters: []\n",
    "wrong types": b"apiVersion: v1\nkind: Config\ncurrent-context: x\ncontexts: 5\n",
    "not UTF-8": b"\xff\xfe\x00k",
}
COMMANDS = {
    "controller": ["controller", "--health-port", "0"],
    "cluster export": ["cluster", "export"],
    "resolve --kubeconfig": ["resolve", "--require", "etcd"],
    "approve": ["approve", "-n", "default", "some-instance"],
}


def deppy(home: Path, argv: list[str], kubeconfig: Path | None) -> subprocess.CompletedProcess[str]:
    """The command with no kubeconfig but the one given: an empty HOME, no $KUBECONFIG, not in
    a pod (where the controller would read the service account)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT")
    }
    env.update(HOME=str(home), DEPPY_HOME=str(home / "deppy"))
    where = [] if kubeconfig is None else ["--kubeconfig", str(kubeconfig)]
    return subprocess.run(
        [DEPPY, *argv, *where],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def one_line(done: subprocess.CompletedProcess[str], *named: str) -> None:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr[-2000:]
    assert len(lines) == 1 and lines[0].startswith("deppy: error: "), done.stderr[-2000:]
    for text in named:
        assert text in lines[0], lines[0]


@pytest.mark.parametrize("command", ["controller", "cluster export"])  # the others: the same call
@pytest.mark.parametrize("content", KUBECONFIGS)
def test_an_unusable_kubeconfig_is_one_line(command: str, content: str, tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_bytes(KUBECONFIGS[content])
    one_line(deppy(tmp_path, COMMANDS[command], kubeconfig), str(kubeconfig))


@pytest.mark.parametrize("command", COMMANDS)
def test_a_missing_kubeconfig_is_one_line(command: str, tmp_path: Path) -> None:
    one_line(deppy(tmp_path, COMMANDS[command], tmp_path / "missing"), "missing")
    if command != "resolve --kubeconfig":  # reads a live cluster only when given one
        one_line(deppy(tmp_path, COMMANDS[command], None), "kubeconfig")
