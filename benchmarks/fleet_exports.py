"""Synthetic cluster exports for fleet plans: seeded, from a real catalog.

Each cluster runs a mix of OpenShift versions and has 5–40 operators installed through
Subscriptions, each at a real version of a real channel of the catalog (a package's default
channel most of the time, a bundle near the channel's head more often than an old one, as
fleets kept roughly current look), written as ``deppy cluster export`` writes them (JSON). A
few are made to need a person: an install the catalog no longer has (stranded) and, with
``damaged``, files that are not exports at all or name packages the catalog does not have.

Used by benchmarks/fleet.py and by the fleet tests; the same seed gives the same files.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson

from deppy.catalog.catalog_set import BundleSource

# the community package whose bundles state olm.maxOpenShiftVersion (4.18 … 4.22 by version):
# a share of the clusters run it, so a platform target has blockers and fixes to find
BLOCKING = "gitlab-operator-kubernetes"
BLOCKING_SHARE = 0.3
OPENSHIFT = (("4.14.12", "v1.27.10"), ("4.16.20", "v1.29.9"), ("4.17.8", "v1.30.6"),
             ("4.18.3", "v1.31.4"))  # fmt: skip


def installable(source: BundleSource) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """(package, channel, [(bundle, version)] newest first) for every channel of every package
    of the first catalog, the default channel of each package first."""
    catalog = source.names()[0]
    found = []
    for package in sorted({b.package for b in source.all_bundles() if b.catalog == catalog}):
        meta = source.package(catalog, package)
        versions = {b.name: b.version for b in source.bundles_of(package) if b.catalog == catalog}
        channels = sorted(
            source.channels(catalog, package),
            key=lambda c: (meta is None or c.name != meta.default_channel, c.name),
        )
        for channel in channels:
            entries = sorted(
                (e.name for e in channel.entries if e.name in versions),
                key=lambda n: (versions[n], n),
                reverse=True,
            )
            if entries:
                found.append((package, channel.name, [(n, str(versions[n])) for n in entries]))
    return found


def _subscription(package: str, channel: str, catalog: str, csv: str) -> dict[str, Any]:
    return {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "Subscription",
        "metadata": {"name": package, "namespace": "openshift-operators"},
        "spec": {"name": package, "channel": channel, "source": catalog,
                 "sourceNamespace": "openshift-marketplace"},
        "status": {"installedCSV": csv},
    }  # fmt: skip


def _csv(name: str, version: str) -> dict[str, Any]:
    return {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {"name": name, "namespace": "openshift-operators"},
        "spec": {"version": version},
        "status": {"phase": "Succeeded"},
    }


def cluster_export(
    rng: random.Random,
    name: str,
    choices: list[tuple[str, str, list[tuple[str, str]]]],
    catalog: str,
    *,
    low: int = 5,
    high: int = 40,
) -> dict[str, Any]:
    by_package: dict[str, list[tuple[str, str, list[tuple[str, str]]]]] = {}
    for choice in choices:
        by_package.setdefault(choice[0], []).append(choice)
    packages = sorted(by_package)
    count = min(rng.randint(low, high), len(packages))
    subscriptions, csvs = [], []
    chosen = sorted(rng.sample(packages, count))
    for package in chosen:
        options = by_package[package]
        _, channel, entries = options[0] if rng.random() < 0.85 else rng.choice(options)
        depth = min(int(rng.expovariate(0.5)), len(entries) - 1)  # mostly near the head
        bundle, version = entries[depth]
        subscriptions.append(_subscription(package, channel, catalog, bundle))
        csvs.append(_csv(bundle, version))
    if rng.random() < BLOCKING_SHARE and BLOCKING in by_package and BLOCKING not in chosen:
        _, channel, entries = by_package[BLOCKING][0]
        bundle, version = rng.choice(entries)  # any version: older ones stop at older OpenShifts
        subscriptions.append(_subscription(BLOCKING, channel, catalog, bundle))
        csvs.append(_csv(bundle, version))
    ocp, kube = rng.choice(OPENSHIFT)
    return {
        "apiVersion": "deppy.io/v1alpha1",
        "kind": "ClusterExport",
        "cluster": {"source": f"https://api.{name}.example:6443", "kubernetesVersion": kube,
                    "openshiftVersion": ocp, "apis": [], "problems": []},
        "clusterServiceVersions": csvs,
        "subscriptions": subscriptions,
        "catalogSources": [], "operatorGroups": [], "clusterCatalogs": [],
        "clusterExtensions": [],
    }  # fmt: skip


def write_fleet(
    source: BundleSource,
    directory: Path,
    count: int,
    *,
    seed: int = 29,
    low: int = 5,
    high: int = 40,
    damaged: bool = False,
) -> list[Path]:
    """``count`` cluster exports in ``directory`` (cluster-00000.json …); with ``damaged``,
    every tenth cluster is broken in one of three ways (not JSON; an unknown package; a
    stranded install the catalog no longer lists)."""
    rng = random.Random(seed)
    catalog = source.names()[0]
    choices = installable(source)
    directory.mkdir(parents=True, exist_ok=True)
    width = max(5, len(str(count)))
    paths = []
    for n in range(count):
        name = f"cluster-{n:0{width}d}"
        document = cluster_export(rng, name, choices, catalog, low=low, high=high)
        path = directory / f"{name}.json"
        data = orjson.dumps(document)
        if damaged and n % 10 == 3:
            data = data[: len(data) // 2]  # cut short: not JSON any more
        elif damaged and n % 10 == 6:
            document["subscriptions"].append(
                _subscription("no-such-operator", "stable", catalog, "no-such-operator.v1.0.0")
            )
            document["clusterServiceVersions"].append(_csv("no-such-operator.v1.0.0", "1.0.0"))
            data = orjson.dumps(document)
        elif damaged and n % 10 == 8:
            package = document["subscriptions"][0]["spec"]["name"]
            gone = f"{package}.v99.0.0-removed"  # above every version: no edge leads on
            document["subscriptions"][0]["status"]["installedCSV"] = gone
            document["clusterServiceVersions"][0] = _csv(gone, "99.0.0-removed")
            data = orjson.dumps(document)
        path.write_bytes(data)
        paths.append(path)
    return paths


# The sample fleet under examples/fleet/ (README task 4): a few dozen small clusters of the
# community v4.18 catalog, OLM v0 and v1, some broken; written once and committed.
SAMPLE_CATALOG = "community-operators-prod-v4.18"  # the folder name under ../shared/catalogs
SAMPLE_V0 = 30
GITLAB = "gitlab-operator-kubernetes"  # 2.5.2 stops at OpenShift 4.19
ARGOCD = "argocd-operator"


def _sample_v1(name: str, extensions: list[dict[str, Any]]) -> dict[str, Any]:
    """An OLM v1 cluster's export: the community content as a ClusterCatalog, and
    ``extensions``."""
    from tests.olmv1_objects import cluster_catalog

    from deppy.cluster.export import export_document
    from deppy.cluster.state import ClusterState

    state = ClusterState(
        where=f"https://api.{name}.example:6443",
        cluster_catalogs=(cluster_catalog(SAMPLE_CATALOG),),
        cluster_extensions=tuple(extensions),
        kube_version="v1.31.2",
        openshift_version="4.18.3",
    )
    return export_document(state)


def write_sample_fleet(source: BundleSource, directory: Path) -> None:
    """examples/fleet/: ``SAMPLE_V0`` OLM v0 clusters (every tenth broken one of three ways)
    and five OLM v1 clusters (one with extensions OLM v1 cannot plan), indented JSON."""
    from tests.olmv1_objects import cluster_extension

    v0 = directory / "olm-v0"
    write_fleet(source, v0, SAMPLE_V0, seed=40, low=3, high=8, damaged=True)
    for path in sorted(v0.glob("*.json")):
        try:
            path.write_bytes(orjson.dumps(orjson.loads(path.read_bytes()),
                                          option=orjson.OPT_INDENT_2) + b"\n")  # fmt: skip
        except orjson.JSONDecodeError:
            continue  # the broken ones stay cut short
    v1 = directory / "olm-v1"
    v1.mkdir(parents=True, exist_ok=True)
    clusters = {
        "edge-argocd": [cluster_extension("argocd", ARGOCD, "0.16.0")],
        "edge-gitlab": [cluster_extension("gitlab", GITLAB, "2.5.2")],
        "edge-pinned": [cluster_extension("gitlab", GITLAB, "2.5.2", version="~2.5")],
        "edge-both": [
            cluster_extension("argocd", ARGOCD, "0.16.0"),
            cluster_extension("gitlab", GITLAB, "2.5.2"),
        ],
        "edge-broken": [
            cluster_extension("gone", ARGOCD, "0.0.1"),
            cluster_extension("typo", "no-such-operator", "1.0.0"),
        ],
    }
    for name, extensions in clusters.items():
        document = _sample_v1(name, extensions)
        (v1 / f"{name}.json").write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2)
                                          + b"\n")  # fmt: skip


if __name__ == "__main__":  # python -m benchmarks.fleet_exports ../shared/catalogs/… examples/fleet
    import sys

    from deppy.resolution.request_parsing import parse_catalog
    from deppy.workflows.catalog_loading import load_catalogs

    write_sample_fleet(load_catalogs([parse_catalog(sys.argv[1])]), Path(sys.argv[2]))
