"""The cache's integrity check reads an entry once per version of its file (issue 36).

A one-catalog SQLite entry is checked against its CRC before a run reads it lazily. Reading
the whole entry on every run cost the 10x community catalog's repeated run half its time: the
check passes once per version of the file (inode, device, size, modification time), and a run
that finds the file as it was checked does not read it again. Any write to it — bytes flipped
in place, a replacement — is a new version, read whole again.
"""

from __future__ import annotations

import os
from pathlib import Path

from deppy.catalog.fbc import load_catalog
from deppy.catalog.fbc.cache import ParsedCache
from deppy.catalog.fbc.entry_checks import check_mark, sqlite_is_whole
from deppy.store.cache_entries import StoredEntries
from tests.test_cache_entry_damage import deppy, flip, wait_for_entries
from tests.test_cold_path import catalog_copy

__all__ = ["catalog_copy"]

LIMIT = 1 << 30


def kept_entry(catalog: Path, cache_dir: Path) -> Path:
    load_catalog(catalog, name="hub", cache=ParsedCache(cache_dir, files=StoredEntries()))
    (entry,) = cache_dir.glob("catalog-*")
    return entry


def test_a_checked_entry_is_not_read_again_while_its_file_is_unchanged(
    catalog_copy: Path, tmp_path: Path
) -> None:
    entry = kept_entry(catalog_copy, tmp_path / "cache")
    assert sqlite_is_whole(entry, LIMIT)
    assert Path(check_mark(entry)).is_file()
    # Bytes changed with the file's version left as it was checked (same inode, size and
    # modification time): the check trusts its mark and reads nothing.
    before = entry.stat()
    flip(entry, 0.5)
    os.utime(entry, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert entry.stat().st_ino == before.st_ino
    assert sqlite_is_whole(entry, LIMIT)


def test_a_new_version_of_a_checked_entry_is_read_whole_again(
    catalog_copy: Path, tmp_path: Path
) -> None:
    entry = kept_entry(catalog_copy, tmp_path / "cache")
    assert sqlite_is_whole(entry, LIMIT)
    flip(entry, 0.5)  # written in place: a new modification time
    assert not sqlite_is_whole(entry, LIMIT)
    flip(entry, 0.5)  # back as written, yet a version never checked: read, and whole
    assert sqlite_is_whole(entry, LIMIT)


def test_a_repeated_run_leaves_the_entry_as_checked(catalog_copy: Path, tmp_path: Path) -> None:
    """Marking the entry used touches its access time only: its version (and mark) stay, so the
    third run does not read the entry whole either; the cache keeps no mark of an entry gone."""
    home = tmp_path / "home"
    argv = ("resolve", "--catalog", str(catalog_copy), "--require", "etcd", "-o", "json")
    first = deppy(home, *argv)
    wait_for_entries(home / "cache", "catalog-*")
    (entry,) = (home / "cache").glob("catalog-*")
    second = deppy(home, *argv)
    mark = Path(check_mark(entry))
    checked = mark.read_text()
    version = entry.stat().st_mtime_ns
    third = deppy(home, *argv)
    assert first.stdout == second.stdout == third.stdout
    assert entry.stat().st_mtime_ns == version and mark.read_text() == checked
    assert deppy(home, "cache", "clear").returncode == 0
    assert sorted(p.name for p in (home / "cache").iterdir()) == []
