"""What every resolution node sees: the catalogs, the request, the candidate order, warnings.

The candidate order is the solver's preference (DESIGN.md, "OLM semantics"): earlier is
preferred. The preferred catalog (a dependent's own), then catalog priority; within a catalog by
package, then the requested channel, else the package's default channel, then the other channels
by name; within a channel from the head down (highest version first; of two bundles with the
same version, the one nearer the channel's head, which replaces or skips the other); deprecated
bundles last of all (a bundle offered only through deprecated channels counts as deprecated).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.channel_validation import channel_problem
from deppy.catalog.model import Bundle
from deppy.catalog.upgrade_edges import head_distances
from deppy.resolution.request import ResolutionRequest

_NO_CHANNEL = 1 << 30


class CandidateOrder:
    """Sorts bundles by preference; caches each package's channel membership per catalog."""

    def __init__(self, catalogs: BundleSource, warn: Callable[[str], None] | None = None) -> None:
        self.catalogs = catalogs
        self.warn = warn  # hears the invalid channels of the packages the order looks at
        # (catalog, package) -> bundle name -> channel names containing it (default first)
        self._membership: dict[tuple[str, str], dict[str, list[str]]] = {}
        # (catalog, package) -> channel name -> position (default channel 0, then by name)
        self._positions: dict[tuple[str, str], dict[str, int]] = {}
        # (catalog, package) -> bundle name -> distance from the head of its nearest channel
        self._depths: dict[tuple[str, str], dict[str, int]] = {}

    def channels_containing(self, bundle: Bundle) -> list[str]:
        """Channels offering the bundle: the default channel first, the others by name, and
        deprecated channels after all others."""
        return self._members(bundle.catalog, bundle.package).get(bundle.name, [])

    def in_channel(self, bundle: Bundle, channel: str) -> bool:
        return channel in self.channels_containing(bundle)

    def preferred_channel(self, bundle: Bundle, requested: str | None = None) -> str | None:
        channels = self.channels_containing(bundle)
        if requested is not None and requested in channels:
            return requested
        return channels[0] if channels else None

    def _members(self, catalog: str, package: str) -> dict[str, list[str]]:
        key = (catalog, package)
        found = self._membership.get(key)
        if found is None:
            found = {}
            meta = self.catalogs.package(catalog, package)
            default = meta.default_channel if meta else None
            channels = self.catalogs.channels(catalog, package)
            deprecated = self.catalogs.channel_deprecated
            channels.sort(
                key=lambda c: (
                    deprecated(catalog, package, c.name) is not None,
                    c.name != default,
                    c.name,
                )
            )
            depths: dict[str, int] = {}
            for channel in channels:
                for entry in channel.entries:
                    found.setdefault(entry.name, []).append(channel.name)
                for name, depth in head_distances(channel).items():
                    depths[name] = min(depth, depths.get(name, depth))
                problem = channel_problem(channel) if self.warn is not None else None
                if problem is not None and self.warn is not None:
                    self.warn(f"catalog {catalog}: invalid channel ({problem})")
            self._membership[key] = found
            self._depths[key] = depths
            self._positions[key] = {c.name: n for n, c in enumerate(channels)}
        return found

    def deprecated(self, bundle: Bundle) -> bool:
        """Deprecated itself, by its package, or offered only through deprecated channels."""
        if self.catalogs.is_deprecated(bundle):
            return True
        channels = self.channels_containing(bundle)  # deprecated channels come last
        return bool(channels) and (
            self.catalogs.channel_deprecated(bundle.catalog, bundle.package, channels[0])
            is not None
        )

    def _head_distance(self, bundle: Bundle) -> int:
        self._members(bundle.catalog, bundle.package)
        return self._depths[(bundle.catalog, bundle.package)].get(bundle.name, _NO_CHANNEL)

    def _channel_rank(self, bundle: Bundle, requested: str | None) -> int:
        channels = self.channels_containing(bundle)
        if not channels:
            return _NO_CHANNEL
        if requested is not None and requested in channels:
            return -1
        # channels_containing filled the cache; membership lists the best channel first
        return self._positions[(bundle.catalog, bundle.package)][channels[0]]

    def sort(
        self,
        bundles: Iterable[Bundle],
        *,
        prefer_catalog: str | None = None,
        channel: str | None = None,
    ) -> list[Bundle]:
        """Candidates from most to least preferred, each once."""
        unique = list(dict.fromkeys(bundles))
        unique.sort(key=lambda b: b.name)
        unique.sort(key=self._head_distance)  # a same-version tie: nearer the head first
        unique.sort(key=lambda b: b.version, reverse=True)
        rank = self.catalogs.rank
        unique.sort(
            key=lambda b: (
                self.deprecated(b),
                b.catalog != prefer_catalog,
                rank(b.catalog),
                b.package,
                self._channel_rank(b, channel),
            )
        )
        return unique


@dataclass(frozen=True, slots=True)
class InstalledMoves:
    """Where a rule set lets an installed bundle go: ``targets`` most preferred first (staying
    is always the last choice), or ``refused``: the rule set resolves nothing for it, in its
    own words (OLM v0 stops when the subscription's channel has no single head)."""

    targets: tuple[Bundle, ...] = ()
    refused: str | None = None


@dataclass
class ResolutionContext:
    catalogs: BundleSource
    request: ResolutionRequest
    order: CandidateOrder
    warnings: list[str] = field(default_factory=list)
    suggest: bool = True  # False in the resolutions that check a suggestion
    # Every catalog deppy was given, before the request's ``sources`` chose among them: where a
    # suggestion looks for what the chosen ones lack, and what a changed request resolves on.
    known: BundleSource | None = None
    # answers a rule set computes once per resolution (OLM v1's per-catalog outcome, asked for
    # both the candidates and the explanation)
    memo: dict[object, object] = field(default_factory=dict)

    @classmethod
    def create(
        cls,
        catalogs: BundleSource,
        request: ResolutionRequest,
        *,
        suggest: bool = True,
        order: CandidateOrder | None = None,
    ) -> ResolutionContext:
        """``order``: one kept from an earlier context over the same catalogs (a caller asking
        many questions of them); its warnings now go to this context."""
        known = catalogs
        if request.sources:
            catalogs = catalogs.restricted(request.sources)
        if order is None or order.catalogs is not catalogs:
            order = CandidateOrder(catalogs)
        context = cls(catalogs, request, order, suggest=suggest, known=known)
        context.order.warn = context.warn
        return context

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)
