"""A channel's upgrade graph checked as ``opm validate`` checks it (operator-registry's
``Channel.Validate``): exactly one head, and no cycle in the replaces chain from it.

An invalid channel still resolves — deppy follows whatever edges it has — but the answer may
not be what the catalog's author meant, so the resolver warns and ``deppy catalog check`` lists
them. Messages are opm's own words, prefixed with the package and channel.
"""

from __future__ import annotations

from deppy.catalog.model import Channel


def channel_problem(channel: Channel) -> str | None:
    """What opm's validation would say of the channel's graph, or None when it is valid."""
    if not channel.entries:
        return None
    named: set[str] = set()
    by_name = {}
    for entry in channel.entries:
        by_name[entry.name] = entry
        if entry.replaces:
            named.add(entry.replaces)
        named.update(entry.skips)
    heads = sorted(entry.name for entry in channel.entries if entry.name not in named)
    where = f"package {channel.package}, channel {channel.name}"
    if not heads:
        return f"{where}: no channel head found in graph"
    if len(heads) > 1:
        return f"{where}: multiple channel heads found in graph: {', '.join(heads)}"
    chain = [heads[0]]
    current = by_name.get(heads[0])
    while current is not None and current.replaces:
        if current.replaces in chain:
            cycle = [*chain[chain.index(current.replaces) :], current.replaces]
            return f"{where}: detected cycle in replaces chain of upgrade graph: " + (
                " -> ".join(cycle)
            )
        chain.append(current.replaces)
        current = by_name.get(current.replaces)
    return None
