"""What changed between two releases of a catalog: ``deppy catalog diff OLD NEW``, and the
catalog half of a fleet plan ``--since OLD``.

The diff is a value (:class:`CatalogDiff`) computed from the two catalogs' release facts
(``deppy.catalog.release_facts``): packages, bundles and channels added and removed, channel
heads moved, deprecation entries added and removed, upgrade edges added and removed (the
effective edges deppy follows: replaces, skips and skipRange over the package's bundles, as
``deppy upgrades`` computes them), default channels changed and platform limits changed.
Every list is in a fixed order, so the same two catalogs always give the same diff.

Speed comes from not looking at what cannot have changed: a package whose channels and bundle
versions are equal on both sides has the same edges and heads, and a bundle whose stored
content is the same has the same limits (only the others are decoded).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from deppy.catalog.model import Catalog, Channel, Deprecation
from deppy.catalog.release_facts import CatalogFacts, Limits, PackageFacts, facts_of_catalog
from deppy.catalog.semver import Version
from deppy.catalog.upgrade_edges import channel_edges, channel_head

__all__ = [
    "BundleChange",
    "CatalogDiff",
    "ChannelChange",
    "DefaultChannelChange",
    "DeprecationChange",
    "EdgeChange",
    "HeadMove",
    "LimitChange",
    "PackageChange",
    "Side",
    "diff_catalogs",
    "diff_facts",
]

SCOPES = {"olm.package": "package", "olm.channel": "channel", "olm.bundle": "bundle"}
MAX_OPENSHIFT = "maxOpenShiftVersion"
MIN_KUBE = "minKubeVersion"


def _text(version: Version | None) -> str | None:
    return None if version is None else str(version)


@dataclass(frozen=True, slots=True)
class Side:
    """One of the two catalogs compared: its name and size."""

    catalog: str
    packages: int
    bundles: int

    def as_dict(self) -> dict[str, Any]:
        return {"catalog": self.catalog, "packages": self.packages, "bundles": self.bundles}


@dataclass(frozen=True, slots=True)
class PackageChange:
    """A package added or removed, with its default channel and bundle count on its side."""

    package: str
    default_channel: str | None
    bundles: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "package": self.package,
            "defaultChannel": self.default_channel,
            "bundles": self.bundles,
        }


@dataclass(frozen=True, slots=True)
class BundleChange:
    """A bundle added (with its platform limits) or removed (``limits`` None)."""

    package: str
    bundle: str
    version: Version
    limits: Limits | None = None

    def as_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "package": self.package,
            "bundle": self.bundle,
            "version": str(self.version),
        }
        if self.limits is not None:
            found[MAX_OPENSHIFT] = _text(self.limits.max_openshift_version)
            found[MIN_KUBE] = _text(self.limits.min_kube_version)
        return found


@dataclass(frozen=True, slots=True)
class ChannelChange:
    """A channel added or removed, with its head on its side."""

    package: str
    channel: str
    head: str | None

    def as_dict(self) -> dict[str, Any]:
        return {"package": self.package, "channel": self.channel, "head": self.head}


@dataclass(frozen=True, slots=True)
class HeadMove:
    """A channel in both catalogs whose head is another bundle in NEW."""

    package: str
    channel: str
    old: str | None
    new: str | None
    old_version: Version | None
    new_version: Version | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "package": self.package,
            "channel": self.channel,
            "from": self.old,
            "to": self.new,
            "fromVersion": _text(self.old_version),
            "toVersion": _text(self.new_version),
        }


@dataclass(frozen=True, slots=True)
class DefaultChannelChange:
    """A package in both catalogs with another default channel in NEW."""

    package: str
    old: str | None
    new: str | None

    def as_dict(self) -> dict[str, Any]:
        return {"package": self.package, "from": self.old, "to": self.new}


@dataclass(frozen=True, slots=True)
class DeprecationChange:
    """An ``olm.deprecations`` entry added or removed: of the package, a channel or a bundle."""

    package: str
    scope: str  # package | channel | bundle
    name: str
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "package": self.package,
            "scope": self.scope,
            "name": self.name,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class EdgeChange:
    """An upgrade edge ``source -> target`` of a channel, added or removed."""

    package: str
    channel: str
    source: str
    target: str
    kind: str  # replaces | skips | skipRange

    def as_dict(self) -> dict[str, Any]:
        return {
            "package": self.package,
            "channel": self.channel,
            "from": self.source,
            "to": self.target,
            "kind": self.kind,
        }


@dataclass(frozen=True, slots=True)
class LimitChange:
    """A bundle in both catalogs whose platform limit ``field`` differs (None: no limit)."""

    package: str
    bundle: str
    version: Version
    field: str  # maxOpenShiftVersion | minKubeVersion
    old: Version | None
    new: Version | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "package": self.package,
            "bundle": self.bundle,
            "version": str(self.version),
            "field": self.field,
            "from": _text(self.old),
            "to": _text(self.new),
        }


@dataclass(frozen=True, slots=True)
class CatalogDiff:
    """Everything that differs between OLD and NEW, each list in a fixed order (package, then
    channel or version, then name)."""

    old: Side
    new: Side
    packages_added: tuple[PackageChange, ...] = ()
    packages_removed: tuple[PackageChange, ...] = ()
    bundles_added: tuple[BundleChange, ...] = ()
    bundles_removed: tuple[BundleChange, ...] = ()
    channels_added: tuple[ChannelChange, ...] = ()
    channels_removed: tuple[ChannelChange, ...] = ()
    heads_moved: tuple[HeadMove, ...] = ()
    default_channels_changed: tuple[DefaultChannelChange, ...] = ()
    deprecations_added: tuple[DeprecationChange, ...] = ()
    deprecations_removed: tuple[DeprecationChange, ...] = ()
    edges_added: tuple[EdgeChange, ...] = ()
    edges_removed: tuple[EdgeChange, ...] = ()
    limits_changed: tuple[LimitChange, ...] = ()

    def groups(self) -> dict[str, dict[str, tuple[Any, ...]]]:
        """The changes by the keys ``-o json`` names them with (``packages.added``…)."""
        return {
            "packages": {"added": self.packages_added, "removed": self.packages_removed},
            "bundles": {"added": self.bundles_added, "removed": self.bundles_removed},
            "channels": {
                "added": self.channels_added,
                "removed": self.channels_removed,
                "heads_moved": self.heads_moved,
            },
            "default_channels": {"changed": self.default_channels_changed},
            "deprecations": {
                "added": self.deprecations_added,
                "removed": self.deprecations_removed,
            },
            "edges": {"added": self.edges_added, "removed": self.edges_removed},
            "platform_limits": {"changed": self.limits_changed},
        }

    def counts(self) -> dict[str, int]:
        """How many changes of each kind, keyed ``packages.added`` and so on."""
        return {
            f"{group}.{kind}": len(changes)
            for group, kinds in self.groups().items()
            for kind, changes in kinds.items()
        }

    @property
    def empty(self) -> bool:
        return not any(self.counts().values())

    def packages(self) -> list[str]:
        """The packages with any change, in name order."""
        return sorted(
            {
                change.package
                for kinds in self.groups().values()
                for changes in kinds.values()
                for change in changes
            }
        )

    def as_dict(self) -> dict[str, Any]:
        """The diff for programs: ``old``, ``new``, ``changed``, ``counts``, then each group."""
        found: dict[str, Any] = {
            "old": self.old.as_dict(),
            "new": self.new.as_dict(),
            "changed": not self.empty,
            "counts": self.counts(),
        }
        for group, kinds in self.groups().items():
            found[group] = {
                kind: [change.as_dict() for change in changes] for kind, changes in kinds.items()
            }
        return found


def diff_catalogs(old: Catalog, new: Catalog) -> CatalogDiff:
    """The diff of two loaded catalogs."""
    return diff_facts(facts_of_catalog(old), facts_of_catalog(new))


def diff_facts(old: CatalogFacts, new: CatalogFacts) -> CatalogDiff:
    """The diff of two catalogs' release facts (loaded whole, or read from the store)."""
    found = _Found()
    for name in sorted(set(old.packages) | set(new.packages)):
        before, after = old.packages.get(name), new.packages.get(name)
        if before is None and after is not None:
            found.package_added(new, after)
        elif after is None and before is not None:
            found.package_removed(before)
        elif before is not None and after is not None:
            found.package_changed(old, new, before, after)
    return CatalogDiff(
        old=Side(old.name, len(old.packages), old.bundle_count()),
        new=Side(new.name, len(new.packages), new.bundle_count()),
        packages_added=tuple(found.packages_added),
        packages_removed=tuple(found.packages_removed),
        bundles_added=tuple(found.bundles_added),
        bundles_removed=tuple(found.bundles_removed),
        channels_added=tuple(found.channels_added),
        channels_removed=tuple(found.channels_removed),
        heads_moved=tuple(found.heads_moved),
        default_channels_changed=tuple(found.defaults_changed),
        deprecations_added=tuple(found.deprecations_added),
        deprecations_removed=tuple(found.deprecations_removed),
        edges_added=tuple(found.edges_added),
        edges_removed=tuple(found.edges_removed),
        limits_changed=tuple(found.limits_changed),
    )


