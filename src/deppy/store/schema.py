"""The store's SQLite schema and how connections to it are opened.

One database file holds every stored catalog. Resolution reads a few packages out of thousands,
so bundles are rows indexed by package, and provided APIs and labels are small index tables that
say which packages to load; each bundle's fields are one pre-digested blob (see ``codec``).

The journal is in WAL mode: readers never wait for a writer and always see a whole committed
state; each command writes in one ``BEGIN IMMEDIATE`` transaction, so a crash or a kill leaves
the store as it was before or after the command. A busy timeout makes a second writer wait
instead of failing.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Final

from deppy.errors import InputError
from deppy.store.summary import StoredCatalog

SCHEMA_VERSION = 2  # 2: search_row and search_card
MIGRATABLE = (1,)  # older versions this deppy upgrades in place (store/migration.py)
# A writer may hold the lock for a few seconds (a full community index); waiting readers and
# writers give up only after this many seconds.
BUSY_TIMEOUT = 60.0

_TABLES = (
    """CREATE TABLE catalog (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        priority INTEGER NOT NULL,
        path TEXT NOT NULL,
        updated TEXT NOT NULL,
        packages INTEGER NOT NULL,
        channels INTEGER NOT NULL,
        bundles INTEGER NOT NULL,
        problems INTEGER NOT NULL,
        problem_list BLOB NOT NULL,
        others BLOB NOT NULL
    )""",
    """CREATE TABLE package (
        catalog_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        bundles INTEGER NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (catalog_id, name)
    ) WITHOUT ROWID""",
    "CREATE INDEX package_by_name ON package (name)",
    """CREATE TABLE bundle (
        id INTEGER PRIMARY KEY,
        catalog_id INTEGER NOT NULL,
        package TEXT NOT NULL,
        name TEXT NOT NULL,
        version TEXT NOT NULL,
        data BLOB NOT NULL
    )""",
    "CREATE INDEX bundle_by_package ON bundle (package)",
    "CREATE INDEX bundle_by_catalog ON bundle (catalog_id, package, name)",
    """CREATE TABLE provided_api (
        api_group TEXT NOT NULL,
        api_version TEXT NOT NULL,
        kind TEXT NOT NULL,
        catalog_id INTEGER NOT NULL,
        package TEXT NOT NULL,
        PRIMARY KEY (api_group, api_version, kind, catalog_id, package)
    ) WITHOUT ROWID""",
    "CREATE INDEX provided_api_by_catalog ON provided_api (catalog_id)",
    """CREATE TABLE label (
        label TEXT NOT NULL,
        catalog_id INTEGER NOT NULL,
        package TEXT NOT NULL,
        PRIMARY KEY (label, catalog_id, package)
    ) WITHOUT ROWID""",
    "CREATE INDEX label_by_catalog ON label (catalog_id)",
    # deppy search: every text a package can be found by (deppy.catalog.search_index), folded
    # to lower case and indexed by trigrams, so a term of 3 characters or more finds its rows
    # without a scan; a package's card says what a hit shows of it.
    """CREATE VIRTUAL TABLE search_row USING fts5(
        folded, catalog_id UNINDEXED, package UNINDEXED, ordinal UNINDEXED, field UNINDEXED,
        text UNINDEXED, shown UNINDEXED, bundles UNINDEXED,
        tokenize = 'trigram case_sensitive 1'
    )""",
    """CREATE TABLE search_card (
        catalog_id INTEGER NOT NULL,
        package TEXT NOT NULL,
        display_name TEXT NOT NULL,
        latest TEXT NOT NULL,
        default_channel TEXT,
        PRIMARY KEY (catalog_id, package)
    ) WITHOUT ROWID""",
)

SEARCH_TABLES = _TABLES[-2:]  # what version 2 added

# Tables holding one catalog's rows, in the order a removal deletes them.
CATALOG_TABLES = ("search_row", "search_card", "label", "provided_api", "bundle", "package")


class StoreError(InputError):
    """The store cannot be used as it is (busy, damaged, from another deppy version)."""


class DamagedBlob(ValueError):
    """A stored blob that cannot be decoded: a damaged file, or a layout this deppy does not
    know (the schema version should have said so)."""


@contextmanager
def translated_errors(path: Path) -> Iterator[None]:
    """SQLite failures as one line naming the store file and what to do."""
    try:
        yield
    except sqlite3.OperationalError as error:
        text = str(error)
        if disk_full(path, error):
            raise StoreError(
                str(path),
                "the disk is full",
                "free some space on it and run the command again; the store is as it was",
            ) from None
        if "locked" in text or "busy" in text:
            raise StoreError(
                str(path),
                f"the catalog store stayed busy for {BUSY_TIMEOUT:.0f} s (another deppy command "
                "is writing to it)",
                "try again when it has finished",
            ) from None
        raise StoreError(str(path), f"cannot use the catalog store: {text}", _MOVE_AWAY) from None
    except DamagedBlob as error:
        raise StoreError(
            str(path), str(error), "re-read it with 'deppy catalog refresh NAME'"
        ) from None
    except sqlite3.DatabaseError as error:
        raise StoreError(str(path), f"not a usable catalog store ({error})", _MOVE_AWAY) from None


def disk_full(path: Path, error: sqlite3.Error) -> bool:
    """Whether a SQLite failure is the disk running out of space (SQLITE_FULL, or an I/O error
    on a disk with next to nothing free: creating the WAL index fails that way)."""
    name = getattr(error, "sqlite_errorname", "")
    if name == "SQLITE_FULL" or "disk is full" in str(error):
        return True
    if not name.startswith("SQLITE_IOERR") and "disk I/O error" not in str(error):
        return False
    try:
        return shutil.disk_usage(path.parent).free < _NEARLY_FULL
    except OSError:
        return False


_NEARLY_FULL = 1 << 20


def rollback(conn: sqlite3.Connection) -> None:
    """End a failed write. SQLite may have rolled back already (a full disk does that), and a
    second ROLLBACK would hide the real error behind "no transaction is active"."""
    if conn.in_transaction:
        with suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


_MOVE_AWAY = "move the file away (or set DEPPY_HOME elsewhere) and add the catalogs again"


def _connect(target: str, *, uri: bool) -> sqlite3.Connection:
    # isolation_level=None: transactions are begun and ended explicitly by this package.
    # Any thread may use a connection: the readers serialise their queries with a lock.
    return sqlite3.connect(
        target, timeout=BUSY_TIMEOUT, isolation_level=None, uri=uri, check_same_thread=False
    )


def _check_version(conn: sqlite3.Connection, path: Path) -> int:
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version not in (0, SCHEMA_VERSION, *MIGRATABLE):
        newer = version > SCHEMA_VERSION
        raise StoreError(
            str(path),
            f"the catalog store has schema version {version}, this deppy reads version "
            f"{SCHEMA_VERSION}",
            "use the deppy that wrote it"
            if newer
            else "move the file away and add the catalogs again (deppy catalog add NAME PATH)",
        )
    return version


def open_for_reading(path: Path, *, immutable: bool = False) -> sqlite3.Connection | None:
    """A connection to an existing store, or None when nothing was ever stored there.

    Never creates the file: a command that only reads must not leave an empty store behind.
    ``immutable``: a file nobody writes again (a parsed-catalog cache entry, replaced only by a
    rename), read without locks or a WAL index beside it.
    """
    try:
        exists = path.is_file()
    except OSError as error:  # a home this user may not look into (an image run as another uid)
        raise StoreError(
            str(path.parent),
            f"cannot use the catalog store directory: {error.strerror}",
            "set DEPPY_HOME to a writable directory",
        ) from None
    if not exists:
        return None
    with translated_errors(path):
        if immutable:
            return _reader(path, "mode=ro&immutable=1")
        try:
            return _reader(path, "mode=rw")
        except sqlite3.OperationalError as error:
            # A full disk cannot hold the WAL index a reader needs; when no write is pending in
            # the WAL, the database file alone is the whole store, and reading it as immutable
            # needs no index: reads keep working until space is freed.
            wal = path.with_name(path.name + "-wal")
            if not disk_full(path, error) or (wal.exists() and wal.stat().st_size > 0):
                raise
            return _reader(path, "mode=ro&immutable=1")


def _reader(path: Path, mode: str) -> sqlite3.Connection | None:
    conn = _connect(f"{path.resolve().as_uri()}?{mode}", uri=True)
    try:
        if _check_version(conn, path) == 0:
            conn.close()
            return None
    except BaseException:
        conn.close()
        raise
    return conn


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def open_for_writing(path: Path) -> sqlite3.Connection:
    """A connection to the store, creating the directory, the file and the schema if needed."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreError(
            str(path.parent),
            f"cannot create the catalog store directory: {error.strerror}",
            "set DEPPY_HOME to a writable directory",
        ) from None
    with translated_errors(path):
        conn = _connect(str(path), uri=False)
        try:
            fresh = _check_version(conn, path) == 0
            if fresh:
                # Only possible in a new file: lets removals give space back.
                conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            # WAL is a property of the file: set once, it stays for every later connection.
            conn.execute("PRAGMA journal_mode=WAL")
            # In WAL mode NORMAL still keeps every commit atomic; only a power loss may undo the
            # last commits, never half of one.
            conn.execute("PRAGMA synchronous=NORMAL")
            if fresh:
                _create_schema(conn, path)
        except BaseException:
            conn.close()
            raise
    return conn


