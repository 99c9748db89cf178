"""Checks across the objects of one File-Based Catalog, once every file has been read.

opm refuses a catalog whose objects disagree; deppy keeps what is usable and reports the rest:
channels and bundles of a package without an ``olm.package`` object, channel entries without a
valid bundle, bundles that no channel offers, a default channel that does not exist, and
deprecations of something unknown. Each check takes the collected objects and appends a
:class:`LoadProblem` for what it drops.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from deppy.catalog.fbc.files import Doc
from deppy.catalog.fbc.objects import SCHEMA_BUNDLE, SCHEMA_CHANNEL, SCHEMA_DEPRECATIONS
from deppy.catalog.model import Bundle, Channel, Deprecation, LoadProblem, Package


@dataclass(slots=True)
class RawChannel:
    channel: Channel
    file: str
    doc: Doc


@dataclass(slots=True)
class CatalogObjects:
    """What the files of one catalog held, before the cross-object checks."""

    problems: list[LoadProblem] = field(default_factory=list)
    packages: dict[str, Package] = field(default_factory=dict)
    channels: dict[tuple[str, str], RawChannel] = field(default_factory=dict)
    bundles: dict[tuple[str, str], Bundle] = field(default_factory=dict)
    deprecations: dict[str, list[Deprecation]] = field(default_factory=dict)
    deprecation_sources: dict[str, str] = field(default_factory=dict)

    def drop_orphans(self) -> None:
        """Channels and bundles of a package with no olm.package object: one problem per package."""
        orphans: dict[str, list[str]] = {}
        for key, raw in list(self.channels.items()):
            if key[0] not in self.packages:
                orphans.setdefault(key[0], []).append(raw.channel.source)
                del self.channels[key]
        for key, bundle in list(self.bundles.items()):
            if key[0] not in self.packages:
                orphans.setdefault(key[0], []).append(bundle.source)
                del self.bundles[key]
        for package, sources in sorted(orphans.items()):
            self.problems.append(
                LoadProblem(
                    sources[0].rsplit(":", 1)[0],
                    f"package {package}",
                    f"{len(sources)} channel/bundle objects name this package but there is no "
                    f"olm.package object for it, so they are skipped; add "
                    f"{{schema: olm.package, name: {package}, defaultChannel: ...}}",
                )
            )

    def check_channels(self) -> dict[tuple[str, str], Channel]:
        """Drop channel entries without a bundle and bundles that no channel offers."""
        channels: dict[tuple[str, str], Channel] = {}
        in_channel: set[tuple[str, str]] = set()
        for key, raw in self.channels.items():
            channel = raw.channel
            kept = []
            for entry in channel.entries:
                if (channel.package, entry.name) in self.bundles:
                    kept.append(entry)
                    in_channel.add((channel.package, entry.name))
                else:
                    self.problems.append(
                        LoadProblem(
                            raw.file,
                            f"{SCHEMA_CHANNEL} {channel.name} of package {channel.package} "
                            f"({raw.doc.where})",
                            f"entry {entry.name} has no valid olm.bundle in this catalog; the "
                            "entry is skipped — add the bundle or remove the entry",
                        )
                    )
            if len(kept) != len(channel.entries):
                channel = Channel(channel.package, channel.name, tuple(kept), channel.source)
            channels[key] = channel
        for key, bundle in list(self.bundles.items()):
            if key not in in_channel:
                file, _, _ = bundle.source.rpartition(":")
                self.problems.append(
                    LoadProblem(
                        file or bundle.source,
                        f"{SCHEMA_BUNDLE} {bundle.name}",
                        "no olm.channel of its package lists it, so OLM cannot install it; it is "
                        "skipped — add it to a channel's entries",
                    )
                )
                del self.bundles[key]
        return channels

    def check_default_channels(self, channels: Mapping[tuple[str, str], Channel]) -> None:
        for name, package in list(self.packages.items()):
            default = package.default_channel
            if default is not None and (name, default) in channels:
                continue
            has_channels = any(key[0] == name for key in channels)
            if default is None and not has_channels:
                continue
            why = (
                "has no defaultChannel; set it to one of its channels"
                if default is None
                else f"its defaultChannel {default!r} is not one of its channels; the package "
                "is kept without a default channel — fix defaultChannel"
            )
            file, _, _ = package.source.rpartition(":")
            self.problems.append(LoadProblem(file or package.source, f"olm.package {name}", why))
            self.packages[name] = Package(name, None, package.description, package.source)

    def check_deprecations(self, channels: Mapping[tuple[str, str], Channel]) -> list[Deprecation]:
        out: list[Deprecation] = []
        for package in sorted(self.deprecations):
            source = self.deprecation_sources[package]
            file, _, _ = source.rpartition(":")
            for dep in self.deprecations[package]:
                why = None
                if package not in self.packages:
                    why = f"package {package} is not in this catalog"
                elif dep.schema == SCHEMA_CHANNEL and (package, dep.name) not in channels:
                    why = f"channel {dep.name} is not a channel of {package}"
                elif dep.schema == SCHEMA_BUNDLE and (package, dep.name) not in self.bundles:
                    why = f"bundle {dep.name} is not a bundle of {package}"
                if why is None:
                    out.append(dep)
                else:
                    self.problems.append(
                        LoadProblem(
                            file or source,
                            f"{SCHEMA_DEPRECATIONS} of package {package}",
                            f"deprecates something unknown: {why}; the entry is skipped",
                        )
                    )
        return out
