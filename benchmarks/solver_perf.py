"""Solver speed on the reference perf instances: median per solve, in process, beside Go.

Three tables:
1. ``deppy-go/perf``: benchmark-256 and the catalog sizes, each with the recorded Go figure (same
   machine kind), the ratio ours/Go, and the growth exponent from one catalog size to the next
   (CPU time ∝ size^k);
2. ``deppy-go-learned/perf``: the hard instances on which a search without the reference's
   learning runs for minutes, beside the Go times of their README;
3. the deadline: a pigeonhole problem far beyond any limit, stopped at 0.5 s; prints how long the
   solve really took (it must stay within 1.5× the limit).

Figures vary with the machine's load (the load average is printed first): compare ratios taken
in the same run. Usage: python benchmarks/solver_perf.py [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import sys
import time
from pathlib import Path

from deppy.problem import load_problem
from deppy.solver import AtMost, Dependency, Mandatory, SolveTimeout, Variable, solve

CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"
# Go per solve, seconds: benchmark-256 as measured on a quiet machine of the project's kind
# (the README's range is 160-350 µs); the catalogs at the middle of their README ranges
GO = {
    "benchmark-256.json": 199e-6,
    "catalog-500.json": 73.5e-3,
    "catalog-2000.json": 1.525,
    "catalog-8000.json": 43.0,
}
# deppy-go-learned/perf/README.md: Go per solve, median of 5
GO_LEARNED = {
    "catalog-22023.json": 7.9e-3,
    "catalog-22048.json": 10.0e-3,
    "catalog-22106.json": 22.6e-3,
    "catalog-22153.json": 13.9e-3,
}
DEADLINE = 0.5


def _fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def _expected(folder: Path) -> dict[str, list[str] | None]:
    """The reference's selections: perf/ has its own file, or shares its corpus's."""
    path = folder / "expected.jsonl"
    if not path.exists():
        path = folder.parent / "expected.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    return {r["instance"]: r.get("selected") for r in records}


def _time(variables: list[Variable], repeats: int) -> tuple[list[float], float, list[str]]:
    """Wall times of each solve, the median CPU time (steadier on a loaded machine), the answer."""
    solve(variables)  # warm up imports and caches
    timings = []
    cpu = []
    selection: list[str] = []
    for _ in range(repeats):
        started, started_cpu = time.perf_counter(), time.process_time()
        selection = [v.id for v in solve(variables)]
        timings.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return timings, statistics.median(cpu), selection


def _table(folder: Path, go: dict[str, float], repeats: int, growth: bool) -> None:
    expected = _expected(folder)
    print(
        f"{'instance':<20}{'vars':>7}{'median':>11}{'min':>11}{'cpu':>11}{'Go':>11}"
        f"{'ours/Go':>9}{'cpu/Go':>9}  same"
    )
    previous: tuple[int, float] | None = None
    for name, go_time in go.items():
        variables = load_problem(folder / name)
        runs = max(3, repeats // 3) if len(variables) > 20000 else repeats
        timings, cpu, selection = _time(variables, runs)
        median = statistics.median(timings)
        same = "n/a" if expected.get(name) is None else "yes"
        if expected.get(name) is not None and expected[name] != selection:
            same = "no"
        note = ""
        if growth and previous and name.startswith("catalog"):
            # from CPU times: wall medians jump with whatever else the machine runs
            exponent = math.log(cpu / previous[1]) / math.log(len(variables) / previous[0])
            note = f"  growth exponent {exponent:.2f} (cpu)"
        print(
            f"{name:<20}{len(variables):>7}{_fmt(median):>11}{_fmt(min(timings)):>11}"
            f"{_fmt(cpu):>11}{_fmt(go_time):>11}{median / go_time:>8.3f}×{cpu / go_time:>8.3f}×"
            f"  {same}{note}"
        )
        if name.startswith("catalog"):
            previous = (len(variables), cpu)


def pigeonhole(holes: int) -> list[Variable]:
    """holes + 1 pigeons, each in a hole, at most one per hole: exponential for CDCL."""
    pigeons = holes + 1
    variables = [Variable(f"p{p}h{h}") for p in range(pigeons) for h in range(holes)]
    variables += [
        Variable(f"pigeon{p}", [Mandatory(), Dependency(*(f"p{p}h{h}" for h in range(holes)))])
        for p in range(pigeons)
    ]
    variables += [
        Variable(f"hole{h}", [AtMost(1, *(f"p{p}h{h}" for p in range(pigeons)))])
        for h in range(holes)
    ]
    return variables


def _deadline() -> None:
    for holes in (9, 12, 14):
        started = time.monotonic()
        outcome = "answered"
        try:
            solve(pigeonhole(holes), deadline=started + DEADLINE)
        except SolveTimeout:
            outcome = "timed out"
        except Exception as error:  # an unsatisfiable answer is fine too
            outcome = type(error).__name__
        elapsed = time.monotonic() - started
        print(
            f"pigeonhole {holes + 1}/{holes}: {outcome} after {_fmt(elapsed)}"
            f" = {elapsed / DEADLINE:.2f}× the {_fmt(DEADLINE)} limit"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    if not CONFORMANCE.exists():
        print(f"missing {CONFORMANCE}: ../shared must sit beside the checkout", file=sys.stderr)
        return 2
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("\ndeppy-go/perf (Go: benchmark-256 on a quiet machine, catalogs mid-range)")
    _table(CONFORMANCE / "deppy-go" / "perf", GO, args.repeats, growth=True)
    print("\ndeppy-go-learned/perf (Go: median of 5, from its README)")
    _table(CONFORMANCE / "deppy-go-learned" / "perf", GO_LEARNED, args.repeats, growth=False)
    print("  (catalog-22048 and catalog-22106: the reference's own selection violates its")
    print("   constraints, so ours differs by design; see tests/test_conformance.py)")
    print("\ndeadline")
    _deadline()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS of this process: {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
