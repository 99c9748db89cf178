"""Answers that were wrong or silent when deppy was tried as a new user would, and against
scenarios restated from OLM's own tests (issue 10, items 2–10). Each builds its catalog here."""

from __future__ import annotations

import json
import re
from pathlib import Path

from deppy.catalog.catalog_set import CatalogSet
from deppy.resolution.request import ResolutionRequest
from deppy.resolution.request_parsing import parse_installed
from tests.olm_builders import (
    Obj,
    bundle,
    channel,
    constraint,
    entry,
    item,
    make_catalog,
    needs_package,
    package,
    run,
    simple_package,
    write_catalog,
)
from tests.workflow_helpers import run as cli


def test_capital_letters_in_package_names_are_accepted_everywhere(tmp_path: Path) -> None:
    # OLM's resolver tests name packages "packageA"; catalogs and request files take them
    catalog = write_catalog(tmp_path / "caps", simple_package("packageA", "1.0.0", "1.1.0"))
    code, out, err = cli(
        "resolve", "--catalog", str(catalog), "--require", "packageA", "-o", "json"
    )
    assert code == 0, err
    assert '"version": "1.1.0"' in out
    code, out, err = cli("upgrades", "--catalog", str(catalog), "--installed", "packageA@1.0.0")
    assert code == 0, err
    assert "1.1.0" in out
    from deppy.resolution.request_parsing import parse_require

    assert parse_require("packageA@>=1.0.0").package == "packageA"


def test_upgrades_of_a_package_no_catalog_has_is_an_error_naming_the_closest(
    tmp_path: Path,
) -> None:
    catalog = write_catalog(tmp_path / "c", simple_package("etcd", "0.9.2", "0.9.4"))
    code, out, err = cli("upgrades", "--catalog", str(catalog), "--installed", "etcdd@0.9.2")
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "--installed 'etcdd@0.9.2': no catalog" in err and "did you mean etcd?" in err
    assert "up to date" not in err


def test_a_version_with_x_in_its_build_metadata_can_be_pasted_as_suggested(
    tmp_path: Path,
) -> None:
    # cilium's catalog has 1.15.1+x7095b76: blang's range grammar takes that "x" for a wildcard
    objs = [
        package("cilium"),
        channel("cilium", "stable", "cilium.v1.15.1", entry("cilium.v1.16.0", "cilium.v1.15.1")),
        bundle("cilium", "1.15.1+x7095b76", name="cilium.v1.15.1"),
        bundle("cilium", "1.16.0", needs_package("hubble", ">=1.0.0")),
    ]
    catalog = str(write_catalog(tmp_path / "cilium", objs))
    code, out, _ = cli(
        "resolve", "--catalog", catalog, "--require", "cilium@>=1.16.0", "-o", "json"
    )
    assert code == 1
    suggested = [s["text"] for s in json.loads(out)["explanation"]["suggestions"]]
    pasted = [re.search(r"require '([^']+)' instead", s) for s in suggested]
    specs = [m.group(1) for m in pasted if m]
    assert "cilium@1.15.1+x7095b76" in specs
    for spec in specs:
        code, out, err = cli("resolve", "--catalog", catalog, "--require", spec, "-o", "json")
        assert code == 0, err
        assert json.loads(out)["selection"][0]["version"] == "1.15.1+x7095b76"


def test_an_installed_bundle_no_catalog_has_follows_the_catalog_it_names(tmp_path: Path) -> None:
    # OLM looks the replacement up in the subscription's catalog, not in the first one
    def etcd(newest: str) -> list[Obj]:
        head = entry(f"etcd.v{newest}", "etcd.v0.9.0", skipRange=f">=0.9.0 <{newest}")
        return [
            package("etcd"),
            channel("etcd", "stable", "etcd.v0.9.0", head),
            bundle("etcd", "0.9.0"),
            bundle("etcd", newest),
        ]

    first = make_catalog(tmp_path, etcd("0.9.2"), name="first", priority=10)
    named = make_catalog(tmp_path, etcd("0.9.4"), name="named")
    answer = run([first, named], ["etcd"], ["etcd@0.9.1,catalog=named"])
    assert (item(answer, "etcd").version, item(answer, "etcd").catalog) == ("0.9.4", "named")
    code, out, err = cli(
        "upgrades",
        *(
            "--catalog",
            f"{tmp_path / 'first'}=first:10",
            "--catalog",
            f"{tmp_path / 'named'}=named",
        ),
        *("--installed", "etcd@0.9.1,catalog=named", "-o", "json"),
    )
    assert code == 0, err
    [report] = json.loads(out)
    assert report["channel"]["catalog"] == "named"
    assert report["channel"]["newest"] == "etcd.v0.9.4"


