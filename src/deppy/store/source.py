"""Stored catalogs as the resolver's ``BundleSource``, read lazily.

A resolution touches a handful of packages out of thousands, so nothing is read up front: the
first question about a package loads its bundles (from every stored catalog at once) or its
channels, and keeps them. Provided APIs and labels are answered from index tables that name the
packages to load; the answer itself is computed from the decoded bundles, exactly as
:class:`~deppy.catalog.catalog_set.CatalogSet` computes it, so both sources agree in content and
order.

All reads of one source happen in one read transaction: a ``catalog refresh`` committed in the
middle of a resolution is not seen half-way (WAL keeps the snapshot). ``close()`` ends it.

A catalog's earlier contents (``NAME@1``, kept by a refresh) take part only when named, and then
answer under the catalog's own name, as the catalog did then: a Subscription's source or a
ClusterExtension's selector names the catalog, not one of its versions.
"""

from __future__ import annotations

import gc
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import NoReturn

from deppy.catalog.catalog_set import BundleSource, find_deprecation
from deppy.catalog.model import GVK, Bundle, Channel, Deprecation, LoadProblem, Package
from deppy.catalog.search_index import PackageCard, SearchRow
from deppy.errors import InputError
from deppy.store.codec import decode_bundle, decode_package, decode_problems
from deppy.store.schema import (
    HISTORY_MARK,
    base_name,
    is_history_name,
    missing_catalog,
    open_for_reading,
    translated_errors,
)


# Plain classes rather than dataclasses: this module is imported on every resolve, and building
# a slotted dataclass costs more start-up time than these two classes ever save.
class CatalogInfo:
    __slots__ = ("id", "name", "priority")

    def __init__(self, catalog_id: int, name: str, priority: int) -> None:
        self.id = catalog_id
        self.name = name
        self.priority = priority


class _PackageMeta:
    __slots__ = ("channels", "deprecations", "package")

    def __init__(
        self,
        package: Package,
        channels: tuple[Channel, ...],
        deprecations: dict[tuple[str, str | None], str],
    ) -> None:
        self.package = package
        self.channels = channels
        # (schema, name) -> message; a later entry wins, as in CatalogSet
        self.deprecations = deprecations


