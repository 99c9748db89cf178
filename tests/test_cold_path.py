"""The cold path (issue 21) and what a catalog value may be (issue 19, item 2).

* YAML built from libyaml's events gives PyYAML's own values on every ../shared catalog and on
  the YAML 1.1 corners, and keeps the input limits;
* the parsed-catalog cache gives the same catalog and the same answers byte for byte, reads
  only changed files, survives damaged entries and stays within its bound;
* values JSON cannot carry never get past the guard: answers are written in every format.
"""

from __future__ import annotations

import datetime
import os
import pickle
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from deppy.catalog.fbc import load_catalog, parsing
from deppy.catalog.fbc.cache import CatalogFiles, ParsedCache, wait_for_writers
from deppy.catalog.file_values import FileValue, plain
from deppy.errors import InputError
from deppy.input_limits import (
    MAX_DEPTH,
    UnsafeInput,
    UnsafeValue,
    check_yaml,
    yaml_documents,
    yaml_value,
)
from deppy.input_limits import yaml_events as events
from deppy.resolution.request_parsing import parse_exclude, parse_installed, parse_require
from deppy.store.cache_entries import StoredEntries
from tests.conftest import shared_path
from tests.service_support import client, paths_app
from tests.test_store_support import full
from tests.workflow_helpers import run

CATALOGS = shared_path("catalogs")
MIXED = (
    "etcd",
    "shipwright-operator",
    "kubevirt-wol",
    "odf-node-recovery-operator",
    "libredb-studio-operator",
    "rabbitmq-cluster-operator",
)
DEMO = """\
schema: olm.package
name: demo
defaultChannel: stable
---
schema: olm.channel
package: demo
name: stable
entries:
  - name: demo.v1.0.0
  - name: demo.v1.1.0
    replaces: demo.v1.0.0
---
schema: olm.bundle
name: demo.v1.0.0
package: demo
image: quay.io/demo:1.0.0
properties:
  - {type: olm.package, value: {packageName: demo, version: 1.0.0}}
  - {type: custom.big, value: 123456789012345678901234567890}
  - {type: custom.when, value: 2021-03-04T05:06:07Z}
---
schema: olm.bundle
name: demo.v1.1.0
package: demo
image: quay.io/demo:1.1.0
properties:
  - {type: olm.package, value: {packageName: demo, version: 1.1.0}}
  - {type: custom.raw, value: !!binary aGVsbG8=}
"""


class Reference(yaml.CSafeLoader):
    """PyYAML's safe loader itself (libyaml), mapping keys made text as deppy makes them."""

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        from deppy.input_limits import key_text

        self.flatten_mapping(node)
        return {
            key_text(self.construct_object(k, deep=deep)): self.construct_object(v, deep=deep)
            for k, v in node.value
        }


def pyyaml(data: bytes | str) -> list[Any]:
    return list(yaml.load_all(data, Loader=Reference))


def same_values(ours: Any, theirs: Any) -> bool:
    """Equal, types included; a PyYAML timestamp is deppy's text of it."""
    if isinstance(theirs, datetime.date):
        return isinstance(ours, str) and yaml.safe_load(ours) == theirs
    if isinstance(theirs, dict):
        return (
            type(ours) is dict
            and list(ours) == list(theirs)
            and all(same_values(ours[k], v) for k, v in theirs.items())
        )
    if isinstance(theirs, list):
        return (
            type(ours) is list
            and len(ours) == len(theirs)
            and all(same_values(a, b) for a, b in zip(ours, theirs, strict=True))
        )
    return type(ours) is type(theirs) and ours == theirs


# -- YAML from events: PyYAML's values, the limits kept -----------------------------------------


def test_every_shared_catalog_reads_as_pyyaml_reads_it_object_for_object() -> None:
    files = sorted(CATALOGS.rglob("*.yaml"))
    assert len(files) > 40
    converted = 0
    for path in files:
        data = path.read_bytes()
        ours, theirs = yaml_documents(data), pyyaml(data)
        assert len(ours) == len(theirs), path
        for a, b in zip(ours, theirs, strict=True):
            assert same_values(a, b), path
        converted += "datetime" in repr(theirs)
    assert converted >= 3  # real catalogs hold unquoted timestamps (createdAt)


