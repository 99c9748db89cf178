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