class Snapshot:
    """One read transaction on the store, and everything decoded from it so far.

    ``immutable``: the file is never written again (a parsed-catalog cache entry, read without
    locks). Such a snapshot, and all it decoded, may be inherited by a forked process (a fleet
    plan's dask workers are forked from a process that planned a few clusters): the child's
    first read opens a connection of its own (SQLite's rule: no connection crosses a fork;
    here two processes would share the file's offset), which sees the same bytes: an entry
    is only ever replaced by one of the same key, written from the same catalog files. A
    forked helper that never reads (a cache writer) opens nothing."""

    def __init__(self, conn: sqlite3.Connection, path: Path, *, immutable: bool = False) -> None:
        self._conn = conn
        self._path = path
        self._lock = threading.Lock()
        self.immutable = immutable
        self._pid = os.getpid()  # the process the connection was opened in
        self._inherited: sqlite3.Connection | None = None
        conn.execute("BEGIN")
        rows = conn.execute("SELECT id, name, priority FROM catalog").fetchall()
        self.catalogs = [CatalogInfo(int(i), str(n), int(p)) for i, n, p in rows]
        self._names = {c.id: base_name(c.name) for c in self.catalogs}
        self._bundles: dict[str, list[tuple[int, Bundle]]] = {}
        self._by_row: dict[int, Bundle] = {}
        self._meta: dict[tuple[int, str], _PackageMeta | None] = {}
        self._holders: dict[str, dict[int, int]] = {}
        self._apis: dict[GVK, list[tuple[int, str]]] = {}
        self._labels: dict[str, list[tuple[int, str]]] = {}

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def _reopen_in_child(self) -> None:
        """In a forked child of the process that opened it: a connection of its own."""
        self._lock = threading.Lock()  # the parent's may have been held by one of its threads
        self._inherited = self._conn  # the parent's: never used, nor closed, here
        conn = open_for_reading(self._path, immutable=True)
        if conn is None:
            raise InputError(str(self._path), "the catalog store is gone")
        conn.execute("BEGIN")
        self._conn = conn
        self._pid = os.getpid()

    def _query(self, sql: str, args: Sequence[object] = ()) -> list[sqlite3.Row]:
        if self.immutable and self._pid != os.getpid():
            self._reopen_in_child()
        with self._lock, translated_errors(self._path):
            rows: list[sqlite3.Row] = self._conn.execute(sql, args).fetchall()
            return rows

    def _decode(self, rows: list[sqlite3.Row]) -> list[tuple[int, Bundle]]:
        """(catalog id, bundle) per row (id, catalog_id, package, data), reusing decoded ones."""
        paused = gc.isenabled()
        gc.disable()  # decoding allocates many long-lived objects and no cycles
        try:
            with translated_errors(self._path):
                decoded = self._decode_rows(rows)
        finally:
            if paused:
                gc.enable()
        return decoded

    def _decode_rows(self, rows: list[sqlite3.Row]) -> list[tuple[int, Bundle]]:
        out: list[tuple[int, Bundle]] = []
        for row_id, catalog_id, package, blob in rows:
            bundle = self._by_row.get(row_id)
            if bundle is None:
                bundle = decode_bundle(blob, self._names[catalog_id], package)
                self._by_row[row_id] = bundle
            out.append((catalog_id, bundle))
        return out

    def bundles(self, package: str) -> list[tuple[int, Bundle]]:
        found = self._bundles.get(package)
        if found is None:
            rows = self._query(
                "SELECT id, catalog_id, package, data FROM bundle WHERE package = ?", (package,)
            )
            found = self._bundles[package] = self._decode(rows)
        return found

    def catalog_bundles(self, catalog_id: int) -> list[Bundle]:
        """Every bundle of a catalog in (package, name) order; the slow path, read once."""
        rows = self._query(
            "SELECT id, catalog_id, package, data FROM bundle WHERE catalog_id = ? "
            "ORDER BY package, name",
            (catalog_id,),
        )
        return [bundle for _, bundle in self._decode(rows)]

    def holders(self, package: str) -> dict[int, int]:
        """Catalog id -> number of bundles, for the catalogs listing the package."""
        found = self._holders.get(package)
        if found is None:
            rows = self._query("SELECT catalog_id, bundles FROM package WHERE name = ?", (package,))
            found = self._holders[package] = {int(c): int(n) for c, n in rows}
        return found

    def meta(self, catalog_id: int, package: str) -> _PackageMeta | None:
        key = (catalog_id, package)
        if key not in self._meta:
            rows = self._query("SELECT data FROM package WHERE catalog_id = ? AND name = ?", key)
            meta = None
            if rows:
                with translated_errors(self._path):
                    pkg, channels, deprecations = decode_package(rows[0][0], package)
                meta = _PackageMeta(
                    pkg,
                    tuple(channels),
                    {(d.schema, d.name): d.message for d in deprecations},
                )
            self._meta[key] = meta
        return self._meta[key]

    def providers(self, gvk: GVK) -> list[tuple[int, str]]:
        """(catalog id, package) of the packages with a bundle providing ``gvk``."""
        found = self._apis.get(gvk)
        if found is None:
            rows = self._query(
                "SELECT catalog_id, package FROM provided_api "
                "WHERE api_group = ? AND api_version = ? AND kind = ?",
                (gvk.group, gvk.version, gvk.kind),
            )
            found = self._apis[gvk] = [(int(c), str(p)) for c, p in rows]
        return found

    def labelled(self, label: str) -> list[tuple[int, str]]:
        found = self._labels.get(label)
        if found is None:
            rows = self._query("SELECT catalog_id, package FROM label WHERE label = ?", (label,))
            found = self._labels[label] = [(int(c), str(p)) for c, p in rows]
        return found

    def indexed(self, catalog_ids: Sequence[int]) -> bool:
        """Whether every one of these catalogs has its search rows (a parsed-catalog cache
        entry has none: its writer skips them, see ``writer.prepare``)."""
        marks = ", ".join("?" * len(catalog_ids))
        holding = self._query(
            "SELECT DISTINCT catalog_id FROM package "
            f"WHERE bundles > 0 AND catalog_id IN ({marks})",
            catalog_ids,
        )
        carded = self._query(
            f"SELECT DISTINCT catalog_id FROM search_card WHERE catalog_id IN ({marks})",
            catalog_ids,
        )
        return {int(r[0]) for r in holding} <= {int(r[0]) for r in carded}

    def search(
        self, catalog_ids: Sequence[int], needle: str
    ) -> tuple[list[SearchRow], dict[tuple[str, str], PackageCard]]:
        """The search rows containing ``needle`` (lower case), and the cards of their packages:
        read from the rows the writer indexed, without decoding a bundle."""
        marks = ", ".join("?" * len(catalog_ids))
        columns = "catalog_id, package, ordinal, field, text, shown, bundles FROM search_row"
        if len(needle) >= 3:  # the trigram index finds every row holding the needle
            phrase = '"' + needle.replace('"', '""') + '"'
            query = f"SELECT {columns} WHERE search_row MATCH ?"
            found = self._query(query, (phrase,))
        else:
            found = self._query(f"SELECT {columns} WHERE instr(folded, ?) > 0", (needle,))
        wanted = set(catalog_ids)
        found = sorted((r for r in found if r[0] in wanted), key=lambda r: (r[0], r[1], r[2]))
        rows = [
            SearchRow(self._names[c], p, n, f, t, s, tuple(b.split("\n")) if b else ())
            for c, p, n, f, t, s, b in found
        ]
        matched = {(r[0], r[1]) for r in found}
        cards: dict[tuple[str, str], PackageCard] = {}
        for catalog_id, package, display, latest, default in self._query(
            "SELECT catalog_id, package, display_name, latest, default_channel FROM search_card "
            f"WHERE catalog_id IN ({marks})",
            catalog_ids,
        ):
            if (catalog_id, package) in matched:
                name = self._names[catalog_id]
                cards[(name, package)] = PackageCard(name, package, display, latest, default)
        return rows, cards

    def package_names(self, catalog_ids: Sequence[int]) -> list[str]:
        marks = ", ".join("?" * len(catalog_ids))
        rows = self._query(
            f"SELECT DISTINCT name FROM package WHERE bundles > 0 AND catalog_id IN ({marks}) "
            "ORDER BY name",
            catalog_ids,
        )
        return [str(r[0]) for r in rows]


