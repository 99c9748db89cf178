"""Upgrade edges of a channel (replaces, skips, skipRange) and paths along them.

An installed bundle may stay or move forward along its channel's edges, never backward. The
resolver offers every reachable newer bundle, highest first, and reports the path it takes.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

from deppy.catalog.model import Bundle, Channel, ChannelEntry
from deppy.catalog.semver import Version


@dataclass(frozen=True, slots=True)
class UpgradeGraph:
    """Edges ``from name -> to names`` of one channel; nodes are bundle names."""

    channel: str
    edges: dict[str, tuple[str, ...]]

    def reachable(self, start: str) -> list[str]:
        """Names reachable from ``start`` (excluded), breadth-first, deterministic."""
        return [name for name in self._paths(start) if name != start]

    def path(self, start: str, goal: str) -> list[str]:
        """The shortest path of bundle names from ``start`` to ``goal`` (both included)."""
        parents = self._paths(start)
        if goal not in parents:
            return []
        steps = [goal]
        while steps[-1] != start:
            parent = parents[steps[-1]]
            assert parent is not None
            steps.append(parent)
        return steps[::-1]

    def _paths(self, start: str) -> dict[str, str | None]:
        parents: dict[str, str | None] = {start: None}
        queue = deque([start])
        while queue:
            node = queue.popleft()
            for target in self.edges.get(node, ()):
                if target not in parents:
                    parents[target] = node
                    queue.append(target)
        return parents


@dataclass(frozen=True, slots=True)
class UpgradeEdge:
    """One way up: ``source`` may be upgraded to ``target`` because ``target`` names it by
    ``kind`` (replaces, skips or skipRange); graphs shown to people keep the kind."""

    source: str
    target: str
    kind: str


def channel_edges(channel: Channel, versions: dict[str, Version]) -> list[UpgradeEdge]:
    """Every edge of a channel with its kind, in entry order; ``versions`` gives each known
    bundle name its version.

    skipRange edges come from every bundle of the package whose version is in the range
    (including an installed bundle that no catalog lists any more, when its name is passed in
    ``versions``).
    """
    edges: list[UpgradeEdge] = []
    for entry in channel.entries:
        sources: list[tuple[str, str]] = []
        if entry.replaces:
            sources.append((entry.replaces, "replaces"))
        sources.extend((name, "skips") for name in entry.skips)
        if entry.skip_range is not None:
            sources.extend(
                (name, "skipRange")
                for name, version in versions.items()
                if entry.skip_range.contains(version)
            )
        edges.extend(
            UpgradeEdge(source, entry.name, kind)
            for source, kind in dict.fromkeys(sources)
            if source != entry.name
        )
    return edges


def upgrade_graph(channel: Channel, versions: dict[str, Version]) -> UpgradeGraph:
    """Build a channel's edges (see :func:`channel_edges`)."""
    edges: dict[str, list[str]] = {}
    for edge in channel_edges(channel, versions):
        edges.setdefault(edge.source, []).append(edge.target)
    ordered = {
        source: tuple(sorted(dict.fromkeys(targets), key=lambda n: _order(n, versions)))
        for source, targets in edges.items()
    }
    return UpgradeGraph(channel.name, ordered)


def _order(name: str, versions: dict[str, Version]) -> tuple[int, Version | None, str]:
    version = versions.get(name)
    return (0 if version is not None else 1, version, name)


def forward_targets(
    graph: UpgradeGraph,
    installed: str,
    installed_version: Version,
    bundles: dict[str, Bundle],
    *,
    one_step: bool = False,
) -> list[Bundle]:
    """Bundles reachable from ``installed`` with a higher version, highest first; with
    ``one_step``, only those one edge away (OLM v0 moves one step per resolution)."""
    reachable = graph.edges.get(installed, ()) if one_step else graph.reachable(installed)
    found = [bundles[n] for n in reachable if n in bundles]
    newer = [b for b in found if b.version > installed_version]
    newer.sort(key=lambda b: b.name)
    newer.sort(key=lambda b: b.version, reverse=True)
    return newer


def channel_head(channel: Channel, versions: Mapping[str, Version]) -> ChannelEntry | None:
    """The channel's head as operator-registry serves it: the entry no other entry replaces or
    skips (the highest version if several; every entry when a cycle leaves none)."""
    replaced = {e.replaces for e in channel.entries if e.replaces}
    replaced.update(s for e in channel.entries for s in e.skips)
    heads = [e for e in channel.entries if e.name not in replaced] or list(channel.entries)
    if not heads:
        return None
    return max(heads, key=lambda e: _head_order(e.name, versions))


def _head_order(name: str, versions: Mapping[str, Version]) -> tuple[bool, Version, str]:
    version = versions.get(name)
    return (version is not None, version or _NO_VERSION, name)


_NO_VERSION = Version(0, 0, 0)


def head_distances(channel: Channel) -> dict[str, int]:
    """Each entry's distance from the channel's head(s), following replaces and skips down:
    the head is 0, what it replaces or skips 1, and so on. Of two bundles with the same
    version, the nearer one is the one a channel offers (it replaces or skips the other).
    Entries no head reaches (a replaces cycle) are not listed."""
    down: dict[str, list[str]] = {}
    named: set[str] = set()
    for entry in channel.entries:
        older = [*([entry.replaces] if entry.replaces else []), *entry.skips]
        down[entry.name] = older
        named.update(older)
    heads = [e.name for e in channel.entries if e.name not in named]
    distances = dict.fromkeys(heads, 0)
    queue = deque(heads)
    while queue:
        name = queue.popleft()
        for below in down.get(name, ()):
            if below not in distances:
                distances[below] = distances[name] + 1
                queue.append(below)
    return distances
