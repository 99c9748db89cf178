"""Figures for deppy's controller on a real kube-apiserver (../shared/k8s), community v4.18 loaded.

* create → status: one ActiveResolution at a time, from the create call returning to its status
  carrying the answer (``observedGeneration`` and ``Resolved``), median and max over --repeats;
* a burst: --burst ActiveResolutions created at once (back to back), the time until every one
  is answered, and how many were lost (never answered) or errored (not ``Resolved``);
* Inputs applied together: --inputs subscription Inputs created back to back in one namespace
  (one ``kubectl apply``), the time until every one is answered (the namespace's quiet period
  included), and how many resolvesets and pending proposals the unit got (one is the target);
* the controller's resident memory (VmRSS, and its peak VmHWM) with community loaded, before and
  after the burst.

The control plane, a local HTTP server for the catalog (127.0.0.1) and ``deppy controller`` are
started here, as the controller tests start them (tests/kube.py, tests/controller_env.py), and
stopped at the end. Requests are bounded: --repeats + --burst objects, polled
every 20 ms.

Usage: python benchmarks/controller.py [--repeats 20] [--burst 100] [--inputs 10]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.controller_env import (  # noqa: E402
    catalog_object,
    client,
    condition,
    install,
    run_controller,
)
from tests.fbc_server import fbc_stream, serve_catalog  # noqa: E402
from tests.kube import KubeCluster, start_cluster  # noqa: E402

from deppy.controller.kube import Kube  # noqa: E402

SHARED = Path(os.environ.get("DEPPY_SHARED", ROOT.parent / "shared"))
PACKAGES = ["etcd", "prometheus", "grafana-operator", "argocd-operator", "strimzi-kafka-operator"]


def memory(pid: int) -> tuple[float, float]:
    fields = dict(
        line.split(":", 1)
        for line in Path(f"/proc/{pid}/status").read_text().splitlines()
        if ":" in line
    )
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def answered(body: dict[str, Any] | None) -> str | None:
    if ((body or {}).get("status") or {}).get("observedGeneration") != 1:
        return None
    found = condition(body, "Resolved")
    return str(found.get("reason")) if found is not None else None


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
    parser.add_argument("--inputs", type=int, default=10)
    args = parser.parse_args()
    with (
        contextmanager(start_cluster)(SHARED) as kube,
        tempfile.TemporaryDirectory() as tmp,
    ):
        install(kube)
        api = client(kube)
        stream = fbc_stream(SHARED / "catalogs" / "community-operators-prod-v4.18")
        with serve_catalog(stream) as server:
            api.create("catalogs", catalog_object("community", {"http": {"url": server.url}}))
            log = Path(tmp) / "controller.log"
            started = time.perf_counter()
            with run_controller(kube, log, "--standalone") as controller:
                while not ready(api):
                    time.sleep(0.1)
                print(
                    f"community v4.18 loaded over HTTP and Ready: "
                    f"{time.perf_counter() - started:.1f} s after the controller started "
                    f"({len(stream) / 1e6:.0f} MB stream)"
                )
                measure(api, kube, controller.process.pid, args.repeats, args.burst)
                measure_inputs(api, kube, args.inputs)
    print(f"machine: {os.cpu_count()} cores; Python {sys.version.split()[0]}")


def measure(api: Kube, kube: KubeCluster, pid: int, repeats: int, burst: int) -> None:
    rss, peak = memory(pid)
    print(f"controller memory with community loaded: RSS {rss:.0f} MB (peak {peak:.0f} MB)")
    kube.kubectl("create", "namespace", "bench")
    times = []
    for n in range(repeats):
        begin = time.perf_counter()
        api.create("activeresolutions", ar(f"one-{n}", "bench", PACKAGES[n % 5]), "bench")
        while answered(api.get("activeresolutions", f"one-{n}", "bench")) is None:
            time.sleep(0.02)
        times.append(time.perf_counter() - begin)
    print(
        f"create -> status, one at a time ({repeats}): median "
        f"{statistics.median(times):.3f} s, max {max(times):.3f} s"
    )
    kube.kubectl("create", "namespace", "burst")
    begin = time.perf_counter()
    for n in range(burst):
        api.create("activeresolutions", ar(f"b-{n}", "burst", PACKAGES[n % 5]), "burst")
    created = time.perf_counter() - begin
    deadline = time.monotonic() + 300
    reasons: dict[str, str | None] = {}
    while time.monotonic() < deadline:
        reasons = {
            o["metadata"]["name"]: answered(o) for o in api.list("activeresolutions", "burst")
        }
        if len(reasons) == burst and all(reasons.values()):
            break
        time.sleep(0.1)
    total = time.perf_counter() - begin
    lost = sum(1 for r in reasons.values() if r is None) + burst - len(reasons)
    errored = sum(1 for r in reasons.values() if r not in (None, "Resolved"))
    print(
        f"{burst} created at once (creating took {created:.2f} s): all answered "
        f"after {total:.2f} s; lost {lost}, errored {errored}"
    )
    rss, peak = memory(pid)
    print(f"controller memory after the burst: RSS {rss:.0f} MB (peak {peak:.0f} MB)")


INPUT_PACKAGES = [
    "etcd",
    "keda",
    "kuadrant-operator",
    "prometheus",
    "grafana-operator",
    "argocd-operator",
    "strimzi-kafka-operator",
    "cert-manager",
    "jaeger",
    "opentelemetry-operator",
    "redis-operator",
    "mariadb-operator",
]


def measure_inputs(api: Kube, kube: KubeCluster, count: int) -> None:
    kube.kubectl("create", "namespace", "together")
    packages = INPUT_PACKAGES[:count]
    begin = time.perf_counter()
    for package in packages:
        body = {
            "apiVersion": "deppy.io/v1alpha1",
            "kind": "Input",
            "metadata": {"name": package, "namespace": "together"},
            "spec": {
                "constraints": [
                    {"type": "olm.catalog", "value": {"name": "community", "package": package}}
                ]
            },
        }
        api.create("inputs", body, "together")
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        found = {o["metadata"]["name"]: answered(o) for o in api.list("inputs", "together")}
        if all(found.get(p) for p in packages):
            break
        time.sleep(0.05)
    total = time.perf_counter() - begin
    time.sleep(5)  # what the dependencies' generated Inputs bring, then count
    instances = api.list("instances", "together", labels="deppy.io/unit=subscription")
    pending = [i for i in instances if (condition(i, "Superseded") or {}).get("status") != "True"]
    print(
        f"{count} Inputs created at once: all answered after {total:.2f} s (quiet period "
        f"included); resolvesets {len(instances)}, pending proposals {len(pending)}"
    )


def ready(api: Kube) -> bool:
    found = condition(api.get("catalogs", "community"), "Ready")
    return found is not None and found["status"] == "True"


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)
    main()
