"""``deppy catalog check`` speed on community-operators-prod-v4.18 (target: ≤ 60 s in all).

Prints the catalog load time, the check time (median of N runs) with its totals by reason, the
same with the next OpenShift (4.19), and — for comparison — the time it takes to resolve every
bundle, without skipping those that need nothing.
Usage: python benchmarks/catalog_check.py [--repeats N] [--no-full]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.catalog.semver import Version
from deppy.resolution.request import ClusterFacts
from deppy.workflows.catalog_check import CatalogCheck, Checker, check_catalog

CATALOG = Path(__file__).resolve().parents[1].parent / "shared" / "catalogs"
CATALOG = CATALOG / "community-operators-prod-v4.18"


def timed_check(catalogs: CatalogSet, cluster: ClusterFacts, repeats: int) -> CatalogCheck:
    runs = []
    report = None
    for _ in range(repeats):
        started = time.perf_counter()
        report = check_catalog(catalogs, "community", cluster)
        runs.append(time.perf_counter() - started)
    assert report is not None
    by_reason = ", ".join(f"{reason} {n}" for reason, n in report.by_reason().items())
    print(
        f"  check: median {statistics.median(runs):.2f} s over {repeats} runs; "
        f"{report.resolved} of {report.bundles} bundles resolved, {len(report.failures)} "
        f"cannot be installed alone ({len(report.packages())} packages)"
    )
    print(f"  by reason: {by_reason}")
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-full", action="store_true", help="skip resolving every bundle")
    args = parser.parse_args()
    if not CATALOG.exists():
        print(f"missing {CATALOG}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    catalog = load_catalog(CATALOG, name="community")
    print(f"load: {time.perf_counter() - started:.2f} s ({len(catalog.bundles)} bundles)")
    catalogs = CatalogSet([catalog])
    print("no cluster versions:")
    timed_check(catalogs, ClusterFacts(), args.repeats)
    print("OpenShift 4.19:")
    timed_check(catalogs, ClusterFacts(Version.parse_tolerant("4.19")), args.repeats)
    if not args.no_full:
        checker = Checker(catalogs, ClusterFacts())
        started = time.perf_counter()
        failing = sum(checker.check(b) is not None for b in catalog.bundles.values())
        elapsed = time.perf_counter() - started
        print(
            f"every bundle resolved (no shortcut): {elapsed:.2f} s, "
            f"{elapsed / len(catalog.bundles) * 1000:.1f} ms a bundle, {failing} failing"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