CORNERS = [
    "a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: n\n",
    "a: 0o17\nb: 017\nc: 0x1F\nd: 0b101\ne: 1_000\nf: 1:30\ng: -0\nh: +12\n",
    "a: 1.5\nb: 1e3\nc: 6.8523015e+5\nd: 190:20:30.15\ne: .5\nf: -.0\n",
    "a: ~\nb: null\nc: Null\nd:\ne: ''\nf: '1'\ng: \"true\"\n",
    "1: a\ntrue: b\nnull: c\n1.5: d\n2001-12-14: e\n",
    "a: 2001-12-14t21:59:43.10-05:00\nb: 2002-12-14\nc: '2002-12-14'\n",
    'a: |\n  text\n  more\nb: >\n  folded\n  text\nc: "esc\\taped\\u00e9"\n',
    "a: 1\na: 2\nb: [1, {c: d}, [e]]\n",
    "---\n---\na: 1\n...\n---\n- x\n",
    "# only a comment\n",
    "",
    "[a, b, {c: 1}]",
    "a: !!str 12\nb: !!int '7'\n",  # explicit tags: the loader's path
    "a: &x [1, 2]\nb: *x\n",  # an alias: the loader's path
    "base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n",  # a merge key
]


@pytest.mark.parametrize("text", CORNERS)
def test_yaml_corners_read_as_pyyaml_reads_them(text: str) -> None:
    ours, theirs = yaml_documents(text), pyyaml(text)
    assert len(ours) == len(theirs)
    assert all(same_values(a, b) for a, b in zip(ours, theirs, strict=True))


def test_plain_streams_never_reach_the_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("the loader ran")

    monkeypatch.setattr(yaml, "load_all", refuse)
    data = (
        CATALOGS / "community-operators-prod-v4.18" / "hive-operator" / "catalog.yaml"
    ).read_bytes()
    assert len(yaml_documents(data)) > 10


def test_limits_hold_on_the_event_path(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UnsafeInput, match="nested more than"):
        yaml_documents("- " * (MAX_DEPTH + 1) + "x\n")
    yaml_documents("- " * MAX_DEPTH + "x\n")
    monkeypatch.setattr(events, "MAX_YAML_NODES", 50)
    with pytest.raises(UnsafeInput, match="more than 50 nodes"):
        yaml_documents("[" + ", ".join(["x"] * 60) + "]")
    with pytest.raises(UnsafeInput, match="more than 50 nodes"):
        yaml_documents("[" + ", ".join(["[]"] * 60) + "]")  # containers count too
    yaml_documents("[" + ", ".join(["x"] * 40) + "]\n---\n[" + ", ".join(["x"] * 40) + "]")
    with pytest.raises(UnsafeInput, match="refers to its own anchor"):
        yaml_documents("&a [*a]")


def test_syntax_errors_are_yaml_errors_with_the_line() -> None:
    with pytest.raises(yaml.YAMLError) as raised:
        yaml_documents("a: 1\nb: [2\nc: 3\n")
    assert raised.value.problem_mark is not None  # type: ignore[attr-defined]
    with pytest.raises(yaml.YAMLError, match="expected a single document"):
        yaml_value("a\n---\nb\n")
    with pytest.raises(yaml.YAMLError, match="found a key that is a list"):
        yaml_documents("? [a]\n: b\n")


# -- issue 19 item 2: only JSON values past the guard -------------------------------------------


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("a: !!binary aGVsbG8=\n", "!!binary value at line 1"),
        ("a: !!set {x, y}\n", "!!set value"),
        ("a: !!omap [{x: 1}]\n", "!!omap value"),
        ("a: .nan\n", "not finite"),
        ("b: 1\na: -.inf\n", "number at line 2 is not finite"),
        ("a: 1.0e+400\n", "not finite"),
    ],
)
def test_values_json_cannot_carry_are_refused_with_their_line(text: str, refused: str) -> None:
    with pytest.raises(UnsafeInput, match=refused):
        yaml_documents(text)


def test_timestamps_stay_text_and_huge_integers_become_floats_with_a_note() -> None:
    notes: list[UnsafeValue] = []
    token = events.NOTES.set(notes)
    try:
        value = yaml_value(
            "a: 2021-03-04T05:06:07Z\nb: 18446744073709551616\nc: 18446744073709551615\n"
        )
    finally:
        events.NOTES.reset(token)
    assert value == {"a": "2021-03-04T05:06:07Z", "b": 2.0**64, "c": 2**64 - 1}
    assert type(value["b"]) is float and type(value["c"]) is int
    assert [str(note) for note in notes] == [
        "the integer at line 2 does not fit in 64 bits; it is read as the number "
        "1.8446744073709552e+19 (as Kubernetes reads it); quote it to keep its digits"
    ]


