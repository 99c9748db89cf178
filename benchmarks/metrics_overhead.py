"""What observability costs a resolution: the solver-time sink (``NodeTimes``) makes the pipeline
engine take node timings and build events, which an unwatched run skips.

Resolves the same requests on community-operators-prod-v4.18 with and without the sink,
interleaved (so the machine's load falls on both alike), and prints the medians, their ratio, and
how long one scrape of a service's /metrics takes. The machine's load average is printed beside.

Usage: python benchmarks/metrics_overhead.py [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.pipeline.timing import NodeTimes
from deppy.resolution.request import ClusterFacts, ResolutionRequest
from deppy.resolution.request_parsing import parse_require
from deppy.workflows.resolve import resolve_with_options

ROOT = Path(__file__).resolve().parents[1]
COMMUNITY = ROOT.parent / "shared" / "catalogs" / "community-operators-prod-v4.18"
REQUIRED = ("etcd", "kuadrant-operator", "eclipse-che")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=31)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    catalogs = CatalogSet([load_catalog(COMMUNITY, name="community")])
    for package in REQUIRED:
        request = ResolutionRequest(required=(parse_require(package),), cluster=ClusterFacts())
        plain: list[float] = []
        timed: list[float] = []
        for _ in range(args.repeats):
            for times, into in ((None, plain), (NodeTimes(), timed)):
                started = time.perf_counter()
                resolve_with_options(
                    catalogs, request, timeout=None, pipeline=None, trace=None, times=times
                )
                into.append(time.perf_counter() - started)
        a, b = statistics.median(plain), statistics.median(timed)
        print(
            f"{package:20} unwatched {a * 1000:8.2f} ms   with NodeTimes {b * 1000:8.2f} ms"
            f"   ratio {b / a:5.3f}"
        )
    from prometheus_client import generate_latest

    from deppy.service.catalogs import CatalogState
    from deppy.service.metrics import ServiceMetrics

    state = CatalogState(())
    state.load()
    metrics = ServiceMetrics(state, 2)
    for n in range(200):
        metrics.requests.labels(f"/route/{n % 20}", "GET", "200").inc()
        metrics.request_seconds.labels(f"/route/{n % 20}").observe(0.01)
    scrapes = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        generate_latest(metrics.registry)
        scrapes.append(time.perf_counter() - started)
    print(f"one /metrics exposition (20 routes): {statistics.median(scrapes) * 1000:.2f} ms")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
