"""What every handler shares: the API door, the catalog cache, the cluster's versions, and a
lock per namespace (one resolution of a namespace at a time in this process; peering keeps other
replicas from writing at all)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from deppy.controller.catalogs.cache import CatalogCache
from deppy.controller.kube import ApiError, Kube
from deppy.controller.observe import Observer
from deppy.resolution.request import ClusterFacts
from deppy.resolution.request_parsing import parse_version


@dataclass
class Runtime:
    kube: Kube
    namespaces: tuple[str, ...] = ()  # watched namespaces; empty: the whole cluster
    cache: CatalogCache = field(default_factory=CatalogCache)
    cluster: ClusterFacts = field(default_factory=ClusterFacts)
    # per Catalog, the served digest (from its status) this process last tried to catch up to
    caught_up: dict[str, str] = field(default_factory=dict)
    catch_up_lock: threading.Lock = field(default_factory=threading.Lock)
    # the last look at the catalogs' objects (monotonic seconds), and one look at a time
    caught_up_at: float = float("-inf")
    catch_up_gate: threading.Lock = field(default_factory=threading.Lock)
    # per ClusterCatalog, the digest whose load failed last and when (monotonic seconds)
    cluster_catalogs_tried: dict[str, tuple[str, float]] = field(default_factory=dict)
    # per namespace, the packages its last resolution asked for, was given or found held: a
    # catalog change wakes it only when it may move one of them (``catalogs.changes``)
    footprints: dict[str, frozenset[str]] = field(default_factory=dict)
    # per namespace, what its last resolution read when that resolution wrote nothing: read the
    # same again, it would write nothing again (``namespace_sync``)
    settled: dict[str, object] = field(default_factory=dict)
    explained_at: float = 0.0  # when troubled ClusterExtensions were last looked at (monotonic)
    _locks: dict[str, threading.Lock] = field(default_factory=dict)
    _guard: threading.Lock = field(default_factory=threading.Lock)
    observe: Observer = field(init=False)  # metrics, Events and log lines about answers

    def __post_init__(self) -> None:
        self.observe = Observer(self.kube, self.cache)
        self.kube.counted = self.observe.metrics.kube_request

    def taking_over(self) -> None:
        """This replica resumes after a pause (kopf peering): another one worked meanwhile, so
        its next handler looks at the catalogs' objects at once, not when the last look made
        before the pause says, and tries again every digest it gave up on."""
        self.caught_up_at = float("-inf")
        self.caught_up.clear()

    def touched(self, namespace: str, affected: frozenset[str] | None) -> bool:
        """Whether a catalog change that may move answers for ``affected`` (None: any) can
        move the namespace's; one not resolved yet (no footprint) always can."""
        footprint = self.footprints.get(namespace)
        return affected is None or footprint is None or bool(footprint & affected)

    def watched(self, namespace: str) -> bool:
        return not self.namespaces or namespace in self.namespaces

    @contextmanager
    def namespace_lock(self, namespace: str) -> Iterator[None]:
        with self._guard:
            lock = self._locks.setdefault(namespace, threading.Lock())
        with lock:
            yield

    def read_cluster_versions(self) -> None:
        """Kubernetes from ``/version``; OpenShift from the ClusterVersion, when it exists."""
        kube_version = None
        text = self.kube.version().lstrip("v").split("+")[0]
        if text:
            kube_version = parse_version(text, "/version", tolerant=True)
        openshift = None
        try:
            found = self.kube.call("GET", "/apis/config.openshift.io/v1/clusterversions/version")
            desired = (found.get("status") or {}).get("desired") or {}
            if desired.get("version"):
                openshift = parse_version(
                    str(desired["version"]), "ClusterVersion version", tolerant=True
                )
        except ApiError:
            openshift = None
        self.cluster = ClusterFacts(openshift, kube_version)
