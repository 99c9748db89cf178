"""What hostile catalog streams cost (issue 26, groups 10 and 11), measured as a user meets them:
``--catalog URL`` against a local catalog server.

* A stream of blank lines around one package, gzip-encoded (200 MiB of newlines are ~200 KB of
  gzip): the peak RSS of a fresh process that loads it, against the same process that only
  imports deppy, and that peak over the stream's size.
* A gzip body of many empty members: seconds to inflate it (or to refuse it past 100,000
  members), per MB (linear: the same figure at every size), medians of --repeats runs.

Usage: python benchmarks/stream_bounds.py [--blank-mib 200] [--members-mb 1 2 4 20] [--repeats 3]
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from threading import Thread

PACKAGE = b'{"schema":"olm.package","name":"a","defaultChannel":"s"}\n'
BUNDLE = (
    b'{"schema":"olm.channel","package":"a","name":"s","entries":[{"name":"a.v1"}]}\n'
    b'{"schema":"olm.bundle","package":"a","name":"a.v1","image":"i","properties":'
    b'[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}}]}\n'
)
# The peak from /proc (VmHWM: this process's own high-water mark; ru_maxrss would carry the
# parent's, which holds the stream, across fork and exec).
CHILD = """
import sys
from deppy.cluster.http_catalog import load_http_catalog
def peak():
    with open("/proc/self/status") as status:
        return next(int(l.split()[1]) for l in status if l.startswith("VmHWM:"))
before = peak()
if sys.argv[2] == "load":
    load_http_catalog(sys.argv[1], name="x")
print(before, peak())
"""


def serve(body: bytes) -> tuple[ThreadingHTTPServer, str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/api/v1/all"


def peak_mib(url: str, what: str) -> tuple[float, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, url, what], check=True, capture_output=True, text=True
    ).stdout.split()
    return int(out[0]) / 1024, int(out[1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blank-mib", type=int, default=200)
    parser.add_argument("--members-mb", type=int, nargs="*", default=[1, 2, 4, 20])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}")

    stream = PACKAGE + b"\n" * (args.blank_mib << 20) + BUNDLE
    body = gzip.compress(stream, 6)
    server, url = serve(body)
    try:
        _, imported = peak_mib(url, "import")
        _, loaded = peak_mib(url, "load")
    finally:
        server.shutdown()
    size = len(stream) / (1 << 20)
    print(
        f"blank lines: {size:.0f} MiB stream ({len(body) / 1024:.0f} KiB gzip): peak RSS "
        f"{loaded:.0f} MiB, {imported:.0f} MiB importing only: "
        f"{(loaded - imported) / size:.2f} x the stream"
    )

    from deppy.input_limits import UnsafeInput
    from deppy.input_limits.streams import gunzip_capped

    empty = gzip.compress(b"", mtime=0)
    for mb in args.members_mb:
        raw = empty * (mb * 1_000_000 // len(empty))
        times, outcome = [], "read"
        for _ in range(args.repeats):
            started = time.perf_counter()
            try:
                gunzip_capped(raw)
            except UnsafeInput:
                outcome = "refused (too many members)"
            times.append(time.perf_counter() - started)
        median = statistics.median(times)
        print(
            f"empty gzip members: {mb} MB ({len(raw) // len(empty):,} members): {outcome} in "
            f"{median:.2f} s (median of {args.repeats}), {median / mb:.3f} s/MB"
        )
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
