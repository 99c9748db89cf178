"""Older index images: operator-registry's SQLite index read as ``opm render`` reads it
(issue 46, item 3), and ``deppy catalog render`` (item 5).

The reference is operator-registry's own fixtures (tests/data/operator-registry, see its
README): the SQLite index rendered equal to its FBC twin, property for property, and a real
index of an older schema (APIs by channel entry) rendered and resolved. Older schemas
(before the ``properties`` table; before bundles had a version column) are written with the
CREATE TABLE statements of operator-registry's migrations of the time
(tests/sqlite_index_writer.py).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from deppy.catalog.fbc import load_catalog
from deppy.catalog.sqlite_index import index_objects, load_sqlite_catalog, read_index
from deppy.cluster.fbc_render import catalog_objects
from deppy.errors import InputError
from deppy.input_limits.streams import MAX_STREAM_BYTES
from tests.sqlite_index_writer import (
    BEFORE_PROPERTIES,
    BEFORE_VERSIONS,
    MODERN,
    write_sqlite_index,
)
from tests.workflow_helpers import run as cli

FIXTURES = Path(__file__).parent / "data" / "operator-registry"
INDEX = FIXTURES / "foo-index-v0.2.0-sqlite" / "database" / "index.db"
TWIN = FIXTURES / "foo-index-v0.2.0-declcfg" / "foo" / "index.yaml"
CHANNEL_PROPERTIES = ("olm.channel", "olm.skips", "olm.skipRange")


def by_schema(objects: list[dict[str, Any]], schema: str) -> dict[str, dict[str, Any]]:
    return {o["name"]: o for o in objects if o["schema"] == schema}


def entries_of(objects: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """(channel, bundle) → the channel entry."""
    return {
        (o["name"], e["name"]): e
        for o in objects
        if o["schema"] == "olm.channel"
        for e in o["entries"]
    }


# -- operator-registry's fixture ------------------------------------------------------------


def test_the_index_renders_as_its_fbc_twin_property_for_property() -> None:
    rendered = index_objects(INDEX, where=str(INDEX))
    twin = list(yaml.safe_load_all(TWIN.read_text()))
    assert [o["schema"] for o in rendered] == [
        "olm.package",
        "olm.channel",
        "olm.bundle",
        "olm.bundle",
    ]
    ours, theirs = by_schema(rendered, "olm.package"), by_schema(twin, "olm.package")
    assert ours == theirs
    ours_bundles, twin_bundles = by_schema(rendered, "olm.bundle"), by_schema(twin, "olm.bundle")
    assert sorted(ours_bundles) == sorted(twin_bundles) == ["foo.v0.1.0", "foo.v0.2.0"]
    entries = entries_of(rendered)
    for name, expected in twin_bundles.items():
        bundle = ours_bundles[name]
        assert (bundle["package"], bundle["image"]) == (expected["package"], expected["image"])
        kept = [
            p
            for p in expected["properties"]
            if p["type"] not in (*CHANNEL_PROPERTIES, "olm.bundle.object")
        ]
        assert [p for p in bundle["properties"] if p["type"] != "olm.bundle.object"] == kept
        # the twin's channel properties (as opm wrote channels in 2021) are our channel entries
        for prop in expected["properties"]:
            if prop["type"] == "olm.channel":
                entry = entries[(prop["value"]["name"], name)]
                assert entry.get("replaces") == prop["value"].get("replaces")
        skips = [p["value"] for p in expected["properties"] if p["type"] == "olm.skips"]
        ranges = [p["value"] for p in expected["properties"] if p["type"] == "olm.skipRange"]
        entry = entries[("beta", name)]
        assert entry.get("skips", []) == skips
        assert [entry["skipRange"]] == ranges
        # the manifests themselves, though the comparison leaves their order out
        ours_objects = sorted(
            base64.b64decode(p["value"]["data"])
            for p in bundle["properties"]
            if p["type"] == "olm.bundle.object"
        )
        twin_objects = sorted(
            base64.b64decode(p["value"]["data"])
            for p in expected["properties"]
            if p["type"] == "olm.bundle.object"
        )
        assert ours_objects == twin_objects
        assert {(i.get("name", ""), i["image"]) for i in bundle["relatedImages"]} == {
            (i.get("name", ""), i["image"]) for i in expected["relatedImages"]
        }


def test_the_index_is_read_without_a_byte_written(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    copy = folder / "index.db"
    shutil.copy(INDEX, copy)
    before = (copy.read_bytes(), copy.stat().st_mtime_ns)
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)  # not even a journal could be made here
    try:
        read_index(copy, where="x")
        code, _out, err = cli("catalog", "render", str(copy))
    finally:
        folder.chmod(stat.S_IRWXU)
    assert code == 0, err
    assert (copy.read_bytes(), copy.stat().st_mtime_ns) == before
    assert sorted(p.name for p in folder.iterdir()) == ["index.db"]


def test_render_prints_json_as_opm_render_does_and_the_same_bytes_each_time() -> None:
    code, out, err = cli("catalog", "render", str(INDEX))
    assert code == 0, err
    assert cli("catalog", "render", str(INDEX))[1] == out
    expected = "".join(
        json.dumps(o, indent=4, ensure_ascii=False) + "\n" for o in index_objects(INDEX, where="x")
    )
    assert out == expected
    assert out.startswith('{\n    "schema": "olm.package",\n    "name": "foo",\n')
    code, text, err = cli("catalog", "render", str(INDEX), "-o", "yaml")
    assert code == 0, err
    assert text.startswith("---\ndefaultChannel: beta\nname: foo\nschema: olm.package\n---\n")
    assert list(yaml.safe_load_all(text)) == index_objects(INDEX, where="x")


def test_the_fixture_loads_and_its_bad_ranges_are_problems_naming_the_bundle() -> None:
    # foo's bundles require package bar at "v0.1.0": a range blang refuses, so both bundles are
    # skipped, each a problem naming it; nothing installable is left.
    with pytest.raises(InputError) as refused:
        load_sqlite_catalog(INDEX, name="foo", where="image quay.io/foo:v0.2.0 /database/index.db")
    assert "image quay.io/foo:v0.2.0 /database/index.db" in str(refused.value)
    assert "olm.bundle foo.v0.1.0" in str(refused.value)


# -- indexes written here: a current schema and older ones -----------------------------------


def csv(name: str, version: str, skip_range: str | None = None, **spec: Any) -> str:
    annotations = {"olm.skipRange": skip_range} if skip_range else {}
    modes = [{"type": "AllNamespaces", "supported": True}]
    return json.dumps(
        {
            "apiVersion": "operators.coreos.com/v1alpha1",
            "kind": "ClusterServiceVersion",
            "metadata": {"name": name, "annotations": annotations},
            "spec": {"version": version, "installModes": modes, **spec},
        }
    )


ETCD_GVK = ("etcd.database.coreos.com", "v1beta2", "EtcdCluster")
BACKUP_GVK = ("backup.example.com", "v1", "Backup")
# (bundle, package, version, skipRange, provided, required)
BUNDLES = [
    ("backup.v1.0.0", "backup", "1.0.0", None, [BACKUP_GVK], []),
    ("etcd.v0.9.0", "etcd", "0.9.0", None, [ETCD_GVK], []),
    ("etcd.v0.9.2", "etcd", "0.9.2", "<0.9.2", [ETCD_GVK], [BACKUP_GVK]),
]
# (entry_id, channel, package, bundle, replaces, depth)
ENTRIES = [
    (1, "alpha", "etcd", "etcd.v0.9.2", 2, 0),
    (2, "alpha", "etcd", "etcd.v0.9.0", None, 1),
    (3, "stable", "backup", "backup.v1.0.0", None, 0),
]


def write_index(path: Path, schema: str) -> Path:
    """The etcd/backup index in ``schema``, filled as operator-registry filled that schema."""
    db = sqlite3.connect(path)
    db.executescript(schema)
    columns = {row[1] for row in db.execute("PRAGMA table_info(operatorbundle)")}
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    db.executemany("INSERT INTO package VALUES (?, ?)", [("etcd", "alpha"), ("backup", "stable")])
    db.executemany(
        "INSERT INTO channel VALUES (?, ?, ?)",
        [("alpha", "etcd", "etcd.v0.9.2"), ("stable", "backup", "backup.v1.0.0")],
    )
    db.executemany("INSERT INTO channel_entry VALUES (?, ?, ?, ?, ?, ?)", ENTRIES)
    by_entry = {e[3]: e[0] for e in ENTRIES}
    for name, package, version, skip_range, provided, required in BUNDLES:
        manifest = csv(name, version, skip_range)
        image = f"quay.io/example/{package}-bundle:v{version}"
        if "version" in columns:
            db.execute(
                "INSERT INTO operatorbundle (name, csv, bundle, bundlepath, version, skiprange) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (name, manifest, manifest, image, version, skip_range),
            )
        else:
            db.execute(
                "INSERT INTO operatorbundle (name, csv, bundle, bundlepath) VALUES (?, ?, ?, ?)",
                (name, manifest, manifest, image),
            )
        db.execute("INSERT INTO related_image VALUES (?, ?)", (image, name))
        for table, apis in (("api_provider", provided), ("api_requirer", required)):
            for group, api_version, kind in apis:
                db.execute(
                    "INSERT OR IGNORE INTO api VALUES (?, ?, ?, ?)", (group, api_version, kind, "x")
                )
                if "version" in columns:
                    row = (group, api_version, kind, name, version, image)
                    db.execute(f"INSERT INTO {table} VALUES (?, ?, ?, ?, ?, ?)", row)
                else:
                    row = (group, api_version, kind, by_entry[name])
                    db.execute(f"INSERT INTO {table} VALUES (?, ?, ?, ?)", row)
                if table == "api_requirer" and "dependencies" in tables:
                    value = {
                        "type": "olm.gvk",
                        "group": group,
                        "version": api_version,
                        "kind": kind,
                    }
                    db.execute(
                        "INSERT INTO dependencies VALUES (?, ?, ?, ?, ?)",
                        ("olm.gvk", json.dumps(value), name, version, image),
                    )
        if name == "etcd.v0.9.2" and "dependencies" in tables:
            value = {"type": "olm.package", "packageName": "backup", "version": ">=1.0.0"}
            db.execute(
                "INSERT INTO dependencies VALUES (?, ?, ?, ?, ?)",
                ("olm.package", json.dumps(value), name, version, image),
            )
    db.commit()
    db.close()
    return path


def props(objects: list[dict[str, Any]], bundle: str) -> list[tuple[str, Any]]:
    found = by_schema(objects, "olm.bundle")[bundle]["properties"]
    return [(p["type"], p["value"]) for p in found if p["type"] != "olm.bundle.object"]


def gvk(group: str, version: str, kind: str) -> dict[str, str]:
    return {"group": group, "kind": kind, "version": version}


@pytest.mark.parametrize("schema", [BEFORE_PROPERTIES, BEFORE_VERSIONS], ids=["008", "003"])
def test_older_schemas_give_provided_and_required_apis_and_dependencies(
    tmp_path: Path, schema: str
) -> None:
    objects = index_objects(write_index(tmp_path / "index.db", schema), where="x")
    assert props(objects, "etcd.v0.9.0") == [
        ("olm.gvk", gvk(*ETCD_GVK)),
        ("olm.package", {"packageName": "etcd", "version": "0.9.0"}),
    ]
    expected = [
        ("olm.gvk", gvk(*ETCD_GVK)),
        ("olm.gvk.required", gvk(*BACKUP_GVK)),
        ("olm.package", {"packageName": "etcd", "version": "0.9.2"}),
    ]
    if schema is BEFORE_PROPERTIES:  # the dependencies table: its olm.package too
        expected.append(
            ("olm.package.required", {"packageName": "backup", "versionRange": ">=1.0.0"})
        )
    assert props(objects, "etcd.v0.9.2") == expected
    assert entries_of(objects)[("alpha", "etcd.v0.9.2")] == {
        "name": "etcd.v0.9.2",
        "replaces": "etcd.v0.9.0",
        "skipRange": "<0.9.2",  # from the CSV's annotation when the column is missing
    }


@pytest.mark.parametrize("schema", [BEFORE_PROPERTIES, BEFORE_VERSIONS], ids=["008", "003"])
def test_an_older_index_resolves_and_is_stored_like_any_catalog(
    tmp_path: Path, schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = write_index(tmp_path / "index.db", schema)
    code, out, err = cli("resolve", "--catalog", str(index), "--require", "etcd", "-o", "json")
    assert code == 0, err
    chosen = {s["bundle"] for s in json.loads(out)["selection"]}
    assert chosen == {"etcd.v0.9.2", "backup.v1.0.0"}  # backup for its required API
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    code, out, err = cli("catalog", "add", "old", str(index))
    assert code == 0, err
    assert "2 packages, 2 channels, 3 bundles" in out
    code, out, err = cli("catalog", "refresh", "old")
    assert code == 0, err
    assert "unchanged" in out
    code, out, err = cli("resolve", "--catalog", "old", "--require", "etcd", "-o", "json")
    assert code == 0, err


def modern_index(path: Path) -> Path:
    """The etcd/backup index in today's schema, with etcd.v0.9.0 deprecated, properties and
    dependencies of the kinds bundles declare (olm.label, olm.constraint)."""
    write_index(path, MODERN)
    db = sqlite3.connect(path)
    rows = [
        ("olm.package", {"packageName": "etcd", "version": "0.9.2"}, "etcd.v0.9.2"),
        (
            "olm.gvk",
            {"version": "v1beta2", "kind": "EtcdCluster", "group": ETCD_GVK[0]},
            "etcd.v0.9.2",
        ),
        ("olm.label", {"label": "fast"}, "etcd.v0.9.2"),
        ("olm.deprecated", {}, "etcd.v0.9.0"),
    ]
    for kind, value, bundle in rows:
        db.execute(
            "INSERT INTO properties (type, value, operatorbundle_name) VALUES (?, ?, ?)",
            (kind, json.dumps(value), bundle),
        )
    constraint = {
        "failureMessage": "needs backup",
        "package": {"packageName": "backup", "versionRange": ">=1.0.0"},
    }
    for kind, value in (("olm.label", {"label": "storage"}), ("olm.constraint", constraint)):
        db.execute(
            "INSERT INTO dependencies (type, value, operatorbundle_name) VALUES (?, ?, ?)",
            (kind, json.dumps(value), "etcd.v0.9.2"),
        )
    db.execute("INSERT INTO deprecated VALUES ('etcd.v0.9.0')")
    db.commit()
    db.close()
    return path


def test_current_schema_properties_dependencies_and_deprecations(tmp_path: Path) -> None:
    index = modern_index(tmp_path / "index.db")
    objects = index_objects(index, where="x")
    constraint = {
        "failureMessage": "needs backup",
        "package": {"packageName": "backup", "versionRange": ">=1.0.0"},
    }
    assert props(objects, "etcd.v0.9.2") == [
        ("olm.constraint", constraint),
        ("olm.gvk", gvk(*ETCD_GVK)),  # rebuilt in opm's field order
        ("olm.gvk.required", gvk(*BACKUP_GVK)),
        ("olm.label", {"label": "fast"}),
        ("olm.label.required", {"label": "storage"}),
        ("olm.package", {"packageName": "etcd", "version": "0.9.2"}),
        ("olm.package.required", {"packageName": "backup", "versionRange": ">=1.0.0"}),
    ]
    assert ("olm.deprecated", {}) not in props(objects, "etcd.v0.9.0")
    deprecations = [o for o in objects if o["schema"] == "olm.deprecations"]
    assert deprecations == [
        {
            "schema": "olm.deprecations",
            "package": "etcd",
            "entries": [
                {
                    "reference": {"schema": "olm.bundle", "name": "etcd.v0.9.0"},
                    "message": "etcd.v0.9.0 is deprecated in the index it was read from",
                }
            ],
        }
    ]
    catalog = load_sqlite_catalog(index, name="modern", where=str(index))
    assert [(d.package, d.name) for d in catalog.deprecations] == [("etcd", "etcd.v0.9.0")]
    assert not catalog.problems
    related = by_schema(objects, "olm.bundle")["etcd.v0.9.2"]["relatedImages"]
    assert related == [{"name": "", "image": "quay.io/example/etcd-bundle:v0.9.2"}]


def test_a_bundle_whose_manifests_do_not_parse_is_left_out_with_a_problem(tmp_path: Path) -> None:
    index = modern_index(tmp_path / "index.db")
    db = sqlite3.connect(index)
    db.execute("UPDATE operatorbundle SET bundle = '{\"kind\": ' WHERE name = 'backup.v1.0.0'")
    db.commit()
    db.close()
    catalog = load_sqlite_catalog(index, name="m", where="m.db")
    assert ("backup", "backup.v1.0.0") not in catalog.bundles
    assert ("etcd", "etcd.v0.9.2") in catalog.bundles
    assert any("bundle backup.v1.0.0" in str(p) and "not JSON" in str(p) for p in catalog.problems)
    code, _out, err = cli("catalog", "render", str(index))
    assert code == 0
    assert "deppy: warning:" in err and "backup.v1.0.0" in err


# -- bad files: one line, exit 2, nothing stored ---------------------------------------------


@pytest.fixture
def bad_files(tmp_path: Path) -> Iterator[dict[str, Path]]:
    corrupt = tmp_path / "corrupt.db"
    data = bytearray(INDEX.read_bytes())
    data[100:] = bytes(len(data) - 100)  # the header kept, every page zeroed
    corrupt.write_bytes(bytes(data))
    other = tmp_path / "other.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE notes (text TEXT)")
    db.commit()
    db.close()
    truncated = tmp_path / "truncated.db"
    truncated.write_bytes(INDEX.read_bytes()[: INDEX.stat().st_size // 2])
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    yield {"corrupt": corrupt, "other": other, "truncated": truncated, "damaged": damaged}


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("corrupt", "cannot read the SQLite index"),
        ("other", "not an operator-registry index (no table package"),
        ("truncated", "the SQLite index is truncated"),
        ("damaged", "not a valid SQLite database (its header is damaged)"),
    ],
)
def test_a_bad_file_is_one_line_and_exit_2_everywhere(
    bad_files: dict[str, Path],
    kind: str,
    words: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = str(bad_files[kind])
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    for args in (
        ("catalog", "render", path),
        ("resolve", "--catalog", path, "--require", "etcd"),
        ("catalog", "add", "bad", path),
    ):
        code, _out, err = cli(*args)
        assert code == 2, (args, code, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("deppy: error: "), err
        assert path in lines[0] and words in lines[0], lines[0]
    assert cli("catalog", "list", "-o", "name")[1] == ""  # nothing stored


def test_a_file_past_the_catalog_limit_is_refused_before_sqlite_reads_it(tmp_path: Path) -> None:
    huge = tmp_path / "huge.db"
    with huge.open("wb") as file:
        file.write(INDEX.read_bytes()[:4096])
        file.truncate(MAX_STREAM_BYTES + 1)  # sparse: no gigabyte written
    with pytest.raises(InputError, match="larger than 1,073,741,824 bytes"):
        read_index(huge, where=str(huge))
    code, _, err = cli("catalog", "render", str(huge))
    assert code == 2 and "larger than" in err


# -- render of other sources --------------------------------------------------------------


def test_render_of_a_directory_round_trips(tmp_path: Path) -> None:
    from deppy.data import data_path

    directory = data_path("catalog")
    code, out, err = cli("catalog", "render", str(directory))
    assert code == 0, err
    assert cli("catalog", "render", str(directory))[1] == out
    written = tmp_path / "rendered" / "catalog.json"
    written.parent.mkdir()
    written.write_text(out)
    again = load_catalog(written.parent, name="catalog")
    original = load_catalog(directory, name="catalog")
    assert list(catalog_objects(again)) == list(catalog_objects(original))
    assert again.bundles.keys() == original.bundles.keys()


def test_render_of_a_stored_catalog_and_of_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    index = write_index(tmp_path / "index.db", BEFORE_PROPERTIES)
    assert cli("catalog", "add", "old", str(index))[0] == 0
    code, out, err = cli("catalog", "render", "old")
    assert code == 0, err
    stored = [json.loads(chunk) for chunk in _objects(out)]
    assert [o["name"] for o in stored if o["schema"] == "olm.bundle"] == [
        "backup.v1.0.0",
        "etcd.v0.9.0",
        "etcd.v0.9.2",
    ]
    code, _, err = cli("catalog", "render", "old@1")
    assert code == 2 and "old has no earlier contents kept" in err
    code, _, err = cli("catalog", "render", str(tmp_path / "absent"))
    assert code == 2 and "no such catalog" in err


def _objects(text: str) -> Iterator[str]:
    decoder = json.JSONDecoder()
    at = 0
    while at < len(text):
        _, end = decoder.raw_decode(text, at)
        yield text[at:end]
        at = end + 1


def test_sqlite_files_are_told_by_their_header_not_their_name(tmp_path: Path) -> None:
    named = tmp_path / "catalog.json"
    shutil.copy(write_index(tmp_path / "index.db", MODERN), named)
    code, _out, err = cli("resolve", "--catalog", str(named), "--require", "backup")
    assert code == 0, err
    os.remove(named)
    named.write_text('{"schema": "olm.package", "name": "p"}\n')
    code, out, err = cli("catalog", "render", str(named))  # an FBC file, read as one
    assert code == 0, err
    assert json.loads(out) == {"schema": "olm.package", "name": "p"}


def test_render_of_an_http_catalog_is_the_directory_s_render() -> None:
    from deppy.data import data_path
    from tests.fbc_server import fbc_stream, serve_catalog

    directory = data_path("catalog")
    with serve_catalog(fbc_stream(directory)) as server:
        code, out, err = cli("catalog", "render", server.url)
    assert code == 0, err
    assert out == cli("catalog", "render", str(directory))[1]


def test_the_icon_of_the_default_head_and_a_deprecated_head_opm_removed(tmp_path: Path) -> None:
    index = modern_index(tmp_path / "index.db")
    icon = base64.b64encode(b"<svg/>").decode()
    spaced = f"{icon[:4]} {icon[4:]}"  # opm drops spaces when the data will not decode
    db = sqlite3.connect(index)
    db.execute(
        "UPDATE operatorbundle SET csv = ? WHERE name = 'etcd.v0.9.2'",
        (csv("etcd.v0.9.2", "0.9.2", icon=[{"base64data": spaced, "mediatype": "image/svg+xml"}]),),
    )
    # `opm index deprecatetruncate` of a channel head: its channel row goes, its entries stay
    db.execute("INSERT INTO deprecated VALUES ('backup.v1.0.0')")
    db.execute("DELETE FROM channel WHERE head_operatorbundle_name = 'backup.v1.0.0'")
    db.commit()
    db.close()
    read = read_index(index, where="x")
    packages = by_schema(read.objects, "olm.package")
    assert packages["etcd"]["icon"] == {"base64data": icon, "mediatype": "image/svg+xml"}
    assert "icon" not in packages["backup"]
    assert "backup.v1.0.0" not in by_schema(read.objects, "olm.bundle")
    assert read.problems == []  # opm removed that channel on purpose


def test_a_bundle_without_a_bundle_path_is_kept_with_an_empty_image(tmp_path: Path) -> None:
    index = write_index(tmp_path / "index.db", BEFORE_VERSIONS)
    db = sqlite3.connect(index)
    db.execute("UPDATE operatorbundle SET bundlepath = NULL WHERE name = 'etcd.v0.9.0'")
    db.commit()
    db.close()
    catalog = load_sqlite_catalog(index, name="old", where=str(index))
    assert catalog.bundles[("etcd", "etcd.v0.9.0")].image == ""
    assert not catalog.problems


def test_a_bundle_listed_under_two_packages_is_written_for_each(tmp_path: Path) -> None:
    index = write_index(tmp_path / "index.db", BEFORE_PROPERTIES)
    db = sqlite3.connect(index)
    db.execute("INSERT INTO channel_entry VALUES (9, 'stable', 'backup', 'etcd.v0.9.0', NULL, 1)")
    db.commit()
    db.close()
    objects = index_objects(index, where="x")
    found = [(o["package"], o["name"]) for o in objects if o["schema"] == "olm.bundle"]
    assert ("backup", "etcd.v0.9.0") in found and ("etcd", "etcd.v0.9.0") in found
    assert ("olm.package", {"packageName": "backup", "version": "0.9.0"}) in [
        (p["type"], p["value"])
        for o in objects
        if o["schema"] == "olm.bundle" and o["package"] == "backup" and o["name"] == "etcd.v0.9.0"
        for p in o["properties"]
    ]


OLD_INDEX = FIXTURES / "indexer" / "bundles.db"


def test_operator_registry_s_older_index_renders_its_apis_edges_and_images() -> None:
    objects = index_objects(OLD_INDEX, where="x")
    entries = entries_of(objects)
    assert entries[("alpha", "etcdoperator.v0.9.2")] == {
        "name": "etcdoperator.v0.9.2",
        "replaces": "etcdoperator.v0.9.0",
        "skips": ["etcdoperator.v0.9.1"],
        "skipRange": "< 0.6.0",
    }
    assert entries[("beta", "etcdoperator.v0.9.0")]["replaces"] == "etcdoperator.v0.6.1"
    etcd = ("etcd.database.coreos.com", "v1beta2")
    assert props(objects, "etcdoperator.v0.9.2") == [
        *(("olm.gvk", gvk(*etcd, kind)) for kind in ("EtcdBackup", "EtcdCluster", "EtcdRestore")),
        ("olm.gvk.required", gvk(*etcd, "EtcdCluster")),
        ("olm.package", {"packageName": "etcd", "version": "0.9.2"}),
    ]
    bundles = by_schema(objects, "olm.bundle")
    assert "etcdoperator.v0.9.1" not in bundles  # a skipped name, no bundle of the index
    assert bundles["prometheusoperator.0.22.2"]["image"] == ""
    assert {i["name"] for i in bundles["etcdoperator.v0.9.2"]["relatedImages"]} == {
        "",
        "etcd-v3.4.0",
        "etcd-3.4.1",
    }
    assert all("icon" in p for p in by_schema(objects, "olm.package").values())
    code, out, err = cli(
        "resolve", "--catalog", str(OLD_INDEX), "--require", "etcd", "--require", "prometheus",
        "--require", "strimzi-kafka-operator", "-o", "json",
    )  # fmt: skip
    assert code == 0, err
    assert {(s["bundle"], s["channel"]) for s in json.loads(out)["selection"]} == {
        ("etcdoperator.v0.9.2", "alpha"),
        ("prometheusoperator.0.22.2", "preview"),
        ("strimzi-cluster-operator.v0.11.1", "stable"),
    }


@pytest.mark.parametrize("catalog", ["embedded", "apps"])
def test_a_catalog_written_as_an_index_reads_back_the_same(tmp_path: Path, catalog: str) -> None:
    """What an index can hold comes back as the directory gave it: channels, edges,
    properties (required ones through the dependencies table), images, bundle deprecations."""
    from deppy.data import data_path

    directory = data_path("catalog") if catalog == "embedded" else CLI_APPS
    original = load_catalog(directory, name="c")
    index = write_sqlite_index(catalog_objects(original), tmp_path / "index.db")
    again = load_sqlite_catalog(index, name="c", where=str(index))
    assert again.problems == original.problems == ()
    assert comparable(again) == comparable(original)


CLI_APPS = Path(__file__).parent / "data" / "olm" / "cli" / "apps"


def comparable(catalog: Any) -> list[dict[str, Any]]:
    """The catalog's objects in the order an index gives them (entries and properties sorted),
    without what an index cannot hold (a package's description, deprecation messages and
    deprecations of packages and channels)."""
    out = []
    for obj in catalog_objects(catalog):
        obj.pop("description", None)
        if obj["schema"] == "olm.deprecations":
            obj["entries"] = [
                e["reference"] for e in obj["entries"] if e["reference"]["schema"] == "olm.bundle"
            ]
            if not obj["entries"]:
                continue
        if obj["schema"] == "olm.channel":
            obj["entries"].sort(key=lambda e: e["name"])
        elif obj["schema"] == "olm.bundle":
            obj["properties"].sort(key=lambda p: (p["type"], json.dumps(p["value"])))
        out.append(obj)
    return out


@pytest.mark.parametrize("kind", ["corrupt", "other", "truncated", "damaged"])
def test_load_sqlite_catalog_names_where_for_a_bad_file(
    bad_files: dict[str, Path], kind: str
) -> None:
    """What the image reader calls: the error names the image and the file in it."""
    where = "docker://127.0.0.1:5000/catalogs/old:v1 /database/index.db"
    with pytest.raises(InputError) as refused:
        load_sqlite_catalog(bad_files[kind], name="old", where=where)
    assert refused.value.where == where
    assert "\n" not in str(refused.value)
    with pytest.raises(InputError, match="not an SQLite database"):
        load_sqlite_catalog(TWIN, name="old", where=where)


def test_a_hostile_index_costs_its_bad_parts_only(tmp_path: Path) -> None:
    """A replaces cycle, a property nested 100,000 deep, manifests and a CSV nested as deep:
    each bad part is one problem saying what, the rest loads."""
    index = modern_index(tmp_path / "index.db")
    deep = "[" * 100_000 + "]" * 100_000
    db = sqlite3.connect(index)
    db.execute("UPDATE channel_entry SET replaces = 1 WHERE entry_id = 2")
    db.execute(
        "INSERT INTO properties (type, value, operatorbundle_name) VALUES ('x.deep', ?, ?)",
        (deep, "etcd.v0.9.2"),
    )
    db.execute("UPDATE operatorbundle SET bundle = ? WHERE name = 'backup.v1.0.0'", (deep,))
    db.execute("UPDATE operatorbundle SET csv = ? WHERE name = 'etcd.v0.9.2'", (deep,))
    db.commit()
    db.close()
    catalog = load_sqlite_catalog(index, name="h", where="h.db")
    problems = [str(p) for p in catalog.problems]
    assert any("backup.v1.0.0" in p and "nested too deeply" in p for p in problems), problems
    assert any("property 4 (x.deep): nested more than 100 levels" in p for p in problems)
    assert ("etcd", "etcd.v0.9.2") in catalog.bundles
    code, _, err = cli("catalog", "render", str(index))
    assert code == 0 and "Traceback" not in err
