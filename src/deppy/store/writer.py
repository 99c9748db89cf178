"""Writing catalogs into the store: each command is one transaction, prepared before it starts.

Everything slow (parsing, encoding, compressing) happens before the write lock is taken, so the
lock is held only for the inserts, and readers keep reading the previous state meanwhile. A
refresh deletes the old rows and inserts the new ones in the same transaction: nobody ever sees
a catalog half replaced, and a kill at any point leaves the old catalog or the new one.

A refresh may keep the old rows instead, as the catalog's earlier contents: renamed ``NAME@1``
(the one before ``NAME@1`` becomes ``NAME@2``, …) in the same transaction, up to the number the
user keeps; the oldest beyond it are deleted. ``--since`` and ``catalog diff`` read them by name.
"""

from __future__ import annotations

import datetime
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from deppy.catalog.model import Catalog
from deppy.catalog.search_index import package_rows
from deppy.errors import InputError
from deppy.store.codec import encode_bundle, encode_others, encode_package, encode_problems
from deppy.store.schema import (
    CATALOG_TABLES,
    HISTORY_MARK,
    bump_generation,
    history,
    rollback,
    summaries,
    unknown_catalog,
)
from deppy.store.summary import StoredCatalog

# (bundles encoded so far, bundles in all); called often enough to drive a progress bar.
Progress = Callable[[int, int], None]

_BATCH = 256


@dataclass(slots=True)
class PreparedCatalog:
    """A catalog's rows, encoded and ready to insert (preparing takes no lock)."""

    summary: StoredCatalog
    problems: bytes
    others: bytes
    packages: list[tuple[str, int, bytes]]
    bundles: list[tuple[str, str, str, bytes]]
    apis: list[tuple[str, str, str, str]]
    labels: list[tuple[str, str]]
    search_rows: list[tuple[str, str, int, str, str, str, str]]
    search_cards: list[tuple[str, str, str, str | None]]


_NO_SEARCH_ROWS: tuple[
    list[tuple[str, str, int, str, str, str, str]], list[tuple[str, str, str, str | None]]
] = ([], [])


def prepare(
    catalog: Catalog, progress: Progress | None = None, *, references: bool = False
) -> PreparedCatalog:
    """Encode a loaded catalog's rows: the slow part of an add, done before any lock is taken.
    ``references``: metadata left in catalog files is kept as where it lies, and no search rows
    are written (a parsed-catalog cache entry, see ``codec``: its writer is what a second run
    started right after the first waits for, and the rows are half its work; ``deppy search``
    on such an entry reads its bundles instead)."""
    orphans = (
        {b.package for b in catalog.bundles.values()}
        | {c.package for c in catalog.channels.values()}
        | {d.package for d in catalog.deprecations}
    ) - set(catalog.packages)
    if orphans:
        raise ValueError(f"catalog {catalog.name}: no olm.package for {sorted(orphans)}")
    counts: dict[str, int] = {}
    bundles: list[tuple[str, str, str, bytes]] = []
    apis: dict[tuple[str, str, str, str], None] = {}
    labels: dict[tuple[str, str], None] = {}
    total = len(catalog.bundles)
    for done, bundle in enumerate(sorted(catalog.bundles.values(), key=lambda b: b.key), 1):
        package = bundle.package
        counts[package] = counts.get(package, 0) + 1
        blob = encode_bundle(bundle, references=references)
        bundles.append((package, bundle.name, str(bundle.version), blob))
        for gvk in bundle.provided_gvks:
            apis[(gvk.group, gvk.version, gvk.kind, package)] = None
        for label in bundle.labels:
            labels[(label, package)] = None
        if progress is not None and (done % _BATCH == 0 or done == total):
            progress(done, total)
    packages = [
        (
            name,
            counts.get(name, 0),
            encode_package(
                catalog.packages[name], catalog.channels_of(name), catalog.deprecations_of(name)
            ),
        )
        for name in sorted(catalog.packages)
    ]
    summary = StoredCatalog(
        name=catalog.name,
        priority=catalog.priority,
        path=catalog.path,
        packages=len(catalog.packages),
        channels=len(catalog.channels),
        bundles=total,
        problems=len(catalog.problems),
        updated=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    )
    return PreparedCatalog(
        summary,
        encode_problems(catalog.problems),
        encode_others(catalog.others),
        packages,
        bundles,
        sorted(apis),
        sorted(labels),
        *(_NO_SEARCH_ROWS if references else search_index(catalog)),
    )


