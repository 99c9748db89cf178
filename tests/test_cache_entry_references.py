"""A parsed-catalog cache entry keeps where CSV metadata lies in the catalog files, not the
metadata (issue 36: the second of two back-to-back runs waits for the first one's writer, and
encoding and compressing every bundle's metadata was most of that writer's time).

What must hold: the entry reads back as the catalog the files give; a reader that did not ask
for a file-backed catalog (a server) holds the metadata itself; a user's store never holds
references; and ``deppy search`` on an entry, which carries no search rows, finds what a fresh
load finds.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.catalog.fbc.cache import ParsedCache
from deppy.catalog.file_values import FileValue
from deppy.store.cache_entries import CachedCatalog, StoredEntries
from deppy.store.store import Store
from deppy.workflows.search import search
from tests.conftest import shared_path
from tests.test_store_support import full

COMMUNITY = shared_path("catalogs", "community-operators-prod-v4.18")
PACKAGES = ("etcd", "shipwright-operator", "kubevirt-wol", "prometheus", "argocd-operator")


@pytest.fixture
def catalog_copy(tmp_path: Path) -> Path:
    target = tmp_path / "hub"
    for package in PACKAGES:
        shutil.copytree(COMMUNITY / package, target / package)
    return target


def _left_in_files(catalog_path: Path) -> list[tuple[str, str]]:
    """(bundle name, the start of its ``alm-examples``) for metadata left in files: text found
    nowhere but in the metadata (a description may also be the package's)."""
    lazy = load_catalog(catalog_path, name="hub", file_backed=True)
    found = []
    for bundle in lazy.bundles.values():
        meta = bundle.csv_metadata
        examples = str((meta.get("annotations") or {}).get("alm-examples", "")) if meta else ""
        if isinstance(meta, FileValue) and len(examples) > 200:
            found.append((bundle.name, examples[:200]))
    assert found, "the copy holds JSON bundles with long descriptions"
    return found


def test_an_entry_holds_where_the_metadata_lies_and_reads_back_as_the_files_say(
    catalog_copy: Path, tmp_path: Path
) -> None:
    left = _left_in_files(catalog_copy)
    lazy = load_catalog(catalog_copy, name="hub", file_backed=True)
    entry = tmp_path / "entry.sqlite3"
    StoredEntries().write(lazy, entry)
    raw = entry.read_bytes()
    for _name, examples in left:
        assert examples.encode() not in raw  # where it lies, not what it says
    back = StoredEntries().read(entry)
    assert full(back) == full(load_catalog(catalog_copy, name="hub"))
    names = {name for name, _ in left}
    assert all(
        isinstance(b.csv_metadata, FileValue) for b in back.bundles.values() if b.name in names
    )


def test_a_users_store_holds_the_metadata_itself(catalog_copy: Path, tmp_path: Path) -> None:
    """``catalog add`` keeps a catalog whatever becomes of its files."""
    lazy = load_catalog(catalog_copy, name="hub", file_backed=True)
    store = Store.in_file(tmp_path / "store.sqlite3")
    store.add(lazy)
    direct = full(load_catalog(catalog_copy, name="hub"))
    shutil.rmtree(catalog_copy)
    kept = store.load_catalog("hub")
    assert not any(isinstance(b.csv_metadata, FileValue) for b in kept.bundles.values())
    assert full(kept) == direct


def test_a_load_that_is_not_file_backed_reads_the_metadata_from_the_files_at_once(
    catalog_copy: Path, tmp_path: Path
) -> None:
    """A server loading ``--catalog DIR`` through an entry a command wrote holds every value:
    a catalog file rewritten later cannot fail an answer mid-way."""
    cache = ParsedCache(tmp_path / "cache", files=StoredEntries())
    load_catalog(catalog_copy, name="hub", cache=cache, file_backed=True)  # writes the entry
    assert cache.usage().entries >= 1
    held = load_catalog(catalog_copy, name="hub", cache=cache)
    metadata = [b.csv_metadata for b in held.bundles.values() if b.csv_metadata is not None]
    assert metadata and all(type(m) is dict for m in metadata)
    for bundle in held.bundles.values():
        for prop in bundle.properties:
            assert not isinstance(prop.value, FileValue)
    assert full(held) == full(load_catalog(catalog_copy, name="hub"))


@pytest.mark.parametrize("term", ["etcd", "prometheus", "ship", "argo", "Monitoring", "ku"])
def test_search_on_an_entry_finds_what_a_fresh_load_finds(
    catalog_copy: Path, tmp_path: Path, term: str
) -> None:
    lazy = load_catalog(catalog_copy, name="hub", file_backed=True)
    entry = tmp_path / "entry.sqlite3"
    StoredEntries().write(lazy, entry)
    cached = CachedCatalog(entry).source()
    fresh = CatalogSet([load_catalog(catalog_copy, name="hub")])
    assert search(cached, term) == search(fresh, term)
    assert search(cached, term)
