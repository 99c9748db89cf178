"""Runs back to back share one cache writer (issue 36, "Speed, back to back").

A first ``--catalog DIR`` run answers, then its forked writer keeps the parsed catalog for
seconds more. A run started meanwhile used to find no entry, parse the whole catalog again and
start a second writer for the same entry. Now it waits for the writer when the writer should be
done sooner than a parse, and never starts a second writer for an entry being written.

A writer at work is what the cache sees of it: a live process named by a temporary file
``.tmp-PID-wSTART.DURATION-catalog-KEY``; here a ``sleep`` stands in for its process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from deppy.catalog.fbc.cache import ParsedCache
from deppy.store.cache_entries import StoredEntries
from tests.conftest import shared_path
from tests.test_cache_entry_damage import DEPPY, deppy, wait_for_entries
from tests.test_cold_path import catalog_copy

__all__ = ["catalog_copy"]

COMMUNITY = shared_path("catalogs", "community-operators-prod-v4.18")


@pytest.fixture
def stand_in() -> Iterator[int]:
    """A live process to stand for a writer of another run."""
    process = subprocess.Popen(["sleep", "120"])
    yield process.pid
    process.kill()
    process.wait()


def pretend_writing(cache: Path, catalog: Path, pid: int, seconds: float) -> tuple[str, Path]:
    """The key of ``--catalog CATALOG`` and the temporary file of a writer of its entry."""
    key = ParsedCache(cache, files=StoredEntries()).catalog_key(catalog, catalog.name, 0)
    assert key is not None
    cache.mkdir(parents=True, exist_ok=True)
    started = time.time_ns() // 1_000_000
    temporary = cache / f".tmp-{pid}-w{started}.{int(seconds * 1000)}-catalog-{key}"
    temporary.touch()
    return key, temporary


def test_a_run_never_starts_a_second_writer_for_an_entry_being_written(
    catalog_copy: Path, tmp_path: Path, stand_in: int
) -> None:
    home = tmp_path / "home"
    argv = ("resolve", "--catalog", str(catalog_copy), "--require", "etcd", "-o", "json")
    expected = deppy(tmp_path / "other", *argv, cache=False)
    _, temporary = pretend_writing(home / "cache", catalog_copy, stand_in, 0.2)
    again = deppy(home, *argv)
    assert (again.returncode, again.stdout, again.stderr) == (0, expected.stdout, expected.stderr)
    time.sleep(0.5)  # a writer it forked would have named itself at once
    assert sorted(p.name for p in (home / "cache").iterdir() if not p.name.startswith("file-")) == [
        temporary.name
    ]


def test_a_run_waits_for_the_entry_being_written_rather_than_parse_again(
    tmp_path: Path, stand_in: int
) -> None:
    argv = ("resolve", "--catalog", str(COMMUNITY), "--require", "etcd", "-o", "json")
    written = tmp_path / "written"
    first = deppy(written, *argv)
    wait_for_entries(written / "cache", "catalog-*")
    (entry,) = (written / "cache").glob("catalog-*")
    home = tmp_path / "home"
    key, temporary = pretend_writing(home / "cache", COMMUNITY, stand_in, 1.0)
    assert entry.name == f"catalog-{key}"
    env = dict(os.environ, DEPPY_HOME=str(home))
    run = subprocess.Popen(
        [*DEPPY, *argv], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    time.sleep(0.3)
    shutil.copyfile(entry, home / "cache" / ".copy")
    os.replace(home / "cache" / ".copy", home / "cache" / entry.name)  # the writer is done
    temporary.unlink()
    out, err = run.communicate(timeout=120)
    assert (run.returncode, out, err) == (0, first.stdout, first.stderr)
    kept = (home / "cache" / entry.name).stat().st_ino
    time.sleep(0.5)
    wait_for_entries(home / "cache", "catalog-*")
    # the run read the entry the writer wrote: it wrote none of its own over it
    assert (home / "cache" / entry.name).stat().st_ino == kept
    assert not list((home / "cache").glob(".tmp-*"))
