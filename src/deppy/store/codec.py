"""Catalog objects to and from the compact blobs the store keeps.

Everything the loader worked out (typed versions, APIs, requirements, labels, runtime limits) is
stored already digested, so reading a bundle back is one decompression, one JSON parse and
a few cached parses of version strings — no property is interpreted again. Blobs are JSON arrays
with fields by position (smaller and faster than objects); ``BUNDLE_LAYOUT`` names them.

A bundle's CSV metadata is nine tenths of its size and is normally the value of its
``olm.csv.metadata`` property: it is stored once, as a reference to that property, and decoded
into the very same object, as the loader shares it.

A parsed-catalog cache entry (``deppy.store.cache_entries``) may go further and keep, for
metadata a one-shot command left in its catalog file (:class:`FileValue`), only where it lies
in that file (``references``): the entry is keyed by the identity of every file of the catalog,
so it is only ever read while those files are as they were, and writing it costs a fifth of
what encoding and compressing every bundle's metadata costs (community v4.18: ~0.3 s instead of
~1.4 s), which is what a second run started right after the first waits for. A user's store
never holds references: a catalog added is kept whole, whatever becomes of its files.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping
from typing import Any

from deppy.catalog.file_values import FileValue, plain
from deppy.catalog.model import (
    Bundle,
    Channel,
    ChannelEntry,
    Deprecation,
    LoadProblem,
    Package,
    PackageRequirement,
    Property,
)
from deppy.catalog.properties import make_gvk, parse_range, parse_version, parse_version_tolerant
from deppy.catalog.semver import VersionError
from deppy.store.schema import DamagedBlob
from deppy.store.values import PACKED, pack, unpack

# zlib level 3: a quarter of the raw size, and compressing a whole community index costs about
# as much as writing it uncompressed would (higher levels double the time for ~8% less).
COMPRESSION_LEVEL = 3

BUNDLE_LAYOUT = (
    "name",
    "version",
    "image",
    "source",
    "properties",
    "provided_gvks",
    "required_packages",
    "required_gvks",
    "labels",
    "required_labels",
    "constraints",
    "max_openshift_version",
    "min_kube_version",
    "related_images",
    "csv_metadata_property",
    "csv_metadata",
    "replaces",
    "skips",
    "skip_range",
)


def encode_bundle(bundle: Bundle, *, references: bool = False) -> bytes:
    """The bundle's blob (its catalog and package are columns of its row); with
    ``references``, metadata left in its file is stored as where it lies (see above)."""
    metadata_index: int | None = None
    metadata: Mapping[str, Any] | list[Any] | None = bundle.csv_metadata
    raw_properties = [[p.type, p.value] for p in bundle.properties]
    if metadata is not None:
        for index, prop in enumerate(bundle.properties):
            if prop.value is metadata:
                metadata_index, metadata = index, None
                if references and type(prop.value) is FileValue:
                    where = prop.value
                    metadata = [*where.origin, where.start, where.end, where.index]
                    raw_properties[index][1] = None
                break
    fields = [
        bundle.name,
        str(bundle.version),
        bundle.image,
        bundle.source,
        [[kind, plain(value)] for kind, value in raw_properties],
        [[g.group, g.version, g.kind] for g in bundle.provided_gvks],
        [[r.package, r.text] for r in bundle.required_packages],
        [[g.group, g.version, g.kind] for g in bundle.required_gvks],
        bundle.labels,
        bundle.required_labels,
        bundle.constraints,
        _text(bundle.max_openshift_version),
        _text(bundle.min_kube_version),
        bundle.related_images,
        metadata_index,
        metadata,
        bundle.replaces,
        bundle.skips,
        bundle.skip_range,
    ]
    packed = pack(fields)
    # a cache entry's blobs stay uncompressed: compressing was half its writer's time, and
    # what a run reads of an entry is a few packages' rows
    return packed if references else zlib.compress(packed, COMPRESSION_LEVEL)


def _text(value: object | None) -> str | None:
    return None if value is None else str(value)


def decode_bundle(blob: bytes, catalog: str, package: str) -> Bundle:
    """The bundle exactly as the loader made it (versions re-parsed the way the loader did)."""
    try:
        return _decode_bundle(blob, catalog, package)
    except (ValueError, TypeError, KeyError, IndexError, zlib.error) as error:
        raise DamagedBlob(
            f"a stored bundle of package {package} in catalog {catalog} cannot be read "
            f"({type(error).__name__}: {error})"
        ) from None


def _decode_bundle(blob: bytes, catalog: str, package: str) -> Bundle:
    (
        name,
        version,
        image,
        source,
        raw_properties,
        provided,
        required_packages,
        required_gvks,
        labels,
        required_labels,
        constraints,
        max_openshift,
        min_kube,
        related_images,
        metadata_index,
        metadata,
        replaces,
        skips,
        skip_range,
    ) = unpack(blob if blob[:1] in PACKED else zlib.decompress(blob))
    if metadata_index is not None and type(metadata) is list:  # where it lies in its file
        *origin, start, end, index = metadata
        metadata = raw_properties[metadata_index][1] = FileValue(tuple(origin), start, end, index)
    properties = tuple([Property(kind, value) for kind, value in raw_properties])
    if metadata_index is not None:
        metadata = properties[metadata_index].value
    return Bundle(
        name=name,
        package=package,
        version=parse_version(version),
        image=image,
        catalog=catalog,
        source=source,
        properties=properties,
        provided_gvks=tuple([make_gvk(g, v, k) for g, v, k in provided]),
        required_packages=tuple(
            [PackageRequirement(p, parse_range(text), text) for p, text in required_packages]
        ),
        required_gvks=tuple([make_gvk(g, v, k) for g, v, k in required_gvks]),
        labels=tuple(labels),
        required_labels=tuple(required_labels),
        constraints=tuple(constraints),
        max_openshift_version=None
        if max_openshift is None
        else parse_version_tolerant(max_openshift),
        min_kube_version=None if min_kube is None else parse_version_tolerant(min_kube),
        related_images=tuple(related_images),
        csv_metadata=metadata,
        replaces=replaces,
        skips=tuple(skips),
        skip_range=skip_range,
    )


def encode_package(
    package: Package, channels: Iterable[Channel], deprecations: Iterable[Deprecation]
) -> bytes:
    """A package row's blob: its own fields, its channels and its deprecation entries."""
    return pack(
        [
            package.default_channel,
            package.description,
            package.source,
            [
                [
                    c.name,
                    c.source,
                    [[e.name, e.replaces, e.skips, e.skip_range_text] for e in c.entries],
                ]
                for c in channels
            ],
            [[d.schema, d.name, d.message] for d in deprecations],
        ]
    )


