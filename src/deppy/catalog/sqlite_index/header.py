"""An SQLite file told by its first bytes, without importing SQLite: every catalog path deppy
loads is asked this first (:func:`deppy.catalog.bundle_tree.load_any_catalog`)."""

from __future__ import annotations

import os
import stat
from typing import Final

SQLITE_HEADER: Final = b"SQLite format 3\x00"


def is_sqlite_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a regular file that starts with SQLite's header (cheap: 16 bytes;
    a FIFO or device is never opened)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as file:
            return file.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False
