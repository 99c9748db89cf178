"""Opening an operator-registry SQLite index safely, and reading its tables as plain rows.

An index comes from outside (an older catalog image, a file a user names), so it is opened
read-only and immutable (``mode=ro&immutable=1``): SQLite neither writes, locks, nor replays a
journal, and nothing is ever migrated, whatever schema version the file has. Before SQLite
sees it the file must be a regular file within the catalog size limit, start with SQLite's
header, and be as long as its header says (a truncated copy would otherwise read as far as it
goes and then fail halfway). Every ``sqlite3.DatabaseError`` afterwards is one line naming
the file.

Older schemas differ in which tables and columns exist (operator-registry's migrations add
them one by one); :class:`Schema` records what this file has, and the readers here fill in
what is missing (no ``version`` column: the CSV's ``spec.version``, and so on).
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

from deppy.catalog.sqlite_index.header import SQLITE_HEADER
from deppy.errors import InputError, not_a_file
from deppy.input_limits.streams import MAX_STREAM_BYTES

_HEADER_SIZE: Final = 100
REQUIRED_TABLES: Final = ("package", "channel", "channel_entry", "operatorbundle")
FIX: Final = (
    "give an operator-registry SQLite index (the database/index.db of an older index image)"
)


@dataclass(frozen=True, slots=True)
class Schema:
    """The tables of this index and the columns of those whose columns changed over time."""

    tables: frozenset[str]
    columns: dict[str, frozenset[str]]

    def has(self, table: str, column: str | None = None) -> bool:
        if table not in self.tables:
            return False
        return column is None or column in self.columns.get(table, frozenset())


def _checked_file(path: Path, where: str) -> None:
    """Refuses what SQLite must not be handed: no regular file, too large, no SQLite header,
    or shorter than its header says."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(where, "SQLite index not found", FIX) from None
    except OSError as error:
        raise InputError(where, f"cannot read the SQLite index ({error.strerror})", FIX) from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(where, not_a_file(info.st_mode), FIX)
    if info.st_size > MAX_STREAM_BYTES:
        raise InputError(
            where,
            f"the SQLite index is larger than {MAX_STREAM_BYTES:,} bytes (deppy's limit for "
            "one catalog)",
            "render a smaller index, or split the catalog",
        )
    try:
        with open(path, "rb") as file:
            header = file.read(_HEADER_SIZE)
    except OSError as error:
        raise InputError(where, f"cannot read the SQLite index ({error.strerror})", FIX) from None
    if not header.startswith(SQLITE_HEADER):
        raise InputError(where, "not an SQLite database (no SQLite header)", FIX)
    if len(header) < _HEADER_SIZE:
        raise InputError(where, "the SQLite index is truncated (its header is cut short)", FIX)
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    if page_size < 512 or page_size & (page_size - 1):
        raise InputError(where, "not a valid SQLite database (its header is damaged)", FIX)
    pages = int.from_bytes(header[28:32], "big")
    counted = header[24:28] == header[92:96]  # the header's page count is valid
    if counted and pages and info.st_size < pages * page_size:
        raise InputError(
            where,
            f"the SQLite index is truncated ({info.st_size:,} of {pages * page_size:,} bytes)",
            "copy the whole file again",
        )


def _text(value: bytes) -> str:
    """SQLite TEXT as Go's database/sql reads it into a string: bytes that are not UTF-8 become
    U+FFFD when written as JSON, as Go's encoder writes them."""
    return value.decode("utf-8", "replace")


@contextmanager
def opened(path: Path, where: str) -> Iterator[sqlite3.Connection]:
    """A read-only, immutable connection to the index at ``path``; any SQLite error inside the
    block becomes one InputError naming ``where``."""
    _checked_file(path, where)
    uri = f"file:{quote(str(path.absolute()))}?mode=ro&immutable=1"
    connection: sqlite3.Connection | None = None
    try:
        connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
        connection.text_factory = _text
        yield connection
    except sqlite3.DatabaseError as error:
        raise InputError(where, f"cannot read the SQLite index: {error}", FIX) from None
    finally:
        if connection is not None:
            connection.close()


def read_schema(connection: sqlite3.Connection, where: str) -> Schema:
    """The tables and columns present; an index lacks none of :data:`REQUIRED_TABLES`."""
    tables = frozenset(
        row[0]
        for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if isinstance(row[0], str)
    )
    missing = [t for t in REQUIRED_TABLES if t not in tables]
    if missing:
        raise InputError(
            where,
            f"an SQLite database but not an operator-registry index (no table "
            f"{', '.join(missing)})",
            FIX,
        )
    columns: dict[str, frozenset[str]] = {
        table: frozenset(str(row[1]) for row in connection.execute(f"PRAGMA table_info({table})"))
        for table in ("operatorbundle", "api_provider", "api_requirer")
        if table in tables
    }
    return Schema(tables, columns)


def rows(connection: sqlite3.Connection, query: str) -> list[tuple[Any, ...]]:
    return list(connection.execute(query))


def column(schema: Schema, table: str, name: str) -> str:
    """``name`` when the table has that column, else NULL (an older schema)."""
    return name if schema.has(table, name) else "NULL"


def api_rows(connection: sqlite3.Connection, schema: Schema, table: str) -> list[tuple[Any, ...]]:
    """(bundle name, group, version, kind) of ``api_provider`` or ``api_requirer``: keyed by
    bundle name since operator-registry's migration 006, by channel entry before it."""
    if not schema.has(table):
        return []
    if schema.has(table, "operatorbundle_name"):
        bundle = "operatorbundle_name"
        joined = table
    elif schema.has(table, "channel_entry_id"):
        bundle = "channel_entry.operatorbundle_name"
        joined = f"{table} JOIN channel_entry ON channel_entry.entry_id = {table}.channel_entry_id"
    else:
        return []
    query = (
        f"SELECT DISTINCT CAST({bundle} AS TEXT), CAST({table}.group_name AS TEXT), "
        f"CAST({table}.version AS TEXT), CAST({table}.kind AS TEXT) FROM {joined}"
    )
    return [row for row in rows(connection, query + " ORDER BY 1, 2, 3, 4") if None not in row]
