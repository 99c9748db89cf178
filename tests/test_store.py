"""The catalog store's API: exact round trips, the lazy BundleSource, removal and refresh.

Every test has its own DEPPY_HOME under tmp_path; the real per-user store is never touched.
"""

from __future__ import annotations

import datetime
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.catalog.model import Catalog
from deppy.errors import InputError
from deppy.store import Store, StoreError, database_path, store_home
from deppy.store.values import pack, unpack
from tests.conftest import shared_path
from tests.test_store_support import DEPPY, assert_same_catalog, assert_same_source, full

DATA = Path(__file__).resolve().parent / "data"
TRICKY = DATA / "store" / "tricky"
APPS = DATA / "olm" / "cli" / "apps"
INFRA = DATA / "olm" / "cli" / "infra"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "deppy-home"
    monkeypatch.setenv("DEPPY_HOME", str(path))
    return path


def small_catalogs() -> list[Catalog]:
    return [
        load_catalog(TRICKY, name="tricky", priority=0),
        load_catalog(APPS, name="apps", priority=10),
        load_catalog(INFRA, name="infra", priority=0),
    ]


# --- values ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        {"a": [1, 2.5, None, True, "x"], "b": {"c": "é"}},
        {"createdAt": datetime.datetime(2021, 3, 4, 5, 6, 7, tzinfo=datetime.UTC)},
        [datetime.date(2020, 1, 2), datetime.datetime(2020, 1, 2, 3, 4, 5)],
        {1: "one", 2.5: "two", None: "nothing", False: "no"},
        {"n": 2**70, "m": -(2**65)},
        {"raw": b"\x00\xff", "set": {1, 2}, "frozen": frozenset({"a"})},
        {"\x00deppy": "a real key that looks like the tag"},
        {"path": "bad-\udcff-bytes"},
    ],
)
def test_raw_values_come_back_with_their_types(value: object) -> None:
    back = unpack(pack(value))
    assert full(back) == full(value)


def test_json_values_take_the_fast_path() -> None:
    assert pack({"a": [1, "b"]}).startswith(b"J")
    assert pack({"a": datetime.date(2020, 1, 1)}).startswith(b"T")
    # tuples are the codec's own lists, on both paths
    assert unpack(pack(("a", 1))) == ["a", 1] == unpack(pack(("a", 1, {2: 3})))[:2]


# --- round trips -------------------------------------------------------------------------------


def test_add_list_load_round_trip_is_exact(home: Path) -> None:
    store = Store()
    loaded = small_catalogs()
    for catalog in loaded:
        store.add(catalog)
    assert [c.name for c in store.list()] == ["apps", "infra", "tricky"]  # priority, then name
    tricky = store.find("tricky")
    assert tricky is not None
    assert (tricky.packages, tricky.channels, tricky.bundles, tricky.problems) == (3, 4, 5, 4)
    assert tricky.path == str(TRICKY) and tricky.priority == 0
    for catalog in loaded:
        assert_same_catalog(store.load_catalog(catalog.name), catalog)
    assert database_path() == home / "catalogs.sqlite3" and store.path.is_file()


@pytest.mark.parametrize(
    "tree",
    ["operatorhubio-upstream-2021", "odf-operator-dev-catalog", "redhat-operator-index-excerpts"],
)
def test_real_catalogs_round_trip(tree: str) -> None:
    catalog = load_catalog(shared_path("catalogs", tree), name="real", priority=3)
    store = Store()
    store.add(catalog)
    assert_same_catalog(store.load_catalog("real"), catalog)


def test_store_source_answers_as_the_in_memory_set() -> None:
    loaded = small_catalogs()
    store = Store()
    for catalog in loaded:
        store.add(catalog)
    packages = sorted({b.package for c in loaded for b in c.bundles.values()} | {"empty"})
    source = store.source()
    assert source is not None
    with source:
        memory = CatalogSet(loaded)
        assert_same_source(source, memory, packages)
        assert [full(b) for b in source.all_bundles()] == [full(b) for b in memory.all_bundles()]
        assert_same_source(
            source.restricted(["tricky", "infra"]), memory.restricted(["tricky", "infra"]), packages
        )
        with pytest.raises(InputError, match="'nope': no catalog has this name"):
            source.restricted(["nope"])
        narrowed = source.restricted(["tricky"])
        with pytest.raises(InputError, match="known catalogs: tricky"):
            narrowed.restricted(["apps"])


def test_named_source_keeps_only_those_catalogs() -> None:
    store = Store()
    for catalog in small_catalogs():
        store.add(catalog)
    source = store.source(["infra"])
    assert source is not None
    assert source.names() == ["infra"]
    assert all(b.catalog == "infra" for p in source.package_names() for b in source.bundles_of(p))
    source.close()


# --- changes -----------------------------------------------------------------------------------


def test_remove_drops_every_row_of_the_catalog(home: Path) -> None:
    store = Store()
    for catalog in small_catalogs():
        store.add(catalog)
    removed = store.remove("tricky")
    assert removed.name == "tricky" and removed.bundles == 5
    assert [c.name for c in store.list()] == ["apps", "infra"]
    with sqlite3.connect(store.path) as conn:
        for table in ("package", "bundle", "provided_api", "label"):
            ids = {row[0] for row in conn.execute(f"SELECT DISTINCT catalog_id FROM {table}")}
            live = {row[0] for row in conn.execute("SELECT id FROM catalog")}
            assert ids <= live, table
    with pytest.raises(InputError, match="stored catalogs: apps, infra"):
        store.remove("tricky")
    with pytest.raises(InputError, match="'tricky': no stored catalog has this name"):
        store.load_catalog("tricky")


