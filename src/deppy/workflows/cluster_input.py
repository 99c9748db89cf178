"""A cluster as the input of a question (``--cluster FILE|DIR`` or ``--kubeconfig F``).

One place turns a cluster into what ``deppy resolve``, ``deppy upgrades`` and ``--dry-run-next``
need, so they read a cluster the same way:

* installed bundles: each Subscription (and ClusterExtension) as ``--installed`` would say it,
  plus the hand-installed CSVs, pinned, from the synthetic catalog ``(cluster)``; an
  ``--installed`` flag for the same package wins over the cluster;
* cluster versions: from the command line or request file first, else from the cluster;
* catalogs: ``--catalog`` if given; else the cluster's own CatalogSources (gRPC) and
  ClusterCatalogs (HTTP), or their images where those cannot be reached (an export: always),
  pulled into deppy's cache with the command's registry options; those that cannot be read
  left out with a warning; a cluster with no catalog object falls back to the stored catalogs.
  The synthetic catalog is laid over them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from deppy.catalog.catalog_set import BundleSource, CatalogSet
from deppy.catalog.model import Catalog
from deppy.catalog.overlay import Overlay
from deppy.cluster import (
    ClusterInstalled,
    ClusterState,
    catalog_endpoints,
    installed_from_state,
    load_cluster_catalogs,
    read_cluster_files,
)
from deppy.cluster.objects import namespace_of
from deppy.cluster.state import catalog_name_map
from deppy.errors import InputError
from deppy.resolution.request import InstalledBundle, ResolutionRequest
from deppy.resolution.request_parsing import CatalogSpec
from deppy.workflows.catalog_loading import (
    Report,
    images_path,
    load_catalogs,
    parsed_cache,
    report_problems,
)

__all__ = [
    "ClusterInput",
    "cluster_input",
    "cluster_input_with",
    "load_cluster_image",
    "read_cluster",
]


def read_cluster(
    path: Path | None, kubeconfig: str | None, context: str | None
) -> ClusterState | None:
    """The cluster named on the command line, or None when none is named."""
    if path is not None and (kubeconfig is not None or context is not None):
        raise InputError(
            "--cluster and --kubeconfig/--context",
            "name two clusters",
            "give an export (--cluster) or a live cluster (--kubeconfig/--context), not both",
        )
    if path is not None:
        return read_cluster_files(path)
    if kubeconfig is not None or context is not None:
        from deppy.cluster.live import read_live

        return read_live(kubeconfig, context)
    return None


@dataclass(frozen=True, slots=True)
class ClusterInput:
    """What a cluster adds to a question: catalogs, installed bundles, versions, warnings."""

    catalogs: BundleSource
    installed: ClusterInstalled
    warnings: tuple[str, ...]
    # OLM v0: whether the cluster runs Subscriptions (then olm-v0 is the default rule set), the
    # namespace resolved (the one asked for, else the Subscriptions' one namespace) and each
    # CatalogSource's namespace by deppy catalog name
    olm_v0: bool = False
    namespace: str | None = None
    catalog_namespaces: tuple[tuple[str, str], ...] = ()

    def with_pending(self, request: ResolutionRequest) -> ResolutionRequest:
        """Under OLM v0's rules, the Subscriptions that installed nothing yet are asked for, as
        OLM v0 resolves them (a package the request already names keeps the request's)."""
        if request.rules != "olm-v0":
            return request
        named = {r.package for r in request.required} | {i.package for i in request.installed}
        known = set(self.catalogs.names())
        pending = tuple(
            r if r.catalog is None or r.catalog in known else replace(r, catalog=None)
            for r in self.installed.pending
            if r.package not in named
        )
        return replace(request, required=request.required + pending)

    def rules(self, explicit: str | None, request: ResolutionRequest) -> str:
        """``--rules`` when given; else OLM v0's for an OLM v0 cluster (a request file or
        ClusterExtension documents that chose other rules keep them)."""
        if explicit is not None:
            return explicit
        if self.olm_v0 and request.rules == "deppy":
            return "olm-v0"
        return request.rules

    def request(
        self, request: ResolutionRequest, *, upgradable_only: bool = False
    ) -> ResolutionRequest:
        """``request`` with the cluster's installed bundles and versions where it has none."""
        given = {i.package for i in request.installed}
        ours = self.installed.subscribed if upgradable_only else self.installed.installed
        added: tuple[InstalledBundle, ...] = tuple(i for i in ours if i.package not in given)
        cluster = request.cluster.or_else(self.installed.cluster)
        sources = request.sources
        hand = self.installed.catalog
        if sources and hand is not None and hand.name not in sources:
            sources = (*sources, hand.name)
        return replace(
            request,
            installed=request.installed + added,
            cluster=cluster,
            sources=sources,
            namespace=request.namespace or self.namespace,
            catalog_namespaces=request.catalog_namespaces or self.catalog_namespaces,
        )


def _catalogs(
    state: ClusterState, specs: list[CatalogSpec], report: Report | None
) -> tuple[BundleSource, list[str]]:
    if specs:
        return load_catalogs(specs, report=report), []
    endpoints = catalog_endpoints(state)
    if not endpoints:
        note = (
            f"{state.where} has no CatalogSource or ClusterCatalog; using the stored catalogs "
            "(give --catalog to choose)"
        )
        return load_catalogs([], report=report), [note]
    catalogs, warnings = load_cluster_catalogs(endpoints, load_image=load_cluster_image)
    if not catalogs:
        raise InputError(
            state.where,
            f"none of its {len(endpoints)} catalogs could be read ({warnings[0]})",
            "give --catalog PATH=NAME for each catalog the Subscriptions name",
        )
    if report is not None:
        for catalog in catalogs:
            report_problems(catalog, report)
    return CatalogSet(catalogs), warnings


def load_cluster_image(reference: str, name: str, priority: int) -> tuple[Catalog, tuple[str, ...]]:
    """A cluster catalog's image, pulled into deppy's cache (once per digest, with the
    command's registry options) and parsed once (the parsed-catalog cache)."""
    from deppy.catalog.image_catalog import load_pulled, pulled_image

    pulled = pulled_image(reference, images_path(), where="image")
    catalog = load_pulled(pulled, name=name, priority=priority, cache=parsed_cache())
    catalog.path = reference
    return catalog, pulled.warnings


def cluster_input(
    state: ClusterState,
    specs: list[CatalogSpec],
    *,
    namespace: str | None = None,
    report: Report | None = None,
) -> ClusterInput:
    """Catalogs and installed bundles of ``state`` (see the module docstring)."""
    catalogs, warnings = _catalogs(state, specs, report)
    return _combined(state, catalogs, warnings, namespace)


def cluster_input_with(
    state: ClusterState, catalogs: BundleSource, *, namespace: str | None = None
) -> ClusterInput:
    """``cluster_input`` with catalogs loaded already (what ``--catalog`` would load): a fleet
    plan loads them once per worker and reads thousands of clusters against them."""
    return _combined(state, catalogs, [], namespace)


def _combined(
    state: ClusterState, catalogs: BundleSource, warnings: list[str], namespace: str | None
) -> ClusterInput:
    installed = installed_from_state(state, namespace=namespace)
    installed = installed.with_catalogs(catalogs.names())
    if installed.catalog is not None:
        catalogs = Overlay(CatalogSet([installed.catalog]), catalogs)
    spaces = {namespace_of(s) for s in state.subscriptions}
    return ClusterInput(
        catalogs,
        installed,
        tuple(warnings) + installed.warnings,
        olm_v0=bool(state.subscriptions),
        namespace=namespace or (next(iter(spaces)) if len(spaces) == 1 else None),
        catalog_namespaces=tuple(
            (name, space) for (space, _), name in catalog_name_map(state).items() if space
        ),
    )
