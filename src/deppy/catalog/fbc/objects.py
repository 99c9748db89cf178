"""One File-Based Catalog object at a time: its fields checked and turned into model values.

operator-registry's ``alpha/declcfg`` decides what a valid ``olm.package``, ``olm.channel``,
``olm.bundle`` or ``olm.deprecations`` object is; :class:`ObjectReader` follows it, raising
ValueError for an object that must be skipped and reporting lesser problems (an entry, a
relatedImages item) through its ``report`` callback. Cross-object checks (duplicates, orphans,
channel entries without a bundle) live in :mod:`deppy.catalog.fbc.checks`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import orjson
import yaml

from deppy.catalog.fbc.files import Doc
from deppy.catalog.file_values import FileOrigin, FileValue
from deppy.catalog.model import (
    KEPT_WITHOUT_SKIPRANGE,
    Bundle,
    ChannelEntry,
    Deprecation,
    Package,
    Property,
)
from deppy.catalog.properties import CSV_METADATA, BundleFacts, interpret, parse_range
from deppy.catalog.semver import VersionError
from deppy.errors import MAX_EXCERPT, excerpt
from deppy.input_limits import UnsafeInput, json_value, yaml_value

SCHEMA_PACKAGE = "olm.package"
SCHEMA_CHANNEL = "olm.channel"
SCHEMA_BUNDLE = "olm.bundle"
SCHEMA_DEPRECATIONS = "olm.deprecations"


def describe(schema: str, obj: Mapping[str, Any], doc: Doc) -> str:
    """How a problem names an object: by what it says it is, and where it starts."""
    name, package = _label(obj.get("name")), _label(obj.get("package"))
    if schema == SCHEMA_DEPRECATIONS:
        label = f"{schema} of package {package}"
    else:
        label = f"{schema} {name}" if name else f"{schema} without a name"
        if schema == SCHEMA_CHANNEL and package:
            label += f" of package {package}"
    return f"{label} ({doc.where})"


def _label(value: Any) -> str:
    """A name as written when it is a short printable string, else an escaped excerpt."""
    if not isinstance(value, str) or not value:
        return "" if value in (None, "") else excerpt(value)
    return value if len(value) <= MAX_EXCERPT and value.isprintable() else excerpt(value)


def list_field(obj: Mapping[str, Any], key: str) -> list[Any]:
    """An optional list field (absent or null is empty); anything else is the object's error."""
    value = obj.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"field '{key}' must be a list, not {excerpt(value)}")
    return value


