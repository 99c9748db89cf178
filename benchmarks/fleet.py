"""Fleet plans at scale (issue 29): N synthetic clusters planned with 1 and with 2 workers.

Generates N cluster exports from the shared community catalog (benchmarks/fleet_exports.py:
seeded, 5–40 operators per cluster at real versions and channels, OpenShift 4.14–4.18), then
runs ``deppy fleet plan DIR --catalog community --ocp-version 4.20 -o jsonl`` as a user would
(the embedded dask scheduler, its worker processes on this machine), once per worker count,
timing the whole command (scheduler start and catalog loading included) and sampling the
resident memory of the command and all its children every 50 ms (the peak of the sum).

Goals on a 2-core machine: 10,000 clusters in ≤ 60 s with 2 workers, a speedup ≥ 1.7 from 1
to 2 workers, peak RSS ≤ 1 GB over all processes. The machine is shared: the load average is
printed beside the figures; compare on a quiet machine or run again.

Usage: python benchmarks/fleet.py [--clusters N] [--workers 1,2] [--work DIR] [--seed S]
The last line: ``fleet: N clusters, W workers, T s, R clusters/s, speedup S, peak RSS M MB``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.fleet_exports import write_fleet  # noqa: E402

COMMUNITY = ROOT.parent / "shared" / "catalogs" / "community-operators-prod-v4.18"
DEPPY = Path(sys.executable).parent / "deppy"


def exports(count: int, seed: int, work: Path) -> Path:
    """The fleet's directory, generated once per (count, seed) and reused."""
    directory = work / f"deppy-fleet-{count}-{seed}"
    done = directory / ".complete"
    if not done.exists():
        from deppy.resolution.request_parsing import parse_catalog
        from deppy.workflows.catalog_loading import load_catalogs

        started = time.perf_counter()
        write_fleet(load_catalogs([parse_catalog(str(COMMUNITY))]), directory, count, seed=seed)
        done.write_text("")
        print(f"generated {count} exports in {time.perf_counter() - started:.1f} s: {directory}")
    return directory


def _tree_rss(process: psutil.Process) -> int:
    total = 0
    try:
        family = [process, *process.children(recursive=True)]
    except psutil.Error:
        return 0
    for one in family:
        with contextlib.suppress(psutil.Error):  # gone between the listing and the reading
            total += one.memory_info().rss
    return total


def run(directory: Path, workers: int, batch: int) -> tuple[float, int, int, float]:
    """Seconds, peak RSS (bytes, all processes), records written and the CPU seconds of the
    command and every process under it (what a shared machine's load cannot inflate much)."""
    command = [str(DEPPY), "fleet", "plan", str(directory), "--catalog", str(COMMUNITY),
               "--ocp-version", "4.20", "-o", "jsonl", "--workers", str(workers),
               "--batch-size", str(batch), "-q"]  # fmt: skip
    peak = 0
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.PIPE)
        watched = psutil.Process(process.pid)
        stop = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not stop.wait(0.05):
                peak = max(peak, _tree_rss(watched))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, err = process.communicate()
        elapsed = time.perf_counter() - started
        stop.set()
        sampler.join()
        if process.returncode != 0:
            sys.exit(f"deppy fleet plan failed ({process.returncode}): {err.decode()[-2000:]}")
        out.seek(0)
        records = sum(1 for _ in out)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, peak, records, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clusters", type=int, default=10_000)
    parser.add_argument("--workers", default="1,2", help="worker counts, comma-separated")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--batch-size", type=int, default=50)
    args = parser.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    directory = exports(args.clusters, args.seed, args.work)
    results: dict[int, tuple[float, int]] = {}
    for workers in counts:
        load = os.getloadavg()[0]
        elapsed, peak, records, cpu = run(directory, workers, args.batch_size)
        assert records == args.clusters, f"{records} records for {args.clusters} clusters"
        results[workers] = (elapsed, peak)
        print(
            f"{workers} worker(s): {elapsed:.1f} s, {args.clusters / elapsed:.0f} clusters/s, "
            f"peak RSS {peak / 2**20:.0f} MB, {cpu:.0f} CPU s in all processes "
            f"(load average before: {load:.2f})"
        )
    last = counts[-1]
    elapsed, peak = results[last]
    speedup = results[counts[0]][0] / elapsed if len(counts) > 1 else 1.0
    print(f"load average now: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"fleet: {args.clusters} clusters, {last} workers, {elapsed:.1f} s, "
        f"{args.clusters / elapsed:.0f} clusters/s, speedup {speedup:.2f}, "
        f"peak RSS {max(p for _, p in results.values()) / 2**20:.0f} MB"
    )


if __name__ == "__main__":
    main()
