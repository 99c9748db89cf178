"""An older index image's SQLite index against the same catalog as a directory (issue 46).

Community v4.18 (../shared/catalogs) is written as an SQLite index laid out as ``opm index
add`` did (tests/sqlite_index_writer.py); then, each a new process as a user runs it, with the
parsed-catalog cache off (an index is never cached, and a first directory read is not either):
``deppy resolve --catalog DIR`` against ``--catalog index.db``, and ``deppy catalog render
index.db``. Prints medians of N runs (wall and CPU seconds, peak RSS) and the same-run ratios,
with the load average before and after. No target: the figures say what an index costs.
Usage: python benchmarks/sqlite_index.py [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.older_release import COMMUNITY
from tests.sqlite_index_writer import write_sqlite_index

from deppy.catalog.fbc import load_catalog
from deppy.cluster.fbc_render import catalog_objects

DEPPY = Path(sys.executable).with_name("deppy")


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def measured(args: list[str], env: dict[str, str], repeats: int) -> tuple[float, float, float]:
    """Median wall seconds, CPU seconds and peak RSS (MB) of a deppy command."""
    walls, cpus, peaks = [], [], []
    for _ in range(repeats):
        started = time.perf_counter()
        child = subprocess.Popen(
            [str(DEPPY), *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _, status, usage = os.wait4(child.pid, 0)
        walls.append(time.perf_counter() - started)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"deppy {' '.join(args)} failed")
        cpus.append(usage.ru_utime + usage.ru_stime)
        peaks.append(usage.ru_maxrss / 1024)
    return statistics.median(walls), statistics.median(cpus), statistics.median(peaks)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    repeats = parser.parse_args().repeats
    with tempfile.TemporaryDirectory() as scratch:
        index = Path(scratch) / "index.db"
        started = time.perf_counter()
        write_sqlite_index(catalog_objects(load_catalog(COMMUNITY, name="c")), index)
        print(
            f"community v4.18 written as an index: {index.stat().st_size / 1e6:.0f} MB "
            f"in {time.perf_counter() - started:.1f} s"
        )
        env = dict(os.environ, DEPPY_HOME=str(Path(scratch) / "home"), DEPPY_CACHE="off")
        require = ["--require", "etcd", "-o", "json"]
        print(f"load average before: {load_average()}")
        commands = {
            "resolve --catalog DIR": ["resolve", "--catalog", str(COMMUNITY), *require],
            "resolve --catalog index.db": ["resolve", "--catalog", str(index), *require],
            "catalog render index.db": ["catalog", "render", str(index)],
        }
        rows = {name: measured(args, env, repeats) for name, args in commands.items()}
        print(f"load average after: {load_average()}")
    for name, (wall, cpu, peak) in rows.items():
        print(f"{name:28} {wall:6.2f} s wall  {cpu:6.2f} s CPU  {peak:6.0f} MB peak")
    directory, sqlite = rows["resolve --catalog DIR"], rows["resolve --catalog index.db"]
    print(
        f"index / directory: {sqlite[0] / directory[0]:.2f}x wall, "
        f"{sqlite[1] / directory[1]:.2f}x CPU, {sqlite[2] / directory[2]:.2f}x peak RSS"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
