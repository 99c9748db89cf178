"""Whole-process figures for the catalog store: ``deppy resolve`` against stored catalogs.

What a user waits for is the whole process — interpreter start, imports, opening the store,
reading the packages a resolution touches, solving, printing — so every figure here is the wall
time of a subprocess running ``.venv/bin/deppy``, the median of --repeats warm runs (one
unmeasured run first), with the child's CPU time (user + system) beside it: on a busy machine the
wall time swings with other load, the CPU time much less. Also printed: the time of
``deppy catalog add`` for the catalog, the store's size on disk, and for contrast the same
resolution from the catalog files (--catalog).

"Warm" includes Python's bytecode cache, as in any installed deppy. Environments that set
PYTHONDONTWRITEBYTECODE (so every run recompiles deppy) get a private cache directory through
PYTHONPYCACHEPREFIX instead, unless --no-bytecode-cache asks to measure that case.

The store lives in a temporary DEPPY_HOME; the user's real store is never touched.

Usage: python benchmarks/store_resolve.py [CATALOG_DIR] [--repeats N] [--packages P1,P2]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEPPY = ROOT / ".venv" / "bin" / "deppy"
PYTHON = ROOT / ".venv" / "bin" / "python"
DEFAULT_CATALOG = ROOT.parent / "shared" / "catalogs" / "community-operators-prod-v4.18"
# A small package, the largest package, and packages whose resolution follows dependencies
# (package and API requirements) or fails with an explanation.
DEFAULT_PACKAGES = "etcd,project-quay,eclipse-che,kuadrant-operator,node-healthcheck-operator"
BUDGET = 0.3


def run(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall time, CPU time (user + system) of the child, exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def median_time(argv: list[str], env: dict[str, str], repeats: int) -> tuple[float, float, int]:
    """Medians of wall and CPU time over warm runs (after one run that warms the caches)."""
    code = run(argv, env)[2]
    runs = [run(argv, env) for _ in range(repeats)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), code


def size_of(home: Path) -> int:
    return sum(p.stat().st_size for p in home.iterdir() if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("catalog", nargs="?", type=Path, default=DEFAULT_CATALOG)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--packages", default=DEFAULT_PACKAGES)
    parser.add_argument("--no-bytecode-cache", action="store_true")
    args = parser.parse_args()
    if not args.catalog.is_dir():
        sys.exit(f"{args.catalog}: no such catalog directory")

    with tempfile.TemporaryDirectory(prefix="deppy-store-bench-") as tmp:
        home = Path(tmp) / "home"
        env = dict(os.environ, DEPPY_HOME=str(home))
        if not args.no_bytecode_cache and env.get("PYTHONDONTWRITEBYTECODE"):
            env.pop("PYTHONDONTWRITEBYTECODE")
            env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        bytecode = "off" if env.get("PYTHONDONTWRITEBYTECODE") else "cached"
        print(
            f"python {sys.version.split()[0]}, bytecode {bytecode}, {os.cpu_count()} CPUs, "
            f"load average {os.getloadavg()[0]:.2f}; medians of {args.repeats} warm runs\n"
        )

        added, _, code = run([str(DEPPY), "catalog", "add", "bench", str(args.catalog)], env)
        if code != 0:
            sys.exit(f"deppy catalog add failed (exit {code})")
        print(f"catalog add {args.catalog.name}: {added:.2f} s (whole process, cold imports)")
        print(f"store size: {size_of(home) / 1e6:.1f} MB\n")

        print(f"{'':<40} {'wall':>7} {'cpu':>7}")
        floor = median_time([str(PYTHON), "-c", "pass"], env, args.repeats)
        imports = median_time(
            [str(PYTHON), "-c", "import deppy.cli.main, deppy.cli.resolve_command, deppy.store"],
            env,
            args.repeats,
        )
        print(f"{'python -c pass':<40} {floor[0]:6.3f}s {floor[1]:6.3f}s")
        print(f"{'python + imports of deppy resolve':<40} {imports[0]:6.3f}s {imports[1]:6.3f}s\n")

        header = f"{'deppy resolve --require PKG':<28} {'table wall/cpu':>16}"
        print(f"{header} {'json wall/cpu':>16}  exit")
        walls: list[float] = []
        for package in args.packages.split(","):
            argv = [str(DEPPY), "resolve", "--require", package]
            table = median_time(argv, env, args.repeats)
            as_json = median_time([*argv, "-o", "json"], env, args.repeats)
            walls += [table[0], as_json[0]]
            print(
                f"  {package:<26} {table[0]:6.3f}s/{table[1]:.3f}s  "
                f"{as_json[0]:6.3f}s/{as_json[1]:.3f}s  {table[2]:>4}"
            )
        worst = max(walls)
        verdict = "within" if worst <= BUDGET else "OVER"
        print(f"\nslowest median {worst:.3f} s: {verdict} the {BUDGET} s budget (wall)")

        files_argv = [
            str(DEPPY),
            "resolve",
            "--catalog",
            f"{args.catalog}=bench",
            "--require",
            args.packages.split(",")[0],
            "-o",
            "json",
        ]
        from_files = median_time(files_argv, env, min(args.repeats, 3))
        print(f"for contrast, from the catalog files (--catalog): {from_files[0]:.2f} s")


if __name__ == "__main__":
    main()
