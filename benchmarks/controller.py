"""Figures for deppy's controller on a real kube-apiserver (../shared/k8s), community v4.18 loaded.

* create → status: one ActiveResolution at a time, from the create call returning to its status
  carrying the answer (``observedGeneration`` and ``Resolved``), median and max over --repeats;
* a burst: --burst ActiveResolutions created at once (back to back), the time until every one
  is answered, and how many were lost (never answered) or errored (not ``Resolved``);
* the controller's resident memory (VmRSS, and its peak VmHWM) with community loaded, before and
  after the burst.

The control plane, a local HTTP server for the catalog (127.0.0.1) and ``deppy controller`` are
started here and stopped at the end. Requests are bounded: --repeats + --burst objects, polled
every 20 ms.

Usage: python benchmarks/controller.py [--repeats 20] [--burst 100]
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fbc_server import fbc_stream, serve_catalog  # noqa: E402

from deppy.controller.kube import Kube  # noqa: E402
from deppy.controller.runner import api_client  # noqa: E402

SHARED = Path(os.environ.get("DEPPY_SHARED", ROOT.parent / "shared"))
DEPPY = str(Path(sys.executable).with_name("deppy"))
PACKAGES = ["etcd", "prometheus", "grafana-operator", "argocd-operator", "strimzi-kafka-operator"]


def start_cluster() -> dict[str, str]:
    done = subprocess.run(
        ["bash", str(SHARED / "k8s" / "start.sh")],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "K8S_RUN": ""},
        check=True,
    )
    found = {}
    for line in done.stdout.splitlines():
        words = shlex.split(line)
        if len(words) == 2 and words[0] == "export":
            key, _, value = words[1].partition("=")
            found[key] = value
    return found


def kubectl(env: dict[str, str], *args: str, data: str | None = None) -> None:
    subprocess.run(
        [f"{env['K8S_BIN']}/kubectl", f"--kubeconfig={env['KUBECONFIG']}", *args],
        input=data,
        text=True,
        check=True,
        capture_output=True,
    )


def memory(pid: int) -> tuple[float, float]:
    fields = dict(
        line.split(":", 1)
        for line in Path(f"/proc/{pid}/status").read_text().splitlines()
        if ":" in line
    )
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def answered(body: dict[str, Any] | None) -> str | None:
    status = (body or {}).get("status") or {}
    if status.get("observedGeneration") != 1:
        return None
    for condition in status.get("conditions") or ():
        if condition.get("type") == "Resolved":
            return str(condition.get("reason"))
    return None


def ar(name: str, namespace: str, package: str) -> dict[str, Any]:
    return {
        "apiVersion": "deppy.io/v1alpha1",
        "kind": "ActiveResolution",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"sources": ["community"], "constraints": [f'required("{package}")']},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--burst", type=int, default=100)
    args = parser.parse_args()
    env = start_cluster()
    controller: subprocess.Popen[bytes] | None = None
    try:
        for part in ("crds", "objects"):
            text = subprocess.run(
                [DEPPY, "manifests", "--only", part], check=True, capture_output=True, text=True
            ).stdout
            kubectl(env, "apply", "-f", "-", data=text)
            if part == "crds":
                kubectl(env, "wait", "--for", "condition=established", "crd", "--all")
        api = Kube(api_client(env["KUBECONFIG"]))
        stream = fbc_stream(SHARED / "catalogs" / "community-operators-prod-v4.18")
        with serve_catalog(stream) as server, tempfile.TemporaryDirectory() as tmp:
            api.create(
                "catalogs",
                {
                    "apiVersion": "deppy.io/v1alpha1",
                    "kind": "Catalog",
                    "metadata": {"name": "community"},
                    "spec": {"source": {"http": {"url": server.url}}},
                },
            )
            log = Path(tmp) / "controller.log"
            with log.open("wb") as out:
                controller = subprocess.Popen(
                    [
                        DEPPY,
                        "controller",
                        "--kubeconfig",
                        env["KUBECONFIG"],
                        "--health-port",
                        "0",
                        "--standalone",
                    ],
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            started = time.perf_counter()
            while answered_catalog(api) is False:
                time.sleep(0.1)
            print(
                f"community v4.18 loaded over HTTP and Ready: {time.perf_counter() - started:.1f} s"
                f" after the controller started ({len(stream) / 1e6:.0f} MB stream)"
            )
            rss, peak = memory(controller.pid)
            print(f"controller memory with community loaded: RSS {rss:.0f} MB (peak {peak:.0f} MB)")
            kubectl(env, "create", "namespace", "bench")
            times = []
            for n in range(args.repeats):
                begin = time.perf_counter()
                api.create("activeresolutions", ar(f"one-{n}", "bench", PACKAGES[n % 5]), "bench")
                while answered(api.get("activeresolutions", f"one-{n}", "bench")) is None:
                    time.sleep(0.02)
                times.append(time.perf_counter() - begin)
            print(
                f"create -> status, one at a time ({args.repeats}): median "
                f"{statistics.median(times):.3f} s, max {max(times):.3f} s"
            )
            kubectl(env, "create", "namespace", "burst")
            begin = time.perf_counter()
            for n in range(args.burst):
                api.create("activeresolutions", ar(f"b-{n}", "burst", PACKAGES[n % 5]), "burst")
            created = time.perf_counter() - begin
            deadline = time.monotonic() + 300
            reasons: dict[str, str | None] = {}
            while time.monotonic() < deadline:
                reasons = {
                    o["metadata"]["name"]: answered(o)
                    for o in api.list("activeresolutions", "burst")
                }
                if len(reasons) == args.burst and all(reasons.values()):
                    break
                time.sleep(0.1)
            total = time.perf_counter() - begin
            lost = sum(1 for r in reasons.values() if r is None) + args.burst - len(reasons)
            errored = sum(1 for r in reasons.values() if r not in (None, "Resolved"))
            print(
                f"{args.burst} created at once (creating took {created:.2f} s): all answered "
                f"after {total:.2f} s; lost {lost}, errored {errored}"
            )
            rss, peak = memory(controller.pid)
            print(f"controller memory after the burst: RSS {rss:.0f} MB (peak {peak:.0f} MB)")
    finally:
        if controller is not None:
            controller.terminate()
            controller.wait(timeout=60)
        subprocess.run(
            ["bash", str(SHARED / "k8s" / "stop.sh"), env["K8S_RUN"]],
            capture_output=True,
            check=False,
        )
    print(f"machine: {os.cpu_count()} cores; Python {sys.version.split()[0]}")


def answered_catalog(api: Kube) -> bool:
    body = api.get("catalogs", "community") or {}
    return any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in (body.get("status") or {}).get("conditions") or ()
    )


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)
    main()
