"""Solver speed on the reference perf instances: median per solve, in process.

Prints a table with the Go reference figures (same machine kind) beside ours, the growth from
one size to the next, peak memory, and whether selections match expected.jsonl where it has them.
Usage: python benchmarks/solver_perf.py [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from pathlib import Path

from deppy.problem import load_problem
from deppy.solver import solve

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "deppy-go"
REFERENCE = {
    "benchmark-256.json": "160–350 µs",
    "catalog-500.json": "54–93 ms",
    "catalog-2000.json": "1.1–1.95 s",
    "catalog-8000.json": "≈ 43 s",
}
TARGET = {
    "benchmark-256.json": "≤ 350 µs",
    "catalog-2000.json": "≤ 100 ms",
    "catalog-8000.json": "≤ 2 s, ≤ 500 MB",
}


def _fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    if not SHARED.exists():
        print(f"missing {SHARED}: ../shared must sit beside the checkout", file=sys.stderr)
        return 2
    expected = {}
    for line in (SHARED / "expected.jsonl").read_text().splitlines():
        record = json.loads(line)
        expected[record["instance"]] = record.get("selected")
    print(
        f"{'instance':<20}{'vars':>7}{'median':>11}{'min':>11}{'per var':>10}"
        f"{'Go reference':>15}{'target':>18}  same as expected"
    )
    previous: tuple[int, float] | None = None
    for name in REFERENCE:
        variables = load_problem(SHARED / "perf" / name)
        repeats = max(3, args.repeats // 2) if len(variables) > 20000 else args.repeats
        timings = []
        selection: list[str] = []
        for _ in range(repeats):
            started = time.perf_counter()
            selection = [v.id for v in solve(variables)]
            timings.append(time.perf_counter() - started)
        median = statistics.median(timings)
        same = (
            "yes" if expected.get(name) == selection else ("n/a" if name not in expected else "NO")
        )
        growth = ""
        if previous:
            size_ratio = len(variables) / previous[0]
            growth = f"  (×{median / previous[1]:.1f} time for ×{size_ratio:.1f} size)"
        print(
            f"{name:<20}{len(variables):>7}{_fmt(median):>11}{_fmt(min(timings)):>11}"
            f"{median / len(variables) * 1e6:>8.1f}µs{REFERENCE[name]:>15}"
            f"{TARGET.get(name, '—'):>18}  {same}{growth}"
        )
        previous = (len(variables), median)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process: {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
