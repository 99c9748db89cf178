"""The catalog model every other part of deppy's OLM layer is written against.

Values are frozen, slotted dataclasses so they can be shared between catalogs, used as dict keys and
handed to worker threads without copies. Raw JSON (property values, CSV metadata, constraints) is
kept as parsed, never re-serialised, and left out of equality and hashing: two bundles are the same
bundle when their identity (catalog, package, name, version, image) is the same, which also keeps
hashing cheap for the resolver's sets and dicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from deppy.catalog.semver import Version, VersionRange
from deppy.errors import printable

__all__ = [
    "GVK",
    "Bundle",
    "Catalog",
    "Channel",
    "ChannelEntry",
    "Deprecation",
    "LoadProblem",
    "Package",
    "PackageRequirement",
    "Property",
]


class FieldsPickled:
    """Pickled as its class and its fields, rebuilt by its constructor: a slotted dataclass's
    own pickling calls ``dataclasses.fields`` per object, which made reading a cached community
    catalog (40,000 properties) twice as slow. Every field of these classes is an init field."""

    __slots__ = ()

    def __reduce__(self) -> tuple[Any, ...]:
        names: tuple[str, ...] = self.__slots__  # a dataclass's slots: its fields, in order
        return (type(self), tuple([getattr(self, name) for name in names]))


@dataclass(frozen=True, slots=True)
class Property(FieldsPickled):
    """A property exactly as the catalog declares it; ``value`` is the parsed JSON, not a copy."""

    type: str
    # Hashing a dict would fail; equality still compares the value.
    value: Any = field(hash=False)


@dataclass(frozen=True, slots=True, order=True)
class GVK(FieldsPickled):
    """A Kubernetes API (group, version, kind) provided or required by a bundle."""

    group: str
    version: str
    kind: str

    def __str__(self) -> str:
        return f"{self.kind} ({self.group}/{self.version})"


@dataclass(frozen=True, slots=True)
class PackageRequirement(FieldsPickled):
    """An ``olm.package.required`` dependency; ``text`` keeps the range as written for messages."""

    package: str
    version_range: VersionRange = field(compare=False)
    text: str

    def __str__(self) -> str:
        return f"{self.package} {self.text}"


@dataclass(frozen=True, slots=True)
class Bundle(FieldsPickled):
    """One installable bundle of a package in one catalog.

    Only the identity fields take part in equality and hashing; the rest is derived from the
    properties, or raw data kept for search and explanations.
    """

    name: str
    package: str
    version: Version
    image: str
    catalog: str
    source: str = field(compare=False)
    properties: tuple[Property, ...] = field(default=(), compare=False, repr=False)
    provided_gvks: tuple[GVK, ...] = field(default=(), compare=False, repr=False)
    required_packages: tuple[PackageRequirement, ...] = field(default=(), compare=False, repr=False)
    required_gvks: tuple[GVK, ...] = field(default=(), compare=False, repr=False)
    labels: tuple[str, ...] = field(default=(), compare=False, repr=False)
    required_labels: tuple[str, ...] = field(default=(), compare=False, repr=False)
    constraints: tuple[Any, ...] = field(default=(), compare=False, repr=False)
    max_openshift_version: Version | None = field(default=None, compare=False, repr=False)
    min_kube_version: Version | None = field(default=None, compare=False, repr=False)
    related_images: tuple[str, ...] = field(default=(), compare=False, repr=False)
    csv_metadata: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    replaces: str | None = field(default=None, compare=False, repr=False)
    skips: tuple[str, ...] = field(default=(), compare=False, repr=False)
    skip_range: str | None = field(default=None, compare=False, repr=False)

    @property
    def key(self) -> tuple[str, str]:
        """The bundle's key in :attr:`Catalog.bundles`."""
        return (self.package, self.name)

    def __str__(self) -> str:
        return f"{self.name} ({self.package} {self.version})"


@dataclass(frozen=True, slots=True)
class ChannelEntry(FieldsPickled):
    """A bundle's place in a channel's upgrade graph (replaces, skips and skipRange edges)."""

    name: str
    replaces: str | None = None
    skips: tuple[str, ...] = ()
    skip_range: VersionRange | None = field(default=None, compare=False)
    skip_range_text: str | None = None


