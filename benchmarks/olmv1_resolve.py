"""OLM v1 requests against deppy's own, on community-operators-prod-v4.18, in the same run.

100 ClusterExtension requests (seeded; a third plain, a third with a channel and a version
range, a third with a channel and an installed bundle to upgrade from) and the same requests in
deppy's own format (--require/--installed values). Each request is timed from its objects to the
answer (parsing the ClusterExtension or the SPEC strings, then resolving), one process, the
catalog loaded once. Prints median and p99 per format and their ratio, and how many resolved.
Usage: python benchmarks/olmv1_resolve.py [--requests N] [--rounds R] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.catalog.model import Catalog
from deppy.resolution.answer import Resolution
from deppy.resolution.olmv1 import request_from_objects
from deppy.resolution.request import ResolutionRequest
from deppy.resolution.request_parsing import parse_installed, parse_require
from deppy.resolution.resolver import resolve

CATALOG = (
    Path(__file__).resolve().parents[1].parent
    / "shared"
    / "catalogs"
    / "community-operators-prod-v4.18"
)


def requests(
    catalog: Catalog, count: int, seed: int
) -> list[tuple[dict[str, Any], list[str], list[str]]]:
    """(ClusterExtension, --require values, --installed values) for ``count`` packages."""
    rng = random.Random(seed)
    packages = sorted(catalog.packages)
    chosen = rng.sample(packages, min(count, len(packages)))
    out = []
    for n, name in enumerate(chosen):
        meta = catalog.packages[name]
        channel = meta.default_channel
        members = [
            catalog.bundles[(name, e.name)]
            for c in catalog.channels_of(name)
            if c.name == channel
            for e in c.entries
            if (name, e.name) in catalog.bundles
        ]
        members.sort(key=lambda b: b.version)
        spec: dict[str, Any] = {"packageName": name}
        require, installed = [name], []
        doc: dict[str, Any] = {
            "apiVersion": "olm.operatorframework.io/v1",
            "kind": "ClusterExtension",
            "metadata": {"name": f"ext-{n}"},
            "spec": {
                "namespace": "ns",
                "serviceAccount": {"name": "sa"},
                "source": {"sourceType": "Catalog", "catalog": spec},
            },
        }
        if members and n % 3 == 1:
            low = members[len(members) // 2].version.without_build()
            spec.update(channels=[channel], version=f">={low}")
            require = [f"{name}@>={low},channel={channel}"]
        elif members and n % 3 == 2:
            old = members[0]
            spec.update(channels=[channel])
            doc["status"] = {"install": {"bundle": {"name": old.name, "version": str(old.version)}}}
            require = [f"{name},channel={channel}"]
            installed = [f"{name}@{old.version},channel={channel},bundle={old.name}"]
        out.append((doc, require, installed))
    return out


def timed(function: Callable[[], Resolution]) -> tuple[float, bool]:
    started = time.perf_counter()
    resolution = function()
    return time.perf_counter() - started, resolution.resolved


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=27)
    args = parser.parse_args()
    if not CATALOG.exists():
        print(f"missing {CATALOG}", file=sys.stderr)
        return 2
    catalog = load_catalog(CATALOG, name="community")
    catalogs = CatalogSet([catalog])
    content = [("community", 0)]
    cases = requests(catalog, args.requests, args.seed)

    def olmv1(doc: dict[str, Any]) -> Callable[[], Resolution]:
        return lambda: resolve(catalogs, request_from_objects([doc], "bench", content).request)

    def deppy(require: list[str], installed: list[str]) -> Callable[[], Resolution]:
        return lambda: resolve(
            catalogs,
            ResolutionRequest(
                required=tuple(parse_require(s) for s in require),
                installed=tuple(parse_installed(s) for s in installed),
            ),
        )

    times: dict[str, list[float]] = {"olmv1": [], "deppy": []}
    resolved = {"olmv1": 0, "deppy": 0}
    for round_ in range(args.rounds):
        for doc, require, installed in cases:  # alternate, so load drifts hit both alike
            for kind, function in (("olmv1", olmv1(doc)), ("deppy", deppy(require, installed))):
                seconds, ok = timed(function)
                times[kind].append(seconds)
                if round_ == 0:
                    resolved[kind] += ok
    for kind in ("olmv1", "deppy"):
        values = times[kind]
        print(
            f"{kind:6} {len(cases)} requests x {args.rounds}: median "
            f"{statistics.median(values) * 1000:.2f} ms, p99 {p99(values) * 1000:.2f} ms, "
            f"{resolved[kind]} resolved"
        )
    ratio = statistics.median(times["olmv1"]) / statistics.median(times["deppy"])
    ratio99 = p99(times["olmv1"]) / p99(times["deppy"])
    print(f"ratio OLM v1 / deppy: median {ratio:.2f}, p99 {ratio99:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
