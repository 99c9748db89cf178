"""A store written by the previous deppy (schema version 1, no search index) is upgraded in
place on first use — by a reading command as well as a writing one — and then answers exactly as
a store written by this deppy."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from deppy.catalog.fbc import load_catalog
from deppy.store import Store
from deppy.workflows.search import search
from tests.conftest import shared_path


def as_version_1(store: Store) -> None:
    """What version 1 of the schema held: everything but the search tables."""
    conn = sqlite3.connect(store.path)
    conn.execute("DROP TABLE search_row")
    conn.execute("DROP TABLE search_card")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()


def version_of(store: Store) -> int:
    conn = sqlite3.connect(store.path)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


@pytest.fixture(scope="module")
def catalog_path() -> Path:
    return shared_path("catalogs", "operatorhubio-upstream-2021")


def hits(store: Store, term: str) -> list[tuple[str, str, int]]:
    source = store.source()
    assert source is not None
    with source:
        return [(h.package, h.catalog, h.tier) for h in search(source, term)]


@pytest.mark.parametrize("first", ["list", "search", "add"])
def test_an_older_store_is_upgraded_on_first_use(
    tmp_path: Path, catalog_path: Path, first: str
) -> None:
    catalog = load_catalog(catalog_path, name="upstream")
    current = Store(tmp_path / "current")
    current.add(catalog)
    old = Store(tmp_path / "old")
    old.add(catalog)
    as_version_1(old)
    assert version_of(old) == 1
    if first == "list":
        assert [c.name for c in old.list()] == ["upstream"]
    elif first == "search":
        assert hits(old, "etcd") == hits(current, "etcd")
    else:
        old.add(load_catalog(catalog_path, name="second"))
    assert version_of(old) == 2
    for term in ("etcd", "prometheus", "ku"):
        assert (
            hits(old, term) == [h for h in hits(old, term) if h[1] == "upstream"] or first == "add"
        )
        upstream = [h for h in hits(old, term) if h[1] == "upstream"]
        assert upstream == hits(current, term), term
