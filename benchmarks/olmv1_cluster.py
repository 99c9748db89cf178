"""Figures for deppy in front of OLM v1 on a real kube-apiserver (../shared/k8s), with OLM v1's
CRDs and community v4.18 served as a ClusterCatalog (a local HTTP server plays catalogd).

* digest → answered: catalogd names new content (a ClusterCatalog's
  ``status.resolvedSource.image.ref`` written), until an ActiveResolution over that catalog is
  answered from it (its ``status.catalogs`` names the new digest) — the fetch of the 72 MB
  stream included; apart: content that changed (parsed again) and the same bytes under a new
  digest (kept); median and max over --repeats each;
* approved → ClusterExtensions: an Input of an AllowAll olm-v1 class for
  node-healthcheck-operator 0.8.0 (it needs self-node-remediation) applied, until both
  ClusterExtensions are written pinned; median and max over --repeats (each in a fresh
  namespace, the previous ClusterExtensions deleted first);
* the controller's resident memory with the ClusterCatalog loaded.

The control plane, the catalog server (127.0.0.1) and ``deppy controller`` are started as the
controller tests start them (tests/kube.py, tests/controller_env.py), and stopped at the end.

Usage: python benchmarks/olmv1_cluster.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.controller import memory  # noqa: E402
from tests.controller_env import (  # noqa: E402
    approval_classes,
    client,
    install,
    install_olm_v1,
    run_controller,
    serve_as_catalogd,
)
from tests.fbc_server import fbc_stream, serve_catalog  # noqa: E402
from tests.kube import start_cluster  # noqa: E402
from tests.test_olmv1_rules import cluster_catalog  # noqa: E402

SHARED = Path(os.environ.get("DEPPY_SHARED", ROOT.parent / "shared"))
CATALOG = "community"
PACKAGES = ("node-healthcheck-operator", "self-node-remediation")


def until(what: str, probe: Callable[[], Any], timeout: float = 300.0) -> float:
    """Seconds until ``probe`` is truthy (polled every 20 ms)."""
    begin = time.monotonic()
    while time.monotonic() - begin < timeout:
        if probe():
            return time.monotonic() - begin
        time.sleep(0.02)
    raise SystemExit(f"timed out waiting for {what}")


def ref(n: int) -> str:
    return f"quay.io/example/community@sha256:{n:064x}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    body = fbc_stream(SHARED / "catalogs" / "community-operators-prod-v4.18")
    # the same catalog without one package (etcd stays: the ActiveResolution asks for it)
    without_one = (
        b"\n".join(line for line in body.splitlines() if b'"argocd-operator"' not in line) + b"\n"
    )
    with contextmanager(start_cluster)(SHARED) as kube, serve_catalog(body) as server:
        install(kube)
        install_olm_v1(kube)
        api = client(kube)
        api.create("clustercatalogs", cluster_catalog(CATALOG))
        approval_classes(api, "olm-v1-allow", "AllowAll", "deppy.io/olm-v1", serviceAccount="bench")
        kube.kubectl("create", "namespace", "bench")
        api.create(
            "activeresolutions",
            {
                "apiVersion": "deppy.io/v1alpha1",
                "kind": "ActiveResolution",
                "metadata": {"name": "ask", "namespace": "bench"},
                "spec": {"sources": [CATALOG], "constraints": ['required("etcd")']},
            },
            "bench",
        )

        def answered_from(n: int) -> bool:
            found = api.get("activeresolutions", "ask", "bench") or {}
            digests = [c.get("digest") for c in (found.get("status") or {}).get("catalogs") or ()]
            return digests == [ref(n)]

        with run_controller(kube, Path(tempfile.mkdtemp()) / "controller.log") as controller:
            changed, same = [], []
            for n in range(1, 2 * options.repeats + 1):
                # odd: other bytes (a package published or withdrawn); even: the same bytes
                # under a new image digest (catalogd rebuilt the image)
                if n % 2:
                    server.set_body(body if n % 4 == 1 else without_one)
                serve_as_catalogd(api, CATALOG, server.url, ref(n))
                took = until(f"answered from digest {n}", lambda n=n: answered_from(n))
                (changed if n % 2 else same).append(took)
            rss, peak = memory(controller.process.pid)
            applies = []
            for n in range(options.repeats):
                for package in PACKAGES:
                    api.delete("clusterextensions", package)
                until("the ClusterExtensions gone", lambda: not api.list("clusterextensions"))
                namespace = f"bench-{n}"
                kube.kubectl("create", "namespace", namespace)
                spec = {
                    "inputClass": "olm-v1-allow",
                    "constraints": [
                        {"type": "olm.catalog", "value": {"name": CATALOG, "package": PACKAGES[0]}},
                        {
                            "type": "olm.packageVersion",
                            "value": {"package": PACKAGES[0], "version": "0.8.0"},
                        },
                    ],
                }
                document = {
                    "apiVersion": "deppy.io/v1alpha1",
                    "kind": "Input",
                    "metadata": {"name": "nhc", "namespace": namespace},
                    "spec": spec,
                }

                def written(namespace: str = namespace) -> bool:
                    found = api.list("clusterextensions")
                    labels = [(e["metadata"].get("labels") or {}) for e in found]
                    mine = [x for x in labels if x.get("deppy.io/namespace") == namespace]
                    return len(mine) == len(PACKAGES)

                begin = time.monotonic()
                kube.kubectl("apply", "-f", "-", input=json.dumps(document))
                until("both ClusterExtensions", written)
                applies.append(time.monotonic() - begin)
                api.delete("inputs", "nhc", namespace)
    print(
        f"digest -> answered, content changed (community v4.18, 72 MB stream, parsed): median "
        f"{statistics.median(changed):.2f} s, max {max(changed):.2f} s over {len(changed)}"
    )
    print(
        f"digest -> answered, same bytes under a new digest (fetched, not parsed): median "
        f"{statistics.median(same):.2f} s, max {max(same):.2f} s over {len(same)}"
    )
    print(
        f"Input applied -> 2 ClusterExtensions written (AllowAll, 1 s quiet period included): "
        f"median {statistics.median(applies):.2f} s, max {max(applies):.2f} s over {len(applies)}"
    )
    print(f"controller RSS with the ClusterCatalog loaded: {rss:.0f} MB (peak {peak:.0f} MB)")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