def test_a_same_version_tie_prefers_the_bundle_nearer_the_channel_head(tmp_path: Path) -> None:
    # OLM's tests: a rebuilt bundle of the same version replaces the old one. Whatever the
    # names, the head wins (by name alone, "op.a-rebuild" would always come first)
    objs = [
        package("op"),
        channel("op", "stable", entry("op.z-first"), entry("op.a-rebuild", "op.z-first")),
        bundle("op", "1.0.0", name="op.z-first"),
        bundle("op", "1.0.0", name="op.a-rebuild"),
    ]
    assert item(run(make_catalog(tmp_path, objs, name="c"), ["op"]), "op").bundle == "op.a-rebuild"
    objs[1] = channel("op", "stable", entry("op.a-rebuild"), entry("op.z-first", "op.a-rebuild"))
    assert item(run(make_catalog(tmp_path, objs, name="d"), ["op"]), "op").bundle == "op.z-first"


def test_an_empty_catalog_loads_as_empty_with_one_warning(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    full = write_catalog(tmp_path / "full", simple_package("etcd", "0.9.2"))
    code, out, err = cli(
        "resolve",
        *("--catalog", f"{tmp_path / 'empty'}=empty", "--catalog", f"{full}=full"),
        *("--require", "etcd"),
    )
    assert code == 0, err
    assert err.splitlines() == ["deppy: warning: catalog empty: no packages (loaded as empty)"]
    assert "0.9.2" in out


def bad_constraint_catalog(tmp_path: Path) -> str:
    broken = {"failureMessage": "x", "gvk": {"group": "a", "versoin": "v1", "kind": "K"}}
    objs = [
        package("op"),
        channel("op", "stable", "op.v1.0.0", entry("op.v2.0.0", "op.v1.0.0")),
        bundle("op", "1.0.0"),
        bundle("op", "2.0.0", constraint(broken)),
    ]
    return str(write_catalog(tmp_path / "bad", objs))


def test_a_malformed_olm_constraint_is_explained_as_such_with_another_version(
    tmp_path: Path,
) -> None:
    catalog = bad_constraint_catalog(tmp_path)
    code, out, _ = cli("resolve", "--catalog", catalog, "--require", "op@>=2.0.0", "-o", "json")
    assert code == 1
    explanation = json.loads(out)["explanation"]
    texts = [c["text"] for c in explanation["causes"]]
    invalid = "op 2.0.0 cannot be installed: its olm.constraint is invalid (field gvk: unknown"
    assert any(t.startswith(invalid) and '"versoin"' in t for t in texts), texts
    suggested = [s["text"] for s in explanation["suggestions"]]
    assert not any("add a catalog" in s for s in suggested), suggested
    assert any("require 'op@1.0.0'" in s for s in suggested), suggested


def test_falling_back_to_an_older_version_is_said_in_the_answer(tmp_path: Path) -> None:
    catalog = bad_constraint_catalog(tmp_path)
    code, out, err = cli("resolve", "--catalog", catalog, "--require", "op", "-o", "json")
    assert code == 0, err
    [chosen] = json.loads(out)["selection"]
    assert chosen["version"] == "1.0.0"
    assert chosen["reasons"][-1].startswith(
        "not the newest 2.0.0: op 2.0.0 cannot be installed: its olm.constraint is invalid"
    )
    # the same with a missing dependency: the note names it
    objs = [
        package("db"),
        channel("db", "stable", "db.v1.0.0", entry("db.v2.0.0", "db.v1.0.0")),
        bundle("db", "1.0.0"),
        bundle("db", "2.0.0", needs_package("cache", ">=1.0.0")),
    ]
    catalog = str(write_catalog(tmp_path / "db", objs))
    code, out, err = cli("resolve", "--catalog", catalog, "--require", "db", "-o", "json")
    [chosen] = json.loads(out)["selection"]
    assert "not the newest 2.0.0: db 2.0.0 needs package cache" in chosen["reasons"][-1]


def invalid_channels_catalog(tmp_path: Path) -> str:
    objs = [
        package("twoheads"),
        channel("twoheads", "stable", "twoheads.v1.0.0", "twoheads.v2.0.0"),
        bundle("twoheads", "1.0.0"),
        bundle("twoheads", "2.0.0"),
        package("nohead"),
        channel(
            "nohead",
            "stable",
            entry("nohead.v1.0.0", "nohead.v2.0.0"),
            entry("nohead.v2.0.0", "nohead.v1.0.0"),
        ),
        bundle("nohead", "1.0.0"),
        bundle("nohead", "2.0.0"),
        package("loop"),
        channel(
            "loop",
            "stable",
            entry("loop.v1.0.0", "loop.v2.0.0"),
            entry("loop.v2.0.0", "loop.v1.0.0"),
            entry("loop.v3.0.0", "loop.v2.0.0"),
        ),
        *(bundle("loop", v) for v in ("1.0.0", "2.0.0", "3.0.0")),
        *simple_package("fine", "1.0.0", "1.1.0"),
    ]
    return str(write_catalog(tmp_path / "invalid", objs))


def test_invalid_channels_are_warned_about_and_listed_by_catalog_check(tmp_path: Path) -> None:
    catalog = invalid_channels_catalog(tmp_path)
    expected = {
        "twoheads": "package twoheads, channel stable: multiple channel heads found in graph: "
        "twoheads.v1.0.0, twoheads.v2.0.0",
        "nohead": "package nohead, channel stable: no channel head found in graph",
        "loop": "package loop, channel stable: detected cycle in replaces chain of upgrade "
        "graph: loop.v2.0.0 -> loop.v1.0.0 -> loop.v2.0.0",
    }
    for name, problem in expected.items():
        code, _, err = cli("resolve", "--catalog", catalog, "--require", name)
        assert code == 0, err
        assert all(len(line) <= 100 for line in err.splitlines()), err
        unwrapped = err.replace("\n  ", " ")
        assert f"deppy: warning: catalog invalid: invalid channel ({problem})" in unwrapped
    code, _, err = cli("resolve", "--catalog", catalog, "--require", "fine")
    assert "invalid channel" not in err
    code, out, _ = cli("catalog", "check", catalog, "-o", "json")
    assert code == 1
    assert json.loads(out)["invalidChannels"] == [
        expected[n] for n in ("loop", "nohead", "twoheads")
    ]
    code, out, _ = cli("catalog", "check", catalog)
    assert "Invalid channels (3; opm validate fails):" in out


def test_one_step_moves_an_installed_bundle_one_edge_as_olm_v0(tmp_path: Path) -> None:
    catalog = make_catalog(tmp_path, simple_package("op", "1.0.0", "1.1.0", "1.2.0"), name="c")
    assert item(run(catalog, installed=["op@1.0.0"]), "op").version == "1.2.0"
    from deppy.resolution.resolver import resolve

    request = ResolutionRequest(installed=(parse_installed("op@1.0.0"),), one_step=True)
    answer = resolve(CatalogSet([catalog]), request)
    assert item(answer, "op").version == "1.1.0"
    code, out, _ = cli(
        "resolve", "--catalog", str(tmp_path / "c"), "--installed", "op@1.0.0", "--one-step"
    )
    assert code == 0 and "upgrade 1.0.0 → 1.1.0" in out


def test_documented_semantics_of_skipped_bundles_and_excluding_what_is_installed(
    tmp_path: Path,
) -> None:
    beta = {"type": "olm.label", "value": {"label": "beta"}}
    objs = [
        package("op"),
        channel(
            "op",
            "stable",
            "op.v1.0.0",
            entry("op.v1.1.0", "op.v1.0.0"),
            entry("op.v1.2.0", "op.v1.0.0", skips=["op.v1.1.0"]),
        ),
        bundle("op", "1.0.0", beta),
        bundle("op", "1.1.0"),
        bundle("op", "1.2.0", beta),
    ]
    catalog = make_catalog(tmp_path, objs, name="c")
    # a bundle the head skips stays a candidate for a fresh install
    assert item(run(catalog, ["op@<1.2.0"]), "op").version == "1.1.0"
    # --exclude never uninstalls: an excluded installed bundle must move forward ...
    assert item(run(catalog, installed=["op@1.0.0"], exclude=["olm.label=beta"]), "op").version == (
        "1.1.0"
    )
    # ... and when it cannot, the answer says so and suggests lifting the exclusion (not
    # uninstalling it: the request would then ask for nothing)
    failed = run(catalog, installed=["op@1.2.0"], exclude=["olm.label=beta"])
    assert failed.explanation is not None
    assert [s.text for s in failed.explanation.suggestions] == [
        "lift the restriction olm.label=beta"
    ]