def test_a_catalog_with_bytes_and_huge_numbers_answers_in_every_format(tmp_path: Path) -> None:
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "catalog.yaml").write_text(DEMO)
    for output in ("json", "yaml", "text", "table", "html"):
        code, out, err = run(
            "resolve", "--catalog", str(tmp_path / "demo"), "--require", "demo", "-o", output
        )
        assert code == 0 and "Traceback" not in err, (output, err)
    code, out, _ = run(
        "resolve", "--catalog", str(tmp_path / "demo"), "--require", "demo", "-o", "json"
    )
    assert '"value": 1.2345678901234568e+29' in out and '"2021-03-04T05:06:07Z"' in out
    code, out, _ = run("catalog", "problems", str(tmp_path / "demo"))
    assert "a !!binary value at line 28, which JSON cannot carry" in out
    assert "the integer at line 19 does not fit in 64 bits" in out


def test_the_service_answers_such_catalogs_without_a_500(tmp_path: Path) -> None:
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "catalog.yaml").write_text(DEMO)
    with client(paths_app(f"{tmp_path / 'demo'}=demo")) as api:
        answer = api.post("/api/v1/resolve", json={"spec": {"constraints": ["required(demo)"]}})
        assert answer.status_code == 200, answer.text
        bundle = api.get("/api/v1/packages/demo/bundles/demo.v1.0.0")
        assert bundle.status_code == 200, bundle.text
        assert "1.2345678901234568e+29" in bundle.text


@pytest.mark.parametrize("parse", [parse_installed, parse_require, parse_exclude])
def test_a_lone_surrogate_in_a_library_spec_is_an_input_error(parse: Any) -> None:
    with pytest.raises(InputError, match="not valid UTF-8 text"):
        parse("etcd@1.0.0,channel=\udcff" if parse is not parse_exclude else "olm.label=\udcff")


# -- the parsed-catalog cache -------------------------------------------------------------------


@pytest.fixture
def catalog_copy(tmp_path: Path) -> Path:
    """A real catalog of YAML and JSON files (packages of community v4.18) a test may change."""
    target = tmp_path / "hub"
    for package in MIXED:
        shutil.copytree(CATALOGS / "community-operators-prod-v4.18" / package, target / package)
    return target


