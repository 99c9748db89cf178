"""Figures for a cluster as input: export and resolve against a real kube-apiserver, and reading
the community index over gRPC against reading it from its directory.

Setup: a kube-apiserver from ../shared/k8s (started and stopped as the tests do, tests/kube.py),
the test OLM CRDs,
two CatalogSources served over gRPC from this process on 127.0.0.1 (community v4.18, priority
10, and operatorhubio-upstream-2021), and 50 installed operators: 45 with a Subscription (one
version below their channel head, so the resolution upgrades them) and 5 installed by hand
(their properties synthesised from their CSVs). The CSVs are built from the catalog bundles'
CSV metadata (owned and required CRDs, version).

Figures are whole-process wall times of ``.venv/bin/deppy`` (median of --repeats runs after one
warm-up), as a user waits for them:

* ``cluster export`` (live, list/get only);
* ``resolve --kubeconfig`` and ``resolve --cluster EXPORT`` — both read the two catalogs over gRPC;
* the catalog load alone (the two catalogs read over gRPC, in this process), and the rest: the
  whole process minus that load, to compare with the 2 s budget;
* community v4.18: gRPC (ListPackages + GetPackage + ListBundles, converted and loaded) against
  the directory, in this process.

Usage: python benchmarks/cluster_input.py [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT), str(ROOT / "benchmarks")]

from tests.cluster_helpers import as_stream, catalog_source, subscription  # noqa: E402
from tests.kube import start_cluster  # noqa: E402

from deppy.catalog.fbc import load_catalog  # noqa: E402
from deppy.catalog.model import Bundle, Catalog  # noqa: E402
from deppy.cluster.registry_client import load_registry_catalog  # noqa: E402
from deppy.cluster.registry_server import start_registry_server  # noqa: E402
from store_resolve import DEPPY, median_time  # noqa: E402

SHARED = ROOT.parent / "shared"
COMMUNITY = SHARED / "catalogs" / "community-operators-prod-v4.18"
OPERATORHUB = SHARED / "catalogs" / "operatorhubio-upstream-2021"
CRDS = ROOT / "tests" / "data" / "olm-crds"
INSTALLED, BY_HAND = 50, 5
BUDGET = 2.0


def csv_of(bundle: Bundle, namespace: str) -> dict[str, Any]:
    meta = dict(bundle.csv_metadata or {})
    return {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {"name": bundle.name, "namespace": namespace},
        "spec": {
            "version": str(bundle.version),
            "customresourcedefinitions": meta.get("crdDescriptions") or {},
            "apiservicedefinitions": meta.get("apiServiceDefinitions") or {},
            "minKubeVersion": meta.get("minKubeVersion") or "",
        },
    }


def choose(catalog: Catalog) -> list[tuple[Bundle, str]]:
    """Packages whose default channel runs on Kubernetes 1.20 without dependencies and whose APIs
    no other chosen package provides: (second-newest bundle, channel)."""
    chosen: list[tuple[Bundle, str]] = []
    apis: set[object] = set()
    for name, package in catalog.packages.items():
        channel = catalog.channels.get((name, package.default_channel or ""))
        if channel is None or len(channel.entries) < 2:
            continue
        bundles = sorted(
            (catalog.bundles[(name, e.name)] for e in channel.entries),
            key=lambda b: b.version, reverse=True,
        )  # fmt: skip
        if any(
            b.required_packages or b.required_gvks or b.constraints or b.required_labels
            or (b.min_kube_version and str(b.min_kube_version) > "1.20.2")
            for b in bundles
        ):  # fmt: skip
            continue
        provided = {g for b in bundles for g in b.provided_gvks}
        if provided & apis:
            continue
        apis |= provided
        chosen.append((bundles[1], channel.name))
        if len(chosen) == INSTALLED:
            break
    return chosen


def objects(chosen: list[tuple[Bundle, str]], namespace: str, addresses: list[str]) -> str:
    docs: list[dict[str, Any]] = []
    for n, (bundle, channel) in enumerate(chosen):
        docs.append(csv_of(bundle, namespace))
        if n >= BY_HAND:
            package = bundle.package
            docs.append(
                subscription(namespace, package, package, channel, "community", bundle.name)
            )
    for name, address, priority in zip(
        ("community", "operatorhub"), addresses, (10, 0), strict=True
    ):
        docs.append(catalog_source(namespace, name, address, priority))
    return as_stream(docs)


def timed(argv: list[str], env: dict[str, str], repeats: int) -> tuple[float, int]:
    """Median wall time of warm runs (store_resolve.median_time), and the exit code."""
    wall, _cpu, code = median_time(argv, env, repeats)
    return wall, code


def median(function: Any, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.2f}; medians of {args.repeats} runs\n"
    )
    community = load_catalog(COMMUNITY, name="community", priority=10)
    operatorhub = load_catalog(OPERATORHUB, name="operatorhub")
    chosen = choose(community)
    grpc_community, port_a = start_registry_server(community)
    grpc_hub, port_b = start_registry_server(operatorhub)
    addresses = [f"127.0.0.1:{port_a}", f"127.0.0.1:{port_b}"]
    try:
        with (
            contextmanager(start_cluster)(SHARED) as kube,
            tempfile.TemporaryDirectory(prefix="deppy-cluster-bench-") as tmp,
        ):
            env = {**os.environ, "DEPPY_HOME": str(Path(tmp) / "home")}
            for crd in sorted(CRDS.iterdir()):
                kube.kubectl("apply", "-f", str(crd))
            kube.kubectl("wait", "--for=condition=established", "--timeout=60s", "crd", "--all")
            kube.kubectl("create", "namespace", "operators")
            kube.kubectl("apply", "-f", "-", input=objects(chosen, "operators", addresses))
            sizes = f"{len(community.bundles)} + {len(operatorhub.bundles)} bundles"
            print(f"{len(chosen)} installed operators ({BY_HAND} by hand), 2 catalogs ({sizes})\n")
            live = ["--kubeconfig", str(kube.kubeconfig)]
            export = Path(tmp) / "cluster.yaml"
            exported, code = timed(
                [str(DEPPY), "cluster", "export", *live, "-f", str(export)], env, args.repeats
            )
            print(f"cluster export (live):             {exported:6.2f} s  (exit {code})")
            resolved, code = timed([str(DEPPY), "resolve", *live, "-o", "json"], env, args.repeats)
            print(f"resolve --kubeconfig (whole):      {resolved:6.2f} s  (exit {code})")
            argv = [str(DEPPY), "resolve", "--cluster", str(export), "-o", "json"]
            from_file, code = timed(argv, env, args.repeats)
            print(f"resolve --cluster EXPORT (whole):  {from_file:6.2f} s  (exit {code})")
            load = median(
                lambda: [
                    load_registry_catalog(a, name=n)
                    for a, n in zip(addresses, ("community", "operatorhub"), strict=True)
                ],
                args.repeats,
            )
            print(f"the two catalogs over gRPC (load): {load:6.2f} s")
            for label, whole in (("--kubeconfig", resolved), ("--cluster", from_file)):
                rest = whole - load
                verdict = "within" if rest <= BUDGET else "OVER"
                print(
                    f"  resolve {label:<13} beyond the catalog load: {rest:5.2f} s "
                    f"({verdict} the {BUDGET:g} s budget)"
                )
    finally:
        grpc_community.stop(0)
        grpc_hub.stop(0)

    print("\ncommunity v4.18 (5,572 bundles), in this process:")
    directory = median(lambda: load_catalog(COMMUNITY, name="c"), 3)
    server, port = start_registry_server(community)
    try:
        over_grpc = median(lambda: load_registry_catalog(f"127.0.0.1:{port}", name="c"), 3)
    finally:
        server.stop(0)
    print(f"  from its directory: {directory:5.2f} s")
    ratio = over_grpc / directory
    print(f"  over gRPC:          {over_grpc:5.2f} s  ({ratio:.2f}x; server in this process)")


if __name__ == "__main__":
    main()