def _create_schema(conn: sqlite3.Connection, path: Path) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Another process may have created it while this one waited for the lock.
        if _check_version(conn, path) == 0:
            for statement in _TABLES:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise


HISTORY_MARK: Final = "@"
"""What separates a catalog's name from the number of its earlier contents (``NAME@1``: the
contents before the last refresh); a catalog's own name never holds it (``catalog add``)."""


def base_name(name: str) -> str:
    """The catalog a stored name belongs to: NAME for NAME, NAME@1, NAME@2, …"""
    return name.split(HISTORY_MARK, 1)[0]


def summaries(conn: sqlite3.Connection, name: str | None = None) -> list[StoredCatalog]:
    """Stored catalogs (or the one named, earlier contents ``NAME@N`` included), most preferred
    first: priority, then name. Without a name, earlier contents are left out: they are there
    to be asked for by name, never to take part in a resolution over "the stored catalogs"."""
    where = "WHERE instr(name, ?) = 0 " if name is None else "WHERE name = ? "
    rows = conn.execute(
        "SELECT name, priority, path, packages, channels, bundles, problems, updated "
        f"FROM catalog {where}ORDER BY priority DESC, name",
        (HISTORY_MARK if name is None else name,),
    )
    return [StoredCatalog(*row) for row in rows]


