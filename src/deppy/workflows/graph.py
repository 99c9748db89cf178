"""A channel's upgrade graph for people: a text tree for the terminal, Graphviz DOT and JSON.

Both read the same edges the resolver follows (``upgrades.channel_edges``), so what ``deppy show``
draws is what ``deppy resolve`` and ``deppy upgrades`` will do. The text tree lists a channel's
bundles from the newest down, each with the bundles that upgrade straight to it hanging below —
one line per edge kind — so a long replaces chain stays a readable column instead of a staircase.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.model import Bundle, Channel
from deppy.catalog.semver import Version
from deppy.catalog.upgrade_edges import UpgradeEdge, channel_edges

__all__ = ["ChannelGraph", "channel_graph", "graph_as_dict", "graph_as_dot", "graph_as_text"]

EDGE_ORDER = ("replaces", "skips", "skipRange")
EDGE_STYLE = {"replaces": "solid", "skips": "dashed", "skipRange": "dotted"}
LIST_LIMIT = 8


@dataclass(frozen=True, slots=True)
class ChannelGraph:
    """One channel of one package in one catalog: its bundles (newest first), edges and heads.

    Heads are found as operator-registry finds them: entries that no other entry replaces or
    skips (skipRange does not count). A valid channel has exactly one. Unreachable bundles are
    those no upgrade leads to that are neither a head nor the channel's oldest bundle (where
    the channel began): a subscription only gets there by starting there (``startingCSV``).
    """

    catalog: str
    package: str
    channel: Channel
    default: bool
    deprecated: str | None
    bundles: tuple[Bundle, ...]
    edges: tuple[UpgradeEdge, ...]
    heads: tuple[str, ...]
    deprecated_bundles: frozenset[str]
    versions: Mapping[str, Version] = field(compare=False, repr=False)
    unreachable: frozenset[str] = frozenset()

    @property
    def name(self) -> str:
        return self.channel.name

    def version_of(self, name: str) -> Version | None:
        return self.versions.get(name)


def channel_graph(source: BundleSource, channel: Channel, catalog: str) -> ChannelGraph:
    """The channel as drawn: skipRange edges only between its own bundles (a range that covers
    a bundle of another channel is a way in for an installed bundle, shown by ``upgrades``)."""
    members = {b.name: b for b in source.bundles_of(channel.package) if b.catalog == catalog}
    names = [e.name for e in channel.entries if e.name in members]
    bundles = sorted((members[n] for n in names), key=lambda b: (b.version, b.name), reverse=True)
    versions = {b.name: b.version for b in bundles}
    named = {e.replaces for e in channel.entries if e.replaces}
    named.update(s for e in channel.entries for s in e.skips)
    meta = source.package(catalog, channel.package)
    deprecated = frozenset(b.name for b in bundles if _bundle_deprecated(source, b))
    heads = tuple(b.name for b in bundles if b.name not in named)
    edges = tuple(channel_edges(channel, versions))
    reached = {e.target for e in edges}
    oldest = bundles[-1].name if bundles else None
    unreachable = frozenset(
        b.name
        for b in bundles
        if b.name not in reached and b.name not in heads and b.name != oldest
    )
    return ChannelGraph(
        catalog=catalog,
        package=channel.package,
        channel=channel,
        default=meta is not None and meta.default_channel == channel.name,
        deprecated=source.channel_deprecated(catalog, channel.package, channel.name),
        bundles=tuple(bundles),
        edges=edges,
        heads=heads,
        deprecated_bundles=deprecated,
        versions=versions,
        unreachable=unreachable,
    )


def _bundle_deprecated(source: BundleSource, bundle: Bundle) -> bool:
    """Deprecated by name (package and channel deprecations are shown once, not per bundle)."""
    found = source.deprecation_of(bundle)
    return found is not None and found.schema == "olm.bundle"


def _title(graph: ChannelGraph) -> str:
    notes = ["default"] if graph.default else []
    if graph.deprecated is not None:
        notes.append(f"deprecated: {graph.deprecated}")
    shown = f" ({'; '.join(notes)})" if notes else ""
    heads = ", ".join(graph.heads) or "none (every entry is replaced or skipped: a cycle)"
    count = len(graph.bundles)
    plural = "bundle" if count == 1 else "bundles"
    return f"channel {graph.name}{shown}: {count} {plural}, head {heads}"


def _source_label(graph: ChannelGraph, name: str) -> str:
    version = graph.version_of(name)
    return str(version) if version is not None else f"{name} (not in this channel)"


def _shorten(items: Sequence[str]) -> str:
    if len(items) <= LIST_LIMIT:
        return ", ".join(items)
    return ", ".join(items[:LIST_LIMIT]) + f" and {len(items) - LIST_LIMIT} more"


def _incoming(graph: ChannelGraph) -> dict[str, list[str]]:
    """How each bundle is reached, one phrase per edge kind ("replaces 0.9.1", "skips 0.9.0")."""
    by_target: dict[str, dict[str, list[str]]] = {}
    for edge in graph.edges:
        by_target.setdefault(edge.target, {}).setdefault(edge.kind, []).append(edge.source)
    skip_ranges = {e.name: e.skip_range_text for e in graph.channel.entries}
    phrases: dict[str, list[str]] = {}
    for target, by_kind in by_target.items():
        for kind in EDGE_ORDER:
            sources = by_kind.get(kind)
            if not sources:
                continue
            sources.sort(key=lambda n: (graph.version_of(n) or Version(0, 0, 0), n), reverse=True)
            labels = _shorten([_source_label(graph, n) for n in sources])
            if kind == "skipRange":
                text = f"skipRange '{skip_ranges[target]}' covers {labels}"
            else:
                text = f"{kind} {labels}"
            phrases.setdefault(target, []).append(text)
    return phrases


def graph_as_text(graph: ChannelGraph) -> list[str]:
    """The channel as a text tree: a column of bundles, newest first, each with its ways in."""
    lines = [_title(graph)]
    heads = set(graph.heads)
    incoming = _incoming(graph)
    for n, bundle in enumerate(graph.bundles):
        notes = [note for note in ("head",) if bundle.name in heads]
        if bundle.name in graph.deprecated_bundles:
            notes.append("deprecated")
        shown = f"  ({', '.join(notes)})" if notes else ""
        lines.append(f"  ● {bundle.version}  {bundle.name}{shown}")
        trunk = "│" if n + 1 < len(graph.bundles) else " "
        phrases = incoming.get(bundle.name, [])
        for i, phrase in enumerate(phrases):
            branch = "└─" if i + 1 == len(phrases) else "├─"
            lines.append(f"  {trunk} {branch} {phrase}")
    return lines


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def graph_as_dot(graphs: Sequence[ChannelGraph], title: str) -> str:
    """Graphviz DOT: one cluster per channel, edges from the older bundle to the one it may
    upgrade to, styled by kind (replaces solid, skips dashed, skipRange dotted)."""
    out = [
        f"digraph {_quote(title)} {{",
        "  rankdir=LR;",
        '  node [shape=box, fontname="Helvetica"];',
        '  edge [fontname="Helvetica", fontsize=10];',
    ]
    for index, graph in enumerate(graphs):
        prefix = f"{graph.catalog}/{graph.name}/"
        default = ", default channel" if graph.default else ""
        title_text = f"{graph.name} (catalog {graph.catalog}{default})"
        out.append(f"  subgraph cluster_{index} {{")
        out.append(f"    label={_quote(title_text)};")
        known = {b.name for b in graph.bundles}
        for bundle in graph.bundles:
            style = ", style=bold" if bundle.name in graph.heads else ""
            if bundle.name in graph.deprecated_bundles:
                style += ", color=gray"
            label = f"{bundle.name}\n{bundle.version}"
            out.append(f"    {_quote(prefix + bundle.name)} [label={_quote(label)}{style}];")
        outside = sorted({e.source for e in graph.edges} - known)
        for name in outside:
            label = f"{name}\n(not in this channel)"
            out.append(f"    {_quote(prefix + name)} [label={_quote(label)}, style=dashed];")
        for edge in graph.edges:
            out.append(
                f"    {_quote(prefix + edge.source)} -> {_quote(prefix + edge.target)} "
                f"[label={_quote(edge.kind)}, style={EDGE_STYLE[edge.kind]}];"
            )
        out.append("  }")
    out.append("}")
    return "\n".join(out)


def graph_as_dict(graph: ChannelGraph) -> dict[str, Any]:
    """The channel for programs: bundles newest first with their marks, and every edge with its
    kind (a source outside the channel appears only in ``edges``, as in the DOT graph)."""
    skip_ranges = {e.name: e.skip_range_text for e in graph.channel.entries}
    heads = set(graph.heads)
    return {
        "catalog": graph.catalog,
        "package": graph.package,
        "channel": graph.name,
        "default": graph.default,
        "deprecated": graph.deprecated,
        "heads": list(graph.heads),
        "bundles": [
            {
                "name": b.name,
                "version": str(b.version),
                "head": b.name in heads,
                "deprecated": b.name in graph.deprecated_bundles,
                "unreachable": b.name in graph.unreachable,
                "skipRange": skip_ranges.get(b.name),
            }
            for b in graph.bundles
        ],
        "edges": [{"from": e.source, "to": e.target, "kind": e.kind} for e in graph.edges],
    }