def write(
    conn: sqlite3.Connection,
    prepared: PreparedCatalog,
    *,
    replace: bool,
    keep: int = 0,
    only_if_changed: bool = False,
) -> StoredCatalog | None:
    """Insert (or, with ``replace``, swap in) one catalog in one transaction; a swapped-out
    catalog is kept as ``NAME@1`` when ``keep`` earlier contents are kept. ``only_if_changed``:
    a replacement holding exactly what is stored writes nothing (no ``NAME@1`` equal to the
    catalog, no reload of a server) and returns None."""
    summary = prepared.summary
    conn.execute("BEGIN IMMEDIATE")
    try:
        existing = _catalog_id(conn, summary.name)
        if existing is not None and not replace:
            raise InputError(
                f"catalog {summary.name!r}",
                "a catalog of this name is already in the store",
                f"re-read it with 'deppy catalog refresh {summary.name}', or remove it first",
            )
        if existing is None and replace:
            raise unknown_catalog(conn, summary.name)
        if existing is not None and only_if_changed and _same(conn, existing, prepared):
            conn.execute("ROLLBACK")
            return None
        if existing is not None:
            _keep_or_delete(conn, summary.name, existing, keep)
        _insert(conn, prepared)
        bump_generation(conn)
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
    return summary


def _same(conn: sqlite3.Connection, catalog_id: int, prepared: PreparedCatalog) -> bool:
    """Whether the stored catalog ``catalog_id`` holds exactly the rows ``prepared`` would
    write (the encoding is deterministic: the same content is the same bytes); the search
    and API index rows are derived from these."""
    s = prepared.summary
    row = conn.execute(
        "SELECT priority, path, problem_list, others FROM catalog WHERE id = ?", (catalog_id,)
    ).fetchone()
    if tuple(row) != (s.priority, s.path, prepared.problems, prepared.others):
        return False
    packages = conn.execute(
        "SELECT name, bundles, data FROM package WHERE catalog_id = ? ORDER BY name",
        (catalog_id,),
    )
    if [tuple(r) for r in packages] != prepared.packages:
        return False
    bundles = conn.execute(
        "SELECT package, name, version, data FROM bundle WHERE catalog_id = ? ORDER BY id",
        (catalog_id,),
    )
    return [tuple(r) for r in bundles] == prepared.bundles


def _insert(conn: sqlite3.Connection, prepared: PreparedCatalog) -> None:
    s = prepared.summary
    cursor = conn.execute(
        "INSERT INTO catalog (name, priority, path, updated, packages, channels, bundles, "
        "problems, problem_list, others) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            s.name,
            s.priority,
            s.path,
            s.updated,
            s.packages,
            s.channels,
            s.bundles,
            s.problems,
            prepared.problems,
            prepared.others,
        ),
    )
    catalog_id = cursor.lastrowid
    assert catalog_id is not None
    conn.executemany(
        "INSERT INTO package (catalog_id, name, bundles, data) VALUES (?, ?, ?, ?)",
        _with_id(catalog_id, prepared.packages),
    )
    conn.executemany(
        "INSERT INTO bundle (catalog_id, package, name, version, data) VALUES (?, ?, ?, ?, ?)",
        _with_id(catalog_id, prepared.bundles),
    )
    conn.executemany(
        "INSERT INTO provided_api (catalog_id, api_group, api_version, kind, package) "
        "VALUES (?, ?, ?, ?, ?)",
        _with_id(catalog_id, prepared.apis),
    )
    conn.executemany(
        "INSERT INTO label (catalog_id, label, package) VALUES (?, ?, ?)",
        _with_id(catalog_id, prepared.labels),
    )
    insert_search_index(conn, catalog_id, prepared.search_rows, prepared.search_cards)


