"""The cache's integrity check reads an entry once per version of its file (issue 36).

A one-catalog SQLite entry is checked against its CRC before a run reads it lazily. Reading
the whole entry on every run cost the 10x community catalog's repeated run half its time: the
check passes once per version of the file (inode, device, size, modification and change times),
and a run that finds the file as it was checked does not read it again. Any write to it — bytes
flipped in place (even with the modification time put back), a replacement — is a new version,
read whole again.
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


def test_bytes_changed_in_a_checked_entry_with_its_mtime_put_back_are_read_again(
    catalog_copy: Path, tmp_path: Path
) -> None:
    """Issue 39: the mark named inode, device, size and modification time; bytes changed in
    place with the modification time put back (os.utime, touch -d) were trusted unchecked.
    The change time, which no one can put back, is part of the version now."""
    entry = kept_entry(catalog_copy, tmp_path / "cache")
    assert sqlite_is_whole(entry, LIMIT)
    assert Path(check_mark(entry)).is_file()
    before = entry.stat()
    flip(entry, 0.5)
    os.utime(entry, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (entry.stat().st_ino, entry.stat().st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert not sqlite_is_whole(entry, LIMIT)


def test_resolve_never_answers_from_an_entry_changed_behind_its_mtime(
    catalog_copy: Path, tmp_path: Path
) -> None:
    """The same through ``deppy resolve``: an image no catalog holds, written into the checked
    entry in place (same length, same modification time), is never the answer."""
    home = tmp_path / "home"
    argv = ("resolve", "--catalog", str(catalog_copy), "--require", "etcd", "-o", "json")
    first = deppy(home, *argv)
    assert first.returncode == 0, first.stderr
    wait_for_entries(home / "cache", "catalog-*")
    (entry,) = (home / "cache").glob("catalog-*")
    assert deppy(home, *argv).stdout == first.stdout  # checked, and marked as checked
    assert Path(check_mark(entry)).is_file()
    image = b"quay.io/community-operator-pipeline-prod/etcd"
    data = entry.read_bytes()
    assert image in data
    before = entry.stat()
    with open(entry, "r+b") as file:  # in place: same inode, same size
        file.write(data.replace(image, b"evil.example/community-operator-pipeline/etcd"))
    os.utime(entry, ns=(before.st_atime_ns, before.st_mtime_ns))
    again = deppy(home, *argv)
    assert (again.returncode, again.stdout) == (0, first.stdout), again.stderr
    assert "evil.example" not in again.stdout


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
    """Marking the entry used touches its access time only (its modification time stays) and
    carries the check's mark over the change time that touch gives it: after each run the mark
    names the entry as it is, so the next run does not read the entry whole either; the cache
    keeps no mark of an entry gone."""
    home = tmp_path / "home"
    argv = ("resolve", "--catalog", str(catalog_copy), "--require", "etcd", "-o", "json")
    first = deppy(home, *argv)
    wait_for_entries(home / "cache", "catalog-*")
    (entry,) = (home / "cache").glob("catalog-*")
    second = deppy(home, *argv)
    mark = Path(check_mark(entry))
    assert mark.read_text() == _version(entry)
    version = entry.stat().st_mtime_ns
    third = deppy(home, *argv)
    assert first.stdout == second.stdout == third.stdout
    assert entry.stat().st_mtime_ns == version and mark.read_text() == _version(entry)
    assert deppy(home, "cache", "clear").returncode == 0
    assert sorted(p.name for p in (home / "cache").iterdir()) == []


def _version(entry: Path) -> str:
    """The file's version as a check's mark names it."""
    found = entry.stat()
    return " ".join(
        str(n)
        for n in (found.st_ino, found.st_dev, found.st_size, found.st_mtime_ns, found.st_ctime_ns)
    )