def test_duplicate_add_is_refused_and_changes_nothing() -> None:
    store = Store()
    catalog = load_catalog(APPS, name="apps")
    store.add(catalog)
    before = store.list()
    with pytest.raises(InputError, match="already in the store"):
        store.add(load_catalog(INFRA, name="apps"))
    assert store.list() == before
    assert_same_catalog(store.load_catalog("apps"), catalog)


def test_refresh_replaces_the_catalog_and_keeps_its_priority(tmp_path: Path) -> None:
    tree = tmp_path / "catalog"
    shutil.copytree(TRICKY, tree)
    store = Store()
    store.add(load_catalog(tree, name="mine", priority=7))
    (tree / "beta.json").unlink()
    fresh = load_catalog(tree, name="mine", priority=7)
    stored = store.replace(fresh)
    assert stored.priority == 7 and stored.bundles == len(fresh.bundles) == 3
    assert_same_catalog(store.load_catalog("mine"), fresh)
    with pytest.raises(InputError, match="no stored catalog has this name"):
        store.replace(load_catalog(APPS, name="other"))


def test_an_open_source_keeps_reading_the_state_it_started_with(tmp_path: Path) -> None:
    tree = tmp_path / "catalog"
    shutil.copytree(TRICKY, tree)
    store = Store()
    store.add(load_catalog(tree, name="mine"))
    before = store.source()
    assert before is not None
    (tree / "beta.json").unlink()
    store.replace(load_catalog(tree, name="mine"))
    store.add(load_catalog(APPS, name="apps"))
    with before:
        assert before.names() == ["mine"]
        assert [b.name for b in before.bundles_of("beta")] == ["beta.v1.0.0", "beta.v2.0.0"]
    after = store.source()
    assert after is not None
    with after:
        assert after.names() == ["apps", "mine"]
        assert after.bundles_of("beta") == []


# --- the store file ----------------------------------------------------------------------------


def test_reading_never_creates_the_store(home: Path) -> None:
    store = Store()
    assert store.list() == [] and store.find("x") is None and store.source() is None
    with pytest.raises(InputError, match="the store is empty"):
        store.load_catalog("x")
    with pytest.raises(InputError, match="the store is empty"):
        store.remove("x")
    with pytest.raises(InputError, match="the store is empty"):
        store.replace(load_catalog(APPS, name="x"))
    assert not home.exists()


def test_an_emptied_store_reads_as_empty() -> None:
    store = Store()
    store.add(load_catalog(APPS, name="apps"))
    store.remove("apps")
    assert store.list() == [] and store.source() is None


def test_deppy_home_decides_where_the_store_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "elsewhere"))
    assert store_home() == tmp_path / "elsewhere"
    Store().add(load_catalog(APPS, name="apps"))
    assert (tmp_path / "elsewhere" / "catalogs.sqlite3").is_file()
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "other"))
    assert Store().list() == []
    assert [c.name for c in Store(tmp_path / "elsewhere").list()] == ["apps"]


def test_a_store_from_another_schema_version_is_one_clear_error() -> None:
    store = Store()
    store.add(load_catalog(APPS, name="apps"))
    with sqlite3.connect(store.path) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError) as caught:
        store.list()
    message = str(caught.value)
    assert str(store.path) in message and "schema version 99" in message
    assert "\n" not in message


def test_a_file_that_is_not_a_store_is_one_clear_error(home: Path) -> None:
    home.mkdir()
    (home / "catalogs.sqlite3").write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="not a usable catalog store"):
        Store().list()
    with pytest.raises(StoreError, match="not a usable catalog store"):
        Store().add(load_catalog(APPS, name="apps"))


def test_damaged_stored_data_is_one_clear_error() -> None:
    store = Store()
    store.add(load_catalog(APPS, name="apps"))
    with sqlite3.connect(store.path) as conn:
        conn.execute("UPDATE bundle SET data = X'00010203' WHERE name = 'webapp.v1.2.0'")
    source = store.source()
    assert source is not None
    with source, pytest.raises(StoreError) as caught:
        source.bundles_of("webapp")
    message = str(caught.value)
    assert "package webapp in catalog apps cannot be read" in message
    assert "deppy catalog refresh" in message and "\n" not in message
    with pytest.raises(StoreError, match="cannot be read"):
        store.load_catalog("apps")


def test_writers_at_the_same_time_wait_for_each_other(home: Path) -> None:
    env = dict(os.environ, DEPPY_HOME=str(home))
    jobs = [("apps", APPS), ("infra", INFRA), ("tricky", TRICKY), ("same", APPS), ("same", INFRA)]
    running = [
        subprocess.Popen(
            [*DEPPY, "catalog", "add", name, str(path)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, path in jobs
    ]
    outputs = [p.communicate(timeout=120) for p in running]
    results = [(p.returncode, out, err) for p, (out, err) in zip(running, outputs, strict=True)]
    assert [code for code, _, _ in results[:3]] == [0, 0, 0]
    same = sorted(code for code, _, _ in results[3:])
    assert same == [0, 2]
    assert any("already in the store" in err for _, _, err in results[3:])
    assert [c.name for c in Store().list()] == ["apps", "infra", "same", "tricky"]
    with sqlite3.connect(Store().path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