def history(conn: sqlite3.Connection, name: str) -> list[tuple[int, int]]:
    """(N, catalog id) of each earlier content ``NAME@N`` kept of catalog ``name``, by N."""
    prefix = name + HISTORY_MARK
    found = []
    for catalog_id, stored in conn.execute(
        "SELECT id, name FROM catalog WHERE substr(name, 1, ?) = ?", (len(prefix), prefix)
    ):
        number = str(stored)[len(prefix) :]
        if number.isdigit():
            found.append((int(number), int(catalog_id)))
    return sorted(found)


# Which state of the stored catalogs a reader saw: a counter every change (add, refresh, remove,
# prune) bumps in its own transaction. A running ``deppy serve`` compares it to decide whether to
# reload; the store's files are no guide, as a read also touches them (the -wal and -shm files
# come and go as readers open and close). Created by the first write that needs it, so a store
# of this schema version written before it existed stays readable (its counter reads as 0).
_GENERATION_TABLE = (
    "CREATE TABLE IF NOT EXISTS store_generation ("
    "id INTEGER PRIMARY KEY CHECK (id = 0), value INTEGER NOT NULL)"
)


def bump_generation(conn: sqlite3.Connection) -> None:
    """Count one change of the stored catalogs; inside the writer's transaction."""
    conn.execute(_GENERATION_TABLE)
    conn.execute(
        "INSERT INTO store_generation VALUES (0, 1) "
        "ON CONFLICT (id) DO UPDATE SET value = value + 1"
    )


def generation(conn: sqlite3.Connection) -> tuple[object, ...]:
    """The state of the stored catalogs, equal across two reads only if nothing was changed in
    between: the counter, and each catalog row's id, name and time (which also catches a
    change by a deppy from before the counter)."""
    try:
        row = conn.execute("SELECT value FROM store_generation").fetchone()
    except sqlite3.OperationalError:  # no such table: no deppy with the counter wrote yet
        row = None
    rows = conn.execute("SELECT id, name, updated FROM catalog ORDER BY id").fetchall()
    return (0 if row is None else int(row[0]), *(tuple(r) for r in rows))


def unknown_catalog(conn: sqlite3.Connection, name: str) -> InputError:
    stored = [str(row[0]) for row in conn.execute("SELECT name FROM catalog")]
    return missing_catalog(name, stored)


def is_history_name(name: str) -> bool:
    """Whether ``name`` asks for a catalog's earlier contents: ``NAME@N``, N a number."""
    base, mark, number = name.partition(HISTORY_MARK)
    return bool(base and mark and number.isdigit())


def missing_catalog(name: str, stored: Iterable[str]) -> InputError:
    """The one error for a catalog name no stored catalog answers to, whichever command was
    given it (``--catalog``, ``--source``, ``catalog diff``, ``catalog history``…): for
    ``NAME@N``, which earlier contents of NAME are kept; otherwise the stored catalogs.
    ``stored``: every stored name, earlier contents included."""
    names = sorted(set(stored))
    base = base_name(name)
    if is_history_name(name) and base in names:
        kept = [n for n in names if n != base and base_name(n) == base]
        return InputError(
            f"catalog {name!r}",
            f"no earlier contents of {base} has this number",
            (f"kept: {', '.join(kept)}" if kept else f"{base} has no earlier contents kept")
            + f" (deppy catalog history {base})",
        )
    current = [n for n in names if HISTORY_MARK not in n]
    return InputError(
        f"catalog {name!r}",
        "no stored catalog has this name",
        f"stored catalogs: {', '.join(current)}" if current else "the store is empty",
    )