def opt_text(obj: Mapping[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError(f"field {excerpt(key)} must be a string, not {excerpt(value)}")
    return _printable(key, value)


def _printable(key: str, value: str) -> str:
    """Names and versions are printed to terminals: control characters have no place there."""
    if value.isprintable():
        return value
    raise ValueError(
        f"field {excerpt(key)} holds control or unprintable characters: {excerpt(value)}"
    )


def req_text(obj: Mapping[str, Any], key: str, fix: str) -> str:
    value = obj.get(key)
    if isinstance(value, str) and value:
        return _printable(key, value)
    shown = "is missing" if value in (None, "") else f"must be a string, not {excerpt(value)}"
    raise ValueError(f"field {excerpt(key)} {shown}; {fix}")


def text_list(obj: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = obj.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"field {excerpt(key)} must be a list of strings, not {excerpt(value)}")
    return tuple(_printable(key, v) for v in value)


class ObjectReader:
    """Reads the objects of one catalog; ``report(obj, why)`` records a problem of the current
    file. ``root`` bounds the files an olm.bundle.object ``ref`` may read."""

    def __init__(self, root: Path, catalog: str, report: Callable[[str, str], None]) -> None:
        self.root = root
        self.catalog = catalog
        self.report = report
        self.file_dir = root
        # One copy of each part of the CSV metadata, and of each flat property.
        self.shared: dict[Any, Any] = {}
        # The current file as it was read, when its CSV metadata may be left in it (FileValue).
        self.origin: FileOrigin | None = None

    def package(self, obj: Mapping[str, Any], source: str) -> Package:
        description = obj.get("description")
        return Package(
            name=req_text(obj, "name", "name the package"),
            default_channel=opt_text(obj, "defaultChannel"),
            description=description if isinstance(description, str) else "",
            source=source,
        )

    def channel_entries(self, obj: Mapping[str, Any], what: str) -> tuple[ChannelEntry, ...]:
        entries: list[ChannelEntry] = []
        seen: set[str] = set()
        for i, raw in enumerate(list_field(obj, "entries"), 1):
            try:
                entry = self.channel_entry(raw, what, i)
            except ValueError as err:
                self.report(what, f"entry {i}: {err}; the entry is skipped")
                continue
            if entry.name in seen:
                self.report(what, f"entry {i}: duplicate entry {entry.name}; the entry is skipped")
                continue
            seen.add(entry.name)
            entries.append(entry)
        return tuple(entries)

    def channel_entry(self, raw: Any, what: str, index: int) -> ChannelEntry:
        if not isinstance(raw, dict):
            raise ValueError(f"must be an object with a name, not {excerpt(raw)}")
        name = req_text(raw, "name", "name the bundle this entry stands for")
        skip_text = opt_text(raw, "skipRange")
        skip_range = None
        if skip_text is not None:
            try:
                skip_range = parse_range(skip_text)
            except VersionError as err:
                self.report(
                    what,
                    f"entry {index} ({name}): skipRange: {err}; {KEPT_WITHOUT_SKIPRANGE}",
                )
        return ChannelEntry(
            name=name,
            replaces=opt_text(raw, "replaces"),
            skips=text_list(raw, "skips"),
            skip_range=skip_range,
            skip_range_text=skip_text,
        )

    def bundle(self, obj: Mapping[str, Any], doc: Doc, source: str) -> Bundle | None:
        """The bundle, or None when its properties make it unusable (each error reported)."""
        name = req_text(obj, "name", "name the bundle")
        package = req_text(obj, "package", "name the bundle's package")
        what = describe(SCHEMA_BUNDLE, obj, doc)
        props: list[Property] = []
        left_in_file = self.origin is not None and doc.span is not None
        for i, raw in enumerate(list_field(obj, "properties"), 1):
            if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
                raise ValueError(
                    f"property {i} must be an object with a 'type' string: {excerpt(raw)}"
                )
            value = raw.get("value")
            if raw["type"] == CSV_METADATA:
                if not left_in_file:
                    share_values(value, self.shared)
                props.append(Property(CSV_METADATA, value))
            else:
                props.append(self._property(raw["type"], value))
        facts = interpret(props, self.find_csv)
        if left_in_file:
            self._leave_metadata(props, facts, doc)
        for warning in facts.warnings:
            self.report(what, warning)
        if facts.package is not None and facts.package != package:
            facts.errors.append(
                f"its olm.package property names package {excerpt(facts.package)} but the bundle "
                f"is in package {excerpt(package)}; make them agree"
            )
        if facts.errors or facts.version is None:
            for error in facts.errors:
                self.report(what, f"{error}; the bundle is skipped")
            return None
        image = obj.get("image")
        return facts.bundle(
            name=name,
            package=package,
            image=image if isinstance(image, str) else "",
            catalog=self.catalog,
            source=source,
            properties=props,
            related_images=self.related_images(obj, what),
            replaces=opt_text(obj, "replaces"),
            skips=text_list(obj, "skips"),
            skip_range=opt_text(obj, "skipRange"),
        )

    def _property(self, kind: str, value: Any) -> Property:
        """One copy of each property whose value is a flat object of strings (an API, a
        package): a package's bundles declare the same APIs version after version, and a 10x
        community catalog's 290,000 olm.gvk properties held as parsed took ~100 MB."""
        if type(value) is dict and all(type(v) is str for v in value.values()):
            key = (kind, *value.items())
            prop = self.shared.get(key)
            if prop is None:
                prop = self.shared[key] = Property(kind, value)
            return prop
        return Property(kind, value)

    def _leave_metadata(self, props: list[Property], facts: BundleFacts, doc: Doc) -> None:
        """Each CSV metadata value (read already for what resolving needs) becomes a
        :class:`FileValue`: where it lies in the file, read again when asked."""
        assert self.origin is not None and doc.span is not None
        for index, prop in enumerate(props):
            if prop.type == CSV_METADATA and type(prop.value) is dict:
                lazy = FileValue(self.origin, doc.span[0], doc.span[1], index)
                if facts.csv_metadata is prop.value:
                    facts.csv_metadata = lazy
                props[index] = Property(CSV_METADATA, lazy)

    def related_images(self, obj: Mapping[str, Any], what: str) -> tuple[str, ...]:
        raw = obj.get("relatedImages")
        if not raw:
            return ()
        images: list[str] = []
        for item in raw if isinstance(raw, list) else [raw]:
            image = item.get("image") if isinstance(item, dict) else None
            if isinstance(image, str):
                if image:
                    images.append(image)
            else:
                self.report(
                    what, f"relatedImages entry {excerpt(item)} has no image; it is ignored"
                )
        return tuple(images)

    def find_csv(self, objects: list[Any]) -> Mapping[str, Any] | None:
        """The CSV among olm.bundle.object values, decoding as little as possible."""
        for value in objects:
            if not isinstance(value, Mapping):
                raise ValueError(
                    f"value must be an object with 'data' or 'ref', not {excerpt(value)}"
                )
            data = value.get("data")
            ref = value.get("ref")
            if isinstance(data, str):
                try:
                    raw = base64.b64decode(data)
                except (binascii.Error, ValueError) as err:
                    raise ValueError(f"'data' is not base64 ({err})") from None
            elif isinstance(ref, str):
                raw = self.read_ref(ref)
            else:
                raise ValueError("value must have a base64 'data' or a 'ref' file path")
            csv = csv_in_manifest(raw)
            if csv is not None:
                return csv
        return None

    def read_ref(self, ref: str) -> bytes:
        target = (self.file_dir / ref).resolve()
        root = self.root.resolve()
        if root.is_file():
            root = root.parent
        if target != root and root not in target.parents:
            raise ValueError(f"'ref' {excerpt(ref)} points outside the catalog")
        try:
            return target.read_bytes()
        except OSError as err:
            raise ValueError(f"'ref' {excerpt(ref)} cannot be read: {err.strerror}") from None

    def deprecations(self, obj: Mapping[str, Any], package: str, doc: Doc) -> list[Deprecation]:
        what = describe(SCHEMA_DEPRECATIONS, obj, doc)
        entries = obj.get("entries")
        if not isinstance(entries, list):
            raise ValueError("field 'entries' must be a list of {reference, message} objects")
        found: list[Deprecation] = []
        for i, entry in enumerate(entries, 1):
            try:
                found.append(_deprecation(package, entry))
            except ValueError as err:
                self.report(what, f"entry {i}: {err}; the entry is skipped")
        return found


def share_values(metadata: Any, pool: dict[Any, Any]) -> None:
    """Make equal parts of a CSV metadata value one object, in place: its fields, and the
    fields of its mappings (annotations, CRD lists, descriptions...). A package's bundles repeat
    them version after version; sharing them takes a 10x community catalog from 1.6 GB to
    0.43 GB in memory. Equal means equal JSON (by a 128-bit digest); parsed values are never
    changed afterwards."""
    if type(metadata) is not dict:
        return
    for key, value in metadata.items():
        if type(value) is dict:
            for inner, item in value.items():
                value[inner] = _shared(item, pool)
        metadata[key] = _shared(value, pool)


def _shared(value: Any, pool: dict[Any, Any]) -> Any:
    if type(value) is str:
        return pool.setdefault(value, value)
    if type(value) is dict or type(value) is list:
        try:
            digest = hashlib.blake2b(orjson.dumps(value), digest_size=16).digest()
            return pool.setdefault(digest, value)
        except TypeError:  # not plain JSON (a YAML timestamp): kept as it is
            return value
    return value


def _deprecation(package: str, entry: Any) -> Deprecation:
    if not isinstance(entry, dict) or not isinstance(entry.get("reference"), dict):
        raise ValueError("must be an object with a 'reference' object and a 'message'")
    ref = entry["reference"]
    schema = ref.get("schema")
    if schema not in (SCHEMA_PACKAGE, SCHEMA_CHANNEL, SCHEMA_BUNDLE):
        raise ValueError(
            f"reference schema {excerpt(schema)} must be olm.package, olm.channel or olm.bundle"
        )
    name = ref.get("name")
    if schema == SCHEMA_PACKAGE:
        if name not in (None, ""):
            raise ValueError("a reference to olm.package must not have a name")
        name = None
    elif not isinstance(name, str) or not name:
        raise ValueError(f"a reference to {schema} needs the {schema} name")
    message = entry.get("message")
    if not isinstance(message, str) or not message:
        raise ValueError("'message' is missing; say why it is deprecated and what to use instead")
    return Deprecation(package, schema, name, message)


def csv_in_manifest(raw: bytes) -> Mapping[str, Any] | None:
    """The ClusterServiceVersion a manifest (JSON or YAML, within deppy's input limits) holds;
    None when it holds another kind, ValueError when it cannot be read."""
    if b"ClusterServiceVersion" not in raw:
        return None
    obj = _decode_manifest(raw)
    if isinstance(obj, Mapping) and obj.get("kind") == "ClusterServiceVersion":
        return obj
    return None


def _decode_manifest(raw: bytes) -> Any:
    try:
        return json_value(raw)
    except orjson.JSONDecodeError:
        pass
    try:
        return yaml_value(raw)
    except UnsafeInput as err:
        raise ValueError(f"a manifest is {err}") from None
    except yaml.YAMLError as err:
        raise ValueError(f"a manifest is neither JSON nor YAML ({err})") from None
