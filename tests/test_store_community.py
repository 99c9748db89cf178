"""The store against the real community index (5,572 bundles): same catalog, same answers, and
no damage from a writer killed mid-write or from readers running during a write.

The catalog is loaded and stored once for the module; tests that change a store work on a copy
of that store file in their own DEPPY_HOME.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
import pytest

from deppy.catalog.catalog_set import BundleSource, CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.catalog.model import Catalog
from deppy.resolution.request import ClusterFacts, ResolutionRequest
from deppy.resolution.request_parsing import (
    parse_exclude,
    parse_installed,
    parse_require,
    parse_version,
)
from deppy.resolution.resolver import resolve
from deppy.store import Store, StoreSource, database_path
from tests.conftest import shared_path
from tests.test_store_support import DEPPY, assert_same_catalog, deppy

NAME = "community"
EMBEDDED = Path(__file__).resolve().parents[1] / "src" / "deppy" / "data" / "catalog"


@pytest.fixture(scope="module")
def community_path() -> Path:
    return shared_path("catalogs", "community-operators-prod-v4.18")


@pytest.fixture(scope="module")
def community(community_path: Path) -> Catalog:
    return load_catalog(community_path, name=NAME)


@pytest.fixture(scope="module")
def stored_home(community: Catalog, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding the community catalog; tests must not change it (copy it instead)."""
    home = tmp_path_factory.mktemp("community-home")
    Store(home).add(community)
    return home


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "deppy-home"
    monkeypatch.setenv("DEPPY_HOME", str(path))
    return path


def env_for(home: Path) -> dict[str, str]:
    return dict(os.environ, DEPPY_HOME=str(home))


def copy_store(source: Path, target: Path) -> Store:
    target.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(database_path(source), database_path(target))
    return Store(target)


def stale_copy(source: Path, target: Path) -> Store:
    """A copy of the store whose catalog differs from its files (its problem list emptied):
    a refresh of unchanged content writes nothing, and these tests need one that writes."""
    from deppy.store.codec import encode_problems

    store = copy_store(source, target)
    with contextlib.closing(sqlite3.connect(database_path(target))) as conn, conn:
        conn.execute("UPDATE catalog SET problem_list = ?", (encode_problems(()),))
    return store


def request(
    *required: str,
    installed: tuple[str, ...] = (),
    ocp: str | None = None,
    sources: tuple[str, ...] = (),
    exclude: tuple[str, ...] = (),
) -> ResolutionRequest:
    return ResolutionRequest(
        required=tuple(parse_require(r) for r in required),
        installed=tuple(parse_installed(i) for i in installed),
        cluster=ClusterFacts(parse_version(ocp, "ocp", tolerant=True) if ocp else None),
        sources=sources,
        exclude=tuple(parse_exclude(e) for e in exclude),
    )


def answer(source: BundleSource, req: ResolutionRequest) -> bytes:
    return orjson.dumps(resolve(source, req).as_dict())


def open_source(store: Store) -> StoreSource:
    source = store.source()
    assert source is not None
    return source


# --- same catalog, same answers ------------------------------------------------------------------


def test_the_stored_catalog_is_the_loaded_catalog(community: Catalog, stored_home: Path) -> None:
    assert_same_catalog(Store(stored_home).load_catalog(NAME), community)


SCENARIOS = [
    request("etcd"),
    request("etcd,channel=clusterwide-alpha"),
    request("etcd", installed=("etcd@0.9.2,channel=singlenamespace-alpha",)),
    request("project-quay"),
    request("eclipse-che"),
    request("kuadrant-operator@0.7.1"),
    request("node-healthcheck-operator@0.1.1"),
    request("rabbitmq-messaging-topology-operator"),
    request("apicurio-registry-3", "apicurio-api-controller"),
    request("gitlab-operator-kubernetes", ocp="4.19"),
    request("dbaas-operator@0.5.0"),
    request("etcd", exclude=("olm.package=etcd",)),
    request("etcd", sources=(NAME,)),
]


def test_every_package_and_scenario_resolves_the_same_from_the_store(
    community: Catalog, stored_home: Path
) -> None:
    files = CatalogSet([community])
    with open_source(Store(stored_home)) as stored:
        for req in SCENARIOS:
            assert answer(stored, req) == answer(files, req), req
        for package in sorted({b.package for b in community.bundles.values()}):
            req = request(package)
            assert answer(stored, req) == answer(files, req), package


def test_deppy_resolve_prints_the_same_json_from_store_and_files(
    community_path: Path, stored_home: Path
) -> None:
    args = ("resolve", "--require", "rabbitmq-messaging-topology-operator", "-o", "json")
    from_store = deppy(*args, env=env_for(stored_home))
    from_files = deppy(*args, "--catalog", f"{community_path}={NAME}", env=env_for(stored_home))
    assert from_store.returncode == from_files.returncode == 0
    stored, read = json.loads(from_store.stdout), json.loads(from_files.stdout)
    # the catalog's load problems are in both answers' warnings, each naming the way to list
    # them for its own source (the stored name, the directory); the rest is byte-identical
    assert [w.rsplit("deppy catalog problems ", 1)[0] for w in stored["warnings"]] == [
        w.rsplit("deppy catalog problems ", 1)[0] for w in read["warnings"]
    ]
    assert any("deppy catalog problems community" in w for w in stored["warnings"])
    assert {**stored, "warnings": []} == {**read, "warnings": []}


