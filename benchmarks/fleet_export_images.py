"""Fleet plans from the catalog images exports name (issue 47): N exports whose only
CatalogSource is the community catalog as an image in Debian's docker-registry on 127.0.0.1,
planned with no ``--catalog`` (the command pulls the image once and hands its workers the
directory), against the same plan with ``--catalog DIR`` (the same catalog as a directory),
alternately, each run a fresh ``deppy`` process with a fresh ``DEPPY_HOME`` (both read their
catalog for the first time), in the same run; medians of --repeats.

Targets: the image's plan within 10% of the directory's; the image pulled once per run (its
blobs fetched once each, counted in the registry's access log), whatever the workers.

Usage: python benchmarks/fleet_export_images.py [--clusters 10000] [--workers 2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.fleet_exports import write_fleet  # noqa: E402
from tests.catalog_images import Layout, split_catalog  # noqa: E402
from tests.registry import running_registry, skopeo  # noqa: E402

from deppy.catalog.catalog_set import CatalogSet  # noqa: E402
from deppy.catalog.fbc import load_catalog  # noqa: E402

COMMUNITY = ROOT.parent / "shared" / "catalogs" / "community-operators-prod-v4.18"
DEPPY = str(Path(sys.executable).with_name("deppy"))


def timed(args: list[str], home: Path) -> float:
    """Seconds of one ``deppy ARGS`` process (its output checked, then dropped)."""
    start = time.perf_counter()
    done = subprocess.run(
        [DEPPY, *args],
        env={**os.environ, "DEPPY_HOME": str(home)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return time.perf_counter() - start


def blobs(log: Path) -> list[str]:
    """The blobs fetched so far, in order (the registry's access log)."""
    return re.findall(r'"GET /v2/[^ ]+/blobs/([^ ?"]+)', log.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        layout = Layout(work / "layout")
        layout.tag(layout.image(split_catalog(COMMUNITY, 3)), "v4.18")
        with running_registry(work / "registry", access_log=True) as registry:
            image = f"{registry.address}/catalogs/community:v4.18"
            copied = skopeo(
                "copy",
                "--dest-tls-verify=false",
                f"oci:{work / 'layout'}:v4.18",
                f"docker://{image}",
            )
            assert copied.returncode == 0, copied.stderr
            fleet = work / "fleet"
            source = CatalogSet([load_catalog(COMMUNITY, name="community")])
            for path in write_fleet(source, fleet, args.clusters):
                document = json.loads(path.read_bytes())
                document["catalogSources"] = [{
                    "apiVersion": "operators.coreos.com/v1alpha1", "kind": "CatalogSource",
                    "metadata": {"name": "community", "namespace": "openshift-marketplace"},
                    "spec": {"sourceType": "grpc", "image": image},
                }]  # fmt: skip
                path.write_bytes(json.dumps(document).encode())
            plan = ["fleet", "plan", str(fleet), "--ocp-version", "4.20", "-o", "jsonl",
                    "--workers", str(args.workers)]  # fmt: skip
            log = work / "registry" / "registry.log"
            rows: dict[str, list[float]] = {"dir": [], "img": []}
            pulls: list[tuple[int, int]] = []  # blobs fetched by a run, and how many distinct
            for n in range(args.repeats):
                home = work / f"home-{n}"
                rows["dir"].append(
                    timed([*plan, "--catalog", f"{COMMUNITY}=community"], home / "d")
                )
                before = len(blobs(log))
                rows["img"].append(timed([*plan, "--tls-verify=false"], home / "i"))
                fetched = blobs(log)[before:]
                pulls.append((len(fetched), len(set(fetched))))
    median = {k: statistics.median(v) for k, v in rows.items()}
    print(f"fleet plan, {args.clusters} exports, {args.workers} workers")
    print(f"  --catalog DIR:        {median['dir']:.2f} s")
    print(f"  the exports' image:   {median['img']:.2f} s ({median['img'] / median['dir']:.2f}x "
          "the directory's, target <= 1.10x)")  # fmt: skip
    most, distinct = max(pulls)
    print(f"  blobs fetched a run:  {most}, {distinct} distinct (equal: one pull per run)")


if __name__ == "__main__":
    main()