class StoreSource:
    """The stored catalogs (or some of them) as a :class:`BundleSource`."""

    def __init__(self, snapshot: Snapshot, names: Sequence[str] | None = None) -> None:
        if names is None:
            infos = [c for c in snapshot.catalogs if HISTORY_MARK not in c.name]
        else:
            infos = _select(snapshot.catalogs, names)
        self._stored = {base_name(c.name): c.name for c in infos}
        if len(self._stored) < len(infos):
            raise InputError(
                "catalogs " + ", ".join(c.name for c in infos),
                "a catalog and its earlier contents cannot answer together (both are named "
                + ", ".join(sorted({base_name(c.name) for c in infos}))
                + ")",
                "name one of them",
            )
        infos = [CatalogInfo(c.id, base_name(c.name), c.priority) for c in infos]
        ordered = sorted(infos, key=lambda c: (-c.priority, c.name))
        self._snapshot = snapshot
        self._ordered = ordered
        self._rank = {c.name: n for n, c in enumerate(ordered)}
        self._ids = {c.name: c.id for c in ordered}
        self._id_rank = {c.id: n for n, c in enumerate(ordered)}
        self._by_package: dict[str, list[Bundle]] = {}

    def close(self) -> None:
        """End the read transaction (every source restricted from this one ends with it)."""
        self._snapshot.close()

    @property
    def survives_fork(self) -> bool:
        """Whether a forked process may go on reading this source, with what it decoded
        (see :class:`Snapshot`)."""
        return self._snapshot.immutable

    def __enter__(self) -> StoreSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- catalogs ----------------------------------------------------------------------------
    def rank(self, catalog: str) -> int:
        return self._rank.get(catalog, len(self._rank))

    def names(self) -> list[str]:
        return [c.name for c in self._ordered]

    def stored_name(self, catalog: str) -> str:
        """The stored name ``catalog`` answers from: itself, or its earlier contents
        (``NAME@1``) when those were named (:meth:`restricted`, ``Store.source([NAME@1])``)."""
        return self._stored.get(catalog, catalog)

    def priority(self, catalog: str) -> int:
        return next((c.priority for c in self._ordered if c.name == catalog), 0)

    def priorities(self) -> dict[str, int]:
        """Each catalog's priority as stored (OLM v1 requests tell equal priorities apart)."""
        return {c.name: c.priority for c in self._ordered}

    def restricted(self, names: Sequence[str]) -> BundleSource:
        """Only the named catalogs (the request's ``sources``), among this source's; a
        ``NAME@N`` (earlier contents of one, never among the current ones) from the store."""
        everything = [c.name for c in self._snapshot.catalogs]
        for name in names:
            if name not in self._stored and not (is_history_name(name) and name in everything):
                _unknown(name, everything if is_history_name(name) else self._stored)
        return StoreSource(self._snapshot, [self._stored.get(name, name) for name in names])

    def problems_of(self, catalog: str) -> tuple[tuple[LoadProblem, ...], str]:
        """The load problems kept with ``catalog`` and where ``deppy catalog problems`` finds
        them: the stored name, or the directory of a parsed-catalog cache entry."""
        found = self._ids.get(catalog)
        if found is None:
            return (), catalog
        (row,) = self._snapshot._query(
            "SELECT problem_list, path FROM catalog WHERE id = ?", (found,)
        )
        where = str(row[1]) if self._snapshot.immutable else catalog
        return decode_problems(row[0]), where

    # -- lookups -----------------------------------------------------------------------------
    def _ranked(self, found: list[tuple[int, Bundle]]) -> list[Bundle]:
        rank = self._id_rank
        mine = [(rank[c], b) for c, b in found if c in rank]
        mine.sort(key=lambda rb: (rb[0], rb[1].package, rb[1].name))
        return [b for _, b in mine]

    def bundles_of(self, package: str) -> list[Bundle]:
        # The resolver asks for the same package many times while it orders candidates.
        found = self._by_package.get(package)
        if found is None:
            found = self._by_package[package] = self._ranked(self._snapshot.bundles(package))
        return list(found)

    def _from_packages(self, places: list[tuple[int, str]]) -> list[tuple[int, Bundle]]:
        found: list[tuple[int, Bundle]] = []
        for package in dict.fromkeys(p for c, p in places if c in self._id_rank):
            found.extend(self._snapshot.bundles(package))
        return found

    def providers_of(self, gvk: GVK) -> list[Bundle]:
        found = self._from_packages(self._snapshot.providers(gvk))
        # one entry per time the bundle names the API, as CatalogSet indexes them
        return self._ranked([(c, b) for c, b in found for g in b.provided_gvks if g == gvk])

    def labelled(self, label: str) -> list[Bundle]:
        found = self._from_packages(self._snapshot.labelled(label))
        return self._ranked([(c, b) for c, b in found for x in b.labels if x == label])

    def has_package(self, package: str) -> bool:
        holders = self._snapshot.holders(package)
        return any(count > 0 and c in self._id_rank for c, count in holders.items())

    def package(self, catalog: str, name: str) -> Package | None:
        meta = self._meta(catalog, name)
        return meta.package if meta else None

    def channels(self, catalog: str, package: str) -> list[Channel]:
        meta = self._meta(catalog, package)
        return list(meta.channels) if meta else []

    def all_bundles(self) -> Iterator[Bundle]:
        for info in self._ordered:
            yield from self._snapshot.catalog_bundles(info.id)

    def search_rows(
        self, needle: str
    ) -> tuple[list[SearchRow], dict[tuple[str, str], PackageCard]] | None:
        """What ``deppy search`` matches, from the store's search index (see search_index);
        None when a catalog has no index (a parsed-catalog cache entry): search its bundles."""
        ids = [c.id for c in self._ordered]
        if not ids or not self._snapshot.indexed(ids):
            return None
        return self._snapshot.search(ids, needle)

    def package_names(self) -> list[str]:
        if not self._ordered:
            return []
        return self._snapshot.package_names([c.id for c in self._ordered])

    def catalogs_with(self, package: str) -> list[str]:
        holders = self._snapshot.holders(package)
        ids = sorted(
            (c for c, count in holders.items() if count > 0 and c in self._id_rank),
            key=self._id_rank.__getitem__,
        )
        return [self._ordered[self._id_rank[c]].name for c in ids]

    # -- deprecations ------------------------------------------------------------------------
    def _meta(self, catalog: str, package: str) -> _PackageMeta | None:
        catalog_id = self._ids.get(catalog)
        return None if catalog_id is None else self._snapshot.meta(catalog_id, package)

    def deprecation_of(self, bundle: Bundle, channel: str | None = None) -> Deprecation | None:
        meta = self._meta(bundle.catalog, bundle.package)
        if meta is None or not meta.deprecations:
            return None
        deprecations = meta.deprecations
        return find_deprecation(
            bundle, channel, lambda schema, name: deprecations.get((schema, name))
        )

    def is_deprecated(self, bundle: Bundle) -> bool:
        return self.deprecation_of(bundle) is not None

    def channel_deprecated(self, catalog: str, package: str, channel: str) -> str | None:
        meta = self._meta(catalog, package)
        return None if meta is None else meta.deprecations.get(("olm.channel", channel))


def _select(catalogs: Sequence[CatalogInfo], names: Sequence[str]) -> list[CatalogInfo]:
    """The named catalogs, each once; an unknown name is the same error CatalogSet gives (a
    ``NAME@N``: the store's one error for it)."""
    known = {c.name: c for c in catalogs}
    for name in names:
        if name not in known:
            _unknown(name, known)
    return [known[name] for name in dict.fromkeys(names)]


def _unknown(name: str, known: Iterable[str]) -> NoReturn:
    if is_history_name(name):
        raise missing_catalog(name, known)
    shown = ", ".join(sorted(n for n in known if HISTORY_MARK not in n)) or "none"
    raise InputError(f"catalog {name!r}", "no catalog has this name", f"known catalogs: {shown}")
