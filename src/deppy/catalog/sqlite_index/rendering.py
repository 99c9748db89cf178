"""An SQLite index's packages, channels and bundles as File-Based Catalog objects, the way
``opm render`` prints them (operator-registry's ``pkg/sqlite`` read into its model, then
written as declarative config).

What ``opm render`` does, and this does too:

* packages from ``package`` (default channel; the icon of the default channel head's CSV),
  channels from ``channel``, entries sorted by name with ``replaces``/``skips`` read from
  ``channel_entry`` (:mod:`.channels`) and ``skipRange`` from the bundle;
* bundle properties from ``properties``: ``olm.gvk`` values rebuilt as ``{group, kind,
  version}``, others as stored; ``dependencies`` become required properties (``olm.gvk`` →
  ``olm.gvk.required``, ``olm.package`` → ``olm.package.required`` with its version as the
  range); an ``olm.package`` is made from the bundle's package and version when none is stored;
  each manifest of the ``bundle`` column is an ``olm.bundle.object``; properties deduplicated,
  sorted by type and value, bundle objects last;
* related images: the CSV's ``spec.relatedImages``, then those of ``related_image`` not named
  yet, sorted by image;
* older schemas (before the ``properties`` and ``dependencies`` tables): provided and required
  APIs from ``api_provider``/``api_requirer``, the version and skipRange from the CSV when the
  columns are missing: what operator-registry's migrations would have written, read without
  migrating.

Where it differs, on purpose: a bundle ``opm`` would refuse to render (its whole render fails)
is left out with a problem; ``olm.label`` dependencies become ``olm.label.required`` and other
dependency types (``olm.constraint``) are kept as properties, as deppy's bundle directories and
``opm render`` of a bundle image read them (``opm``'s SQLite path drops them); and bundles
deprecated in the index (``deprecated`` table, ``olm.deprecated`` property) are kept and named in
an ``olm.deprecations`` object — ``opm render`` leaves them out, but a cluster may run one and
needs its upgrade edges.
"""

from __future__ import annotations

import base64
import binascii
import json
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

import orjson

from deppy.catalog.sqlite_index.channels import Membership, channel_memberships
from deppy.catalog.sqlite_index.database import Schema, api_rows, column, rows
from deppy.errors import excerpt
from deppy.input_limits import UnsafeInput, json_value

GVK: Final = "olm.gvk"
PACKAGE: Final = "olm.package"
LABEL: Final = "olm.label"
DEPRECATED: Final = "olm.deprecated"
BUNDLE_OBJECT: Final = "olm.bundle.object"
CSV_METADATA: Final = "olm.csv.metadata"
_REQUIRED: Final = {GVK: "olm.gvk.required", LABEL: "olm.label.required"}

Problem = tuple[str, str]
"""(object, why): something of the index left out or read in part."""


@dataclass(frozen=True, slots=True)
class IndexRead:
    """The FBC objects of an index (packages in name order, each followed by its channels,
    bundles and deprecations) and what was left out on the way."""

    objects: list[dict[str, Any]]
    problems: list[Problem]


def _json(text: Any) -> Any:
    """A JSON value stored as text; ValueError when it is none, UnsafeInput (a ValueError)
    when it is past deppy's limits (:mod:`deppy.input_limits`)."""
    if not isinstance(text, str):
        raise ValueError("not text")
    return json_value(text)


def _sort_text(value: Any) -> bytes:
    """The compact JSON text (UTF-8, compared byte by byte as Go compares strings)
    operator-registry sorts and deduplicates property values by."""
    return orjson.dumps(value)


def _manifests(text: Any) -> tuple[list[str], Mapping[str, Any] | None]:
    """The manifests of a ``bundle`` column (JSON objects one after another), each as its own
    text, and the CSV among them; ValueError when the column does not parse."""
    if not isinstance(text, str) or not text.strip():
        return [], None
    decoder = json.JSONDecoder()
    objects: list[str] = []
    csv: Mapping[str, Any] | None = None
    at, end = 0, len(text)
    while True:
        while at < end and text[at] in " \t\r\n":
            at += 1
        if at >= end:
            break
        try:
            value, stop = decoder.raw_decode(text, at)
        except RecursionError:
            raise ValueError("a manifest is nested too deeply") from None
        objects.append(text[at:stop])
        if csv is None and isinstance(value, dict) and value.get("kind") == "ClusterServiceVersion":
            csv = value
        at = stop
    return objects, csv


