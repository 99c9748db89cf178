"""Fleet plans at scale (issue 29): N synthetic clusters planned with 1 and with 2 workers.

Generates N cluster exports from the shared community catalog (benchmarks/fleet_exports.py:
seeded, 5–40 operators per cluster at real versions and channels, OpenShift 4.14–4.18), then
runs ``deppy fleet plan DIR --catalog community --ocp-version 4.20 -o jsonl`` as a user would
(the embedded dask scheduler, its worker processes on this machine, deppy's default batch
size), once per worker count, timing the whole command (scheduler start and catalog loading
included) and sampling the resident memory of the command and all its descendants every 50 ms
(the peak of the sum) and the CPU seconds of each (the command, dask's forkserver, each worker
process). Python's bytecode cache is on for the commands (in a directory of its own), as in an
installed deppy; an untimed run fills it.

Goals on a 2-core machine: 10,000 clusters in ≤ 60 s with 2 workers, a speedup ≥ 1.7 from 1
to 2 workers, peak RSS ≤ 1 GB over all processes. The machine is shared: its load moves wall
times, and CPU seconds less, so each run prints its CPU seconds per process, the load average
and the cores the machine's other processes used meanwhile (/proc/stat), and the shortest wall
time that CPU allows on two idle cores (with the speedup it predicts). ``--repeat N`` runs each
worker count N times, alternately, and reports the median wall time of each (and the speedup of
each round: on this shared VM wall times and even CPU seconds of one command move by a third
from run to run, with the other processes using a tenth of a core).

Usage: python benchmarks/fleet.py [--clusters N] [--workers 1,2] [--work DIR] [--seed S]
       [--batch-size B] [--repeat N]
The last line: ``fleet: N clusters, W workers, T s, R clusters/s, speedup S, peak RSS M MB``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
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


class _Family:
    """The command and every process under it, sampled: the peak of their summed resident
    memory, and each one's last CPU seconds (user + system) under its role: ``deppy`` (the
    command: client, scheduler, dask's nannies, output), ``forkserver`` (dask's, which the
    workers are forked from), ``worker`` (a dask worker process, where the clusters are
    planned) and ``other`` (multiprocessing's resource tracker, a fork of the command that
    execs a tool). A process that ends between two samples loses at most one interval (50 ms)
    of its CPU."""

    def __init__(self, pid: int) -> None:
        self.root = psutil.Process(pid)
        self.peak = 0
        self.peak_pss = 0
        self.cpu: dict[int, tuple[str, float]] = {}
        self.unique: dict[int, int] = {}  # pid -> the peak of its USS (memory no other shares)

    def sample(self) -> None:
        try:
            family = [self.root, *self.root.children(recursive=True)]
        except psutil.Error:
            return
        total = proportional = 0
        for one in family:
            with contextlib.suppress(psutil.Error):  # gone between the listing and the reading
                memory = one.memory_full_info()
                total += memory.rss
                proportional += memory.pss
                self.unique[one.pid] = max(self.unique.get(one.pid, 0), memory.uss)
                times = one.cpu_times()
                self.cpu[one.pid] = (self._role(one), times.user + times.system)
        self.peak = max(self.peak, total)
        self.peak_pss = max(self.peak_pss, proportional)

    def _role(self, one: psutil.Process) -> str:
        known = self.cpu.get(one.pid)
        if known is not None and known[0] != "other":  # a fork seen before its exec: look again
            return known[0]
        if one.pid == self.root.pid:
            return "deppy"
        command = one.cmdline()
        if "resource_tracker" in " ".join(command) or command == self.root.cmdline():
            return "other"  # or a fork of the command about to exec a tool (no worker)
        if "forkserver" in " ".join(command) and one.ppid() == self.root.pid:
            return "forkserver"  # its children, forked, show its command line too
        return "worker"

    def total(self) -> float:
        """CPU seconds of every process seen (the kernel's count of the command's children
        misses the workers forked by dask's forkserver, which the command never reaps)."""
        return sum(cpu for _, cpu in self.cpu.values())

    def seconds(self, role: str) -> list[float]:
        return sorted((cpu for r, cpu in self.cpu.values() if r == role), reverse=True)

    def memory(self, role: str) -> list[int]:
        """The peak USS of each process of ``role``, largest first."""
        found = [self.unique.get(pid, 0) for pid, (r, _) in self.cpu.items() if r == role]
        return sorted(found, reverse=True)


@dataclass(frozen=True, slots=True)
class Run:
    """One timed command: wall seconds, peak memory of all processes (bytes: RSS, which counts
    pages the workers share with the forkserver once per process, and PSS, which splits them),
    records written, CPU seconds of all processes (exact: the kernel's count for the command's
    children) and per role, and each worker's peak USS (its own pages: what one more worker
    adds; sampled, see ``_Family``)."""

    workers: int
    wall: float
    peak: int
    peak_pss: int
    records: int
    cpu: float
    deppy: float
    forkserver: float
    workers_cpu: list[float]
    workers_unique: list[int]
    forkserver_rss: int
    others: float  # CPU seconds the machine's other processes used meanwhile

    def free_cores_bound(self, cores: int = 2) -> float:
        """The shortest wall time this CPU allows on ``cores`` idle cores: all of it spread
        over the cores, or the busiest process alone, whichever is longer (a lower bound that
        a shared machine's load cannot move)."""
        busiest = max([self.deppy, *self.workers_cpu])
        return max(self.cpu / min(cores, 1 + self.workers), busiest)

    def line(self, clusters: int, load: float) -> str:
        workers = " + ".join(f"{w:.1f}" for w in self.workers_cpu)
        unique = " + ".join(f"{u / 2**20:.0f}" for u in self.workers_unique)
        return (
            f"{self.workers} worker(s): {self.wall:.1f} s, {clusters / self.wall:.0f} clusters/s, "
            f"peak RSS {self.peak / 2**20:.0f} MB (PSS {self.peak_pss / 2**20:.0f} MB), "
            f"per worker USS {unique or '-'} MB, {self.cpu:.1f} CPU s in all processes "
            f"(deppy {self.deppy:.1f}, forkserver {self.forkserver:.1f}, workers "
            f"{workers or '-'}); load average before: {load:.2f}; other processes used "
            f"{self.others / self.wall:.2f} cores meanwhile"
        )


def _busy_seconds() -> float:
    """CPU seconds the whole machine has been busy (all cores, /proc/stat), or 0 elsewhere."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(x) for x in stat.readline().split()[1:8]]
    except OSError:
        return 0.0
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


def bytecode_env(work: Path) -> dict[str, str]:
    """The commands' environment, with Python's bytecode cache on (in a directory of its own,
    not in the source tree): an installed deppy and dask have theirs compiled at install, so
    a process that compiles every module it imports (PYTHONDONTWRITEBYTECODE, as on this
    machine) is not what a user runs — each worker would spend ~1 CPU s compiling dask."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PYTHONPYCACHEPREFIX", str(work / "deppy-fleet-pycache"))
    return env


