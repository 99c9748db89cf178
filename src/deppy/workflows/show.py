"""One package as a person asks about it before installing or upgrading: its channels, versions,
deprecations, dependencies and APIs — as values, so ``deppy show`` prints them and the service
answers them in JSON from the same facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.file_values import plain
from deppy.catalog.model import Bundle
from deppy.errors import InputError
from deppy.workflows.did_you_mean import where_to_look
from deppy.workflows.graph import ChannelGraph, channel_graph
from deppy.workflows.search import package_head

__all__ = [
    "BundleVersion",
    "Deprecated",
    "PackageNotFound",
    "PackageView",
    "find_package",
    "package_graphs",
    "package_views",
]


class PackageNotFound(InputError):
    """No catalog has the package (or the channel asked for): a 404 for the service."""


@dataclass(frozen=True, slots=True)
class Deprecated:
    """One deprecation: of the whole package, a channel or a bundle, with the owner's message."""

    scope: str  # package | channel | bundle
    name: str
    message: str

    def as_dict(self) -> dict[str, Any]:
        return {"scope": self.scope, "name": self.name, "message": self.message}


@dataclass(frozen=True, slots=True)
class BundleVersion:
    """One bundle of the package: the channels it is in, its cluster limits and its needs."""

    bundle: Bundle
    channels: tuple[str, ...]

    def limits(self) -> list[str]:
        found = []
        if self.bundle.max_openshift_version is not None:
            found.append(f"OpenShift <= {self.bundle.max_openshift_version}")
        if self.bundle.min_kube_version is not None:
            found.append(f"Kubernetes >= {self.bundle.min_kube_version}")
        return found

    def needs(self) -> list[str]:
        bundle = self.bundle
        found = [f"package {r}" for r in bundle.required_packages]
        found += [f"API {gvk}" for gvk in bundle.required_gvks]
        found += [f"label {label}" for label in bundle.required_labels]
        found += ["an olm.constraint"] * len(bundle.constraints)
        return found

    def as_dict(self) -> dict[str, Any]:
        bundle = self.bundle
        return {
            "version": str(bundle.version),
            "bundle": bundle.name,
            "channels": list(self.channels),
            "maxOpenShiftVersion": _text(bundle.max_openshift_version),
            "minKubeVersion": _text(bundle.min_kube_version),
            "requires": {
                "packages": [str(r) for r in bundle.required_packages],
                "apis": [str(g) for g in bundle.required_gvks],
                "labels": list(bundle.required_labels),
                "constraints": len(bundle.constraints),
            },
        }


@dataclass(frozen=True, slots=True)
class PackageView:
    """A package as one catalog offers it."""

    catalog: str
    package: str
    display_name: str
    description: str
    default_channel: str | None
    graphs: tuple[ChannelGraph, ...]
    deprecations: tuple[Deprecated, ...]
    versions: tuple[BundleVersion, ...]  # newest first
    head: Bundle | None

    def as_dict(self) -> dict[str, Any]:
        head = self.head
        return {
            "package": self.package,
            "catalog": self.catalog,
            "displayName": self.display_name,
            "description": self.description,
            "defaultChannel": self.default_channel,
            "channels": [
                {
                    "name": g.name,
                    "default": g.default,
                    "deprecated": g.deprecated,
                    "bundles": len(g.bundles),
                    "heads": list(g.heads),
                }
                for g in self.graphs
            ],
            "deprecations": [d.as_dict() for d in self.deprecations],
            "versions": [v.as_dict() for v in self.versions],
            "providedApis": {
                "version": str(head.version) if head is not None else None,
                "apis": [str(g) for g in sorted(head.provided_gvks)] if head is not None else [],
            },
        }


def _text(value: object | None) -> str | None:
    return None if value is None else str(value)


def find_package(source: BundleSource, package: str) -> list[str]:
    """The catalogs offering ``package``, most preferred first; none is a PackageNotFound
    naming close names and the search to try."""
    found = source.catalogs_with(package)
    if found:
        return found
    raise PackageNotFound(
        f"package {package!r}",
        f"no catalog ({', '.join(source.names())}) has this package; "
        + where_to_look(source, package),
    )


def package_graphs(
    source: BundleSource, package: str, channel: str | None = None
) -> list[ChannelGraph]:
    """Every channel's upgrade graph (or only ``channel``'s), preferred catalog first, the
    default channel first within a catalog."""
    found = find_package(source, package)
    graphs = [
        channel_graph(source, c, catalog)
        for catalog in found
        for c in source.channels(catalog, package)
        if channel is None or c.name == channel
    ]
    graphs.sort(key=lambda g: (source.rank(g.catalog), not g.default, g.name))
    if channel is not None and not graphs:
        names = sorted({c.name for k in found for c in source.channels(k, package)})
        raise PackageNotFound(
            f"--channel {channel!r}",
            f"package {package} has no such channel",
            f"its channels: {', '.join(names)}",
        )
    return graphs