def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The YAML files parsed (not read from the cache) from now on."""
    seen: list[str] = []
    parse = parsing._parse_file

    def counted(root: Path, rel: str, cache: ParsedCache | None) -> Any:
        seen.append(rel)
        return parse(root, rel, cache)

    monkeypatch.setattr(parsing, "_parse_file", counted)
    return seen


# Whole catalogs kept as pickles (the catalog layer's own format) or as one-catalog SQLite
# stores (what the front doors keep, read lazily by a repeated --catalog run).
ENTRY_FORMATS = [pytest.param(None, id="pickled"), pytest.param(StoredEntries(), id="stored")]


@pytest.mark.parametrize("files", ENTRY_FORMATS)
def test_a_cached_catalog_is_the_same_catalog(
    catalog_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: CatalogFiles
) -> None:
    cache = ParsedCache(tmp_path / "cache", files=files)
    direct = load_catalog(catalog_copy, name="hub")
    first = load_catalog(catalog_copy, name="hub", cache=cache)
    seen = parses(monkeypatch)
    again = load_catalog(catalog_copy, name="hub", cache=cache)
    assert seen == []
    assert full(direct) == full(first) == full(again)
    assert load_catalog(catalog_copy, name="other", cache=cache).name == "other"


@pytest.mark.parametrize("files", ENTRY_FORMATS)
def test_a_changed_directory_parses_only_its_changed_files(
    catalog_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: CatalogFiles
) -> None:
    cache = ParsedCache(tmp_path / "cache", files=files)
    load_catalog(catalog_copy, name="hub", cache=cache)
    changed = next(iter(sorted(catalog_copy.rglob("*.yaml"))))
    changed.write_text(
        changed.read_text().replace("schema: olm.package", "schema: olm.package  # edited", 1)
    )
    seen = parses(monkeypatch)
    loaded = load_catalog(catalog_copy, name="hub", cache=cache)
    assert seen == [str(changed.relative_to(catalog_copy))]
    assert full(loaded) == full(load_catalog(catalog_copy, name="hub"))


@pytest.mark.parametrize("files", ENTRY_FORMATS)
def test_damaged_entries_count_as_missing(
    catalog_copy: Path, tmp_path: Path, files: CatalogFiles
) -> None:
    cache = ParsedCache(tmp_path / "cache", files=files)
    direct = load_catalog(catalog_copy, name="hub", cache=cache)
    for entry in (tmp_path / "cache").iterdir():
        entry.write_bytes(entry.read_bytes()[:100])  # as a torn write would leave it
    (tmp_path / "cache" / ".tmp-999-catalog-x").write_bytes(b"left by a killed run")
    assert full(load_catalog(catalog_copy, name="hub", cache=cache)) == full(direct)
    assert full(load_catalog(catalog_copy, name="hub", cache=cache)) == full(direct)


def test_the_cache_stays_within_its_bound(catalog_copy: Path, tmp_path: Path) -> None:
    bound = 300_000
    cache = ParsedCache(tmp_path / "cache", max_bytes=bound)
    for name in ("a", "b", "c"):
        load_catalog(catalog_copy, name=name, cache=cache)
    assert 0 < cache.usage().size <= bound


def test_answers_are_byte_identical_with_and_without_the_cache(
    catalog_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ("resolve", "--catalog", str(catalog_copy), "--require", "etcd", "-o", "json")
    cold = run(*argv)
    warm = run(*argv)
    monkeypatch.setenv("DEPPY_CACHE", "off")
    off = run(*argv)
    assert cold == warm == off and cold[0] == 0
    monkeypatch.delenv("DEPPY_CACHE")
    code, out, _ = run("cache", "info")
    assert code == 0 and " 0 entries" not in out
    code, out, _ = run("cache", "clear")
    assert code == 0 and out.startswith("cleared ")
    code, out, _ = run("cache", "info")
    assert " 0 entries, 0.0 MB" in out


BROKEN_BUNDLE = b'{"schema": "olm.bundle", "name": "orphan.v1.0.0"}\n'
REPEATED = (
    ("resolve", "--require", "etcd", "-o", "json"),
    ("resolve", "--require", "etcd", "--require", "kubevirt-wol"),
    ("resolve", "--require", "etcd@>=9"),
    ("resolve", "--require", "etcdd"),
    ("show", "shipwright-operator", "-o", "json"),
    ("search", "operator"),
    ("upgrades", "--installed", "etcd@0.9.2,channel=singlenamespace-alpha"),
)


def test_a_repeat_reads_the_kept_store_lazily_and_says_the_same(
    catalog_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Answers, warnings and errors of a repeat over an unchanged directory come from its
    cache entry without loading the catalog, and are those of a load from the files."""
    (catalog_copy / "broken.json").write_bytes(BROKEN_BUNDLE)  # a load problem to warn about
    at = ("--catalog", str(catalog_copy))
    first = run(*REPEATED[0], *at)
    wait_for_writers()
    from deppy.catalog import bundle_tree

    def refuse(*_: Any, **__: Any) -> None:
        raise AssertionError("the catalog was loaded again")

    monkeypatch.setattr(bundle_tree, "load_any_catalog", refuse)
    warm = [run(*argv, *at) for argv in REPEATED]
    monkeypatch.undo()
    monkeypatch.setenv("DEPPY_CACHE", "off")
    files = [run(*argv, *at) for argv in REPEATED]
    assert warm == files and warm[0] == first
    assert "1 invalid object skipped" in files[1][2]
    assert [code for code, _, _ in files] == [0, 0, 2, 1, 0, 0, 0]


