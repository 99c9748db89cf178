"""A damaged or odd parsed-catalog cache entry is a missing one (issue 26, groups 5 and 6).

Whatever lies under an entry's name — a few flipped bytes, a FIFO, a link to an endless file, a
directory — the command answers as ``DEPPY_CACHE=off`` answers it, in bounded time and memory,
and the entry is written again: the next run is as fast as before, not broken until
``deppy cache clear``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from deppy.catalog.fbc import load_catalog
from deppy.catalog.fbc.cache import CatalogFiles, ParsedCache, wait_for_writers
from deppy.catalog.fbc.entry_checks import file_is_whole, sqlite_is_whole
from deppy.store.cache_entries import StoredEntries
from tests.test_cold_path import catalog_copy
from tests.test_store_support import DEPPY, full

ENTRY_FORMATS = [pytest.param(None, id="pickled"), pytest.param(StoredEntries(), id="stored")]
__all__ = ["catalog_copy"]  # the fixture: packages of community v4.18, JSON and YAML files


def flip(path: Path, *fractions: float) -> None:
    """A few bytes changed in place, as a bad disk or copy would leave them."""
    data = bytearray(path.read_bytes())
    for fraction in fractions:
        data[int(len(data) * fraction)] ^= 0x20
    path.write_bytes(bytes(data))


def whole(entry: Path) -> bool:
    if entry.read_bytes().startswith(b"SQLite"):
        return sqlite_is_whole(entry, 1 << 30)
    return file_is_whole(entry, 1 << 30)


def flip_in_text(path: Path) -> None:
    """One letter changed inside the JSON text of a file entry: still valid JSON."""
    data = path.read_bytes()
    at = data.index(b'"name"') + 2
    path.write_bytes(data[:at] + bytes([data[at] ^ 0x20]) + data[at + 1 :])


@pytest.mark.parametrize("files", ENTRY_FORMATS)
@pytest.mark.parametrize("fractions", [(0.5,), (0.3, 0.6, 0.9), (0.02,)])
def test_flipped_bytes_in_a_catalog_entry_count_as_missing(
    catalog_copy: Path, tmp_path: Path, files: CatalogFiles, fractions: tuple[float, ...]
) -> None:
    cache = ParsedCache(tmp_path / "cache", files=files)
    direct = full(load_catalog(catalog_copy, name="hub"))
    load_catalog(catalog_copy, name="hub", cache=cache)
    (entry,) = (tmp_path / "cache").glob("catalog-*")
    flip(entry, *fractions)
    assert not whole(entry)
    assert full(load_catalog(catalog_copy, name="hub", cache=cache)) == direct
    assert whole(entry)  # replaced
    assert full(load_catalog(catalog_copy, name="hub", cache=cache)) == direct


def test_a_flipped_letter_in_a_file_entry_counts_as_missing(
    catalog_copy: Path, tmp_path: Path
) -> None:
    cache = ParsedCache(tmp_path / "cache")
    direct = full(load_catalog(catalog_copy, name="hub"))
    load_catalog(catalog_copy, name="hub", cache=cache)
    for entry in (tmp_path / "cache").glob("catalog-*"):
        entry.unlink()  # so the files' own entries are read
    file_entries = sorted((tmp_path / "cache").glob("file-*"))
    assert file_entries
    for entry in file_entries:
        flip_in_text(entry)
    assert full(load_catalog(catalog_copy, name="hub", cache=cache)) == direct


def odd_entries() -> dict[str, Callable[[Path], None]]:
    def fifo(path: Path) -> None:
        os.mkfifo(path)

    def endless(path: Path) -> None:
        path.symlink_to("/dev/zero")

    def directory(path: Path) -> None:
        path.mkdir()

    def link_to_entry(path: Path) -> None:
        whole = path.with_name("elsewhere")
        whole.write_bytes(b"x" * 100)
        path.symlink_to(whole)

    return {
        "fifo": fifo,
        "link to /dev/zero": endless,
        "directory": directory,
        "link": link_to_entry,
    }


ODD = odd_entries()


def deppy(home: Path, *args: str, cache: bool = True) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DEPPY_HOME=str(home))
    if not cache:
        env["DEPPY_CACHE"] = "off"
    return subprocess.run(
        [*DEPPY, *args], env=env, capture_output=True, text=True, timeout=60
    )  # a hang fails here, in 60 s, not in the suite's own time


def wait_for_entries(cache: Path, pattern: str) -> None:
    for _ in range(200):
        if list(cache.glob(pattern)) and not list(cache.glob(".tmp-*")):
            return
        subprocess.run(["sleep", "0.05"], check=True)


@pytest.mark.parametrize("kind", sorted(ODD))
@pytest.mark.parametrize("prefix", ["catalog-", "file-"])
def test_an_entry_that_is_no_regular_file_is_missing(
    catalog_copy: Path, tmp_path: Path, kind: str, prefix: str
) -> None:
    home = tmp_path / "home"
    argv = ("resolve", "--catalog", str(catalog_copy), "--require", "etcd", "-o", "json")
    first = deppy(home, *argv)
    assert first.returncode == 0, first.stderr
    cache = home / "cache"
    wait_for_entries(cache, "catalog-*")
    if prefix == "file-":
        for entry in cache.glob("catalog-*"):
            entry.unlink()  # so the YAML files' entries are read
    targets = sorted(cache.glob(prefix + "*"))
    assert targets
    for target in targets:
        target.unlink()
        ODD[kind](target)
    again = deppy(home, *argv)
    assert (again.returncode, again.stdout, again.stderr) == (0, first.stdout, first.stderr)
    off = deppy(home, *argv, cache=False)
    assert off.stdout == first.stdout
    wait_for_entries(cache, "catalog-*")
    assert all(target.is_file() and not target.is_symlink() for target in cache.glob("catalog-*"))


def test_a_damaged_kept_store_is_replaced_and_answers_as_without_the_cache(
    catalog_copy: Path, tmp_path: Path
) -> None:
    """The lazy path (a repeat reads only the packages it needs from the kept store): a flipped
    byte in a bundle's blob used to surface mid-answer as the store's error and advice."""
    home = tmp_path / "home"
    argv = ("resolve", "--catalog", str(catalog_copy), "--require", "etcd", "-o", "json")
    first = deppy(home, *argv)
    wait_for_entries(home / "cache", "catalog-*")
    (entry,) = (home / "cache").glob("catalog-*")
    flip(entry, 0.4, 0.5, 0.6, 0.7)
    assert not sqlite_is_whole(entry, 1 << 30)
    for _ in range(2):
        again = deppy(home, *argv)
        assert (again.returncode, again.stdout, again.stderr) == (0, first.stdout, first.stderr)
        wait_for_entries(home / "cache", "catalog-*")
    (entry,) = (home / "cache").glob("catalog-*")
    assert sqlite_is_whole(entry, 1 << 30)
    assert deppy(home, *argv, cache=False).stdout == first.stdout
    wait_for_writers()