def run(directory: Path, workers: int, batch: int | None, env: dict[str, str] | None = None) -> Run:
    command = [str(DEPPY), "fleet", "plan", str(directory), "--catalog", str(COMMUNITY),
               "--ocp-version", "4.20", "-o", "jsonl", "--workers", str(workers), "-q"]  # fmt: skip
    if batch is not None:  # else the command's default, as a user runs it
        command += ["--batch-size", str(batch)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    busy = _busy_seconds()
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.PIPE, env=env)
        family = _Family(process.pid)
        stop = threading.Event()

        def sample() -> None:
            while not stop.wait(0.05):
                family.sample()

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
    cpu = max((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
              family.total())  # fmt: skip
    deppy = family.seconds("deppy")
    forkserver = family.seconds("forkserver")
    others = max(_busy_seconds() - busy - cpu, 0.0)  # the sampler's own CPU counts here too
    return Run(workers, elapsed, family.peak, family.peak_pss, records, cpu,
               deppy[0] if deppy else 0.0, sum(forkserver), family.seconds("worker"),
               family.memory("worker"), max(family.memory("forkserver"), default=0),
               others)  # fmt: skip


def scaling(runs: dict[int, list[Run]], alone: Run, clusters: int) -> list[str]:
    """What the CPU seconds per process say about many cores, which this machine lacks: the
    command's CPU is serial (one process takes every result), the workers' divides among
    them. From the runs with the fewest workers (medians): the command's fixed CPU (the
    1-cluster run: Python, imports, dask's start and stop) and its CPU per cluster, the
    forkserver's (the warm-up, before any worker plans: serial too), the workers' CPU per
    cluster. Amdahl's bound counts all serial CPU as if nothing overlapped it; the command in
    fact takes results while the workers plan, on a core of its own (the pipelined bound:
    whichever of the two takes longer, after the serial start); memory at W workers
    is the measured PSS plus one worker's USS per added worker (what they share with the
    forkserver is there once)."""
    fewest = min(runs)
    measured = runs[fewest]
    command = statistics.median(r.deppy for r in measured)
    forkserver = statistics.median(r.forkserver for r in measured)
    planning = statistics.median(sum(r.workers_cpu) for r in measured)
    per_cluster = max(command - alone.deppy, 0.0) / clusters
    per_worker = planning / clusters
    fixed = alone.deppy + forkserver

    def amdahl(workers: int, n: int) -> float:
        return fixed + n * per_cluster + n * per_worker / workers

    def pipelined(workers: int, n: int) -> float:  # the command on a core of its own
        return fixed + max(n * per_cluster, n * per_worker / workers)

    most = max(runs)
    pss = max(r.peak_pss for r in runs[most])
    unique = max(u for rs in runs.values() for r in rs for u in r.workers_unique)
    speedup = amdahl(1, clusters) / amdahl(8, clusters)
    return [
        f"CPU: the command {alone.deppy:.2f} s fixed + {per_cluster * 1e3:.3f} ms per cluster "
        f"({command:.2f} s for {clusters}, {command / clusters * 1e3:.3f} ms per cluster in "
        f"all), the forkserver {forkserver:.2f} s, the workers {per_worker * 1e3:.3f} ms per "
        f"cluster ({fewest} worker(s))",
        f"Amdahl (serial CPU {fixed:.2f} s + {per_cluster * 1e3:.3f} ms per cluster, "
        f"the workers' divided): {clusters} clusters on 8 workers {speedup:.1f}x faster "
        f"than on 1 ({amdahl(1, clusters):.1f} s -> {amdahl(8, clusters):.1f} s), 100000 on "
        f"14 workers >= {amdahl(14, 100_000):.1f} s; memory (PSS) on 14 workers "
        f"{(pss + (14 - most) * unique) / 2**30:.2f} GB",
        f"pipelined (the command taking results on a core of its own while the workers plan): "
        f"{clusters} clusters on 8 workers {pipelined(1, clusters) / pipelined(8, clusters):.1f}x"
        f" faster than on 1, 100000 on 14 workers >= {pipelined(14, 100_000):.1f} s",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clusters", type=int, default=10_000)
    parser.add_argument("--workers", default="1,2", help="worker counts, comma-separated")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--batch-size", type=int, default=None, help="default: deppy's")
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs per worker count, alternating; medians"
    )
    args = parser.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    directory = exports(args.clusters, args.seed, args.work)
    env = bytecode_env(args.work)
    run(directory / "cluster-00000.json", 1, args.batch_size, env)  # untimed: fills the cache
    # what the command costs whatever the fleet's size (with the cache filled)
    alone = run(directory / "cluster-00000.json", 1, args.batch_size, env)
    runs: dict[int, list[Run]] = {w: [] for w in counts}
    for _ in range(max(args.repeat, 1)):
        for workers in counts:
            load = os.getloadavg()[0]
            result = run(directory, workers, args.batch_size, env)
            assert result.records == args.clusters, (
                f"{result.records} records, {args.clusters} clusters"
            )
            runs[workers].append(result)
            print(result.line(args.clusters, load))
    # per worker count, the median wall time (and the median of the CPU bounds)
    walls = {w: statistics.median(r.wall for r in rs) for w, rs in runs.items()}
    first, last = walls[counts[0]], walls[counts[-1]]
    speedup = first / last if len(counts) > 1 else 1.0
    if len(counts) > 1:
        bounds = [statistics.median(r.free_cores_bound() for r in runs[w]) for w in counts]
        print(
            "on 2 idle cores the CPU allows at best "
            + ", ".join(f"{b:.1f} s ({w} worker(s))" for w, b in zip(counts, bounds, strict=True))
            + f": a speedup of {bounds[0] / bounds[-1]:.2f} (CPU per process, not the load)"
        )
    if args.repeat > 1 and len(counts) > 1:
        pairs = [a.wall / b.wall for a, b in zip(runs[counts[0]], runs[counts[-1]], strict=True)]
        print(
            f"medians of {args.repeat} runs per worker count, run alternately; the speedup of "
            f"each round: {', '.join(f'{p:.2f}' for p in pairs)} (median "
            f"{statistics.median(pairs):.2f})"
        )
    print(f"load average now: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for line in scaling(runs, alone, args.clusters):
        print(line)
    print(
        f"fleet: {args.clusters} clusters, {counts[-1]} workers, {last:.1f} s, "
        f"{args.clusters / last:.0f} clusters/s, speedup {speedup:.2f}, "
        f"peak RSS {max(r.peak for rs in runs.values() for r in rs) / 2**20:.0f} MB"
    )


if __name__ == "__main__":
    main()
