"""``deppy catalog diff`` speed: an older community release against v4.18 (goal: ≤ 2 s stored).

Only v4.18 of the community catalog is in ../shared/catalogs, so OLD is derived from it by
tests/older_release.py (seed 29: 8 packages and 20 channel heads left out, 15 platform limits
changed, 3 default channels, 6 deprecations, one retired package). Both are stored in a fresh
$DEPPY_HOME; then the whole command (``deppy catalog diff OLD NEW -o json``, a new process each
time, as a release script runs it) is timed store-to-store and path-to-path (the two
directories, read from their parsed-catalog cache entries after a first run writes them), and
the diff itself in this process. Prints medians of N runs and the load average before and after.
Usage: python benchmarks/catalog_diff.py [--repeats N]
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.older_release import COMMUNITY, derive_older

from deppy.catalog.bundle_tree import load_any_catalog
from deppy.store import Store
from deppy.workflows.catalog_diff import diff_facts, load_side

DEPPY = Path(sys.executable).with_name("deppy")


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def timed_command(args: list[str], env: dict[str, str], repeats: int) -> tuple[float, float, bytes]:
    """Median wall time and median CPU time (user + system: what the load of the machine
    does not inflate much) of a deppy command, and its output."""
    runs, cpu = [], []
    out = b""
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            [str(DEPPY), *args], env=env, capture_output=True, check=True, timeout=300
        )
        runs.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        out = done.stdout
    return statistics.median(runs), statistics.median(cpu), out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if not COMMUNITY.exists():
        print(f"missing {COMMUNITY}", file=sys.stderr)
        return 2
    print(f"load average before: {load_average()}")
    with tempfile.TemporaryDirectory() as work:
        home = Path(work) / "home"
        older = Path(work) / "community-older"
        derivation = derive_older(older)
        store = Store(home)
        store.add(load_any_catalog(COMMUNITY, name="v418"))
        store.add(load_any_catalog(older, name="older"))
        env = {**os.environ, "DEPPY_HOME": str(home)}
        stored, stored_cpu, out = timed_command(
            ["catalog", "diff", "older", "v418", "-o", "json", "-q"], env, args.repeats
        )
        paths = ["catalog", "diff", str(older), str(COMMUNITY), "-o", "json", "-q"]
        subprocess.run([str(DEPPY), *paths], env=env, capture_output=True, check=True)
        time.sleep(15)  # the first run keeps both directories in the cache, in the background
        by_path, path_cpu, out_paths = timed_command(paths, env, args.repeats)
        runs, cpu = [], []
        for _ in range(args.repeats):
            started, started_cpu = time.perf_counter(), time.process_time()
            diff = diff_facts(load_side("older", store=home), load_side("v418", store=home))
            runs.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
        counts = ", ".join(f"{k} {v}" for k, v in diff.counts().items() if v)
        print(
            f"derived: {len(derivation.removed_packages)} packages, "
            f"{len(derivation.removed_heads)} heads left out; diff: {counts}"
        )
        print(
            f"in-process diff (store to store): median {statistics.median(runs):.3f} s, "
            f"CPU {statistics.median(cpu):.3f} s"
        )
        print(
            f"deppy catalog diff, paths (cached): median {by_path:.3f} s, CPU {path_cpu:.3f} s "
            f"({len(out_paths)} bytes of JSON)"
        )
        print(f"load average after: {load_average()}")
        print(
            f"catalog diff: store-to-store median {stored:.3f} s (CPU {stored_cpu:.3f} s) over "
            f"{args.repeats} runs (goal <= 2 s), path-to-path {by_path:.3f} s "
            f"(CPU {path_cpu:.3f} s), {len(out)} bytes of JSON, load average {load_average()}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