def test_a_damaged_kept_store_is_a_missing_one(
    catalog_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = ("resolve", "--require", "etcd", "-o", "json", "--catalog", str(catalog_copy))
    first = run(*at)
    wait_for_writers()
    cache = Path(os.environ["DEPPY_HOME"]) / "cache"
    (entry,) = cache.glob("catalog-*")
    entry.write_bytes(entry.read_bytes()[:5000])  # as a torn copy would leave it
    assert run(*at) == first
    wait_for_writers()
    assert run(*at) == first


def test_a_changed_file_is_never_answered_from_the_old_entry(
    catalog_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = ("--require", "etcd", "-o", "json", "--catalog", str(catalog_copy))
    before = run("resolve", *at)
    wait_for_writers()
    etcd = catalog_copy / "etcd" / "catalog.json"
    entry = ',{"name":"etcdoperator.v0.9.4","replaces":"etcdoperator.v0.9.2"}'
    assert entry in etcd.read_text()
    etcd.write_text(etcd.read_text().replace(entry, ""))  # 0.9.4 leaves its channel
    after = run("resolve", *at)
    monkeypatch.setenv("DEPPY_CACHE", "off")
    assert after == run("resolve", *at)
    assert '"0.9.4"' in before[1] and '"0.9.4"' not in after[1]


def test_parallel_parsing_gives_the_same_catalog(
    catalog_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files recorded by two processes merge into the catalog one process loads: duplicates
    across files, second deprecations and broken objects are found in file order."""
    etcd = (catalog_copy / "etcd" / "catalog.json").read_text()
    (catalog_copy / "a-first.yaml").write_text(
        "- not a mapping\n---\nschema: olm.package\nname: etcd\n---\nfoo: bar\n"
    )
    (catalog_copy / "z-again.json").write_text(
        etcd
        + '{"schema": "olm.bundle", "name": "broken"}\n'
        + '{"schema": "olm.deprecations", "package": "etcd", "entries": []}\n'
        + '{"schema": "olm.deprecations", "package": "etcd", "entries": "no"}\n'
    )
    alone = load_catalog(catalog_copy, name="hub")
    said = [p.why.split(",")[0] for p in alone.problems]
    assert said.count("duplicate bundle") == 6 and said.count("duplicate package") == 2
    assert any(why.startswith("second olm.deprecations") for why in said)
    monkeypatch.setattr(parsing, "PARALLEL_MIN_BYTES", 0)
    # threads other tests left in this process would keep a command from forking; not here
    monkeypatch.setattr(parsing, "_can_fork", lambda: True)
    started: list[int] = []
    start = parsing._start_worker

    def recorded(*args: Any) -> Any:
        worker = start(*args)
        started.append(worker[0] if worker else 0)
        return worker

    monkeypatch.setattr(parsing, "_start_worker", recorded)
    assert full(load_catalog(catalog_copy, name="hub")) == full(alone)
    assert started and started[0] > 0
    assert os.getpid() not in started


def test_metadata_left_in_its_files_reads_as_loaded(
    catalog_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-shot load leaves the CSV metadata of JSON streams in their files: the same
    catalog, a small fraction to hold and to send between processes, the same cache entry."""
    direct = load_catalog(catalog_copy, name="hub")
    lazy = load_catalog(catalog_copy, name="hub", file_backed=True)
    assert full(lazy) == full(direct)
    left = [b for b in lazy.bundles.values() if isinstance(b.csv_metadata, FileValue)]
    from_json = [b for b in lazy.bundles.values() if ".json:" in b.source]
    assert left and len(left) == len(from_json)
    assert all(b.csv_metadata == direct.bundles[b.key].csv_metadata for b in left)
    assert len(pickle.dumps(left)) * 3 < len(pickle.dumps([direct.bundles[b.key] for b in left]))
    monkeypatch.setattr(parsing, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(parsing, "_can_fork", lambda: True)
    assert full(load_catalog(catalog_copy, name="hub", file_backed=True)) == full(direct)
    entries = StoredEntries()
    entries.write(lazy, tmp_path / "lazy.sqlite3")
    entries.write(direct, tmp_path / "direct.sqlite3")
    assert full(entries.read(tmp_path / "lazy.sqlite3")) == full(
        entries.read(tmp_path / "direct.sqlite3")
    )


def test_a_catalog_file_changed_after_loading_is_said_not_read(catalog_copy: Path) -> None:
    lazy = load_catalog(catalog_copy, name="hub", file_backed=True)
    first, second = [b for b in lazy.bundles.values() if isinstance(b.csv_metadata, FileValue)][:2]
    assert first.csv_metadata is not None and second.csv_metadata is not None
    assert first.csv_metadata.get("displayName")  # read while the file is as it was
    path = Path(second.csv_metadata.origin[0])
    path.write_bytes(path.read_bytes().replace(b'"displayName"', b'"displayname"'))
    with pytest.raises(InputError, match="changed while deppy was reading it") as info:
        plain(second.csv_metadata)
    assert str(path) in str(info.value) and "run the command again" in str(info.value)


def test_check_yaml_still_guards_the_loader_path() -> None:
    with pytest.raises(UnsafeInput, match="aliases expand"):
        check_yaml(
            "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            + "".join(
                f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n"
                for i in range(5)
            )
        )


def test_no_helper_process_is_forked_off_the_main_thread(
    catalog_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A service or controller loads catalogs on worker threads: no fork there."""
    import threading

    monkeypatch.setattr(parsing, "PARALLEL_MIN_BYTES", 0)

    def refuse(*_: Any) -> None:
        raise AssertionError("forked off the main thread")

    monkeypatch.setattr(parsing, "_start_worker", refuse)
    loaded: list[Any] = []
    thread = threading.Thread(target=lambda: loaded.append(load_catalog(catalog_copy)))
    thread.start()
    thread.join()
    assert loaded and loaded[0].bundles
