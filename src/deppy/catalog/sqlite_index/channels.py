"""Channel entries of an SQLite index: which bundle replaces and skips which, per channel.

The index keeps a channel as rows of ``channel_entry``: one row per (bundle, edge), each
pointing at the row it replaces. operator-registry tells a replaces edge from a skip the way
``opm render`` reads it (``pkg/sqlite``'s bundle listing): the rows at the smallest depth in
the table start the chains, and every row reached by following ``replaces`` from them is on a
chain; for each bundle of a channel, the rows on a chain give its ``replaces`` (the greatest
name when there are several) and the other rows that point somewhere give its ``skips``, in
row order. Read the same way here, so a channel comes out as ``opm render`` prints it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

EntryKey = tuple[str, str, str]
"""(package, channel, bundle)."""


@dataclass(slots=True)
class Membership:
    """One bundle in one channel: the first row's id, its replaces and its skips."""

    first_row: int
    replaces: str | None = None
    skips: list[str] = field(default_factory=list)


def channel_memberships(entry_rows: Iterable[tuple[Any, ...]]) -> dict[EntryKey, Membership]:
    """The bundles of each channel with their edges, from ``channel_entry`` rows
    (entry_id, channel_name, package_name, operatorbundle_name, replaces, depth)."""
    by_id: dict[int, tuple[Any, ...]] = {}
    for row in entry_rows:
        if isinstance(row[0], int):
            by_id[row[0]] = row
    depths = [row[5] for row in by_id.values() if isinstance(row[5], int)]
    on_chain: set[int] = set()
    if depths:
        tip = min(depths)
        waiting = [entry for entry, row in by_id.items() if row[5] == tip]
        while waiting:
            entry = waiting.pop()
            if entry in on_chain:
                continue
            on_chain.add(entry)
            target = by_id[entry][4]
            if isinstance(target, int) and target in by_id:
                waiting.append(target)
    found: dict[EntryKey, Membership] = {}
    for entry in sorted(by_id):
        _, channel, package, bundle, target, _ = by_id[entry]
        if not (isinstance(channel, str) and isinstance(package, str) and isinstance(bundle, str)):
            continue
        membership = found.get((package, channel, bundle))
        if membership is None:
            membership = found[(package, channel, bundle)] = Membership(entry)
        if not isinstance(target, int) or target not in by_id:
            continue
        name = by_id[target][3]
        if not isinstance(name, str):
            continue
        if entry in on_chain:
            if membership.replaces is None or name > membership.replaces:
                membership.replaces = name
        else:
            membership.skips.append(name)
    return found
