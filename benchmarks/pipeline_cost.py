"""What the pipeline engine costs: the OLM resolver with and without it, tracing off and on.

Three ways to resolve the same requests against community-operators-prod-v4.18:
  direct      generate_variables + solve_variables (+ alternatives when unresolvable), no engine
  engine      resolve_in_pipeline with the default pipeline, no sink (tracing off)
  traced      the same with a trace written (to /dev/null) for every resolution
Workloads: each of the 312 packages resolved alone, in one process; and the largest packages.
Each request is resolved several times each way, interleaved, and each way's fastest time per
request is summed (targets: engine ≤ 1.05 × direct, traced ≤ 2 × direct).
Usage: python benchmarks/pipeline_cost.py [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.pipeline.trace import TraceWriter
from deppy.resolution.context import ResolutionContext
from deppy.resolution.node_library import DOMAIN
from deppy.resolution.request import RequiredPackage, ResolutionRequest
from deppy.resolution.resolver import (
    generate_variables,
    resolve_in_pipeline,
    solve_variables,
    with_alternatives,
)

# the same catalog and largest packages as the resolver benchmark, so the figures compare
from olm_resolve import CATALOG, LARGEST

Resolve = Callable[[CatalogSet, ResolutionRequest], object]


def direct(catalogs: CatalogSet, request: ResolutionRequest) -> object:
    context = ResolutionContext.create(catalogs, request)
    resolution = solve_variables(generate_variables(context), context)
    return with_alternatives(resolution, catalogs, request)


def engine(catalogs: CatalogSet, request: ResolutionRequest) -> object:
    return resolve_in_pipeline(catalogs, request)


def traced(catalogs: CatalogSet, request: ResolutionRequest) -> object:
    with open(os.devnull, "wb") as sink:
        return resolve_in_pipeline(catalogs, request, sink=TraceWriter(sink, DOMAIN))


def compare(
    title: str, catalogs: CatalogSet, requests: list[ResolutionRequest], rounds: int
) -> None:
    """Each request is resolved ``rounds`` times each way, the ways interleaved; a way's time
    for a request is its fastest, so that other load on the machine does not decide the ratio."""
    ways: dict[str, Resolve] = {"direct": direct, "engine": engine, "traced": traced}
    totals = dict.fromkeys(ways, 0.0)
    clock = time.perf_counter
    for request in requests:
        best = dict.fromkeys(ways, float("inf"))
        for _ in range(rounds):
            for name, way in ways.items():
                started = clock()
                way(catalogs, request)
                best[name] = min(best[name], clock() - started)
        for name in ways:
            totals[name] += best[name]
    base = totals["direct"]
    print(
        f"{title}: direct {base * 1000:.1f} ms, engine {totals['engine'] * 1000:.1f} ms, "
        f"traced {totals['traced'] * 1000:.1f} ms (sum of per-request bests of {rounds})"
    )
    print(
        f"  tracing off: {totals['engine'] / base:.3f} × direct (target ≤ 1.05); "
        f"tracing on: {totals['traced'] / base:.2f} × direct (target ≤ 2)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    if not CATALOG.exists():
        print(f"missing {CATALOG}", file=sys.stderr)
        return 2
    catalog = load_catalog(CATALOG, name="community")
    catalogs = CatalogSet([catalog])
    each = [ResolutionRequest(required=(RequiredPackage(p),)) for p in sorted(catalog.packages)]
    compare(f"each of {len(each)} packages alone", catalogs, each, args.rounds)
    largest = [ResolutionRequest(required=(RequiredPackage(p),)) for p in LARGEST]
    compare(f"the {len(LARGEST)} largest packages", catalogs, largest, args.rounds * 4)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
