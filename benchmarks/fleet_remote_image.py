"""Fleet plans against a catalog image on dask workers that share nothing (issue 47).

N synthetic clusters (benchmarks/fleet_exports.py, as benchmarks/fleet.py makes them) planned
with ``deppy fleet plan DIR --scheduler tcp://… --catalog docker://…`` (the community catalog
pushed with skopeo to Debian's docker-registry on 127.0.0.1, plain HTTP) and with the same
plan against the catalog as a directory (``--catalog DIR``, its content sent to each worker),
alternately, in the same run, on a dask scheduler and W workers started here with dask's
command-line tools, each worker with a deppy home of its own (as on machines that share
nothing; the exports travel as content either way). The first round's runs start with the
workers' caches empty (the image pulled, the directory unpacked, once per worker); later
rounds find them there, as a long-lived dask cluster does.

Goals: the image's median wall time within 10% of the directory's, and at most one pull per
worker per run (the registry's access log: manifest and blob GETs; the command itself asks
one HEAD for the tag). Both plans are byte-identical (the catalog named alike in both).

Usage: python benchmarks/fleet_remote_image.py [--clusters 10000] [--workers 2] [--repeat 3]
       [--work DIR] [--seed S]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.fleet import COMMUNITY, DEPPY, bytecode_env, exports  # noqa: E402
from tests.catalog_images import Layout, split_catalog  # noqa: E402
from tests.ports import free_port  # noqa: E402
from tests.registry import running_registry, skopeo  # noqa: E402

DASK = str(Path(sys.executable).with_name("dask"))


@contextmanager
def dask_cluster(workers: int, work: Path, env: dict[str, str]) -> Iterator[str]:
    """A scheduler and ``workers`` single-threaded workers on 127.0.0.1, each worker with a
    deppy home of its own under ``work`` (its own cache: what it pulls or unpacks)."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    start = [DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]
    started = [subprocess.Popen(start, env=env, **quiet)]
    try:
        for n in range(workers):
            home = {**env, "DEPPY_HOME": str(work / f"worker-home-{n}")}
            serve = [DASK, "worker", address, "--nthreads", "1", "--no-dashboard", "--host"]
            serve += ["127.0.0.1", "--name", f"w{n}"]
            started.append(subprocess.Popen(serve, env=home, **quiet))
        from distributed import Client

        with Client(address, timeout="30s") as client:
            client.wait_for_workers(workers, timeout=120)
        yield address
    finally:
        for process in reversed(started):
            process.terminate()
            process.wait(timeout=30)


def _asked(log: Path) -> list[str]:
    return re.findall(r'"(?:GET|HEAD) (/v2/[^ ?"]*)', log.read_text(errors="replace"))


def timed(command: list[str], env: dict[str, str], out: Path) -> float:
    started = time.perf_counter()
    with out.open("wb") as written:
        done = subprocess.run(command, stdout=written, stderr=subprocess.PIPE, env=env)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"deppy fleet plan failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clusters", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="rounds, image and directory")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args()
    print(f"{platform.machine()}, {os.cpu_count()} cores, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")  # fmt: skip
    directory = exports(args.clusters, args.seed, args.work)
    with tempfile.TemporaryDirectory(dir=args.work) as scratch:
        work = Path(scratch)
        env = {**bytecode_env(args.work), "DEPPY_HOME": str(work / "command-home")}
        layout = Layout(work / "layout")
        layout.tag(layout.image(split_catalog(COMMUNITY)), "v4.18")
        with (
            running_registry(work / "registry", access_log=True) as registry,
            dask_cluster(args.workers, work, env) as scheduler,
        ):
            image = f"docker://{registry.address}/catalogs/community:v4.18"
            copied = skopeo("copy", "--dest-tls-verify=false", f"oci:{work / 'layout'}:v4.18",
                            image)  # fmt: skip
            assert copied.returncode == 0, copied.stderr
            log = work / "registry" / "registry.log"
            plan = [DEPPY, "fleet", "plan", str(directory), "--ocp-version", "4.20", "-o",
                    "jsonl", "-q", "--scheduler", scheduler, "--tls-verify=false"]  # fmt: skip
            walls: dict[str, list[float]] = {"image": [], "directory": []}
            for n in range(max(args.repeat, 1)):
                for mode, catalog in (("image", image), ("directory", str(COMMUNITY))):
                    before = len(_asked(log))
                    out = work / f"{mode}.jsonl"
                    wall = timed([*plan, "--catalog", f"{catalog}=community"], env, out)
                    walls[mode].append(wall)
                    asked = _asked(log)[before:]
                    blobs = sum("/blobs/" in a for a in asked)
                    manifests = sum("/manifests/" in a for a in asked)
                    print(f"round {n + 1}, {mode}: {wall:.1f} s, {args.clusters / wall:.0f} "
                          f"clusters/s; registry: {manifests} manifest and {blobs} blob "
                          f"requests; load average {os.getloadavg()[0]:.2f}")  # fmt: skip
                image_out = (work / "image.jsonl").read_bytes()
                assert image_out == (work / "directory.jsonl").read_bytes(), "plans differ"
                lines = image_out.splitlines()
                errors = sum(b'"error"' in line for line in lines)
                assert len(lines) == args.clusters, f"{len(lines)} records"
                assert errors < args.clusters // 10, f"{errors} of {len(lines)} records are errors"
    image_wall = statistics.median(walls["image"])
    directory_wall = statistics.median(walls["directory"])
    print(f"load average now: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"the plans: {args.clusters} records, {errors} of them errors")  # fmt: skip
    print(
        f"fleet image: {args.clusters} clusters, {args.workers} workers, image {image_wall:.1f} s,"
        f" directory {directory_wall:.1f} s (medians of {len(walls['image'])}), ratio "
        f"{image_wall / directory_wall:.2f} (goal <= 1.10)"
    )


if __name__ == "__main__":
    main()
