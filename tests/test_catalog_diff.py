"""``deppy catalog diff OLD NEW`` on two small hand-written catalogs (each kind of change
asserted exactly, from paths and from the store alike) and its command line: formats, byte
identical output, exit codes and messages. The community catalog's cases are in
test_catalog_diff_real.py."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from deppy.catalog.bundle_tree import load_any_catalog
from deppy.workflows.catalog_diff import diff_lines, load_side
from deppy.workflows.catalog_diff.compare import (
    CatalogDiff,
    PackageChange,
    Side,
    diff_catalogs,
    diff_facts,
)
from tests.workflow_helpers import run


def bundle(
    package: str,
    version: str,
    *,
    max_openshift: str | None = None,
    min_kube: str | None = None,
) -> dict[str, Any]:
    props: list[dict[str, Any]] = [
        {"type": "olm.package", "value": {"packageName": package, "version": version}}
    ]
    if max_openshift is not None:
        props.append({"type": "olm.maxOpenShiftVersion", "value": max_openshift})
    if min_kube is not None:
        props.append({"type": "olm.csv.metadata", "value": {"minKubeVersion": min_kube}})
    return {
        "schema": "olm.bundle",
        "name": f"{package}.v{version}",
        "package": package,
        "image": f"example.com/{package}:{version}",
        "properties": props,
    }


def package(name: str, default: str) -> dict[str, Any]:
    return {"schema": "olm.package", "name": name, "defaultChannel": default}


def channel(pkg: str, name: str, *entries: dict[str, Any]) -> dict[str, Any]:
    return {"schema": "olm.channel", "package": pkg, "name": name, "entries": list(entries)}


def deprecations(pkg: str, *entries: tuple[str, str | None, str]) -> dict[str, Any]:
    return {
        "schema": "olm.deprecations",
        "package": pkg,
        "entries": [
            {"reference": {"schema": schema, **({"name": name} if name else {})}, "message": text}
            for schema, name, text in entries
        ],
    }


OLD = [
    package("etcd", "stable"),
    channel(
        "etcd",
        "stable",
        {"name": "etcd.v1.0.0"},
        {"name": "etcd.v1.1.0", "replaces": "etcd.v1.0.0", "skips": ["etcd.v0.9.0"]},
    ),
    channel("etcd", "alpha", {"name": "etcd.v1.0.0"}),
    bundle("etcd", "1.0.0", max_openshift="4.14"),
    bundle("etcd", "1.1.0", min_kube="1.20.0"),
    deprecations("etcd", ("olm.bundle", "etcd.v1.0.0", "old message")),
    package("gone", "stable"),
    channel("gone", "stable", {"name": "gone.v0.1.0"}),
    bundle("gone", "0.1.0"),
]

NEW = [
    package("etcd", "fast"),
    channel(
        "etcd",
        "stable",
        {"name": "etcd.v1.0.0"},
        {"name": "etcd.v1.1.0", "replaces": "etcd.v1.0.0"},
        {"name": "etcd.v1.2.0", "replaces": "etcd.v1.1.0", "skipRange": ">=1.0.0 <1.2.0"},
    ),
    channel("etcd", "fast", {"name": "etcd.v1.2.0"}),
    bundle("etcd", "1.0.0", max_openshift="4.16"),
    bundle("etcd", "1.1.0", min_kube="1.25.0"),
    bundle("etcd", "1.2.0", max_openshift="4.18"),
    deprecations(
        "etcd",
        ("olm.bundle", "etcd.v1.1.0", "use 1.2.0"),
        ("olm.channel", "stable", "follow fast"),
    ),
    package("newpkg", "stable"),
    channel("newpkg", "stable", {"name": "newpkg.v2.0.0"}),
    bundle("newpkg", "2.0.0"),
    deprecations("newpkg", ("olm.package", None, "use etcd")),
]

EXPECTED: dict[str, Any] = {
    "packages": {
        "added": [{"package": "newpkg", "defaultChannel": "stable", "bundles": 1}],
        "removed": [{"package": "gone", "defaultChannel": "stable", "bundles": 1}],
    },
    "bundles": {
        "added": [
            {
                "package": "etcd",
                "bundle": "etcd.v1.2.0",
                "version": "1.2.0",
                "maxOpenShiftVersion": "4.18",
                "minKubeVersion": None,
            },
            {
                "package": "newpkg",
                "bundle": "newpkg.v2.0.0",
                "version": "2.0.0",
                "maxOpenShiftVersion": None,
                "minKubeVersion": None,
            },
        ],
        "removed": [{"package": "gone", "bundle": "gone.v0.1.0", "version": "0.1.0"}],
    },
    "channels": {
        "added": [
            {"package": "etcd", "channel": "fast", "head": "etcd.v1.2.0"},
            {"package": "newpkg", "channel": "stable", "head": "newpkg.v2.0.0"},
        ],
        "removed": [
            {"package": "etcd", "channel": "alpha", "head": "etcd.v1.0.0"},
            {"package": "gone", "channel": "stable", "head": "gone.v0.1.0"},
        ],
        "heads_moved": [
            {
                "package": "etcd",
                "channel": "stable",
                "from": "etcd.v1.1.0",
                "to": "etcd.v1.2.0",
                "fromVersion": "1.1.0",
                "toVersion": "1.2.0",
            }
        ],
    },
    "default_channels": {"changed": [{"package": "etcd", "from": "stable", "to": "fast"}]},
    "deprecations": {
        "added": [
            {"package": "etcd", "scope": "channel", "name": "stable", "message": "follow fast"},
            {"package": "etcd", "scope": "bundle", "name": "etcd.v1.1.0", "message": "use 1.2.0"},
            {"package": "newpkg", "scope": "package", "name": "newpkg", "message": "use etcd"},
        ],
        "removed": [
            {
                "package": "etcd",
                "scope": "bundle",
                "name": "etcd.v1.0.0",
                "message": "old message",
            }
        ],
    },
    "edges": {
        "added": [
            {
                "package": "etcd",
                "channel": "stable",
                "from": "etcd.v1.0.0",
                "to": "etcd.v1.2.0",
                "kind": "skipRange",
            },
            {
                "package": "etcd",
                "channel": "stable",
                "from": "etcd.v1.1.0",
                "to": "etcd.v1.2.0",
                "kind": "replaces",
            },
            {
                "package": "etcd",
                "channel": "stable",
                "from": "etcd.v1.1.0",
                "to": "etcd.v1.2.0",
                "kind": "skipRange",
            },
        ],
        "removed": [
            {
                "package": "etcd",
                "channel": "stable",
                "from": "etcd.v0.9.0",
                "to": "etcd.v1.1.0",
                "kind": "skips",
            }
        ],
    },
    "platform_limits": {
        "changed": [
            {
                "package": "etcd",
                "bundle": "etcd.v1.0.0",
                "version": "1.0.0",
                "field": "maxOpenShiftVersion",
                "from": "4.14",
                "to": "4.16",
            },
            {
                "package": "etcd",
                "bundle": "etcd.v1.1.0",
                "version": "1.1.0",
                "field": "minKubeVersion",
                "from": "1.20.0",
                "to": "1.25.0",
            },
        ]
    },
}

GROUPS = (
    "packages",
    "bundles",
    "channels",
    "default_channels",
    "deprecations",
    "edges",
    "platform_limits",
)


def write(directory: Path, objects: list[dict[str, Any]]) -> Path:
    """One JSON stream per package, as a catalog directory has them."""
    by_package: dict[str, list[dict[str, Any]]] = {}
    for obj in objects:
        by_package.setdefault(obj.get("package") or obj["name"], []).append(obj)
    for name, mine in by_package.items():
        (directory / name).mkdir(parents=True)
        (directory / name / "catalog.json").write_bytes(
            b"".join(orjson.dumps(o) + b"\n" for o in mine)
        )
    return directory


@pytest.fixture
def catalogs(tmp_path: Path) -> tuple[Path, Path]:
    return write(tmp_path / "old", OLD), write(tmp_path / "new", NEW)


def only_changes(document: dict[str, Any]) -> dict[str, Any]:
    return {group: document[group] for group in GROUPS}


def test_each_kind_of_change_is_found_exactly(catalogs: tuple[Path, Path]) -> None:
    old, new = catalogs
    diff = diff_catalogs(load_any_catalog(old), load_any_catalog(new))
    assert only_changes(diff.as_dict()) == EXPECTED
    assert diff.as_dict()["old"] == {"catalog": "old", "packages": 2, "bundles": 3}
    assert diff.as_dict()["new"] == {"catalog": "new", "packages": 2, "bundles": 4}
    assert diff.counts()["edges.added"] == 3
    assert diff.packages() == ["etcd", "gone", "newpkg"]


def test_stored_catalogs_give_the_same_document_as_paths(catalogs: tuple[Path, Path]) -> None:
    old, new = catalogs
    assert run("catalog", "add", "old", str(old))[0] == 0
    assert run("catalog", "add", "new", str(new))[0] == 0
    code, stored, _ = run("catalog", "diff", "old", "new", "-o", "json")
    assert code == 0
    code, paths, _ = run("catalog", "diff", str(old), str(new), "-o", "json")
    assert code == 0
    assert stored == paths
    assert only_changes(json.loads(stored)) == EXPECTED
    mixed = diff_facts(load_side("old"), load_side(str(new)))  # store beside a loaded catalog
    assert only_changes(mixed.as_dict()) == EXPECTED


def test_a_bundle_moved_to_another_file_is_no_change(tmp_path: Path) -> None:
    """The store compares bundles without where they were read from (file, line)."""
    first = write(tmp_path / "first", OLD)
    second = write(tmp_path / "second", list(reversed(OLD)))
    assert run("catalog", "add", "first", str(first))[0] == 0
    assert run("catalog", "add", "second", str(second))[0] == 0
    diff = diff_facts(load_side("first"), load_side("second"))
    assert diff.empty
    assert diff.counts() == dict.fromkeys(diff.counts(), 0)


def test_the_reverse_diff_swaps_added_and_removed(catalogs: tuple[Path, Path]) -> None:
    old, new = (load_any_catalog(p) for p in catalogs)
    forward, backward = diff_catalogs(old, new), diff_catalogs(new, old)
    assert backward.packages_added == forward.packages_removed
    assert backward.edges_removed == forward.edges_added
    assert backward.deprecations_added == forward.deprecations_removed
    assert [(m.new, m.old) for m in backward.heads_moved] == [
        (m.old, m.new) for m in forward.heads_moved
    ]
    assert [(c.new, c.old) for c in backward.limits_changed] == [
        (c.old, c.new) for c in forward.limits_changed
    ]


def test_json_and_yaml_say_the_same_byte_identically_each_run(
    catalogs: tuple[Path, Path],
) -> None:
    old, new = (str(p) for p in catalogs)
    first = run("catalog", "diff", old, new, "-o", "json")[1]
    assert run("catalog", "diff", old, new, "-o", "json")[1] == first
    document = json.loads(first)
    assert list(document) == ["old", "new", "changed", "counts", *GROUPS]
    assert document["changed"] is True
    assert document["counts"]["channels.heads_moved"] == 1
    assert document["counts"]["platform_limits.changed"] == 2
    yaml_text = run("catalog", "diff", old, new, "-o", "yaml")[1]
    assert yaml.safe_load(yaml_text) == document
    assert run("catalog", "diff", old, new, "-o", "yaml")[1] == yaml_text


def test_text_counts_first_then_each_package(catalogs: tuple[Path, Path]) -> None:
    old, new = (str(p) for p in catalogs)
    code, out, _ = run("catalog", "diff", old, new)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "catalog diff old → new"
    assert lines[1] == "  packages        +1 -1 (2 → 2)"
    assert lines[3] == "  channels        +2 -2; heads moved 1; default channel changed 1"
    assert lines[4] == "  deprecations    +3 -1"
    assert lines[6] == "  platform limits changed 2"
    assert lines[7] == "changed packages: 3"
    assert lines[8].startswith("  etcd: ")
    etcd = " ".join(lines[8:12])  # its phrases, wrapped between phrases
    assert lines[12] == "  gone: removed (1 bundle)"
    assert "bundles +1.2.0" in etcd
    assert "head stable 1.1.0 → 1.2.0" in etcd
    assert "default channel stable → fast" in etcd
    assert "1.0.0 maxOpenShiftVersion 4.14 → 4.16" in etcd
    assert "1.1.0 minKubeVersion 1.20.0 → 1.25.0" in etcd
    assert lines[13:] == ["  newpkg: new package (1 bundle, default channel stable)"]
    assert all(len(line) <= 100 for line in lines)


def test_text_fits_a_screen(tmp_path: Path) -> None:
    many = [
        obj
        for n in range(40)
        for obj in (
            package(f"pkg{n:02d}", "stable"),
            channel(f"pkg{n:02d}", "stable", {"name": f"pkg{n:02d}.v1.0.0"}),
            bundle(f"pkg{n:02d}", "1.0.0"),
        )
    ]
    old = write(tmp_path / "old", OLD)
    new = write(tmp_path / "new", [*OLD, *many])
    lines = diff_lines(diff_facts(load_side(str(old)), load_side(str(new))))
    assert len(lines) <= 40
    assert "  pkg00: new package (1 bundle, default channel stable)" in lines
    assert lines[-1] == "  … and 10 more packages: -o json lists every change"


def test_text_escapes_what_a_terminal_would_obey() -> None:
    """The loader refuses such names; a diff built another way is still printed safely."""
    diff = CatalogDiff(
        old=Side("old\x1b]0;", 0, 0),
        new=Side("new", 1, 0),
        packages_added=(PackageChange("evil\x1b[2J\u202e", "st\nable", 0),),
    )
    text = "\n".join(diff_lines(diff))
    assert "\x1b" not in text and "\u202e" not in text
    assert "  evil\\x1b[2J\\u202e: new package (0 bundles, default channel st\\nable)" in text


def test_no_difference_exits_0_and_says_so(catalogs: tuple[Path, Path]) -> None:
    old, _ = catalogs
    code, out, _ = run("catalog", "diff", str(old), str(old))
    assert code == 0
    assert out.splitlines() == ["catalog diff old → old", "no differences (2 packages, 3 bundles)"]
    assert run("catalog", "diff", str(old), str(old), "--exit-code")[0] == 0


def test_differences_exit_0_or_1_with_exit_code(catalogs: tuple[Path, Path]) -> None:
    old, new = (str(p) for p in catalogs)
    assert run("catalog", "diff", old, new)[0] == 0
    assert run("catalog", "diff", old, new, "--exit-code")[0] == 1
    assert run("catalog", "diff", old, new, "--exit-code", "-o", "json")[0] == 1


def test_a_missing_store_name_is_exit_2_naming_it(catalogs: tuple[Path, Path]) -> None:
    old, _ = catalogs
    code, out, err = run("catalog", "diff", str(old), "no-such-catalog")
    assert code == 2
    assert out == ""
    assert err.startswith("deppy: error: catalog 'no-such-catalog': no stored catalog has this ")
    assert len(err.strip().splitlines()) == 1
    assert run("catalog", "add", "old", str(old))[0] == 0
    code, _, err = run("catalog", "diff", "old", "olld")
    assert code == 2
    assert "catalog 'olld'" in err and "stored catalogs: old" in err


def test_a_broken_catalog_is_exit_2_naming_it(tmp_path: Path, catalogs: tuple[Path, Path]) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "catalog.json").write_text('{"schema": "olm.package", "name": \n')
    code, out, err = run("catalog", "diff", str(catalogs[0]), str(broken))
    assert code == 2
    assert out == ""
    assert err.startswith(f"deppy: error: {broken}: no valid bundle found in the catalog")
    assert "Traceback" not in err


def test_an_empty_side_is_warned_about(tmp_path: Path, catalogs: tuple[Path, Path]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, err = run("catalog", "diff", str(empty), str(catalogs[1]))
    assert code == 0
    assert "deppy: warning: catalog empty: no packages (loaded as empty)" in err
    assert "packages        +2 -0 (0 → 2)" in out


def test_the_documentation_names_every_key(catalogs: tuple[Path, Path]) -> None:
    docs = Path(__file__).resolve().parents[1] / "docs" / "catalogs" / "diff.md"
    text = docs.read_text(encoding="utf-8")
    section = text[text.index("`deppy catalog diff OLD NEW` says") :]
    documented = set(
        re.findall(r"^\| `([a-z_]+\.[a-z_]+)`(?:, `([a-z_]+\.[a-z_]+)`)? \|", section, re.M)
    )
    keys = {key for pair in documented for key in pair if key}
    diff = diff_catalogs(*(load_any_catalog(p) for p in catalogs))
    assert keys == set(diff.counts())
    for group, kinds in diff.as_dict().items():
        if group in GROUPS:
            for kind, entries in kinds.items():
                row = next(line for line in section.splitlines() if f"`{group}.{kind}`" in line)
                for field in entries[0] if entries else ():
                    assert f"`{field}`" in row, (group, kind, field)


def test_paths_read_again_from_the_parsed_catalog_cache_say_the_same(
    catalogs: tuple[Path, Path],
) -> None:
    from deppy.catalog.fbc.cache import wait_for_writers
    from deppy.catalog.release_facts import ModelFacts
    from deppy.store.release_facts import StoredFacts

    old, new = (str(p) for p in catalogs)
    assert isinstance(load_side(old), ModelFacts)  # the first read keeps a cache entry
    first = run("catalog", "diff", old, new, "-o", "json")
    wait_for_writers()
    assert isinstance(load_side(old), StoredFacts)  # read back from the entry
    assert run("catalog", "diff", old, new, "-o", "json") == first
