"""Catalog images as a user meets them (issue 46): the community catalog pushed with skopeo to
Debian's docker-registry on 127.0.0.1 (plain HTTP), then, each a fresh ``deppy`` process with a
fresh ``DEPPY_HOME``, medians of --repeats runs, all in the same run:

* the first ``resolve --catalog DIR`` against the first ``resolve --catalog docker://…``
  (target: at most 1.5 times the directory's);
* a repeat of the image's resolve (target: at most 0.5 s: one HEAD, then the parse cache);
* ``catalog add NAME docker://…`` (target: at most 5 s), beside the directory's;
* the peak RSS of the image's first resolve against the directory's (target: at most 1.2x).

Usage: python benchmarks/catalog_image.py [--repeats 3] [--layers 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.catalog_images import Layout, split_catalog  # noqa: E402
from tests.registry import running_registry, skopeo  # noqa: E402

COMMUNITY = ROOT.parent / "shared" / "catalogs" / "community-operators-prod-v4.18"
PACKAGE = "rabbitmq-messaging-topology-operator"
DEPPY = str(Path(sys.executable).with_name("deppy"))


def timed(args: list[str], home: Path) -> tuple[float, float]:
    """Seconds and peak RSS (MiB) of one ``deppy ARGS`` process."""
    env = {**os.environ, "DEPPY_HOME": str(home)}
    wrapper = (
        "import resource, subprocess, sys, time; t = time.perf_counter(); "
        "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE); "
        "s = time.perf_counter() - t; "
        "assert r.returncode == 0, r.stderr.decode()[-2000:]; "
        "print(s, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run(
        [sys.executable, "-c", wrapper, DEPPY, *args],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return float(out[0]), int(out[1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--layers", type=int, default=3)
    args = parser.parse_args()
    print(f"{platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        layout = Layout(work / "layout")
        layout.tag(layout.image(split_catalog(COMMUNITY, args.layers)), "v4.18")
        with running_registry(work / "registry") as registry:
            image = f"docker://{registry.address}/catalogs/community:v4.18"
            copied = skopeo(
                "copy", "--dest-tls-verify=false", f"oci:{work / 'layout'}:v4.18", image
            )
            assert copied.returncode == 0, copied.stderr
            resolve = ["resolve", "--require", PACKAGE, "--tls-verify=false"]
            rows: dict[str, list[tuple[float, float]]] = {
                k: [] for k in ("dir", "img", "rep", "add", "add-dir")
            }
            for n in range(args.repeats):
                home = work / f"home-{n}"
                rows["dir"].append(timed([*resolve, "--catalog", str(COMMUNITY)], home / "d"))
                rows["img"].append(timed([*resolve, "--catalog", image], home / "i"))
                time.sleep(1)  # the parsed-catalog cache is written in the background
                rows["rep"].append(timed([*resolve, "--catalog", image], home / "i"))
                add = ["catalog", "add", "community", image, "--tls-verify=false"]
                rows["add"].append(timed(add, home / "a"))
                add_dir = ["catalog", "add", "community", str(COMMUNITY)]
                rows["add-dir"].append(timed(add_dir, home / "b"))
    median = {k: statistics.median(s for s, _ in v) for k, v in rows.items()}
    rss = {k: statistics.median(m for _, m in v) for k, v in rows.items()}
    ratio = median["img"] / median["dir"]
    rss_ratio = rss["img"] / rss["dir"]
    print(f"first resolve, directory: {median['dir']:.2f} s, {rss['dir']:.0f} MiB")
    print(f"first resolve, image:     {median['img']:.2f} s, {rss['img']:.0f} MiB "
          f"({ratio:.2f}x the directory's time, target <= 1.5x; {rss_ratio:.2f}x its RSS, "
          "target <= 1.2x)")  # fmt: skip
    print(f"repeat resolve, image:    {median['rep']:.2f} s (target <= 0.5 s)")
    print(f"catalog add, image:       {median['add']:.2f} s (target <= 5 s; "
          f"the directory's: {median['add-dir']:.2f} s)")  # fmt: skip


if __name__ == "__main__":
    main()