# --- interrupted writers ----------------------------------------------------------------------


def wal_size(home: Path) -> int:
    wal = Path(f"{database_path(home)}-wal")
    return wal.stat().st_size if wal.exists() else 0


def kill_while_writing(argv: list[str], home: Path) -> bool:
    """Start a deppy writer and SIGKILL it once its transaction has spilled into the WAL
    (or after 60 s); True if it was still running when killed."""
    process = subprocess.Popen(
        argv, env=env_for(home), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60
    try:
        while process.poll() is None and time.monotonic() < deadline:
            if wal_size(home) > 1 << 20:
                break
            time.sleep(0.005)
        alive = process.poll() is None
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait()
    return alive


def test_a_writer_killed_mid_add_leaves_the_store_as_before(
    community_path: Path, home: Path
) -> None:
    store = Store()
    store.add(load_catalog(EMBEDDED, name="embedded"))
    before = store.list()
    assert kill_while_writing([*DEPPY, "catalog", "add", NAME, str(community_path)], home)
    after = store.list()
    # A kill before the commit leaves the old state; one after it (during the tidy-up) the new.
    assert after == before or [c.name for c in after] == [NAME, "embedded"]
    if after != before:
        assert [c.bundles for c in after] == [5572, 4]
    with open_source(store) as source:
        assert answer(source, request("observability-stack")) == answer(
            CatalogSet([load_catalog(EMBEDDED, name="embedded")]), request("observability-stack")
        )
    with sqlite3.connect(store.path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    # ... and the store still takes writes.
    if after == before:
        store.add(load_catalog(EMBEDDED, name="again"))
        assert [c.name for c in store.list()] == ["again", "embedded"]


def test_a_refresh_killed_mid_write_keeps_the_whole_catalog(
    stored_home: Path, home: Path, community: Catalog
) -> None:
    store = stale_copy(stored_home, home)
    (before,) = store.list()
    assert kill_while_writing([*DEPPY, "catalog", "refresh", NAME], home)
    (after,) = store.list()
    assert after.bundles == before.bundles == 5572
    with open_source(store) as source:
        req = request("rabbitmq-messaging-topology-operator")
        assert answer(source, req) == answer(CatalogSet([community]), req)


# --- readers during a write --------------------------------------------------------------------

READER = """
import orjson, sys, time
from pathlib import Path
from deppy.resolution.request import ResolutionRequest
from deppy.resolution.request_parsing import parse_require
from deppy.resolution.resolver import resolve
from deppy.store import Store
expected, stop = Path(sys.argv[1]).read_bytes(), Path(sys.argv[2])
reads = 0
while not stop.exists() or reads == 0:
    with Store().source() as source:
        req = ResolutionRequest(required=(parse_require("etcd"),))
        got = orjson.dumps(resolve(source, req).as_dict())
    if got != expected:
        sys.exit("inconsistent read: " + got.decode())
    reads += 1
    time.sleep(0.1)  # leave the CPU to the writer: the point is overlap, not load
print(reads)
"""


def test_readers_see_a_whole_catalog_while_it_is_refreshed(
    stored_home: Path, home: Path, community: Catalog, tmp_path: Path
) -> None:
    store = stale_copy(stored_home, home)
    expected = answer(CatalogSet([community]), request("etcd"))
    (tmp_path / "expected.json").write_bytes(expected)
    stop = tmp_path / "stop"
    env = env_for(home)
    readers = [
        subprocess.Popen(
            [sys.executable, "-c", READER, str(tmp_path / "expected.json"), str(stop)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(1)
    ]
    failures: list[str] = []
    counts: list[int] = []

    def read_in_thread() -> None:
        reads = 0
        try:
            while not stop.exists() or reads == 0:
                with open_source(Store(home)) as source:
                    if answer(source, request("etcd")) != expected:
                        failures.append("inconsistent read in a thread")
                        return
                reads += 1
                time.sleep(0.1)
        except Exception as error:  # reported below, with the others
            failures.append(repr(error))
        counts.append(reads)

    threads = [threading.Thread(target=read_in_thread) for _ in range(2)]
    for thread in threads:
        thread.start()
    writer = deppy("catalog", "refresh", NAME, env=env)
    stop.touch()
    for thread in threads:
        thread.join(60)
    outputs = [reader.communicate(timeout=60) for reader in readers]
    assert writer.returncode == 0, writer.stderr
    assert not failures
    assert all(r.returncode == 0 for r in readers), [err for _, err in outputs]
    assert all(int(out) > 0 for out, _ in outputs) and all(c > 0 for c in counts)
    (after,) = store.list()
    assert after.bundles == 5572


def test_search_from_the_store_is_search_in_memory(community: Catalog, stored_home: Path) -> None:
    """The store answers from its search index, the in-memory catalog from the bundles: same
    hits, same order, same details."""
    from deppy.workflows.search import search

    memory = CatalogSet([community])
    stored = open_source(Store(stored_home))
    try:
        for term in ("redis", "operator", "kafka", "cluster logging", "dis", "ETCD", "Backup"):
            expected = [h.as_dict() for h in search(memory, term)]
            assert [h.as_dict() for h in search(stored, term)] == expected, term
    finally:
        stored.close()
