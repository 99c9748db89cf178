"""The catalog store: catalogs added once, then resolved against without reading their files.

``Store`` is the whole API the front doors use. Reading never creates anything (a store that was
never written reads as empty); each change is one transaction (see ``writer``). A resolution
reads through :meth:`Store.source`, lazily; :meth:`Store.load_catalog` rebuilds a whole catalog,
equal to what the loader returned when it was added, for commands that show everything.
"""

from __future__ import annotations

import builtins
import gc
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from deppy.catalog.model import Catalog, LoadProblem
from deppy.errors import InputError
from deppy.store.codec import decode_problems
from deppy.store.location import database_path
from deppy.store.materialise import materialise
from deppy.store.migration import upgraded_reader, upgraded_writer
from deppy.store.schema import (
    HISTORY_MARK,
    base_name,
    generation,
    history,
    is_history_name,
    missing_catalog,
    open_for_reading,
    open_for_writing,
    summaries,
    translated_errors,
    unknown_catalog,
)
from deppy.store.source import Snapshot, StoreSource
from deppy.store.summary import StoredCatalog

if TYPE_CHECKING:
    from deppy.store.release_facts import StoredFacts
    from deppy.store.writer import Progress


class Store:
    """The SQLite catalog store at ``home`` (default: ``$DEPPY_HOME`` or the user data dir)."""

    def __init__(self, home: Path | None = None) -> None:
        self.path = database_path(home)
        self.immutable = False

    @classmethod
    def in_file(cls, path: Path, *, immutable: bool = False) -> Store:
        """The store in the database file ``path`` (a parsed-catalog cache entry); read as
        ``immutable`` when nothing writes it any more."""
        store = cls()
        store.path = path
        store.immutable = immutable
        return store

    def _reader(self) -> sqlite3.Connection | None:
        return upgraded_reader(self.path, open_for_reading(self.path, immutable=self.immutable))

    # -- reading -----------------------------------------------------------------------------
    def list(self) -> list[StoredCatalog]:
        """Stored catalogs, most preferred first (priority, then name)."""
        conn = self._reader()
        if conn is None:
            return []
        try:
            with translated_errors(self.path):
                return summaries(conn)
        finally:
            conn.close()

    def find(self, name: str) -> StoredCatalog | None:
        """The stored catalog ``name``, or one's earlier contents (``NAME@1``); None if none."""
        conn = self._reader()
        if conn is None:
            return None
        try:
            with translated_errors(self.path):
                found = summaries(conn, name)
        finally:
            conn.close()
        return found[0] if found else None

    def generation(self) -> tuple[object, ...] | None:
        """Which state of the stored catalogs there is now (None: nothing stored): it changes
        with each add, refresh, remove or prune, never with a read. One small query, cheap
        enough to ask every few seconds (``deppy serve`` does, to know when to reload)."""
        conn = self._reader()
        if conn is None:
            return None
        try:
            with translated_errors(self.path):
                return generation(conn)
        finally:
            conn.close()

    def missing(self, name: str) -> InputError:
        """The error for a catalog name no stored catalog answers to, in the words every
        command uses (:func:`deppy.store.schema.missing_catalog`)."""
        base = base_name(name)
        kept = self.history(base) if is_history_name(name) else []
        return missing_catalog(name, [c.name for c in [*self.list(), *kept]])

    def history(self, name: str) -> builtins.list[StoredCatalog]:
        """The catalog ``name`` as stored now, then its earlier contents, most recent first
        (``NAME@1``, ``NAME@2``, …); [] when no catalog has the name."""
        conn = self._reader()
        if conn is None:
            return []
        try:
            with translated_errors(self.path):
                current = summaries(conn, name)
                if not current:
                    return []
                earlier = [
                    summaries(conn, f"{name}{HISTORY_MARK}{number}")[0]
                    for number, _ in history(conn, name)
                ]
        finally:
            conn.close()
        return current + earlier

    def source(self, names: Sequence[str] | None = None) -> StoreSource | None:
        """The stored catalogs (all, or the named ones) for resolution; None if none is stored.

        The source reads one consistent state of the store until it is closed.
        """
        conn = self._reader()
        if conn is None:
            return None
        with translated_errors(self.path):
            try:
                snapshot = Snapshot(conn, self.path, immutable=self.immutable)
            except BaseException:
                conn.close()
                raise
        if not snapshot.catalogs:
            snapshot.close()
            return None
        try:
            return StoreSource(snapshot, names)
        except BaseException:
            snapshot.close()
            raise

    def load_catalog(self, name: str, *, answering_as: str | None = None) -> Catalog:
        """The whole stored catalog, as :func:`deppy.catalog.fbc.load_catalog` returned it;
        ``answering_as``: named so (earlier contents ``NAME@1`` answer as NAME, as they do in
        a :class:`StoreSource`)."""
        conn = self._reader()
        if conn is None:
            raise _empty(name)
        try:
            with translated_errors(self.path), _collector_paused():
                conn.execute("BEGIN")
                return materialise(conn, name, answering_as)
        finally:
            conn.close()

    def release_facts(self, name: str) -> StoredFacts:
        """What ``deppy catalog diff`` compares of the stored catalog ``name``, read in one
        transaction; bundles are decoded later, only those the diff asks about."""
        from deppy.store.release_facts import read_facts

        conn = self._reader()
        if conn is None:
            raise _empty(name)
        try:
            with _collector_paused():
                conn.execute("BEGIN")
                return read_facts(conn, name, self.path)
        finally:
            conn.close()

    def problems(self, name: str) -> tuple[LoadProblem, ...]:
        """The invalid objects skipped when the catalog was added or last refreshed."""
        conn = self._reader()
        if conn is None:
            raise _empty(name)
        try:
            with translated_errors(self.path):
                row = conn.execute(
                    "SELECT problem_list FROM catalog WHERE name = ?", (name,)
                ).fetchone()
                if row is None:
                    raise unknown_catalog(conn, name)
        finally:
            conn.close()
        return decode_problems(row[0])

    # -- writing -----------------------------------------------------------------------------
    def add(
        self, catalog: Catalog, *, progress: Progress | None = None, references: bool = False
    ) -> StoredCatalog:
        """Store a loaded catalog under its name; a name already stored is an error.
        ``references``: a parsed-catalog cache entry's store (``codec``), never a user's."""
        stored = self._write(catalog, replace=False, progress=progress, references=references)
        assert stored is not None
        return stored

    def replace(
        self, catalog: Catalog, *, progress: Progress | None = None, keep: int = 0
    ) -> StoredCatalog:
        """Swap a stored catalog for a fresh load of it, in one transaction, keeping the
        ``keep`` most recent earlier contents (the one swapped out becomes ``NAME@1``)."""
        stored = self._write(catalog, replace=True, progress=progress, keep=keep)
        assert stored is not None
        return stored

    def refresh(
        self, catalog: Catalog, *, progress: Progress | None = None, keep: int = 0
    ) -> StoredCatalog | None:
        """:meth:`replace`, unless the fresh load holds exactly what is stored: then nothing
        is written (no earlier contents equal to the catalog) and the answer is None."""
        return self._write(catalog, replace=True, progress=progress, keep=keep, unchanged=True)

    def prune_history(self, name: str, keep: int) -> int:
        """Drop the earlier contents of ``name`` beyond the ``keep`` most recent (never the
        catalog itself); how many were dropped."""
        from deppy.store.writer import prune, tidy

        self._must_exist(name)
        conn = upgraded_writer(self.path, open_for_writing(self.path))
        try:
            with translated_errors(self.path):
                dropped = prune(conn, name, keep)
                tidy(conn)
                return dropped
        finally:
            conn.close()

    def remove(self, name: str) -> StoredCatalog:
        """Remove a stored catalog; returns what it was."""
        from deppy.store.writer import remove, tidy  # writing code stays out of resolve's imports

        self._must_exist(name)
        conn = upgraded_writer(self.path, open_for_writing(self.path))
        try:
            with translated_errors(self.path):
                removed = remove(conn, name)
                tidy(conn)
                return removed
        finally:
            conn.close()

    def _write(
        self,
        catalog: Catalog,
        *,
        replace: bool,
        progress: Progress | None,
        keep: int = 0,
        references: bool = False,
        unchanged: bool = False,
    ) -> StoredCatalog | None:
        from deppy.store.writer import prepare, tidy, write

        if replace:
            self._must_exist(catalog.name)
        prepared = prepare(catalog, progress, references=references)
        conn = upgraded_writer(self.path, open_for_writing(self.path))
        try:
            with translated_errors(self.path):
                stored = write(
                    conn, prepared, replace=replace, keep=keep, only_if_changed=unchanged
                )
                tidy(conn)
                return stored
        finally:
            conn.close()

    def _must_exist(self, name: str) -> None:
        """Changing a catalog of an empty store is an error that must not create the store."""
        if not self.path.is_file():
            raise InputError(
                f"catalog {name!r}", "no stored catalog has this name", "the store is empty"
            )


def _empty(name: str) -> InputError:
    return InputError(
        f"catalog {name!r}",
        "no stored catalog has this name",
        "the store is empty; add it with 'deppy catalog add NAME PATH'",
    )


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Decoding a whole catalog allocates millions of objects and no cycles (as loading does)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()