_EdgeKey = tuple[str, str, str, str]  # channel, source, target, kind


class _Found:
    """The changes met so far, package by package (so each list is in package order)."""

    def __init__(self) -> None:
        self.packages_added: list[PackageChange] = []
        self.packages_removed: list[PackageChange] = []
        self.bundles_added: list[BundleChange] = []
        self.bundles_removed: list[BundleChange] = []
        self.channels_added: list[ChannelChange] = []
        self.channels_removed: list[ChannelChange] = []
        self.heads_moved: list[HeadMove] = []
        self.defaults_changed: list[DefaultChannelChange] = []
        self.deprecations_added: list[DeprecationChange] = []
        self.deprecations_removed: list[DeprecationChange] = []
        self.edges_added: list[EdgeChange] = []
        self.edges_removed: list[EdgeChange] = []
        self.limits_changed: list[LimitChange] = []

    def package_added(self, new: CatalogFacts, after: PackageFacts) -> None:
        self.packages_added.append(
            PackageChange(after.name, after.default_channel, len(after.versions))
        )
        self._bundles(after, after.versions, new, added=True)
        self._channels(after, after.channels, self.channels_added)
        self._deprecations(after, after.deprecations, self.deprecations_added)
        self._edges(after.name, _edges(after, after.channels), self.edges_added)

    def package_removed(self, before: PackageFacts) -> None:
        self.packages_removed.append(
            PackageChange(before.name, before.default_channel, len(before.versions))
        )
        self._bundles(before, before.versions, None, added=False)
        self._channels(before, before.channels, self.channels_removed)
        self._deprecations(before, before.deprecations, self.deprecations_removed)
        self._edges(before.name, _edges(before, before.channels), self.edges_removed)

    def package_changed(
        self, old: CatalogFacts, new: CatalogFacts, before: PackageFacts, after: PackageFacts
    ) -> None:
        name = after.name
        if before.default_channel != after.default_channel:
            self.defaults_changed.append(
                DefaultChannelChange(name, before.default_channel, after.default_channel)
            )
        added = [b for b in after.versions if b not in before.versions]
        removed = [b for b in before.versions if b not in after.versions]
        self._bundles(after, added, new, added=True)
        self._bundles(before, removed, None, added=False)
        self._limits(old, new, before, after)
        old_channels = {c.name: c for c in before.channels}
        new_channels = {c.name: c for c in after.channels}
        self._channels(
            after, [c for c in after.channels if c.name not in old_channels], self.channels_added
        )
        self._channels(
            before,
            [c for c in before.channels if c.name not in new_channels],
            self.channels_removed,
        )
        same_versions = before.versions == after.versions
        for channel in after.channels:
            was = old_channels.get(channel.name)
            if was is None or (same_versions and was == channel):
                continue
            self._head_moved(before, after, was, channel)
        old_deprecations = _deprecation_keys(before.deprecations)
        new_deprecations = _deprecation_keys(after.deprecations)
        self._deprecations(
            after,
            [d for key, d in new_deprecations.items() if key not in old_deprecations],
            self.deprecations_added,
        )
        self._deprecations(
            before,
            [d for key, d in old_deprecations.items() if key not in new_deprecations],
            self.deprecations_removed,
        )
        changed = [
            c for c in after.channels if not (same_versions and old_channels.get(c.name) == c)
        ]
        gone = [c for c in before.channels if not (same_versions and new_channels.get(c.name) == c)]
        if changed or gone:
            old_edges, new_edges = _edges(before, gone), _edges(after, changed)
            self._edges(name, [e for e in new_edges if e not in old_edges], self.edges_added)
            self._edges(name, [e for e in old_edges if e not in new_edges], self.edges_removed)

    def _bundles(
        self,
        package: PackageFacts,
        names: Iterable[str],
        new: CatalogFacts | None,
        *,
        added: bool,
    ) -> None:
        ordered = sorted(names, key=lambda n: (package.versions[n], n))
        target = self.bundles_added if added else self.bundles_removed
        target.extend(
            BundleChange(
                package.name,
                name,
                package.versions[name],
                new.limits(package.name, name) if new is not None else None,
            )
            for name in ordered
        )

    def _limits(
        self, old: CatalogFacts, new: CatalogFacts, before: PackageFacts, after: PackageFacts
    ) -> None:
        common = [b for b in after.versions if b in before.versions]
        for name in sorted(common, key=lambda n: (after.versions[n], n)):
            if old.same_bundle(new, after.name, name):
                continue
            was, now = old.limits(after.name, name), new.limits(after.name, name)
            version = after.versions[name]
            for field, a, b in (
                (MAX_OPENSHIFT, was.max_openshift_version, now.max_openshift_version),
                (MIN_KUBE, was.min_kube_version, now.min_kube_version),
            ):
                if a != b:  # as versions: "4.12" and "4.12.0" are one limit
                    self.limits_changed.append(LimitChange(after.name, name, version, field, a, b))

    def _channels(
        self, package: PackageFacts, channels: Iterable[Channel], target: list[ChannelChange]
    ) -> None:
        for channel in channels:
            head = channel_head(channel, package.versions)
            target.append(ChannelChange(package.name, channel.name, head.name if head else None))

    def _head_moved(
        self, before: PackageFacts, after: PackageFacts, was: Channel, channel: Channel
    ) -> None:
        old_head = channel_head(was, before.versions)
        new_head = channel_head(channel, after.versions)
        old_name = old_head.name if old_head else None
        new_name = new_head.name if new_head else None
        if old_name != new_name:
            self.heads_moved.append(
                HeadMove(
                    after.name,
                    channel.name,
                    old_name,
                    new_name,
                    before.versions.get(old_name) if old_name else None,
                    after.versions.get(new_name) if new_name else None,
                )
            )

    def _deprecations(
        self,
        package: PackageFacts,
        deprecations: Iterable[Deprecation],
        target: list[DeprecationChange],
    ) -> None:
        changes = [
            DeprecationChange(
                package.name,
                SCOPES.get(d.schema, d.schema),
                d.name if d.name is not None else package.name,
                d.message,
            )
            for d in deprecations
        ]
        changes.sort(key=lambda c: (_SCOPE_ORDER.get(c.scope, 3), c.name, c.message))
        target.extend(changes)

    def _edges(self, package: str, edges: Iterable[_EdgeKey], target: list[EdgeChange]) -> None:
        target.extend(EdgeChange(package, *key) for key in sorted(edges))


_SCOPE_ORDER = {"package": 0, "channel": 1, "bundle": 2}


def _deprecation_keys(
    deprecations: Iterable[Deprecation],
) -> dict[tuple[str, str | None], Deprecation]:
    return {(d.schema, d.name): d for d in deprecations}


def _edges(package: PackageFacts, channels: Iterable[Channel]) -> dict[_EdgeKey, None]:
    """The channels' upgrade edges over the package's bundles, as ``deppy upgrades`` follows
    them (in insertion order; callers sort)."""
    versions = dict(package.versions)
    return {
        (channel.name, edge.source, edge.target, edge.kind): None
        for channel in channels
        for edge in channel_edges(channel, versions)
    }
