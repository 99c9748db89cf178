"""A stored catalog's release facts read straight from its rows (``deppy catalog diff``).

Package rows are small and decoded whole. Bundle rows are not: nine tenths of a bundle's blob
is its CSV metadata, and decoding all of a community catalog's costs over a second. A diff
needs of a bundle its name and version (columns of its row) and, only for a bundle whose
content differs between the two catalogs, its platform limits. Two rows with the same blob
hold the same bundle; two blobs that differ only in where the bundle was read from (its
``source``: another directory, another line) hold the same bundle too — that is checked on the
decompressed bytes, without parsing them.
"""

from __future__ import annotations

import re
import sqlite3
import zlib
from pathlib import Path

from deppy.catalog.properties import parse_version
from deppy.catalog.release_facts import CatalogFacts, Limits, PackageFacts
from deppy.catalog.semver import Version
from deppy.store.codec import decode_bundle, decode_package
from deppy.store.schema import translated_errors, unknown_catalog

__all__ = ["StoredFacts", "read_facts"]

# A plain blob opens with its name, version, image and source (codec.BUNDLE_LAYOUT), each a
# JSON string: the fourth is the source, which says where, not what.
_JSON_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_SOURCE = re.compile(rb"J\[(?:" + _JSON_STRING + rb",){3}(" + _JSON_STRING + rb"),", re.DOTALL)


class StoredFacts(CatalogFacts):
    """The facts of one stored catalog; bundles decoded on demand from their kept blobs."""

    def __init__(
        self,
        name: str,
        packages: dict[str, PackageFacts],
        blobs: dict[tuple[str, str], bytes],
        path: Path,
    ) -> None:
        super().__init__(name, packages)
        self._blobs = blobs
        self._path = path

    def limits(self, package: str, bundle: str) -> Limits:
        with translated_errors(self._path):
            found = decode_bundle(self._blobs[(package, bundle)], self.name, package)
        return Limits(found.max_openshift_version, found.min_kube_version)

    def same_bundle(self, other: CatalogFacts, package: str, bundle: str) -> bool:
        if not isinstance(other, StoredFacts):
            return False
        mine, theirs = self._blobs[(package, bundle)], other._blobs[(package, bundle)]
        if mine == theirs:
            return True
        try:
            return _without_source(mine) == _without_source(theirs)
        except zlib.error:  # a damaged blob: decoding it says so
            return False


def _without_source(blob: bytes) -> bytes:
    raw = zlib.decompress(blob)
    found = _SOURCE.match(raw)
    if found is None:  # a tagged blob (rare): compared whole
        return raw
    return raw[: found.start(1)] + raw[found.end(1) :]


def read_facts(conn: sqlite3.Connection, name: str, path: Path) -> StoredFacts:
    """The release facts of the stored catalog ``name`` (an unknown name is an InputError)."""
    with translated_errors(path):
        row = conn.execute("SELECT id FROM catalog WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise unknown_catalog(conn, name)
        (catalog_id,) = row
        versions: dict[str, dict[str, Version]] = {}
        blobs: dict[tuple[str, str], bytes] = {}
        for package, bundle, version, blob in conn.execute(
            "SELECT package, name, version, data FROM bundle WHERE catalog_id = ?"
            " ORDER BY package, name",
            (catalog_id,),
        ):
            versions.setdefault(package, {})[bundle] = parse_version(version)
            blobs[(package, bundle)] = blob
        packages: dict[str, PackageFacts] = {}
        for package_name, blob in conn.execute(
            "SELECT name, data FROM package WHERE catalog_id = ? ORDER BY name", (catalog_id,)
        ):
            package, channels, deprecations = decode_package(blob, package_name)
            packages[package_name] = PackageFacts(
                package_name,
                package.default_channel,
                tuple(sorted(channels, key=lambda c: c.name)),
                tuple(deprecations),
                versions.get(package_name, {}),
            )
        orphans = set(versions) - set(packages)  # bundles whose package row is missing
        if orphans:
            for orphan in orphans:
                packages[orphan] = PackageFacts(orphan, None, (), (), versions[orphan])
            packages = dict(sorted(packages.items()))
    return StoredFacts(name, packages, blobs, path)
