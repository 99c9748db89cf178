"""Resolved catalogs: what OLM v1 needs to install a plan whose bundles declare dependencies.

OLM v1 (operator-controller v1.11, ``NoDependencyValidation``) refuses a chosen bundle that
declares olm.package.required, olm.gvk.required or olm.constraint. deppy has resolved those
dependencies already, so it hands OLM v1 a File-Based Catalog of its own that holds just the
plan's refused bundles, each dependency property replaced by the record of what satisfied it
(``deppy.io/resolved-dependency``: the original property and the bundle the plan installs for
it), a type OLM v1 does not check. Everything else stays as the original catalog has it: the
other properties, the bundle image and related images (the catalog points at the bundle
images, it does not copy them), the bundle's entry in each of its channels (replaces, skips,
skipRange: a later plan that upgrades from it is a successor under CatalogProvided, which OLM
v1 computes from the installed bundle's name and version), and the deprecations that concern
them.

The catalog's ClusterCatalog has the lowest priority there is, so only the plan's own
ClusterExtensions, which select it by name, ever install from it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.file_values import plain
from deppy.catalog.model import Bundle, Property
from deppy.catalog.olmv1 import declared_properties
from deppy.catalog.properties import (
    GVK_REQUIRED,
    PACKAGE_REQUIRED,
    gvk_of,
    requirement_of,
)
from deppy.cluster.fbc_render import bundle_properties, entry_object
from deppy.errors import InputError
from deppy.oci import CatalogImage, catalog_image
from deppy.resolution.answer import Resolution, SelectedBundle
from deppy.resolution.olmv1 import API_VERSION
from deppy.workflows.olmv1.plan import DEPENDENCY_PROPERTIES

RESOLVED_DEPENDENCY = "deppy.io/resolved-dependency"
RESOLVED_CATALOG_LABEL = "deppy.io/resolved-catalog"
LOWEST_PRIORITY = -(2**31)
"""The lowest ClusterCatalog ``spec.priority`` (the CRD's int32 minimum)."""


@dataclass(frozen=True, slots=True)
class RefusedBundle:
    """A selected bundle OLM v1 would refuse, and the dependency property types it declares."""

    bundle: str
    package: str
    version: str
    catalog: str
    properties: tuple[str, ...]


def _refused_types(bundle: Bundle | None) -> tuple[str, ...]:
    if bundle is None:
        return ()
    found = {p.type for p in declared_properties(bundle) if p.type in DEPENDENCY_PROPERTIES}
    return tuple(sorted(found))


def refused_bundles(resolution: Resolution) -> tuple[RefusedBundle, ...]:
    """The selected bundles OLM v1 would refuse, in install order (none when unresolved)."""
    refused = []
    for item in resolution.selection or ():
        types = _refused_types(item.source)
        if types:
            refused.append(
                RefusedBundle(item.bundle, item.package, item.version, item.catalog, types)
            )
    return tuple(refused)


def _satisfies(prop: Property, dependent: Bundle, candidate: Bundle) -> bool:
    """Whether ``candidate`` meets the dependency ``prop`` of ``dependent``, as deppy's
    resolution reads it (deppy.resolution.dependencies): never another bundle of the
    dependent's own package; the dependent itself for an API or a constraint it meets."""
    if candidate.package == dependent.package and (
        candidate != dependent or prop.type == PACKAGE_REQUIRED
    ):
        return False
    try:
        if prop.type == PACKAGE_REQUIRED:
            wanted = requirement_of(prop.value)
            return candidate.package == wanted.package and wanted.version_range.contains(
                candidate.version
            )
        if prop.type == GVK_REQUIRED:
            return gvk_of(prop.value, prop.type) in candidate.provided_gvks
        from deppy.catalog.cel import rule_budget
        from deppy.catalog.constraint_spec import parse_constraint

        spec = parse_constraint(prop.value, where=f"bundle {dependent.name}: olm.constraint")
        with rule_budget():
            return spec.matches(candidate)
    except (ValueError, InputError):
        return False  # a dependency deppy could not read resolves to nothing


def satisfied_by(
    prop: Property, item: SelectedBundle, selection: Sequence[SelectedBundle]
) -> SelectedBundle:
    """The bundle of the plan that meets ``item``'s dependency ``prop``: one the resolution
    picked for ``item`` (its origins say so) first, else the first in install order."""
    assert item.source is not None
    dependent = item.source
    meeting = [s for s in selection if s.source and _satisfies(prop, dependent, s.source)]
    picked = [
        s
        for s in meeting
        if any(o.kind == "dependency" and o.who == item.bundle for o in s.origins)
    ]
    if not meeting:
        raise InputError(
            f"bundle {item.bundle}: {prop.type}",
            "no bundle of the plan satisfies this dependency",
            "resolve again: the plan does not match the catalogs",
        )
    return (picked or meeting)[0]


def resolved_property(prop: Property, by: SelectedBundle) -> dict[str, Any]:
    """The record that replaces a dependency property in a resolved catalog."""
    return {
        "type": RESOLVED_DEPENDENCY,
        "value": {
            "property": {"type": prop.type, "value": plain(prop.value)},
            "satisfiedBy": {"package": by.package, "bundle": by.bundle, "version": by.version},
        },
    }


def _bundle_document(item: SelectedBundle, selection: Sequence[SelectedBundle]) -> dict[str, Any]:
    assert item.source is not None
    bundle = item.source
    properties = []
    for written in bundle_properties(replace(bundle, properties=declared_properties(bundle))):
        if written["type"] in DEPENDENCY_PROPERTIES:
            prop = Property(written["type"], written["value"])
            written = resolved_property(prop, satisfied_by(prop, item, selection))
        properties.append(written)
    document: dict[str, Any] = {
        "schema": "olm.bundle",
        "name": bundle.name,
        "package": bundle.package,
        "image": bundle.image,
        "properties": properties,
    }
    if bundle.related_images:
        document["relatedImages"] = [{"image": image} for image in bundle.related_images]
    return document


def _channels(item: SelectedBundle, catalogs: BundleSource) -> list[dict[str, Any]]:
    """Each channel of the original catalog that holds the bundle, with only its entry (a
    bundle that no channel lists gets one channel with the bundle's own edges)."""
    assert item.source is not None
    bundle = item.source
    found = [
        (channel.name, entry_object(e.name, e.replaces, e.skips, e.skip_range_text))
        for channel in catalogs.channels(bundle.catalog, bundle.package)
        for e in channel.entries
        if e.name == bundle.name
    ]
    if not found:
        edges = entry_object(bundle.name, bundle.replaces, bundle.skips, bundle.skip_range)
        found.append((item.channel or "stable", edges))
    documents = [
        {"schema": "olm.channel", "package": bundle.package, "name": name, "entries": [entry]}
        for name, entry in found
    ]
    return sorted(documents, key=lambda d: str(d["name"]))


def _deprecations(
    bundle: Bundle, channels: Sequence[str], catalogs: BundleSource
) -> dict[str, Any] | None:
    """The original catalog's deprecations of the package, these channels and the bundle."""
    entries: list[dict[str, Any]] = []
    # a bundle name no catalog has: only the package's own deprecation can apply to it
    package_wide = catalogs.deprecation_of(replace(bundle, name=""))
    if package_wide is not None:
        entries.append({"reference": {"schema": "olm.package"}, "message": package_wide.message})
    for name in channels:
        message = catalogs.channel_deprecated(bundle.catalog, bundle.package, name)
        if message is not None:
            entries.append(
                {"reference": {"schema": "olm.channel", "name": name}, "message": message}
            )
    own = catalogs.deprecation_of(bundle)
    if own is not None and own.schema == "olm.bundle":
        entries.append(
            {"reference": {"schema": "olm.bundle", "name": bundle.name}, "message": own.message}
        )
    if not entries:
        return None
    return {"schema": "olm.deprecations", "package": bundle.package, "entries": entries}


def _package_documents(
    item: SelectedBundle, selection: Sequence[SelectedBundle], catalogs: BundleSource
) -> list[dict[str, Any]]:
    assert item.source is not None
    bundle = item.source
    channels = _channels(item, catalogs)
    names = [str(c["name"]) for c in channels]
    package = catalogs.package(bundle.catalog, bundle.package)
    default = package.default_channel if package is not None else None
    header: dict[str, Any] = {
        "schema": "olm.package",
        "name": bundle.package,
        "defaultChannel": default if default in names else names[0],
    }
    if package is not None and package.description:
        header["description"] = package.description
    documents = [header, *channels, _bundle_document(item, selection)]
    deprecations = _deprecations(bundle, names, catalogs)
    if deprecations is not None:
        documents.append(deprecations)
    return documents


def _package_of(document: Mapping[str, Any]) -> str:
    return str(document["name"] if document["schema"] == "olm.package" else document["package"])


@dataclass(frozen=True)
class ResolvedCatalog:
    """A resolved catalog's FBC documents (per package, by name: the package, its channels,
    the bundle, its deprecations), the bundles and packages it holds."""

    documents: tuple[dict[str, Any], ...] = field(repr=False)
    bundles: tuple[str, ...]
    packages: tuple[str, ...]

    def files(self) -> dict[str, bytes]:
        """``<package>/catalog.json`` files (a JSON stream each), as opm lays a catalog out.
        Keys are sorted: the same plan gives the same bytes however its catalogs were read
        (files, the store, catalogd), whatever order a value's keys came in."""
        out: dict[str, list[bytes]] = {}
        for document in self.documents:
            out.setdefault(f"{_package_of(document)}/catalog.json", []).append(
                orjson.dumps(document, option=orjson.OPT_SORT_KEYS) + b"\n"
            )
        return {path: b"".join(lines) for path, lines in out.items()}

    def image(self) -> CatalogImage:
        """The catalog image (same plan, same digest)."""
        return catalog_image(self.files())


def resolved_catalog(resolution: Resolution, catalogs: BundleSource) -> ResolvedCatalog | None:
    """The resolved catalog of a plan, read against the catalogs it was resolved on; None when
    no selected bundle declares a dependency OLM v1 refuses."""
    selection = resolution.selection or ()
    refused = sorted((s for s in selection if _refused_types(s.source)), key=lambda s: s.package)
    if not refused:
        return None
    documents = [d for item in refused for d in _package_documents(item, selection, catalogs)]
    return ResolvedCatalog(
        tuple(documents),
        tuple(s.bundle for s in refused),
        tuple(s.package for s in refused),
    )


def cluster_catalog_object(
    name: str,
    image_ref_by_digest: str,
    priority: int = LOWEST_PRIORITY,
    labels: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The ClusterCatalog of a published resolved catalog; ``image_ref_by_digest`` is
    ``HOST[:PORT]/REPO@sha256:…`` (catalogd then never polls it: the content cannot change),
    ``labels`` any besides ``deppy.io/resolved-catalog``."""
    if "@sha256:" not in image_ref_by_digest:
        raise ValueError(f"{image_ref_by_digest!r} is not pinned by digest")
    return {
        "apiVersion": API_VERSION,
        "kind": "ClusterCatalog",
        "metadata": {"name": name, "labels": {**(labels or {}), RESOLVED_CATALOG_LABEL: "true"}},
        "spec": {
            "priority": priority,
            "source": {"type": "Image", "image": {"ref": image_ref_by_digest}},
        },
    }


__all__ = [
    "DEPENDENCY_PROPERTIES",
    "LOWEST_PRIORITY",
    "RESOLVED_CATALOG_LABEL",
    "RESOLVED_DEPENDENCY",
    "RefusedBundle",
    "ResolvedCatalog",
    "cluster_catalog_object",
    "declared_properties",
    "refused_bundles",
    "resolved_catalog",
    "satisfied_by",
]
