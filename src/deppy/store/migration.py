"""Stores written by an older deppy are upgraded in place, once, on first use: nothing to redo.

Version 1 had no search index; version 2 adds it. Every stored catalog is decoded and its search
rows derived exactly as ``catalog add`` derives them, in one write transaction: a migration that
is interrupted leaves the version-1 store as it was, and the next command tries again.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from deppy.store.materialise import materialise
from deppy.store.schema import (
    SCHEMA_VERSION,
    SEARCH_TABLES,
    open_for_reading,
    open_for_writing,
    rollback,
    schema_version,
    translated_errors,
)
from deppy.store.writer import insert_search_index, search_index


def upgraded_writer(path: Path, conn: sqlite3.Connection) -> sqlite3.Connection:
    """A writer's connection, once its store is at the current version."""
    with translated_errors(path):
        current = schema_version(conn) == SCHEMA_VERSION
    if not current:
        _upgrade(conn, path)
    return conn


def upgraded_reader(path: Path, conn: sqlite3.Connection | None) -> sqlite3.Connection | None:
    """A reader's connection (None: nothing stored), once its store is at the current version.
    An upgrade writes: the reader is closed, the store upgraded through a writer, and reopened."""
    if conn is None:
        return None
    with translated_errors(path):
        current = schema_version(conn) == SCHEMA_VERSION
    if current:
        return conn
    conn.close()
    upgrading = open_for_writing(path)
    try:
        _upgrade(upgrading, path)
    finally:
        upgrading.close()
    return open_for_reading(path)


def _upgrade(conn: sqlite3.Connection, path: Path) -> None:
    with translated_errors(path):
        conn.execute("BEGIN IMMEDIATE")
        try:
            if schema_version(conn) == 1:  # another process may have upgraded it meanwhile
                for statement in SEARCH_TABLES:
                    conn.execute(statement)
                for catalog_id, name in conn.execute("SELECT id, name FROM catalog").fetchall():
                    rows, cards = search_index(materialise(conn, name))
                    insert_search_index(conn, catalog_id, rows, cards)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            rollback(conn)
            raise
