"""Parsed catalogs kept as SQLite stores of one catalog each, so a repeat reads only what it needs.

The parsed-catalog cache (:mod:`deppy.catalog.fbc.cache`) keys an entry by the identity of every
file of a catalog directory; this module decides what the entry's file holds: the catalog as
``deppy catalog add`` would store it. A repeated ``--catalog DIR`` then resolves through
:class:`~deppy.store.source.StoreSource`, which reads only the packages a resolution touches
(community: ~0.15 s instead of unpickling 27 MB; a 10x catalog: ~40 MB of memory instead of
~450 MB), and gives the answers the in-memory catalog gives (the store's own guarantee, tested
package by package). Commands that need the whole catalog rebuild it from the same file.

An entry is written once, in WAL mode like the store, then switched to a plain rollback journal
and renamed into place by the cache: readers open it immutable (no locks, no WAL index beside
it), which is safe because nothing writes an entry's file again — a newer entry replaces it by
a rename, and an open reader keeps the file it opened. The CRC of the whole file, written into
its header's application id, is checked before a store is opened on it: a lazy read later in
the run reads only checked bytes, and a damaged entry is a missing one.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from deppy.catalog.fbc.cache import MAX_BYTES
from deppy.catalog.fbc.entry_checks import seal_sqlite, sqlite_is_whole
from deppy.catalog.model import Catalog
from deppy.store.source import StoreSource
from deppy.store.store import Store
from deppy.store.summary import StoredCatalog


class StoredEntries:
    """The cache's :class:`~deppy.catalog.fbc.cache.CatalogFiles` for a front door's runs."""

    def write(self, catalog: Catalog, path: Path) -> None:
        Store.in_file(path).add(catalog, references=True)
        conn = sqlite3.connect(path)
        try:
            conn.execute("PRAGMA journal_mode=DELETE")  # the WAL folded in: one file
        finally:
            conn.close()
        seal_sqlite(path)

    def read(self, path: Path) -> Catalog:
        _check_whole(path)
        store = Store.in_file(path, immutable=True)
        return store.load_catalog(_only(store).name)


class CachedCatalog:
    """A cache entry opened for one run: its catalog's summary, problems and lazy source."""

    def __init__(self, path: Path) -> None:
        _check_whole(path)  # before any page is read: a lazy read is of checked bytes
        self.store = Store.in_file(path, immutable=True)
        self.summary = _only(self.store)

    def source(self) -> StoreSource:
        source = self.store.source()
        if source is None:
            raise ValueError(f"{self.store.path}: no catalog")
        return source


def _check_whole(path: Path) -> None:
    """ValueError unless the entry holds the bytes written (its CRC, see entry_checks): a
    flipped byte in a blob, an index or a name would otherwise surface later, mid-answer, as
    the store's own error and advice — or not at all, as another answer."""
    if not sqlite_is_whole(path, MAX_BYTES):
        raise ValueError(f"{path}: a damaged cache entry")


def _only(store: Store) -> StoredCatalog:
    catalogs = store.list()
    if len(catalogs) != 1:
        raise ValueError(f"{store.path}: {len(catalogs)} catalogs, not one")
    return catalogs[0]
