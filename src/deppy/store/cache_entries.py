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
a rename, and an open reader keeps the file it opened.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from deppy.catalog.model import Catalog
from deppy.store.source import StoreSource
from deppy.store.store import Store
from deppy.store.summary import StoredCatalog


class StoredEntries:
    """The cache's :class:`~deppy.catalog.fbc.cache.CatalogFiles` for a front door's runs."""

    def write(self, catalog: Catalog, path: Path) -> None:
        Store.in_file(path).add(catalog)
        conn = sqlite3.connect(path)
        try:
            conn.execute("PRAGMA journal_mode=DELETE")  # the WAL folded in: one file
        finally:
            conn.close()

    def read(self, path: Path) -> Catalog:
        store = Store.in_file(path, immutable=True)
        return store.load_catalog(_only(store).name)


class CachedCatalog:
    """A cache entry opened for one run: its catalog's summary, problems and lazy source."""

    def __init__(self, path: Path) -> None:
        self.store = Store.in_file(path, immutable=True)
        self.summary = _only(self.store)

    def source(self) -> StoreSource:
        source = self.store.source()
        if source is None:
            raise ValueError(f"{self.store.path}: no catalog")
        return source


def _only(store: Store) -> StoredCatalog:
    catalogs = store.list()
    if len(catalogs) != 1:
        raise ValueError(f"{store.path}: {len(catalogs)} catalogs, not one")
    return catalogs[0]
