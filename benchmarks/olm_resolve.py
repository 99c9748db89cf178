"""OLM resolution speed on community-operators-prod-v4.18.

Prints: catalog load time (median of 3) against raw parsing, resolving one package (median over
the largest packages), and resolving each of the 312 packages alone in one process (total, with
how many resolve and how many fail with an explanation, by kind of cause).
Usage: python benchmarks/olm_resolve.py [--repeats N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.resolution.request import RequiredPackage, ResolutionRequest
from deppy.resolution.resolver import resolve

CATALOG = (
    Path(__file__).resolve().parents[1].parent
    / "shared"
    / "catalogs"
    / ("community-operators-prod-v4.18")
)
LARGEST = [
    "project-quay",
    "keycloak-operator",
    "hive-operator",
    "ack-ec2-controller",
    "ack-eks-controller",
    "opentelemetry-operator",
    "eclipse-che",
    "kuadrant-operator",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if not CATALOG.exists():
        print(f"missing {CATALOG}", file=sys.stderr)
        return 2
    loads = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        catalog = load_catalog(CATALOG, name="community")
        loads.append(time.perf_counter() - started)
    print(
        f"load community-operators-prod-v4.18: median {statistics.median(loads):.2f} s "
        f"({len(catalog.packages)} packages, {len(catalog.bundles)} bundles, "
        f"{len(catalog.problems)} problems)"
    )
    catalogs = CatalogSet([catalog])
    one = []
    for package in LARGEST:
        request = ResolutionRequest(required=(RequiredPackage(package),))
        for _ in range(args.repeats):
            started = time.perf_counter()
            resolve(catalogs, request)
            one.append(time.perf_counter() - started)
    print(
        f"resolve one package (largest packages, {len(one)} runs): median "
        f"{statistics.median(one) * 1000:.1f} ms, max {max(one) * 1000:.1f} ms"
    )
    started = time.perf_counter()
    outcomes: Counter[str] = Counter()
    failures: list[str] = []
    for package in sorted(catalog.packages):
        result = resolve(catalogs, ResolutionRequest(required=(RequiredPackage(package),)))
        if result.resolved:
            outcomes["resolved"] += 1
        else:
            assert result.explanation is not None
            kinds = sorted({c.kind for c in result.explanation.causes})
            outcomes["unresolvable: " + "+".join(kinds)] += 1
            failures.append(f"  {package}: {result.explanation.causes[-1].text}")
    total = time.perf_counter() - started
    print(
        f"resolve each of {len(catalog.packages)} packages alone: total {total:.2f} s "
        f"(target ≤ 10 s)"
    )
    for outcome, count in sorted(outcomes.items()):
        print(f"  {count:4d} {outcome}")
    print("unresolvable packages:")
    print("\n".join(failures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
