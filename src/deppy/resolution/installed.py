"""Where an installed bundle sits in the catalogs, and where it may go from there.

An installed bundle that no catalog lists any more still occupies its package: it becomes a
synthetic bundle, which can only stay or be replaced through skipRange/replaces/skips edges
that name it.
"""

from __future__ import annotations

from dataclasses import dataclass

from deppy.catalog.model import Bundle, Channel
from deppy.catalog.olmv1 import names_successor
from deppy.catalog.semver import Version
from deppy.catalog.upgrade_edges import UpgradeGraph, forward_targets, upgrade_graph
from deppy.resolution.context import ResolutionContext
from deppy.resolution.request import InstalledBundle

CLUSTER_CATALOG = "(installed)"


@dataclass(frozen=True, slots=True)
class InstalledLocation:
    bundle: Bundle
    channel: Channel | None
    synthetic: bool


def locate_installed(installed: InstalledBundle, context: ResolutionContext) -> InstalledLocation:
    order = context.order
    bundles = [
        b
        for b in context.catalogs.bundles_of(installed.package)
        if installed.catalog is None or b.catalog == installed.catalog
    ]
    if installed.bundle is not None:
        matches = [b for b in bundles if b.name == installed.bundle]
    else:
        matches = [b for b in bundles if b.version == installed.version]
    if installed.channel is not None:
        matches.sort(key=lambda b: not order.in_channel(b, installed.channel or ""))
    if matches:
        bundle = matches[0]
        channel_name = order.preferred_channel(bundle, installed.channel)
        if installed.channel is not None and channel_name != installed.channel:
            context.warn(
                f"installed {installed.describe()}: the catalogs do not list it in channel "
                f"{installed.channel}; using {channel_name}"
            )
        return InstalledLocation(
            bundle, _channel(context, bundle.catalog, installed.package, channel_name), False
        )
    name = installed.bundle or f"{installed.package}.v{installed.version.canonical}"
    synthetic = Bundle(
        name=name,
        package=installed.package,
        version=installed.version,
        image="",
        catalog=installed.catalog or CLUSTER_CATALOG,
        source="the cluster",
    )
    context.warn(
        f"installed {installed.describe()} is in no catalog: it can stay, or be replaced "
        "by a bundle whose upgrade edges name it"
    )
    return InstalledLocation(synthetic, _synthetic_channel(installed, context), True)


def _channel(
    context: ResolutionContext, catalog: str, package: str, name: str | None
) -> Channel | None:
    if name is None:
        return None
    for channel in context.catalogs.channels(catalog, package):
        if channel.name == name:
            return channel
    return None


def _synthetic_channel(installed: InstalledBundle, context: ResolutionContext) -> Channel | None:
    """The channel to follow from a bundle no catalog lists: in the catalog the installed
    bundle names (OLM looks its replacement up in the subscription's catalog), else in the
    first catalog that has the package. Without a channel named, the default channel when one
    of its entries names the bundle (replaces, skips, skipRange), else the first other channel
    (by name) that names it — an edge in any channel upgrades it — else the default channel."""
    catalogs = context.catalogs.catalogs_with(installed.package)
    if installed.catalog is not None:
        catalogs = [c for c in catalogs if c == installed.catalog]
    name = installed.bundle or f"{installed.package}.v{installed.version.canonical}"
    for catalog in catalogs:
        meta = context.catalogs.package(catalog, installed.package)
        default = meta.default_channel if meta else None
        if installed.channel is None:
            channels = sorted(
                context.catalogs.channels(catalog, installed.package),
                key=lambda c: (c.name != default, c.name),
            )
            naming = next(
                (
                    c
                    for c in channels
                    if any(names_successor(e, name, installed.version) for e in c.entries)
                ),
                None,
            )
            if naming is not None:
                return naming
        channel = _channel(context, catalog, installed.package, installed.channel or default)
        if channel is not None:
            return channel
    return None


def _graph(
    location: InstalledLocation, context: ResolutionContext
) -> tuple[UpgradeGraph, dict[str, Bundle]] | None:
    channel = location.channel
    if channel is None:
        return None
    catalog: str | None = location.bundle.catalog
    if catalog == CLUSTER_CATALOG:  # no catalog named: the first with that channel
        catalog = next(
            (
                c
                for c in context.catalogs.catalogs_with(channel.package)
                if channel in context.catalogs.channels(c, channel.package)
            ),
            None,
        )
    members = {
        b.name: b for b in context.catalogs.bundles_of(channel.package) if b.catalog == catalog
    }
    versions: dict[str, Version] = {name: b.version for name, b in members.items()}
    versions[location.bundle.name] = location.bundle.version
    return upgrade_graph(channel, versions), members


def upgrade_candidates(
    installed: InstalledBundle, location: InstalledLocation, context: ResolutionContext
) -> list[Bundle]:
    """Newer bundles reachable along the channel, highest version first."""
    built = _graph(location, context)
    if built is None:
        return []
    graph, members = built
    one_step = context.request.one_step
    return forward_targets(
        graph, location.bundle.name, location.bundle.version, members, one_step=one_step
    )


def upgrade_path(
    installed: InstalledBundle, target: Bundle, context: ResolutionContext
) -> list[tuple[str, Version]]:
    """Bundle names and versions from the installed one to ``target``, step by step (both
    included)."""
    location = locate_installed(installed, context)
    built = _graph(location, context)
    if built is None:
        return []
    graph, members = built
    members = {**members, location.bundle.name: location.bundle}
    return [(name, members[name].version) for name in graph.path(location.bundle.name, target.name)]