@dataclass(frozen=True, slots=True)
class Channel(FieldsPickled):
    """An ``olm.channel``: the entries it offers, in catalog order."""

    package: str
    name: str
    entries: tuple[ChannelEntry, ...]
    source: str = field(compare=False)

    @property
    def key(self) -> tuple[str, str]:
        """The channel's key in :attr:`Catalog.channels`."""
        return (self.package, self.name)


@dataclass(frozen=True, slots=True)
class Package(FieldsPickled):
    """An ``olm.package`` (its icon is dropped: deppy never shows it and it is large)."""

    name: str
    default_channel: str | None
    description: str = field(default="", compare=False, repr=False)
    source: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class Deprecation(FieldsPickled):
    """One entry of an ``olm.deprecations`` object: what is deprecated and the owner's message."""

    package: str
    schema: str
    name: str | None
    message: str


KEPT_WITHOUT_SKIPRANGE = "the entry is kept without its skipRange"
# Problems that cost part of an object, not the object: (words in the problem, the object
# in the singular and plural, what it is kept without).
KEPT_WITHOUT = (
    (KEPT_WITHOUT_SKIPRANGE, "entry", "entries", "skipRange"),
    ("the package is kept without a default channel", "package", "packages", "default channel"),
    ("has no defaultChannel", "package", "packages", "default channel"),
    ("(as Kubernetes reads it)", "integer", "integers", "exact digits"),
)


@dataclass(frozen=True, slots=True)
class LoadProblem(FieldsPickled):
    """Something a loader skipped or could not read, with where it is and what to do about it.

    Most problems cost the object (it was skipped); a channel entry whose skipRange cannot be
    read is kept without it, a package without a valid default channel too (``kept``): a
    summary must not call those "skipped".
    """

    file: str
    obj: str
    why: str

    @property
    def kept(self) -> tuple[str, str, str] | None:
        """(object, objects, what it lost) for a problem that kept its object, else None."""
        for words, one, many, lost in KEPT_WITHOUT:
            if words in self.why:
                return one, many, lost
        return None

    def __str__(self) -> str:
        text = f"{self.file}: {self.obj}: {self.why}" if self.obj else f"{self.file}: {self.why}"
        return printable(text)


def _version_order(bundle: Bundle) -> tuple[Version, str]:
    return (bundle.version, bundle.name)


@dataclass
class Catalog:
    """Everything valid that was loaded from one catalog, plus the problems met on the way.

    The maps are in sorted key order so that iterating a catalog does not depend on how its files
    were laid out. A catalog is not meant to be changed after loading: the per-package indexes
    behind :meth:`bundles_of` and :meth:`channels_of` are built once, on first use.
    """

    name: str
    priority: int
    path: str
    packages: dict[str, Package]
    channels: dict[tuple[str, str], Channel]
    bundles: dict[tuple[str, str], Bundle]
    deprecations: tuple[Deprecation, ...] = ()
    problems: tuple[LoadProblem, ...] = ()
    # Objects of schemas deppy does not use, counted by schema (operator-registry keeps them too).
    others: dict[str, int] = field(default_factory=dict)
    _bundle_index: dict[str, list[Bundle]] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    _channel_index: dict[str, list[Channel]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __repr__(self) -> str:
        return (
            f"Catalog(name={self.name!r}, priority={self.priority}, path={self.path!r}, "
            f"{len(self.packages)} packages, {len(self.channels)} channels, "
            f"{len(self.bundles)} bundles, {len(self.problems)} problems)"
        )

    def bundles_of(self, package: str) -> list[Bundle]:
        """The package's bundles, highest version first (a copy: callers may sort it their way)."""
        if self._bundle_index is None:
            index: dict[str, list[Bundle]] = {}
            for bundle in self.bundles.values():
                index.setdefault(bundle.package, []).append(bundle)
            for bundles in index.values():
                bundles.sort(key=_version_order, reverse=True)
            self._bundle_index = index
        return list(self._bundle_index.get(package, ()))

    def channels_of(self, package: str) -> list[Channel]:
        """The package's channels in name order (a copy)."""
        if self._channel_index is None:
            index: dict[str, list[Channel]] = {}
            for channel in self.channels.values():
                index.setdefault(channel.package, []).append(channel)
            for channels in index.values():
                channels.sort(key=lambda c: c.name)
            self._channel_index = index
        return list(self._channel_index.get(package, ()))

    def deprecations_of(self, package: str) -> list[Deprecation]:
        """The package's deprecation entries in catalog order."""
        return [d for d in self.deprecations if d.package == package]
