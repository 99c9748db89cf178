"""What a shared report states about the answer it shows, so a reader can reproduce it: the
request, the catalogs (name and content digest), the cluster versions, when, and which deppy.

The time honours SOURCE_DATE_EPOCH (reproducible builds' convention), and says so, so the
same request gives a byte-identical report when that variable is set.
"""

from __future__ import annotations

import hashlib
import os
import time

from deppy.catalog.catalog_set import BundleSource
from deppy.resolution.request import ResolutionRequest

__all__ = ["catalog_digest", "report_facts"]


def report_facts(request: ResolutionRequest, source: BundleSource) -> list[tuple[str, str]]:
    """(label, value) pairs in the order a reader wants them."""
    from deppy import __version__

    return [
        ("request", _request_text(request)),
        *((f"catalog {name}", catalog_digest(source, name)) for name in source.names()),
        ("cluster", _cluster_text(request)),
        ("time", _time_text()),
        ("deppy", __version__),
    ]


def catalog_digest(source: BundleSource, catalog: str) -> str:
    """sha256 over what resolution reads of a catalog: every bundle (package, name, version,
    image, properties) and every channel's entries, in a fixed order."""
    digest = hashlib.sha256()
    bundles = sorted(
        (b for b in source.all_bundles() if b.catalog == catalog), key=lambda b: (b.package, b.name)
    )
    for bundle in bundles:
        props = sorted(f"{p.type}={p.value}" for p in bundle.properties)
        digest.update(
            "\0".join(
                [bundle.package, bundle.name, str(bundle.version), bundle.image, *props]
            ).encode()
        )
        digest.update(b"\n")
    for package in sorted({b.package for b in bundles}):
        for channel in sorted(source.channels(catalog, package), key=lambda c: c.name):
            for entry in channel.entries:
                edges = [entry.replaces or "", *entry.skips, entry.skip_range_text or ""]
                digest.update("\0".join([package, channel.name, entry.name, *edges]).encode())
                digest.update(b"\n")
    return f"sha256:{digest.hexdigest()}"


def _request_text(request: ResolutionRequest) -> str:
    parts = [f"require {r.describe()}" for r in request.required]
    parts += [f"installed {i.describe()}" for i in request.installed]
    parts += [f"exclude {e.describe()}" for e in request.exclude]
    if request.sources:
        parts.append(f"only catalogs {', '.join(request.sources)}")
    return "; ".join(parts) or "nothing"


def _cluster_text(request: ResolutionRequest) -> str:
    ocp, kube = request.cluster.openshift_version, request.cluster.kube_version
    parts = []
    if ocp is not None:
        parts.append(f"OpenShift {ocp.major}.{ocp.minor}")
    if kube is not None:
        parts.append(f"Kubernetes {kube}")
    return ", ".join(parts) or "not given (no cluster-version checks)"


def _time_text() -> str:
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(epoch)))
        return f"{stamp} (SOURCE_DATE_EPOCH)"
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
