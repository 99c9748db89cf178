"""A File-Based Catalog written as an operator-registry SQLite index, laid out as ``opm index
add`` lays one out (today's schema), for tests and benchmarks that read a large catalog both
ways (operator-registry no longer writes SQLite, and nothing here may reach the network).

Channel entries follow ``pkg/sqlite``'s layout: a row per bundle of a channel, its ``replaces``
pointing at the replaced bundle's row (a row without a bundle for a name the channel does not
hold), depth 0 for a bundle no other bundle replaces; a further row per skipped name, deeper.
Properties go to ``properties``, required ones to ``dependencies`` in the older words
(``olm.gvk``, ``olm.package`` with ``version``, ``olm.label``), ``olm.bundle.object`` manifests to
the ``bundle`` column, bundle deprecations to ``deprecated``. What an index cannot hold (a
package's description, a channel's or package's deprecation, a different skipRange per
channel, related images' names without a CSV) is left out.

The schemas are operator-registry's as its migrations left them (the CREATE TABLE statements
of the time): today's (``MODERN``), and two older ones the tests write indexes in.
"""

from __future__ import annotations

import base64
import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

# tables whose columns no migration changed (from 000; related_image from 001)
UNCHANGED = """
CREATE TABLE channel (name TEXT, package_name TEXT, head_operatorbundle_name TEXT,
    PRIMARY KEY(name, package_name));
CREATE TABLE channel_entry (entry_id INTEGER PRIMARY KEY, channel_name TEXT, package_name TEXT,
    operatorbundle_name TEXT, replaces INTEGER, depth INTEGER);
CREATE TABLE api (group_name TEXT, version TEXT, kind TEXT, plural TEXT NOT NULL,
    PRIMARY KEY(group_name, version, kind));
CREATE TABLE related_image (image TEXT, operatorbundle_name TEXT);
"""

# operator-registry's schema after migration 008 (dependencies), before 009 (properties):
# provided APIs only in api_provider, required ones in api_requirer and, with a "type" key in
# each value, in dependencies.
BEFORE_PROPERTIES = (
    UNCHANGED
    + """
CREATE TABLE operatorbundle (name TEXT PRIMARY KEY, csv TEXT UNIQUE, bundle TEXT,
    bundlepath TEXT, skiprange TEXT, version TEXT, replaces TEXT, skips TEXT);
CREATE TABLE package (name TEXT PRIMARY KEY, default_channel TEXT,
    FOREIGN KEY(name, default_channel) REFERENCES channel(package_name,name));
CREATE TABLE api_provider (group_name TEXT, version TEXT, kind TEXT, operatorbundle_name TEXT,
    operatorbundle_version TEXT, operatorbundle_path TEXT);
CREATE TABLE api_requirer (group_name TEXT, version TEXT, kind TEXT, operatorbundle_name TEXT,
    operatorbundle_version TEXT, operatorbundle_path TEXT);
CREATE TABLE dependencies (type TEXT, value TEXT, operatorbundle_name TEXT,
    operatorbundle_version TEXT, operatorbundle_path TEXT);
"""
)

# today's schema: migrations 009 (properties), 011 (substitutesfor) and 012 (deprecated) on top
MODERN = (
    BEFORE_PROPERTIES
    + """
ALTER TABLE operatorbundle ADD COLUMN substitutesfor TEXT;
CREATE TABLE properties (type TEXT, value TEXT, operatorbundle_name TEXT,
    operatorbundle_version TEXT, operatorbundle_path TEXT);
CREATE TABLE deprecated (operatorbundle_name TEXT PRIMARY KEY);
"""
)

# after migration 003 (api_requirer), before 005 (version, skiprange) and 006 (APIs by bundle):
# APIs hang off channel entries, and a bundle's version is only in its CSV.
BEFORE_VERSIONS = (
    UNCHANGED
    + """
CREATE TABLE operatorbundle (name TEXT PRIMARY KEY, csv TEXT UNIQUE, bundle TEXT,
    bundlepath TEXT);
CREATE TABLE package (name TEXT PRIMARY KEY, default_channel TEXT);
CREATE TABLE api_provider (group_name TEXT, version TEXT, kind TEXT, channel_entry_id INTEGER);
CREATE TABLE api_requirer (group_name TEXT, version TEXT, kind TEXT, channel_entry_id INTEGER);
"""
)


