"""Load on a warm ``deppy serve``: 8 concurrent clients for 2 minutes on 127.0.0.1.

Starts ``deppy serve`` (a child process) over a store holding community-operators-prod-v4.18,
warms it, then runs clients that mix resolves of one package (the figure the goals are about),
searches and package pages, with oversize (413), malformed (400/422) and slow requests (a body
trickled in over a second, and a heavy resolution cut by its deadline: 503) mixed in. Prints
throughput, p50/p99 per kind, unexpected answers (errors) and the server's RSS.
Goals: 0 errors; resolve p50 <= 30 ms, p99 <= 150 ms; RSS <= 400 MB.
Usage: python benchmarks/service_load.py [--seconds 120] [--clients 8] [--store DIR]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT.parent / "shared" / "catalogs" / "community-operators-prod-v4.18"
PACKAGES = [
    "etcd",
    "kuadrant-operator",
    "project-quay",
    "keycloak-operator",
    "hive-operator",
    "opentelemetry-operator",
    "strimzi-kafka-operator",
    "cert-manager",
    "grafana-operator",
    "prometheus",
]
TERMS = ["redis", "kafka", "etcd", "database", "monitoring", "cert"]
EXPECTED = {
    "resolve": {200},
    "search": {200},
    "package": {200},
    "oversize": {413},
    "malformed": {400, 422},
    "slow-body": {200},
    "deadline": {503},
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def body(package: str) -> bytes:
    return json.dumps({"spec": {"constraints": [f'required("{package}")']}}).encode()


def request(port: int, kind: str, rng: random.Random) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        json_type = {"Content-Type": "application/json"}
        if kind == "resolve":
            conn.request("POST", "/api/v1/resolve", body(rng.choice(PACKAGES)), json_type)
        elif kind == "search":
            conn.request("GET", f"/api/v1/packages?q={rng.choice(TERMS)}")
        elif kind == "package":
            conn.request("GET", f"/api/v1/packages/{rng.choice(PACKAGES)}")
        elif kind == "oversize":
            conn.request("POST", "/api/v1/resolve", b" " * (2 * 1024 * 1024), json_type)
        elif kind == "malformed":
            bad = rng.choice(
                [
                    b"{nope",
                    b'{"spec": {"constraints": [42]}}',
                    b'{"spec": {"constraints": ["required(a, \\">=1 <\\")"]}}',
                ]
            )
            conn.request("POST", "/api/v1/resolve", bad, json_type)
        elif kind == "slow-body":
            data = body("etcd")
            conn.putrequest("POST", "/api/v1/resolve")
            conn.putheader("Content-Type", "application/json")
            conn.putheader("Content-Length", str(len(data)))
            conn.endheaders()
            for n in range(0, len(data), 8):
                conn.send(data[n : n + 8])
                time.sleep(1.0 / (len(data) / 8))
        elif kind == "deadline":
            every = [f'required("{p}")' for p in PACKAGES]
            heavy = json.dumps({"spec": {"constraints": every}}).encode()
            conn.request("POST", "/api/v1/resolve?timeout=0.002", heavy, json_type)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def client(
    port: int,
    until: float,
    seed: int,
    results: dict[str, list[float]],
    errors: dict[str, int],
    lock: threading.Lock,
) -> None:
    rng = random.Random(seed)
    kinds = (
        ["resolve"] * 60
        + ["search"] * 15
        + ["package"] * 15
        + ["oversize"] * 3
        + ["malformed"] * 4
        + ["slow-body"] * 1
        + ["deadline"] * 2
    )
    while time.monotonic() < until:
        kind = rng.choice(kinds)
        started = time.perf_counter()
        try:
            status = request(port, kind, rng)
        except OSError:
            status = -1
        elapsed = time.perf_counter() - started
        with lock:
            results[kind].append(elapsed)
            if status not in EXPECTED[kind]:
                errors[f"{kind} {status}"] += 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--store", help="a store home holding the catalog (default: made now)")
    args = parser.parse_args()
    home = Path(args.store) if args.store else Path(tempfile.mkdtemp(prefix="deppy-load-"))
    deppy = [sys.executable, "-c", "from deppy.cli.main import main; main()"]
    env = {**os.environ, "DEPPY_HOME": str(home)}
    if not (home / "catalogs.sqlite3").exists():
        print(f"adding {CATALOG.name} to a store in {home} …", flush=True)
        subprocess.run(
            [*deppy, "catalog", "add", "community", str(CATALOG)],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    port = free_port()
    server = subprocess.Popen(
        [*deppy, "serve", "--port", str(port)], env=env, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if request(port, "package", random.Random(0)) == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                print("the server did not start", file=sys.stderr)
                return 2
            time.sleep(0.2)
        rng = random.Random(1)
        for package in PACKAGES:  # warm: every package resolved and shown once
            request(port, "package", rng)
            conn = http.client.HTTPConnection("127.0.0.1", port)
            conn.request(
                "POST", "/api/v1/resolve", body(package), {"Content-Type": "application/json"}
            )
            conn.getresponse().read()
            conn.close()
        for term in TERMS:
            request(port, "search", random.Random(TERMS.index(term)))
        results: dict[str, list[float]] = defaultdict(list)
        errors: dict[str, int] = defaultdict(int)
        lock = threading.Lock()
        until = time.monotonic() + args.seconds
        threads = [
            threading.Thread(target=client, args=(port, until, n, results, errors, lock))
            for n in range(args.clients)
        ]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        peak = 0.0
        while any(t.is_alive() for t in threads):
            peak = max(peak, rss_mb(server.pid))
            time.sleep(0.5)
        wall = time.perf_counter() - started
        total = sum(len(v) for v in results.values())
        print(
            f"{args.clients} clients, {wall:.0f} s, community-operators-prod-v4.18 "
            f"({os.cpu_count()} cores): {total} requests, {total / wall:.0f} req/s"
        )
        for kind in EXPECTED:
            times = sorted(results.get(kind, []))
            if not times:
                continue
            p50 = statistics.median(times) * 1000
            p99 = times[min(len(times) - 1, int(len(times) * 0.99))] * 1000
            print(f"  {kind:10} n={len(times):6}  p50 {p50:7.1f} ms  p99 {p99:7.1f} ms")
        print(f"errors (unexpected status): {sum(errors.values())} {dict(errors)}")
        print(f"server RSS: {rss_mb(server.pid):.0f} MB now, {peak:.0f} MB peak")
        return 0
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        if not args.store:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
