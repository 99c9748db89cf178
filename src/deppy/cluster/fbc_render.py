"""A loaded catalog written back as File-Based Catalog objects (what catalogd serves).

Used to serve a catalog over HTTP as catalogd's ``/api/v1/all`` JSON stream. Objects come in a
stable order (per package: the package, its channels, its bundles, its deprecations; packages by
name), so the same catalog always gives the same bytes. Bundle properties are the catalog's own;
``olm.bundle.object`` values that point at files (``ref``) cannot travel and are replaced by the
``olm.csv.metadata`` the loader derived from them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import orjson

from deppy.catalog.file_values import plain
from deppy.catalog.model import Bundle, Catalog, Channel, ChannelEntry
from deppy.catalog.properties import BUNDLE_OBJECT, CSV_METADATA

__all__ = ["catalog_objects", "catalog_stream"]


def entry_object(
    name: str, replaces: str | None, skips: Sequence[str], skip_range: str | None
) -> dict[str, Any]:
    """An ``olm.channel`` entry, with only the edges it has."""
    out: dict[str, Any] = {"name": name}
    if replaces:
        out["replaces"] = replaces
    if skips:
        out["skips"] = list(skips)
    if skip_range:
        out["skipRange"] = skip_range
    return out


def _entry(entry: ChannelEntry) -> dict[str, Any]:
    return entry_object(entry.name, entry.replaces, entry.skips, entry.skip_range_text)


def _channel(channel: Channel) -> dict[str, Any]:
    return {
        "schema": "olm.channel",
        "package": channel.package,
        "name": channel.name,
        "entries": [_entry(e) for e in channel.entries],
    }


def bundle_properties(bundle: Bundle) -> list[dict[str, Any]]:
    """The bundle's properties as FBC writes them, travelling without the catalog's files."""
    props: list[dict[str, Any]] = []
    has_metadata = False
    for prop in bundle.properties:
        if prop.type == BUNDLE_OBJECT and not (
            isinstance(prop.value, Mapping) and isinstance(prop.value.get("data"), str)
        ):
            continue
        has_metadata = has_metadata or prop.type == CSV_METADATA
        props.append({"type": prop.type, "value": plain(prop.value)})
    if not has_metadata and bundle.csv_metadata is not None:
        props.append({"type": CSV_METADATA, "value": plain(bundle.csv_metadata)})
    return props


def _bundle(bundle: Bundle) -> dict[str, Any]:
    out: dict[str, Any] = {
        "schema": "olm.bundle",
        "name": bundle.name,
        "package": bundle.package,
        "image": bundle.image,
        "properties": bundle_properties(bundle),
    }
    if bundle.related_images:
        out["relatedImages"] = [{"image": image} for image in bundle.related_images]
    return out


def catalog_objects(catalog: Catalog) -> Iterator[dict[str, Any]]:
    """The catalog's FBC objects, package by package."""
    for name, package in catalog.packages.items():
        obj: dict[str, Any] = {"schema": "olm.package", "name": name}
        if package.default_channel:
            obj["defaultChannel"] = package.default_channel
        if package.description:
            obj["description"] = package.description
        yield obj
        for channel in catalog.channels_of(name):
            yield _channel(channel)
        for bundle in sorted(catalog.bundles_of(name), key=lambda b: b.name):
            yield _bundle(bundle)
        deprecations = catalog.deprecations_of(name)
        if deprecations:
            entries = []
            for d in deprecations:
                reference: dict[str, Any] = {"schema": d.schema}
                if d.name is not None:
                    reference["name"] = d.name
                entries.append({"reference": reference, "message": d.message})
            yield {"schema": "olm.deprecations", "package": name, "entries": entries}


def catalog_stream(catalog: Catalog) -> bytes:
    """The catalog as a JSON stream, one object per line (catalogd's ``/api/v1/all``)."""
    return b"".join(orjson.dumps(obj) + b"\n" for obj in catalog_objects(catalog))