_REQUIRED = {"olm.gvk.required": "olm.gvk", "olm.label.required": "olm.label"}


def write_sqlite_index(objects: Iterable[dict[str, Any]], path: Path) -> Path:
    """The FBC ``objects`` as an SQLite index at ``path``."""
    db = sqlite3.connect(path)
    db.executescript(MODERN)
    channels: list[dict[str, Any]] = []
    skip_ranges: dict[str, str] = {}
    for obj in objects:
        schema = obj.get("schema")
        if schema == "olm.package":
            db.execute(
                "INSERT INTO package VALUES (?, ?)", (obj["name"], obj.get("defaultChannel"))
            )
        elif schema == "olm.channel":
            channels.append(obj)
            for entry in obj["entries"]:
                if entry.get("skipRange"):
                    skip_ranges.setdefault(entry["name"], entry["skipRange"])
        elif schema == "olm.bundle":
            _bundle(db, obj)
        elif schema == "olm.deprecations":
            for entry in obj["entries"]:
                if entry["reference"]["schema"] == "olm.bundle":
                    db.execute(
                        "INSERT OR IGNORE INTO deprecated VALUES (?)", (entry["reference"]["name"],)
                    )
    for name, skip_range in skip_ranges.items():
        db.execute("UPDATE operatorbundle SET skiprange = ? WHERE name = ?", (skip_range, name))
    for channel in channels:
        _channel(db, channel)
    db.commit()
    db.close()
    return path


def _bundle(db: sqlite3.Connection, obj: dict[str, Any]) -> None:
    name, image = obj["name"], obj.get("image") or ""
    manifests: list[str] = []
    version = ""
    csv: str | None = None
    for prop in obj.get("properties") or ():
        kind, value = prop["type"], prop["value"]
        if kind == "olm.bundle.object" and "data" in value:
            text = base64.b64decode(value["data"]).decode()
            manifests.append(text)
            if json.loads(text).get("kind") == "ClusterServiceVersion":
                csv = text
            continue
        if kind == "olm.package":
            version = value["version"]
        table, stored = "properties", kind
        if kind in _REQUIRED or kind == "olm.constraint":
            table, stored = "dependencies", _REQUIRED.get(kind, kind)
        elif kind == "olm.package.required":
            table, stored = "dependencies", "olm.package"
            value = {"packageName": value["packageName"], "version": value["versionRange"]}
        db.execute(
            f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?)",
            (stored, json.dumps(value), name, version, image),
        )
    db.execute(
        "INSERT INTO operatorbundle (name, csv, bundle, bundlepath, version) "
        "VALUES (?, ?, ?, ?, ?)",
        (name, csv, "".join(manifests), image, version),
    )
    for related in obj.get("relatedImages") or ():
        db.execute("INSERT INTO related_image VALUES (?, ?)", (related["image"], name))


def _channel(db: sqlite3.Connection, channel: dict[str, Any]) -> None:
    package, name, entries = channel["package"], channel["name"], channel["entries"]
    replaced = {e.get("replaces") for e in entries}
    heads = [e["name"] for e in entries if e["name"] not in replaced]
    rows: dict[str, int] = {}
    next_id = (db.execute("SELECT max(entry_id) FROM channel_entry").fetchone()[0] or 0) + 1

    def row(bundle: str) -> int:
        nonlocal next_id
        if bundle not in rows:
            rows[bundle] = next_id
            db.execute(
                "INSERT INTO channel_entry VALUES (?, ?, ?, ?, NULL, ?)",
                (next_id, name, package, bundle, 0 if bundle in heads else 1),
            )
            next_id += 1
        return rows[bundle]

    for entry in entries:
        row(entry["name"])
    for entry in entries:
        if entry.get("replaces"):
            target = row(entry["replaces"])
            db.execute(
                "UPDATE channel_entry SET replaces = ? WHERE entry_id = ?",
                (target, rows[entry["name"]]),
            )
        for skipped in entry.get("skips") or ():
            target = row(skipped)
            db.execute(
                "INSERT INTO channel_entry VALUES (?, ?, ?, ?, ?, 2)",
                (next_id, name, package, entry["name"], target),
            )
            next_id += 1
    skipped = {s for e in entries for s in e.get("skips") or ()}
    tips = [h for h in heads if h not in skipped] or heads
    db.execute("INSERT INTO channel VALUES (?, ?, ?)", (name, package, tips[0] if tips else None))