def decode_package(blob: bytes, name: str) -> tuple[Package, list[Channel], list[Deprecation]]:
    try:
        return _decode_package(blob, name)
    except (ValueError, TypeError, KeyError, IndexError) as error:
        raise DamagedBlob(
            f"the stored package {name} cannot be read ({type(error).__name__}: {error})"
        ) from None


def _decode_package(blob: bytes, name: str) -> tuple[Package, list[Channel], list[Deprecation]]:
    default_channel, description, source, channels, deprecations = unpack(blob)
    return (
        Package(name, default_channel, description, source),
        [
            Channel(name, channel, tuple([_entry(*e) for e in entries]), channel_source)
            for channel, channel_source, entries in channels
        ],
        [Deprecation(name, schema, target, message) for schema, target, message in deprecations],
    )


def _entry(
    name: str, replaces: str | None, skips: list[str], skip_range_text: str | None
) -> ChannelEntry:
    skip_range = None
    if skip_range_text is not None:
        # The loader kept an unparsable skipRange's text without the range; so does this.
        try:
            skip_range = parse_range(skip_range_text)
        except VersionError:
            skip_range = None
    return ChannelEntry(name, replaces, tuple(skips), skip_range, skip_range_text)


def encode_problems(problems: Iterable[LoadProblem]) -> bytes:
    return pack([[p.file, p.obj, p.why] for p in problems])


def decode_problems(blob: bytes) -> tuple[LoadProblem, ...]:
    return tuple(LoadProblem(file, obj, why) for file, obj, why in unpack(blob))


def encode_others(others: Mapping[str, int]) -> bytes:
    return pack(dict(others))


def decode_others(blob: bytes) -> dict[str, int]:
    others: dict[str, int] = unpack(blob)
    return others