def _csv(text: Any) -> Mapping[str, Any] | None:
    try:
        value = _json(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _spec(csv: Mapping[str, Any] | None) -> Mapping[str, Any]:
    spec = csv.get("spec") if csv is not None else None
    return spec if isinstance(spec, dict) else {}


def _csv_skip_range(csv: Mapping[str, Any] | None) -> str | None:
    metadata = csv.get("metadata") if csv is not None else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    found = annotations.get("olm.skipRange") if isinstance(annotations, dict) else None
    return found if isinstance(found, str) else None


def _icon(csv: Mapping[str, Any] | None) -> dict[str, str] | None:
    """The package icon opm takes from the default channel head's CSV: its first icon, the
    base64 data decoded (spaces dropped when it fails) and written again."""
    icons = _spec(csv).get("icon")
    first = icons[0] if isinstance(icons, list) and icons else None
    if not isinstance(first, dict) or not isinstance(first.get("base64data"), str):
        return None
    data: str = first["base64data"]
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        try:
            raw = base64.b64decode(data.replace(" ", ""), validate=True)
        except (binascii.Error, ValueError):
            return None
    if not raw:
        return None
    media = first.get("mediatype")
    return {
        "base64data": base64.b64encode(raw).decode("ascii"),
        "mediatype": media if isinstance(media, str) else "",
    }


class IndexReader:
    """One pass over one index: tables read once, bundles assembled per package."""

    def __init__(self, connection: sqlite3.Connection, schema: Schema) -> None:
        self.db = connection
        self.schema = schema
        self.problems: list[Problem] = []

    def grouped(self, table: str) -> dict[str, list[tuple[str, Any]]]:
        """(type, value text) of each bundle in ``properties`` or ``dependencies``, in row
        order, each pair once."""
        out: dict[str, list[tuple[str, Any]]] = {}
        if not self.schema.has(table):
            return out
        query = (
            "SELECT CAST(operatorbundle_name AS TEXT), CAST(type AS TEXT), CAST(value AS TEXT) "
            f"FROM {table} ORDER BY rowid"
        )
        for bundle, kind, value in rows(self.db, query):
            if isinstance(bundle, str) and isinstance(kind, str) and value is not None:
                pairs = out.setdefault(bundle, [])
                if (kind, value) not in pairs:
                    pairs.append((kind, value))
        return out

    def legacy_apis(self, table: str, role: str) -> dict[str, list[tuple[str, Any]]]:
        """Provided or required APIs of an index older than the properties table, as the
        properties operator-registry's migrations would have written for them."""
        out: dict[str, list[tuple[str, Any]]] = {}
        for bundle, group, version, kind in api_rows(self.db, self.schema, table):
            value = json.dumps({"group": group, "kind": kind, "version": version})
            out.setdefault(bundle, []).append((role, value))
        return out

    def read(self) -> IndexRead:
        schema = self.schema
        packages = {
            name: default
            for name, default in rows(
                self.db, "SELECT CAST(name AS TEXT), CAST(default_channel AS TEXT) FROM package"
            )
            if isinstance(name, str)
        }
        channels: dict[str, dict[str, str | None]] = {}
        for package, name, head in rows(
            self.db,
            "SELECT CAST(package_name AS TEXT), CAST(name AS TEXT), "
            "CAST(head_operatorbundle_name AS TEXT) FROM channel",
        ):
            if isinstance(package, str) and isinstance(name, str):
                channels.setdefault(package, {})[name] = head if isinstance(head, str) else None
        memberships = channel_memberships(
            rows(
                self.db,
                "SELECT entry_id, CAST(channel_name AS TEXT), CAST(package_name AS TEXT), "
                "CAST(operatorbundle_name AS TEXT), replaces, depth FROM channel_entry",
            )
        )
        properties = (
            self.grouped("properties")
            if schema.has("properties")
            else self.legacy_apis("api_provider", GVK)
        )
        dependencies = (
            self.grouped("dependencies")
            if schema.has("dependencies")
            else self.legacy_apis("api_requirer", GVK)
        )
        related: dict[str, list[str]] = {}
        if schema.has("related_image"):
            query = (
                "SELECT CAST(operatorbundle_name AS TEXT), CAST(image AS TEXT) "
                "FROM related_image ORDER BY rowid"
            )
            for bundle, image in rows(self.db, query):
                if isinstance(bundle, str) and isinstance(image, str):
                    related.setdefault(bundle, []).append(image)
        deprecated: set[str] = set()
        if schema.has("deprecated"):
            query = "SELECT CAST(operatorbundle_name AS TEXT) FROM deprecated"
            deprecated.update(name for (name,) in rows(self.db, query) if isinstance(name, str))
        deprecated.update(
            name for name, pairs in properties.items() if any(t == DEPRECATED for t, _ in pairs)
        )

        by_bundle: dict[str, list[tuple[str, str, Membership]]] = {}
        for (package, channel, bundle), membership in memberships.items():
            if package not in packages:
                self.problems.append(
                    (
                        f"bundle {bundle}",
                        f"its package {package} is not in the index's package table; "
                        "the channel entry is left out",
                    )
                )
                continue
            if channel not in channels.get(package, {}):
                if bundle not in deprecated:  # a deprecated head's channel is removed
                    self.problems.append(
                        (
                            f"bundle {bundle}",
                            f"channel {channel} of package {package} is not in the index's "
                            "channel table; the channel entry is left out",
                        )
                    )
                continue
            by_bundle.setdefault(bundle, []).append((package, channel, membership))

        bundles: dict[str, dict[str, dict[str, Any]]] = {}
        entries: dict[tuple[str, str], list[dict[str, Any]]] = {}
        heads = {head for named in channels.values() for head in named.values() if head is not None}
        icons: dict[str, Mapping[str, Any] | None] = {}
        query = (
            "SELECT "
            + ", ".join(
                f"CAST({column(schema, 'operatorbundle', c)} AS TEXT)"
                for c in ("name", "csv", "bundle", "bundlepath", "version", "skiprange")
            )
            + " FROM operatorbundle ORDER BY name"
        )
        for name, csv_text, manifests, path, version, skip_range in self.db.execute(query):
            if not isinstance(name, str):
                continue
            if name in heads:
                icons[name] = _csv(csv_text)
            found = by_bundle.get(name, [])
            # each bundle's rows let go once read: never the tables and the objects whole at once
            own = (properties.pop(name, []), dependencies.pop(name, []), related.pop(name, []))
            for package in dict.fromkeys(p for p, _, _ in found):  # one package, nearly always
                built = self.bundle(
                    name, package, csv_text, manifests, path, version, skip_range, *own
                )
                if built is None:
                    break
                bundle_object, entry_range = built
                bundles.setdefault(package, {})[name] = bundle_object
                for _, channel, membership in (m for m in found if m[0] == package):
                    entries.setdefault((package, channel), []).append(
                        _entry(name, membership, entry_range)
                    )
        return IndexRead(
            list(self.objects(packages, channels, bundles, entries, icons, deprecated)),
            self.problems,
        )

    def bundle(
        self,
        name: str,
        package: str,
        csv_text: Any,
        manifests: Any,
        path: Any,
        version: Any,
        skip_range: Any,
        properties: list[tuple[str, Any]],
        dependencies: list[tuple[str, Any]],
        related: list[str],
    ) -> tuple[dict[str, Any], str | None] | None:
        """One ``olm.bundle`` and its skipRange; None (a problem said) when it cannot be."""
        where = f"bundle {name}"
        try:
            objects, csv = _manifests(manifests)
        except ValueError as error:
            self.problems.append(
                (where, f"its manifests (bundle column) are not JSON ({error}); it is left out")
            )
            return None
        older = not self.schema.has("operatorbundle", "skiprange")
        if older or not isinstance(version, str) or not version:
            # what operator-registry's migration 005 read from the CSV, when the columns lack it
            stored_csv = _csv(csv_text) or csv
            if not isinstance(version, str) or not version:
                found = _spec(stored_csv).get("version")
                version = found if isinstance(found, str) else None
            if older:
                skip_range = _csv_skip_range(stored_csv)
        if version is None:
            self.problems.append((where, "it has no version in the index; it is left out"))
            return None
        out: list[tuple[str, Any]] = []
        provided: set[tuple[Any, ...]] = set()
        required: set[tuple[Any, ...]] = set()
        has_package = False
        for kind, value in self.parsed(properties, "property", where):
            if kind == DEPRECATED:
                continue  # said by the olm.deprecations object instead
            if kind == GVK and isinstance(value, dict):
                provided.add(_gvk(value))
            else:
                has_package = has_package or kind == PACKAGE
                out.append((kind, value))
        for kind, value in self.parsed(dependencies, "dependency", where):
            if kind == GVK and isinstance(value, dict):
                required.add(_gvk(value))
            elif kind == PACKAGE and isinstance(value, dict):
                out.append(
                    (
                        "olm.package.required",
                        {
                            "packageName": _str(value.get("packageName")),
                            "versionRange": _str(value.get("version")),
                        },
                    )
                )
            else:
                out.append((_REQUIRED.get(kind, kind), value))
        if not has_package:
            out.append((PACKAGE, {"packageName": package, "version": version}))
        out.extend((GVK, _gvk_value(gvk)) for gvk in provided)
        out.extend(("olm.gvk.required", _gvk_value(gvk)) for gvk in required)
        out.extend(
            (BUNDLE_OBJECT, {"data": base64.b64encode(o.encode()).decode("ascii")}) for o in objects
        )
        bundle: dict[str, Any] = {
            "schema": "olm.bundle",
            "name": name,
            "package": package,
            "image": path if isinstance(path, str) else "",
            "properties": _ordered(out),
        }
        images = _related_images(csv, related)
        if images:
            bundle["relatedImages"] = images
        return bundle, skip_range if isinstance(skip_range, str) else None

    def parsed(
        self, pairs: list[tuple[str, Any]], what: str, where: str
    ) -> Iterator[tuple[str, Any]]:
        """Each (type, value) with its value parsed; one that is no JSON is a problem."""
        for number, (kind, text) in enumerate(pairs, 1):
            try:
                value = _json(text)
            except UnsafeInput as error:  # past deppy's limits: say which
                self.problems.append((where, f"{what} {number} ({kind}): {error}; skipped"))
                continue
            except ValueError:
                why = f"{what} {number} ({kind}): {excerpt(text)} is not JSON; skipped"
                self.problems.append((where, why))
                continue
            yield kind, value

    def objects(
        self,
        packages: Mapping[str, Any],
        channels: Mapping[str, Mapping[str, str | None]],
        bundles: Mapping[str, Mapping[str, dict[str, Any]]],
        entries: Mapping[tuple[str, str], list[dict[str, Any]]],
        icons: Mapping[str, Mapping[str, Any] | None],
        deprecated: set[str],
    ) -> Iterator[dict[str, Any]]:
        """Per package in name order: the package, its channels, bundles and deprecations."""
        for package in sorted(packages):
            default = packages[package]
            named = channels.get(package, {})
            obj: dict[str, Any] = {
                "schema": "olm.package",
                "name": package,
                "defaultChannel": default if isinstance(default, str) else "",
            }
            head = named.get(default) if isinstance(default, str) else None
            icon = _icon(icons.get(head)) if head is not None else None
            if icon is not None:
                obj["icon"] = icon
            yield obj
            for channel in sorted(named):
                listed = sorted(entries.get((package, channel), []), key=lambda e: e["name"])
                yield {
                    "schema": "olm.channel",
                    "name": channel,
                    "package": package,
                    "entries": listed,
                }
            own = bundles.get(package, {})
            for name in sorted(own):
                yield own[name]
            marked = sorted(name for name in own if name in deprecated)
            if marked:
                yield {
                    "schema": "olm.deprecations",
                    "package": package,
                    "entries": [
                        {
                            "reference": {"schema": "olm.bundle", "name": name},
                            "message": f"{name} is deprecated in the index it was read from",
                        }
                        for name in marked
                    ],
                }


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _gvk(value: Mapping[str, Any]) -> tuple[str, str, str]:
    return (_str(value.get("group")), _str(value.get("kind")), _str(value.get("version")))


def _gvk_value(gvk: tuple[Any, ...]) -> dict[str, Any]:
    return {"group": gvk[0], "kind": gvk[1], "version": gvk[2]}


def _ordered(props: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    """Each (type, value) once, sorted by type then compact value; bundle objects and CSV
    metadata moved last, as ``opm render`` writes them."""
    keyed: dict[tuple[str, bytes], Any] = {}
    for kind, value in props:
        keyed.setdefault((kind, _sort_text(value)), value)
    order = sorted(keyed)
    last = (BUNDLE_OBJECT, CSV_METADATA)
    order = [k for k in order if k[0] not in last] + [k for k in order if k[0] in last]
    return [{"type": kind, "value": keyed[(kind, text)]} for kind, text in order]


def _related_images(csv: Mapping[str, Any] | None, table: list[str]) -> list[dict[str, str]]:
    """The CSV's related images (name and image), then the related_image table's images not
    among them, sorted by image (then name, for a stable order)."""
    out: list[dict[str, str]] = []
    listed = _spec(csv).get("relatedImages")
    for item in listed if isinstance(listed, list) else ():
        if isinstance(item, dict):
            out.append({"name": _str(item.get("name")), "image": _str(item.get("image"))})
    seen = {item["image"] for item in out}
    for image in table:
        if image not in seen:
            seen.add(image)
            out.append({"name": "", "image": image})
    return sorted(out, key=lambda item: (item["image"], item["name"]))


def _entry(name: str, membership: Membership, skip_range: str | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name}
    if membership.replaces:
        entry["replaces"] = membership.replaces
    if membership.skips:
        entry["skips"] = list(membership.skips)
    if skip_range:
        entry["skipRange"] = skip_range
    return entry
