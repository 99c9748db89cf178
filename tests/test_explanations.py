"""Explanations keep their reasons on one screen and offer only ways out that work.

One screen is 10 lines of at most 100 characters, warnings on stderr included; a line is never
cut short ("…"): the explanation says less instead. A suggestion is shown only once deppy has
applied it and seen the request resolve, still asking for something; a catalog deppy knows but
the request leaves out is named when it has what is missing; a package name no catalog has gets
"did you mean" — in the CLI, the service and (tests/test_service_browser.py) the web UI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deppy.explain import Cause, Explanation, Suggestion, explanation_as_short_text
from tests.olm_builders import (
    bundle,
    channel,
    constraint,
    csv_metadata,
    make_catalog,
    needs_package,
    package,
    provides,
    run,
    write_catalog,
)
from tests.service_support import client, paths_app
from tests.workflow_helpers import run as cli

APPS = Path(__file__).resolve().parent / "data" / "olm" / "cli" / "apps"
INFRA = Path(__file__).resolve().parent / "data" / "olm" / "cli" / "infra"
TRICKY = Path(__file__).resolve().parent / "data" / "store" / "tricky"


def fits(text: str, lines: int = 10) -> None:
    shown = text.splitlines()
    assert len(shown) <= lines, text
    assert all(len(line) <= 100 and not line.endswith("…") for line in shown), text


# --- the reporter: fit by saying less ---------------------------------------------------------


def long_cause(n: int) -> Cause:
    reason = "needs API VeryLongKindName (some.very-long-api-group.example.com/v1alpha1)"
    text = f"operator-with-a-long-name-{n} 1.2.{n} {reason}: no bundle in any catalog provides it"
    return Cause("missing", text, short=f"operator-{n} 1.2.{n} {reason}: none provides it")


def test_a_reason_too_long_for_a_line_is_wrapped_never_cut() -> None:
    explanation = Explanation(
        "Cannot resolve required package operator-with-a-long-name-1 1.2.1",
        ("required package operator-with-a-long-name-1 1.2.1",),
        (long_cause(1),),
        (Suggestion("find a catalog offering API VeryLongKindName", {"kind": "add-catalog"}),),
    )
    text = explanation_as_short_text(explanation)
    fits(text)
    assert "none provides it" in text, "every word of the reason is on the screen"


def test_many_reasons_and_ways_out_fit_by_showing_fewer_and_counting_the_rest() -> None:
    causes = tuple(long_cause(n) for n in range(8))
    ways = tuple(Suggestion(f"require 'op@1.{n}.0' instead of 'op 2.0.0'") for n in range(6))
    explanation = Explanation("Cannot resolve: " + "; ".join(["x"] * 60), (), causes, ways)
    text = explanation_as_short_text(explanation)
    fits(text)
    assert "Try: require 'op@1.0.0'" in text, "one way out is always shown"
    last = text.splitlines()[-1]
    assert last.startswith("(-v for the long form;") and "more reasons" in last
    assert "5 more ways out" in last
    fits(explanation_as_short_text(explanation, lines=6), lines=6)


def test_a_full_screen_keeps_the_clash_and_drops_the_candidate_lists_first() -> None:
    matches = [
        Cause("needs", f"the requirement op-{n} matches only op-{n} 1.0.0 … 0.1.0 (9)", rank=-1)
        for n in (1, 2)
    ]
    clash = Cause("one-per-api", "only one operator may provide the API Widget (example.com/v1)")
    explanation = Explanation(
        "Cannot resolve: required package op-1; required package op-2 cannot be satisfied "
        "together and this summary is long enough to need its short form",
        ("required package op-1", "required package op-2"),
        (matches[0], clash, matches[1]),
        (Suggestion("install only one of op-1, op-2: drop the requirement op-2"),),
        short_summary="Cannot resolve: op-1, op-2 cannot be had together",
    )
    text = explanation_as_short_text(explanation, lines=5)
    fits(text, lines=5)
    assert text.splitlines()[:2] == [
        "Cannot resolve: op-1, op-2 cannot be had together",
        "Why: only one operator may provide the API Widget (example.com/v1)",
    ]
    assert "drop the requirement op-2" in text and "2 more reasons" in text


def test_a_cause_that_restates_the_summary_is_left_off_the_screen(tmp_path: Path) -> None:
    catalog = make_catalog(
        tmp_path,
        [
            package("app"),
            channel("app", "stable", "app.v1.0.0"),
            bundle("app", "1.0.0", needs_package("gone", ">=1.0.0")),
        ],
        name="main",
    )
    resolution = run(catalog, ["app@1.0.0"])
    assert resolution.explanation is not None
    text = explanation_as_short_text(resolution.explanation)
    assert "matches only" not in text  # "the requirement app 1.0.0 matches only app 1.0.0"
    assert "Why: app 1.0.0 needs gone >=1.0.0: in no catalog (main)" in text


# --- suggestions: seen to work, still asking for something ------------------------------------


def test_dropping_the_only_requirement_is_no_way_out(tmp_path: Path) -> None:
    objs = [
        package("app"),
        channel("app", "stable", "app.v1.0.0"),
        bundle("app", "1.0.0", needs_package("gone", ">=1.0.0")),
        package("other"),
        channel("other", "stable", "other.v1.0.0"),
        bundle("other", "1.0.0"),
    ]
    catalog = make_catalog(tmp_path, objs, name="main")
    alone = run(catalog, ["app"])
    assert alone.explanation is not None
    assert not [s for s in alone.explanation.suggestions if s.change["kind"] == "drop-requirement"]
    beside = run(catalog, ["app", "other"])
    assert beside.explanation is not None
    assert "drop the requirement app" in [s.text for s in beside.explanation.suggestions]


def test_a_catalog_left_out_by_source_is_named_and_the_change_resolves() -> None:
    code, out, err = cli(
        "resolve", "--catalog", str(APPS), "--catalog", str(INFRA), "--source", "apps",
        "--require", "webapp",
    )  # fmt: skip
    assert code == 1
    fits(err + out)
    assert "Try: catalog infra offers db 2.1.0: add `--source infra`" in out
    code, _, _ = cli(
        "resolve", "--catalog", str(APPS), "--catalog", str(INFRA), "--source", "apps",
        "--source", "infra", "--require", "webapp",
    )  # fmt: skip
    assert code == 0, "the suggestion, pasted, resolves"
    # without --source every catalog is read already: nothing to add, what to look for is said
    code, out, _ = cli("resolve", "--catalog", str(APPS), "--require", "webapp")
    assert "--source" not in out and "find a catalog offering db >=2.0.0 <3.0.0" in out


def test_a_stored_catalog_not_named_by_catalog_is_named_and_the_change_resolves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    for name, path in (("apps", APPS), ("infra", INFRA)):
        assert cli("catalog", "add", name, str(path))[0] == 0
    code, out, _ = cli("resolve", "--catalog", "apps", "--require", "webapp")
    assert code == 1 and "Try: catalog infra offers db 2.1.0: add `--source infra`" in out
    code, _, _ = cli("resolve", "--catalog", "apps", "--source", "infra", "--require", "webapp")
    assert code == 0, "pasted beside --catalog apps, the suggestion resolves"


def test_the_service_offers_the_same_catalog_and_its_change_applies() -> None:
    with client(paths_app(str(APPS), str(INFRA))) as api:
        body = {"spec": {"sources": ["apps"], "constraints": ['required("webapp")']}}
        answer = api.post("/api/v1/resolve", json=body).json()
        assert not answer["resolved"]
        changes = [s["change"] for s in answer["explanation"]["suggestions"]]
        assert {"kind": "add-source", "source": "infra"} in changes
        # in the words of the body it answers, not the CLI's
        texts = [s["text"] for s in answer["explanation"]["suggestions"]]
        assert "catalog infra offers db 2.1.0: add infra to spec.sources" in texts, texts
        assert not any("--source" in text for text in texts)
        body["spec"]["sources"] = ["apps", "infra"]
        assert api.post("/api/v1/resolve", json=body).json()["resolved"]


# --- did you mean -----------------------------------------------------------------------------


def misnamed_catalog(tmp_path: Path) -> Path:
    """A package ``clife`` displayed as "Isovalent Networking", and one spelt close to another."""
    return write_catalog(
        tmp_path / "net",
        [
            package("clife"),
            channel("clife", "stable", "clife.v1.15.0"),
            bundle(
                "clife",
                "1.15.0",
                csv_metadata(displayName="Isovalent Networking", keywords=["cilium", "cni"]),
                provides("CiliumNetworkPolicy", "cilium.io", "v2"),
            ),
            package("cert-manager"),
            channel("cert-manager", "stable", "cert-manager.v1.14.4"),
            bundle("cert-manager", "1.14.4"),
        ],
    )


def test_a_wrong_package_name_gets_the_names_meant_in_the_cli(tmp_path: Path) -> None:
    catalog = str(misnamed_catalog(tmp_path))
    code, out, err = cli("resolve", "--catalog", catalog, "--require", "isovalent-networking")
    assert code == 1
    fits(err + out)
    assert "Try:\n  - did you mean clife (Isovalent Networking)? require 'clife'" in out
    for asked, meant in (("cilium", "clife"), ("cert-manger", "cert-manager")):
        code, out, _ = cli("resolve", "--catalog", catalog, "--require", asked, "-o", "json")
        changes = [s["change"] for s in json.loads(out)["explanation"]["suggestions"]]
        assert {"kind": "replace-requirement", "index": 0, "spec": meant,
                "requirement": {"name": meant}} in changes, asked  # fmt: skip
    code, _, err = cli("show", "isovalent-networking", "--catalog", catalog)
    assert code == 2 and "did you mean clife (Isovalent Networking)?" in err


def test_a_wrong_package_name_gets_the_names_meant_in_the_service(tmp_path: Path) -> None:
    with client(paths_app(str(misnamed_catalog(tmp_path)))) as api:
        body = {"spec": {"constraints": ['required("isovalent-networking")']}}
        answer = api.post("/api/v1/resolve", json=body).json()
        texts = [s["text"] for s in answer["explanation"]["suggestions"]]
        assert texts[0] == "did you mean clife (Isovalent Networking)? require 'clife'"
        missing = api.get("/api/v1/packages/isovalent-networking")
        assert missing.status_code == 404 and "clife (Isovalent Networking)" in missing.text


# --- warnings: only the catalogs read, within the width ---------------------------------------


def test_load_warnings_name_only_the_catalogs_read_and_say_what_was_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    assert cli("catalog", "add", "tricky", str(TRICKY))[0] == 0
    assert cli("catalog", "add", "apps", str(APPS))[0] == 0
    code, _, err = cli("resolve", "--source", "apps", "--require", "webapp")
    assert code == 1 and "tricky" not in err
    code, _, err = cli("resolve", "--require", "beta")
    assert code == 0 and "catalog tricky: 4 load problems (1 skipped, 3 kept in part)" in err
    assert all(len(line) <= 100 for line in err.splitlines())
    code, _, err = cli("catalog", "problems", "tricky")
    assert code == 1 and err.strip().endswith(
        "1 invalid object skipped, 1 integer kept without its exact digits, "
        "1 entry kept without its skipRange, 1 package kept without its default channel in tricky"
    )


def test_entries_kept_without_their_skip_range_are_not_called_skipped(tmp_path: Path) -> None:
    objs = [
        package("op"),
        channel(
            "op",
            "stable",
            {"name": "op.v1.0.0"},
            {"name": "op.v2.0.0", "replaces": "op.v1.0.0", "skipRange": "<v2.8.2"},
        ),
        bundle("op", "1.0.0"),
        bundle("op", "2.0.0"),
    ]
    catalog = str(write_catalog(tmp_path / "kept", objs))
    code, _, err = cli("resolve", "--catalog", f"{catalog}=kept", "--require", "op")
    assert code == 0
    assert err.splitlines()[0] == (
        "deppy: warning: catalog kept: 1 entry kept without its skipRange: "
        f"deppy catalog problems {catalog}"
    ) or err.splitlines()[:2] == [
        "deppy: warning: catalog kept: 1 entry kept without its skipRange",
        f"  (see: deppy catalog problems {catalog})",
    ]
    assert "skipped" not in err


def test_many_warnings_leave_the_explanation_its_screen(tmp_path: Path) -> None:
    versions = [f"1.{n}.0" for n in range(8)]
    objs = [
        package("app"),
        channel("app", "stable", *(f"app.v{v}" for v in versions)),
        *(
            bundle("app", v, constraint({"failureMessage": "a rule with no kind"}))
            for v in versions
        ),
    ]
    catalog = str(write_catalog(tmp_path / "noisy", objs))
    code, out, err = cli("resolve", "--catalog", catalog, "--require", "app")
    assert code == 1
    fits(err + out)
    assert "warnings (-v shows them)" in err and out.startswith("Cannot resolve")
    code, out, err = cli("resolve", "--catalog", catalog, "--require", "app", "-v")
    assert err.count("olm.constraint") >= 8
