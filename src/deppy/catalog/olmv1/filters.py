"""OLM v1's bundle predicates and order, as small pure functions over the catalog model.

operator-controller resolves a ClusterExtension per catalog with a filter (in any of the
requested channels, in the version constraint, a successor of the installed bundle) and a sort
(bundle-level deprecations last, then version and release, highest first). These are those
rules; ``resolution.olmv1.rules`` composes them into a rule set.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from deppy.catalog.model import Bundle, Channel, ChannelEntry
from deppy.catalog.semver import Version
from deppy.catalog.semver.extension_constraint import ExtensionConstraint
from deppy.catalog.semver.release import version_release_key

BundlePredicate = Callable[[Bundle], bool]


def in_any_channel(channels: Iterable[Channel]) -> BundlePredicate:
    """Offered by at least one of ``channels`` (OLM v1: a list of channels means any)."""
    names = {entry.name for channel in channels for entry in channel.entries}
    return lambda bundle: bundle.name in names


def in_constraint(constraint: ExtensionConstraint) -> BundlePredicate:
    """The version (its release aside) satisfies the ClusterExtension's version constraint."""
    return lambda bundle: constraint.contains(bundle.version)


def names_successor(entry: ChannelEntry, installed_name: str, installed: Version) -> bool:
    """The entry replaces or skips the installed bundle by name, or its skipRange (read as
    blang/semver, as OLM v0 read it) holds the installed version."""
    if entry.replaces == installed_name or installed_name in entry.skips:
        return True
    return entry.skip_range is not None and entry.skip_range.contains(installed)


def successor_of(
    installed_name: str, installed: Version, channels: Sequence[Channel]
) -> BundlePredicate:
    """CatalogProvided: a direct successor of the installed bundle in ``channels`` (any of
    them, one edge, no path), or the installed version and release itself (staying put)."""
    successors = {
        entry.name
        for channel in channels
        for entry in channel.entries
        if names_successor(entry, installed_name, installed)
    }
    same = version_release_key(installed)
    return lambda bundle: bundle.name in successors or version_release_key(bundle.version) == same


def sort_newest_first(
    bundles: Iterable[Bundle], deprecated: Callable[[Bundle], bool]
) -> list[Bundle]:
    """Non-deprecated before deprecated; within each, highest version and release first; a
    tie (the same version twice in one catalog) by bundle name, so the order is stable."""
    ordered = sorted(bundles, key=lambda b: b.name)
    ordered.sort(key=lambda b: version_release_key(b.version), reverse=True)
    ordered.sort(key=deprecated)
    return ordered


__all__ = [
    "BundlePredicate",
    "in_any_channel",
    "in_constraint",
    "names_successor",
    "sort_newest_first",
    "successor_of",
]