def insert_search_index(
    conn: sqlite3.Connection,
    catalog_id: int,
    rows: Iterable[tuple[object, ...]],
    cards: Iterable[tuple[object, ...]],
) -> None:
    conn.executemany(
        "INSERT INTO search_row (catalog_id, folded, package, ordinal, field, text, shown, "
        "bundles) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        _with_id(catalog_id, rows),
    )
    conn.executemany(
        "INSERT INTO search_card (catalog_id, package, display_name, latest, default_channel) "
        "VALUES (?, ?, ?, ?, ?)",
        _with_id(catalog_id, cards),
    )


def search_index(
    catalog: Catalog,
) -> tuple[list[tuple[str, str, int, str, str, str, str]], list[tuple[str, str, str, str | None]]]:
    """The rows ``deppy search`` reads (deppy.catalog.search_index), for every package."""
    rows: list[tuple[str, str, int, str, str, str, str]] = []
    cards: list[tuple[str, str, str, str | None]] = []
    for name in sorted(catalog.packages):
        bundles = catalog.bundles_of(name)
        if not bundles:
            continue
        card, found = package_rows(
            catalog.name, catalog.packages[name], name, catalog.channels_of(name), bundles
        )
        cards.append((name, card.display_name, card.latest, card.default_channel))
        rows.extend(
            (r.text.lower(), name, r.ordinal, r.field, r.text, r.shown, "\n".join(r.bundles))
            for r in found
        )
    return rows, cards


def _with_id(catalog_id: int, rows: Iterable[tuple[object, ...]]) -> Iterable[tuple[object, ...]]:
    return ((catalog_id, *row) for row in rows)


def remove(conn: sqlite3.Connection, name: str) -> StoredCatalog:
    conn.execute("BEGIN IMMEDIATE")
    try:
        found = summaries(conn, name)
        catalog_id = _catalog_id(conn, name)
        if not found or catalog_id is None:
            raise unknown_catalog(conn, name)
        for _, earlier in history(conn, name):  # its earlier contents go with it
            _delete_rows(conn, earlier)
        _delete_rows(conn, catalog_id)
        bump_generation(conn)
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
    return found[0]


def prune(conn: sqlite3.Connection, name: str, keep: int) -> int:
    """Delete the earlier contents of catalog ``name`` beyond the ``keep`` most recent; how many
    were deleted. The catalog itself is never among them."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        if _catalog_id(conn, name) is None:
            raise unknown_catalog(conn, name)
        old = [catalog_id for number, catalog_id in history(conn, name) if number > keep]
        for catalog_id in old:
            _delete_rows(conn, catalog_id)
        bump_generation(conn)
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
    return len(old)


def _keep_or_delete(conn: sqlite3.Connection, name: str, current: int, keep: int) -> None:
    """The catalog's rows leaving its name: renamed ``NAME@1`` (each earlier one moving up a
    number, the oldest past ``keep`` deleted), or deleted when nothing is kept."""
    for number, catalog_id in reversed(history(conn, name)):  # the oldest first: names free
        if number + 1 > keep:
            _delete_rows(conn, catalog_id)
        else:
            _rename(conn, catalog_id, f"{name}{HISTORY_MARK}{number + 1}")
    if keep > 0:
        _rename(conn, current, f"{name}{HISTORY_MARK}1")
    else:
        _delete_rows(conn, current)


def _rename(conn: sqlite3.Connection, catalog_id: int, name: str) -> None:
    conn.execute("UPDATE catalog SET name = ? WHERE id = ?", (name, catalog_id))


def _catalog_id(conn: sqlite3.Connection, name: str) -> int | None:
    row = conn.execute("SELECT id FROM catalog WHERE name = ?", (name,)).fetchone()
    return None if row is None else int(row[0])


def _delete_rows(conn: sqlite3.Connection, catalog_id: int) -> None:
    for table in CATALOG_TABLES:
        conn.execute(f"DELETE FROM {table} WHERE catalog_id = ?", (catalog_id,))
    conn.execute("DELETE FROM catalog WHERE id = ?", (catalog_id,))


def tidy(conn: sqlite3.Connection) -> None:
    """After a command: give freed pages back and fold the WAL into the database, if idle.

    Best effort, outside the command's transaction: if readers hold the WAL, it is left for a
    later command (the store is consistent either way).
    """
    try:
        conn.execute("PRAGMA busy_timeout = 100")
        conn.execute("PRAGMA incremental_vacuum").fetchall()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.OperationalError:
        pass
