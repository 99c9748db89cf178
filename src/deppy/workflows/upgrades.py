"""Which updates an installed bundle has: along its channel, and only by switching channel.

The first kind is what the resolver will do on its own (it follows the installed bundle's
channel); the second needs the user to change the subscription — the seed's
``CrossChannelUpdateFound`` condition. Both are read from the same upgrade edges the resolver
uses, and each comes with the step-by-step path to its newest bundle. When cluster versions are
given, updates the cluster cannot run are kept but marked, with the resolver's own reason.
Under OLM v0's rules each report also lists the InstallPlans OLM v0 would make, one per step
(``install_plans``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.model import Bundle, Channel
from deppy.catalog.upgrade_edges import UpgradeGraph, forward_targets, upgrade_graph
from deppy.resolution.context import CandidateOrder, ResolutionContext
from deppy.resolution.installed import CLUSTER_CATALOG, locate_installed
from deppy.resolution.nodes import RuntimeConstraints
from deppy.resolution.request import ClusterFacts, InstalledBundle, ResolutionRequest
from deppy.resolution.variables import ClusterIncompatible
from deppy.workflows.catalog_loading import unknown_package
from deppy.workflows.install_plans import InstallPlans, install_plans

# how an installed bundle's text begins when it was read from a cluster (``describe`` in
# deppy.cluster.objects: "Kind namespace/name"), named here without importing deppy.cluster
READ_FROM_CLUSTER = ("Subscription ", "ClusterExtension ", "ClusterServiceVersion ")

__all__ = [
    "ChannelUpdates",
    "GraphMemo",
    "UpgradeReport",
    "cluster_refusals",
    "upgrade_reports",
]


@dataclass(frozen=True, slots=True)
class Update:
    bundle: Bundle
    blocked: tuple[str, ...]  # why the cluster cannot run it; empty when it can


@dataclass(frozen=True, slots=True)
class ChannelUpdates:
    """Updates reachable in one channel of one catalog, newest first, and the path to the
    newest one the cluster can run (the one the resolver would pick)."""

    catalog: str
    channel: str
    updates: tuple[Update, ...]
    path: tuple[Bundle, ...]  # from the installed bundle to ``newest``, both included

    @property
    def newest(self) -> Bundle | None:
        runnable = [u.bundle for u in self.updates if not u.blocked]
        return runnable[0] if runnable else None

    def as_dict(self) -> dict[str, Any]:
        newest = self.newest
        return {
            "catalog": self.catalog,
            "channel": self.channel,
            "updates": [
                {
                    "version": str(u.bundle.version),
                    "bundle": u.bundle.name,
                    **({"blocked": list(u.blocked)} if u.blocked else {}),
                }
                for u in self.updates
            ],
            "newest": newest.name if newest else None,
            "path": [b.name for b in self.path],
            "blockedSteps": [u.bundle.name for u in self.blocked_steps()],
        }

    def blocked_steps(self) -> list[Update]:
        """Bundles on the path that the cluster cannot run (a step OLM would have to take)."""
        on_path = set(self.path[1:-1])
        return [u for u in self.updates if u.blocked and u.bundle in on_path]


@dataclass(frozen=True, slots=True)
class UpgradeReport:
    installed: InstalledBundle
    bundle: Bundle
    in_catalog: bool
    channel: ChannelUpdates | None
    other_channels: tuple[ChannelUpdates, ...]
    rules: str = "deppy"
    install_plans: InstallPlans | None = None  # OLM v0's, one per step (rules olm-v0)

    @property
    def cross_channel_update_found(self) -> bool:
        """Newer bundles exist only if the subscription changes channel (or catalog)."""
        return any(u.updates for u in self.other_channels)

    def as_dict(self) -> dict[str, Any]:
        return {
            "package": self.installed.package,
            "installed": str(self.installed.version),
            "bundle": self.bundle.name,
            "catalog": self.bundle.catalog,
            "inCatalog": self.in_catalog,
            "channel": self.channel.as_dict() if self.channel else None,
            "crossChannelUpdateFound": self.cross_channel_update_found,
            "otherChannels": [c.as_dict() for c in self.other_channels if c.updates],
            "rules": self.rules,
            **(self.install_plans.as_dict() if self.install_plans is not None else {}),
        }


class KeptOrder(CandidateOrder):
    """A candidate order kept from one ``upgrade_reports`` call to the next: each package's
    channel membership and head distances are worked out once (a fresh context's order
    worked them out again for every installed operator of every cluster: the larger part of
    a fleet worker's warm-up), and the invalid-channel warnings met doing it are said again
    to each context that looks at the package, as a fresh order would say them."""

    def __init__(self, catalogs: BundleSource) -> None:
        self._said: dict[tuple[str, str], list[str]] = {}
        self._hearing: list[str] = []
        self._target: Callable[[str], None] | None = None
        super().__init__(catalogs)

    @property
    def warn(self) -> Callable[[str], None] | None:
        return self._hearing.append  # what the order says while it works a package out

    @warn.setter
    def warn(self, target: Callable[[str], None] | None) -> None:
        self._target = target  # the context now asking

    def _members(self, catalog: str, package: str) -> dict[str, list[str]]:
        key = (catalog, package)
        said = self._said.get(key)
        if said is None:
            said = self._said[key] = self._hearing = []
            found = super()._members(catalog, package)
        else:
            found = self._membership[key]
        if said and self._target is not None:
            for message in said:
                self._target(message)
        return found


@dataclass(slots=True)
class GraphMemo:
    """Channel graphs kept from one question to the next against the same catalogs: a
    package's bundles per catalog, and each channel's graph — the same for every installed
    bundle the catalog lists (one it does not list joins the graph, so it keys its own) —
    and the candidate order (``KeptOrder``)."""

    members: dict[tuple[str, str], dict[str, Bundle]] = field(default_factory=dict)
    graphs: dict[tuple[str, str, str, str | None], UpgradeGraph] = field(default_factory=dict)
    order: KeptOrder | None = None


def upgrade_reports(
    source: BundleSource,
    installed: Sequence[InstalledBundle],
    cluster: ClusterFacts,
    *,
    graphs: GraphMemo | None = None,
    rules: str = "deppy",
) -> tuple[list[UpgradeReport], list[str]]:
    """One report per installed bundle, in the order given, and the warnings met; a package
    no catalog has is an error (naming the closest packages), not "up to date".

    ``graphs``: a caller asking about many clusters against the same ``source`` (a fleet plan)
    passes the same dict each time, so each channel's graph is built once, not once per
    installed bundle. ``rules``: under ``olm-v0`` each report lists OLM v0's InstallPlans."""
    context_graphs = GraphMemo() if graphs is None else graphs
    if graphs is not None and (graphs.order is None or graphs.order.catalogs is not source):
        graphs.order = KeptOrder(source)
    context = ResolutionContext.create(
        source,
        ResolutionRequest(installed=tuple(installed), cluster=cluster, rules=rules),
        order=context_graphs.order,
    )
    for item in installed:
        if not context.catalogs.has_package(item.package):
            # "up to date" would be a guess about a package deppy knows nothing of
            raise unknown_package(context.catalogs, item.package, _named(item))
    reports = [_report(item, context, context_graphs) for item in installed]
    if rules == "olm-v0":
        reports = [
            replace(r, rules=rules, install_plans=install_plans(r.installed, context))
            for r in reports
        ]
    return reports, context.warnings


def _named(item: InstalledBundle) -> str:
    """How an error names an installed bundle: as the cluster object it was read from
    (``Subscription ns/name``, in the export the caller names), else as the user's flag."""
    if item.text.startswith(READ_FROM_CLUSTER):
        return item.text
    return f"--installed {item.text!r}" if item.text else f"package {item.package!r}"


def _report(
    installed: InstalledBundle, context: ResolutionContext, graphs: GraphMemo
) -> UpgradeReport:
    location = locate_installed(installed, context)
    start = location.bundle
    here = None
    if location.channel is not None:
        catalog = start.catalog
        if catalog == CLUSTER_CATALOG:  # in no catalog, and no catalog named
            catalog = _catalog_of(location.channel, context)
        here = _updates(start, location.channel, catalog, context, set(), graphs)
    offered = {u.bundle for u in here.updates} if here is not None else set()
    others: list[ChannelUpdates] = []
    for catalog in context.catalogs.catalogs_with(installed.package):
        for channel in context.catalogs.channels(catalog, installed.package):
            if here is not None and (catalog, channel.name) == (here.catalog, here.channel):
                continue
            found = _updates(start, channel, catalog, context, offered, graphs)
            if found.updates:
                others.append(found)
    return UpgradeReport(installed, start, not location.synthetic, here, tuple(others))


def _catalog_of(channel: Channel, context: ResolutionContext) -> str:
    """The catalog a channel came from, for an installed bundle no catalog lists any more."""
    catalogs = context.catalogs
    found = (
        c
        for c in catalogs.catalogs_with(channel.package)
        if channel in catalogs.channels(c, channel.package)
    )
    return next(found, "")


def _updates(
    start: Bundle,
    channel: Channel,
    catalog: str,
    context: ResolutionContext,
    exclude: set[Bundle],
    graphs: GraphMemo,
) -> ChannelUpdates:
    memo_key = (catalog, channel.package)
    members = graphs.members.get(memo_key)
    if members is None:
        members = graphs.members[memo_key] = {
            b.name: b for b in context.catalogs.bundles_of(channel.package) if b.catalog == catalog
        }
    listed = members.get(start.name) is start
    key = (*memo_key, channel.name, None if listed else f"{start.name}@{start.version}")
    graph = graphs.graphs.get(key)
    if graph is None:
        versions = {name: b.version for name, b in members.items()}
        versions[start.name] = start.version
        graph = graphs.graphs[key] = upgrade_graph(channel, versions)
    targets = forward_targets(graph, start.name, start.version, members)
    updates = tuple(Update(b, cluster_refusals(b, context)) for b in targets if b not in exclude)
    newest = next((u.bundle for u in updates if not u.blocked), None)
    names = graph.path(start.name, newest.name) if newest is not None else []
    path = tuple(members.get(name, start) for name in names)
    return ChannelUpdates(catalog, channel.name, updates, path)


def cluster_refusals(bundle: Bundle, context: ResolutionContext) -> tuple[str, ...]:
    """The resolver's own reasons for refusing the bundle on the context's cluster."""
    return tuple(
        fact.reason
        for fact in RuntimeConstraints.violations(bundle, context)
        if isinstance(fact, ClusterIncompatible)
    )
