"""Peak memory and time of `catalog add`, `search` and `resolve --catalog` on a large catalog.

Usage: python benchmarks/large_catalog.py CATALOG_DIR [--runs N]

Build a 10x community catalog first, outside the repository (issue 11):
``python benchmarks/build_large_catalog.py /tmp/deppy-10x/catalog``. Each command runs
in a child process with its own DEPPY_HOME; peak RSS is the child's ru_maxrss.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time

DEPPY = [sys.executable, "-c", "from deppy.cli.main import main; main()"]


def run(args: list[str], home: str) -> tuple[float, float, int]:
    """(seconds, peak RSS in MB, exit code) of one deppy command in a fresh child process."""
    env = dict(os.environ, DEPPY_HOME=home)
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: become deppy, its resource usage is reported to the parent alone
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.execve(DEPPY[0], [*DEPPY, *args], env)
    _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - started
    return seconds, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def report(name: str, samples: list[tuple[float, float, int]]) -> None:
    times = [s[0] for s in samples]
    rss = max(s[1] for s in samples)
    codes = sorted({s[2] for s in samples})
    median = statistics.median(times)
    print(f"{name:<28} median {median:7.2f} s   peak RSS {rss:7.0f} MB   exit {codes}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("catalog")
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    assert resource  # ru_maxrss is in KiB on Linux
    with tempfile.TemporaryDirectory() as home:
        report("catalog add", [run(["catalog", "add", "big", options.catalog], home)])
        for term in ("redis", "operator", "c7-etcd"):
            report(
                f"search {term} (store)", [run(["search", term], home) for _ in range(options.runs)]
            )
        report(
            "resolve (store)",
            [run(["resolve", "--require", "c3-etcd"], home) for _ in range(options.runs)],
        )
        report(
            "resolve --catalog PATH",
            [run(["resolve", "--catalog", options.catalog, "--require", "c3-etcd"], home)],
        )
        report(
            "search --catalog PATH",
            [run(["search", "redis", "--catalog", options.catalog], home)],
        )


if __name__ == "__main__":
    main()
