"""A channel's entries in OLM v0's order, or OLM v0's reason why it has none.

OLM v0 (``sortChannel`` in pkg/controller/registry/resolver/resolver.go) orders a channel by
walking ``replaces`` down from its head, the one entry no other entry replaces or skips. An
entry that another entry ``skips`` is left out of the walk (it is never a candidate), and a
channel with no head (a replaces cycle), a replaces cycle below a head, or two heads (two
replaces chains) is an error: OLM v0 resolves nothing for that channel. deppy's own rules order
such a channel by version instead (``catalog.upgrade_edges``).

Only the entries whose bundle the catalog holds take part, as in OLM v0's cache, and only
``replaces`` and ``skips``: a ``skipRange`` orders nothing (it only upgrades).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from deppy.catalog.model import Channel


@dataclass(frozen=True, slots=True)
class ChannelOrder:
    """Bundle names head first (skipped ones left out), or OLM v0's error in its own words."""

    names: tuple[str, ...]
    error: str | None = None


def sort_channel(channel: Channel, present: Collection[str]) -> ChannelOrder:
    """``channel``'s entries among ``present`` (bundle names), as OLM v0's sortChannel."""
    entries = [e for e in channel.entries if e.name in present]
    if not entries:
        return ChannelOrder(())
    names = {e.name for e in entries}
    replaces: dict[str, str] = {}
    replaced: set[str] = set()
    skipped: set[str] = set()
    for entry in entries:
        if entry.replaces is not None and entry.replaces in names:
            replaces[entry.name] = entry.replaces
            replaced.add(entry.replaces)
        for skip in entry.skips:
            if skip in names:
                replaced.add(skip)
                skipped.add(skip)
    where = f'in channel "{channel.name}" of package "{channel.package}"'
    heads = [e.name for e in entries if e.name not in replaced]
    if not heads:
        return ChannelOrder(
            (), f"no channel heads (entries not replaced by another entry) found {where}"
        )
    chains: list[list[str]] = []
    for head in heads:
        chain: list[str] = []
        visited: set[str] = set()
        current = head
        while True:
            visited.add(current)
            if current not in skipped:
                chain.append(current)
            following = replaces.get(current)
            if following is None:
                break
            if following in visited:
                return ChannelOrder(
                    (),
                    f'a cycle exists in the chain of replacement beginning with "{head}" {where}',
                )
            current = following
        chains.append(chain)
    if len(chains) > 1:
        shown = ", ".join(_chain_text(c) for c in chains)
        return ChannelOrder(
            (),
            "a unique replacement chain within a channel is required to determine the relative "
            f"order between channel entries, but {len(chains)} replacement chains were found "
            f"{where}: {shown}",
        )
    return ChannelOrder(tuple(chains[0]))


def _chain_text(chain: list[str]) -> str:
    if not chain:
        return "[]"
    if len(chain) == 1:
        return chain[0]
    return f"{chain[0]}...{chain[-1]}"


__all__ = ["ChannelOrder", "sort_channel"]
