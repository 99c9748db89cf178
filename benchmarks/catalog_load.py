"""Catalog loading speed against the floor set by parsing alone, and the memory a catalog holds.

"Raw" is what any loader must pay: orjson.loads per line of the JSON files plus
yaml.load_all(CSafeLoader) over the YAML files, results thrown away. "Ours" is load_catalog, which
keeps everything valid and checks it. Times are medians over --repeats runs in this process; peak
RSS is measured in a fresh child process that loads the catalog once (and, for reference, one that
only imports deppy).

Usage: python benchmarks/catalog_load.py [CATALOG_DIR ...] [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import orjson
import yaml

from deppy.catalog.fbc import load_catalog

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "catalogs"
DEFAULT = [SHARED / "community-operators-prod-v4.18"]

_CHILD = """
import resource, sys
from deppy.catalog.fbc import load_catalog
if sys.argv[1] != "-":
    catalog = load_catalog(sys.argv[1])
# VmHWM is this process's own peak; ru_maxrss would carry the parent's peak over fork + exec.
try:
    with open("/proc/self/status") as status:
        print(next(int(l.split()[1]) for l in status if l.startswith("VmHWM:")))
except OSError:
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def raw_parse(root: Path) -> int:
    """Parse every file the cheapest way and drop the result; returns the object count."""
    count = 0
    for directory, _, files in os.walk(root):
        for name in sorted(files):
            data = (Path(directory) / name).read_bytes()
            if name.endswith(".json"):
                for line in data.splitlines():
                    if line.strip():
                        orjson.loads(line)
                        count += 1
            else:
                for _ in yaml.load_all(data, Loader=yaml.CSafeLoader):
                    count += 1
    return count


def median_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
        del result
    return statistics.median(times)


def peak_rss_mb(target: str) -> float:
    """Peak RSS of a child that loads ``target`` ("-" loads nothing)."""
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, target], check=True, capture_output=True, text=True
    )
    return int(out.stdout.strip()) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("catalogs", nargs="*", type=Path, default=DEFAULT)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    base_rss = peak_rss_mb("-")
    for root in args.catalogs:
        raw = median_time(lambda root=root: raw_parse(root), args.repeats)
        ours = median_time(lambda root=root: load_catalog(root), args.repeats)
        catalog = load_catalog(root)
        rss = peak_rss_mb(str(root))
        print(f"{root.name}")
        print(
            f"  {len(catalog.packages)} packages, {len(catalog.channels)} channels, "
            f"{len(catalog.bundles)} bundles, {len(catalog.problems)} problems"
        )
        print(f"  raw parse  (median of {args.repeats}): {raw:.3f} s")
        print(f"  load       (median of {args.repeats}): {ours:.3f} s")
        print(f"  ratio load/raw: {ours / raw:.2f}  (target <= 1.5)")
        print(f"  peak RSS loading once: {rss:.0f} MB (python + deppy imported: {base_rss:.0f} MB)")


if __name__ == "__main__":
    main()