def package_views(
    source: BundleSource, package: str, graphs: list[ChannelGraph] | None = None
) -> list[PackageView]:
    """The package in each catalog offering it, most preferred first."""
    graphs = package_graphs(source, package) if graphs is None else graphs
    return [
        _view(source, catalog, package, [g for g in graphs if g.catalog == catalog])
        for catalog in find_package(source, package)
    ]


def _view(
    source: BundleSource, catalog: str, package: str, graphs: list[ChannelGraph]
) -> PackageView:
    meta = source.package(catalog, package)
    head = package_head(source, catalog, package)
    csv = head.csv_metadata if head is not None and head.csv_metadata else {}
    display = csv.get("displayName")
    description = (meta.description if meta else "") or csv.get("description") or ""
    bundles = [b for b in source.bundles_of(package) if b.catalog == catalog]
    bundles.sort(key=lambda b: (b.version, b.name), reverse=True)
    versions = tuple(
        BundleVersion(b, tuple(g.name for g in graphs if b in g.bundles)) for b in bundles
    )
    return PackageView(
        catalog=catalog,
        package=package,
        display_name=display if isinstance(display, str) else "",
        description=description if isinstance(description, str) else "",
        default_channel=meta.default_channel if meta else None,
        graphs=tuple(graphs),
        deprecations=tuple(_deprecations(source, catalog, package, bundles)),
        versions=versions,
        head=head,
    )


def _deprecations(
    source: BundleSource, catalog: str, package: str, bundles: list[Bundle]
) -> list[Deprecated]:
    """Of the package, then each channel, then each bundle (newest first)."""
    found: list[Deprecated] = []
    # a bundle's own deprecation hides its package's: ask until one answers for the package
    for bundle in bundles:
        whole = source.deprecation_of(bundle)
        if whole is not None and whole.schema == "olm.package":
            found.append(Deprecated("package", package, whole.message))
            break
    for channel in source.channels(catalog, package):
        message = source.channel_deprecated(catalog, package, channel.name)
        if message is not None:
            found.append(Deprecated("channel", channel.name, message))
    for bundle in bundles:
        entry = source.deprecation_of(bundle)
        if entry is not None and entry.schema == "olm.bundle":
            found.append(Deprecated("bundle", bundle.name, entry.message))
    return found


def bundle_details(
    source: BundleSource, package: str, name: str, catalog: str | None = None
) -> dict[str, Any]:
    """One bundle: identity, the channels it is in with its edges there, deprecation, needs,
    APIs and every property as the catalog declares it (the most preferred catalog's bundle
    of that name unless ``catalog`` is given)."""
    found = [
        b
        for b in source.bundles_of(package)
        if b.name == name and (catalog is None or b.catalog == catalog)
    ]
    if not found:
        find_package(source, package)
        where = f" in catalog {catalog}" if catalog else ""
        raise PackageNotFound(
            f"bundle {name!r}",
            f"package {package} has no bundle of this name{where}",
            f"try deppy show {package}",
        )
    bundle = found[0]
    channels: list[dict[str, Any]] = []
    names: list[str] = []
    for channel in source.channels(bundle.catalog, package):
        for entry in channel.entries:
            if entry.name == bundle.name:
                names.append(channel.name)
                channels.append(
                    {
                        "name": channel.name,
                        "replaces": entry.replaces,
                        "skips": list(entry.skips),
                        "skipRange": entry.skip_range_text,
                    }
                )
    deprecation = source.deprecation_of(bundle)
    version = BundleVersion(bundle, tuple(names)).as_dict()
    return {
        "name": bundle.name,
        "package": bundle.package,
        "version": str(bundle.version),
        "catalog": bundle.catalog,
        "image": bundle.image,
        "channels": channels,
        "deprecation": (
            {"scope": deprecation.schema, "message": deprecation.message} if deprecation else None
        ),
        "maxOpenShiftVersion": version["maxOpenShiftVersion"],
        "minKubeVersion": version["minKubeVersion"],
        "requires": version["requires"],
        "providedApis": [str(g) for g in sorted(bundle.provided_gvks)],
        "relatedImages": list(bundle.related_images),
        "properties": [{"type": p.type, "value": plain(p.value)} for p in bundle.properties],
    }
