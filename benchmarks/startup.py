"""Whole-process start-up figures: what a user waits for from typing the command to its end.

Each figure is the median wall time (and the child's CPU time, which swings less with other
load) of warm runs of ``.venv/bin/deppy`` as a subprocess, beside its goal (issue 12, part 3):

  deppy --version                              ≤ 40 ms
  deppy solve benchmark-256.json               ≤ 50 ms  (the Go binary's recorded 2 ms beside it)
  deppy resolve --require etcd (warm store)    ≤ 150 ms

and, for the floor under all of them, ``python -c pass`` and the imports each command makes.
"Warm" includes Python's bytecode cache, as in any installed deppy (an environment with
PYTHONDONTWRITEBYTECODE gets a private cache through PYTHONPYCACHEPREFIX). The machine's load
average is printed before and after: on a shared machine, compare CPU times, or run again.

Usage: python benchmarks/startup.py [--repeats N] [--catalog DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from store_resolve import DEFAULT_CATALOG, DEPPY, PYTHON, ROOT, median_time, run

BENCHMARK_256 = ROOT.parent / "shared" / "conformance" / "deppy-go" / "perf" / "benchmark-256.json"
GO_SOLVE_MS = 2.0  # the Go binary's whole process on benchmark-256 (issue 12, same machine kind)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--catalog", type=Path, default=DEFAULT_CATALOG)
    args = parser.parse_args()
    for needed in (BENCHMARK_256, args.catalog):
        if not needed.exists():
            sys.exit(f"{needed}: missing (the shared data beside the repository)")

    with tempfile.TemporaryDirectory(prefix="deppy-startup-bench-") as tmp:
        env = dict(os.environ, DEPPY_HOME=str(Path(tmp) / "home"))
        if env.pop("PYTHONDONTWRITEBYTECODE", None):
            env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        if run([str(DEPPY), "catalog", "add", "community", str(args.catalog)], env)[2] != 0:
            sys.exit("deppy catalog add failed")
        print(
            f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
            f"{os.getloadavg()[0]:.2f} at the start; medians of {args.repeats} warm runs\n"
        )
        print(f"{'':<46}{'wall':>9}{'cpu':>9}{'goal':>9}")
        rows = [
            ("python -c pass (the interpreter's floor)", [str(PYTHON), "-c", "pass"], None),
            ("deppy --version", [str(DEPPY), "--version"], 40.0),
            ("deppy solve benchmark-256.json", [str(DEPPY), "solve", str(BENCHMARK_256)], 50.0),
            (
                "deppy resolve --require etcd (warm store)",
                [str(DEPPY), "resolve", "--require", "etcd"],
                150.0,
            ),
        ]
        for label, argv, goal in rows:
            wall, cpu, _ = median_time(argv, env, args.repeats)
            verdict = (
                "" if goal is None else f"{goal:7.0f}ms {'ok' if wall * 1e3 <= goal else 'OVER'}"
            )
            print(f"{label:<46}{wall * 1e3:7.1f}ms{cpu * 1e3:7.1f}ms{verdict:>11}")
            if argv[1:2] == ["solve"]:
                ratio = wall * 1e3 / GO_SOLVE_MS
                print(f"{'  ratio to the Go binary (2 ms recorded)':<46}{ratio:7.1f}x")
        print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
