"""``--rules deppy|olm-v0`` where a user chooses it: ``resolve``, ``upgrades``, ``fleet plan``, a
request file's ``spec.rules``, the service's body and an InputClass; its refusals; and the
fleet plan of the example OLM v0 exports under both rule sets (docs/olm-v0/rules.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from deppy.cli.main import cli, register_commands
from deppy.controller.resolving.requests import class_parameters
from deppy.errors import InputError
from tests.olm_builders import simple_package, write_catalog

register_commands()

ROOT = Path(__file__).resolve().parents[1]
COMMUNITY = ROOT.parent / "shared" / "catalogs" / "community-operators-prod-v4.18"
EXPORTS = ROOT / "examples" / "fleet" / "olm-v0"
EXAMPLE = ROOT / "src" / "deppy" / "data" / "catalog"
KNOWN = "known rule sets: deppy: deppy's own rules"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    return write_catalog(tmp_path / "main", simple_package("a", "1.0.0", "1.1.0", "1.2.0"))


def request_file(tmp_path: Path, catalog: Path, rules: str | None) -> Path:
    spec: dict[str, Any] = {
        "catalogs": [{"name": "main", "path": str(catalog), "namespace": "olm"}],
        "namespace": "operators",
        "constraints": [
            {
                "installed": {
                    "subscription": "a-sub",
                    "name": "a",
                    "version": "1.0.0",
                    "bundle": "a.v1.0.0",
                    "channel": "stable",
                    "catalog": "main",
                    "catalogNamespace": "olm",
                }
            }
        ],
    }
    if rules is not None:
        spec["rules"] = rules
    path = tmp_path / f"request-{rules}.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "deppy.io/v1alpha1", "spec": spec}))
    return path


def test_spec_rules_chooses_and_every_answer_says_which(tmp_path: Path, catalog: Path) -> None:
    olm = request_file(tmp_path, catalog, "olm-v0")
    code, out, _ = run("resolve", "-f", str(olm), "-o", "json")
    data = json.loads(out)
    assert code == 0 and data["rules"] == "olm-v0"
    assert [s["version"] for s in data["selection"]] == ["1.1.0"]  # OLM v0's next InstallPlan
    code, out, _ = run("resolve", "-f", str(olm), "--rules", "deppy", "-o", "json")
    data = json.loads(out)
    assert data["rules"] == "deppy" and [s["version"] for s in data["selection"]] == ["1.2.0"]
    code, out, _ = run("resolve", "-f", str(olm))
    assert out.rstrip().splitlines()[-1].startswith("rules: olm-v0 (OLM v0's resolver")
    code, out, _ = run("resolve", "-f", str(request_file(tmp_path, catalog, None)))
    assert "rules:" not in out  # deppy's own: the text as before
    code, out, _ = run("resolve", "-f", str(olm), "-o", "html")
    assert "rules" in out and "olm-v0" in out


def test_unknown_rules_are_one_line_naming_the_rule_sets(tmp_path: Path, catalog: Path) -> None:
    for args in (
        ("resolve", "--catalog", str(catalog), "--require", "a", "--rules", "olm-v1"),
        ("upgrades", "--catalog", str(catalog), "--installed", "a@1.0.0", "--rules", "v0"),
        ("fleet", "plan", str(EXPORTS / "cluster-00000.json"), "--rules", "nope"),
    ):
        code, _, err = run(*args)
        assert code == 2, (args, err)
        assert err.count("\n") == 1 and err.startswith("deppy: error: --rules: no rule set")
        assert KNOWN in err and "olm-v0: OLM v0's resolver" in err
    bad = request_file(tmp_path, catalog, "olmv0")
    code, _, err = run("resolve", "-f", str(bad))
    assert code == 2 and f"{bad}: spec.rules: no rule set 'olmv0'; {KNOWN}" in err


def test_olm_v0_for_clusterextensions_is_refused(tmp_path: Path, catalog: Path) -> None:
    extension = tmp_path / "ce.yaml"
    extension.write_text(
        "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\n"
        "metadata: {name: a}\nspec:\n  namespace: ns\n  serviceAccount: {name: sa}\n"
        "  source: {sourceType: Catalog, catalog: {packageName: a}}\n"
    )
    for command in ("resolve", "upgrades"):
        code, _, err = run(command, "-f", str(extension), "--catalog", f"{catalog}=main",
                           "--rules", "olm-v0")  # fmt: skip
        assert code == 2, err
        assert err.count("\n") == 1
        assert "ClusterExtension documents, which OLM v1 resolves by its own rules" in err
        assert KNOWN in err


def test_upgrades_list_olm_v0_install_plans(catalog: Path) -> None:
    args = ("upgrades", "--catalog", f"{catalog}=main", "--installed",
            "a@1.0.0,channel=stable,catalog=main")  # fmt: skip
    code, out, _ = run(*args, "--rules", "olm-v0", "-o", "json")
    (report,) = json.loads(out)
    assert code == 0 and report["rules"] == "olm-v0"
    assert report["installPlans"] == ["a.v1.1.0", "a.v1.2.0"]
    assert report["channel"]["path"] == ["a.v1.0.0", "a.v1.1.0", "a.v1.2.0"]  # the whole path
    code, out, _ = run(*args, "--rules", "olm-v0")
    assert "OLM v0 (rules olm-v0): next InstallPlan a.v1.1.0" in out
    code, out, _ = run(*args, "-o", "json")
    assert "installPlans" not in json.loads(out)[0]


@pytest.mark.skipif(not COMMUNITY.is_dir(), reason=f"no community catalog at {COMMUNITY}")
def test_upgrades_of_an_olm_v0_export_say_where_olm_v0_stops() -> None:
    code, out, _ = run("upgrades", "--cluster", str(EXPORTS / "cluster-00014.json"),
                       "--catalog", str(COMMUNITY), "-q")  # fmt: skip
    assert code == 0
    text = " ".join(out.split())
    assert "OLM v0 (rules olm-v0): next InstallPlan gitlab-operator-kubernetes.v2.4.1" in text
    assert "OLM v0 stops at 2.5.1: no next InstallPlan" in text
    assert "deppy's rules reach 3.3.0" in text


def test_input_class_rules_parameter() -> None:
    body = {"metadata": {"name": "v0"}, "parameters": {"rules": "olm-v0"}}
    assert class_parameters(body).rules == "olm-v0"
    assert class_parameters({"metadata": {"name": "plain"}}).rules == "deppy"
    with pytest.raises(InputError, match=r"parameters\.rules: no rule set 'x'; known rule sets"):
        class_parameters({"metadata": {"name": "bad"}, "parameters": {"rules": "x"}})


def test_service_body_rules() -> None:
    from tests.service_support import client, paths_app

    body = {
        "spec": {
            "rules": "olm-v0",
            "constraints": [
                {
                    "installed": {
                        "name": "prometheus-operator",
                        "version": "0.56.3",
                        "channel": "stable",
                    }
                }
            ],
        }
    }
    with client(paths_app(f"{EXAMPLE}=example")) as api:
        answer = api.post("/api/v1/resolve", json=body)
        assert answer.status_code == 200, answer.text
        assert answer.json()["rules"] == "olm-v0"
        body["spec"]["rules"] = "olm-v1"
        refused = api.post("/api/v1/resolve", json=body)
        assert refused.status_code == 422
        assert refused.json()["field"] == "spec.rules"
        assert KNOWN in refused.json()["detail"]


# The example OLM v0 exports planned under both rule sets: where OLM v0 stops short of deppy's
# newest. Each is gitlab-operator-kubernetes, whose channel has an entry that both replaces and
# skips the one before it: OLM v0 walks the channel without skipped entries, so what the skipped
# entry replaced has no next InstallPlan (docs/olm-v0/rules.md, "Skipped entries").
FLEET_DIFFERENCES = {
    ("cluster-00014.json", "gitlab-operator-kubernetes.v2.4.0"): ("v3.3.0", "v2.5.1"),
    ("cluster-00019.json", "gitlab-operator-kubernetes.v2.6.1"): ("v3.3.0", "v2.9.1"),
    ("cluster-00022.json", "gitlab-operator-kubernetes.v2.1.2"): ("v3.3.0", "v2.2.2"),
    ("cluster-00024.json", "gitlab-operator-kubernetes.v2.1.2"): ("v3.3.0", "v2.2.2"),
    ("cluster-00025.json", "gitlab-operator-kubernetes.v2.7.0"): ("v3.3.0", "v2.9.1"),
}


@pytest.mark.skipif(not COMMUNITY.is_dir(), reason=f"no community catalog at {COMMUNITY}")
def test_fleet_plan_of_the_example_exports_under_both_rules() -> None:
    plans = {}
    for rules in ("deppy", None):
        flags = ("--rules", rules) if rules else ()
        code, out, err = run("fleet", "plan", str(EXPORTS), "--catalog", str(COMMUNITY),
                             "--workers", "0", "-o", "json", *flags)  # fmt: skip
        assert code in (0, 1), err
        plans[rules or "olm-v0"] = {c["cluster"]: c for c in json.loads(out)["clusters"]}
    differences = {}
    for name, record in plans["deppy"].items():
        if "error" in record:
            continue
        other = plans["olm-v0"][name]
        assert record["rules"] == "deppy" and other["rules"] == "olm-v0"  # the exports' default
        theirs = {o["bundle"]: o for o in other["operators"]}
        for operator in record["operators"]:
            olm = theirs[operator["bundle"]]
            if operator["newest"] != olm["newest"]:
                short = (operator["newest"].rpartition(".v")[2], olm["newest"].rpartition(".v")[2])
                differences[(name, operator["bundle"])] = tuple(f"v{s}" for s in short)
            else:
                assert operator["next"] == olm["next"]
    assert differences == FLEET_DIFFERENCES
    code, out, _ = run("fleet", "plan", str(EXPORTS), "--catalog", str(COMMUNITY),
                       "--workers", "0")  # fmt: skip
    assert "\nRules: olm-v0 (24 clusters)\n" in out  # the summary says whose rules planned


def test_an_olm_v0_namespace_with_no_subscription(tmp_path: Path, catalog: Path) -> None:
    """OLM v0 makes no InstallPlan for a namespace without Subscriptions; deppy's own rules
    still call an empty request a mistake."""
    for rules, expected in (("olm-v0", 0), ("deppy", 2)):
        path = tmp_path / f"empty-{rules}.yaml"
        path.write_text(yaml.safe_dump({"spec": {"rules": rules, "constraints": [],
                        "catalogs": [{"name": "main", "path": str(catalog)}]}}))  # fmt: skip
        code, out, err = run("resolve", "-f", str(path))
        assert code == expected, err
    code, out, _ = run("resolve", "-f", str(tmp_path / "empty-olm-v0.yaml"))
    assert out.startswith("Resolution: nothing to install or upgrade.\nrules: olm-v0")


def test_the_short_text_keeps_olm_v0s_words(tmp_path: Path) -> None:
    """The screen-sized explanation shortens each reason; OLM v0's words still get a line."""
    from tests.olm_builders import needs_api

    catalog = write_catalog(tmp_path / "c", simple_package("a", "1.0.0", props=[needs_api("K")]))
    code, out, _ = run("resolve", "--catalog", str(catalog), "--require", "a", "--rules", "olm-v0")
    assert code == 1
    assert (
        "OLM v0: bundle a.v1.0.0 requires an operator providing an API with group: example.com, "
        "version: v1, kind: K\nrules: olm-v0"
    ) in out


def test_an_input_class_under_olm_v0_rules_moves_one_step(tmp_path: Path) -> None:
    """The controller resolves a unit under its InputClass's rules: an installed bundle the
    unit holds moves one InstallPlan's step under olm-v0, to the newest under deppy's."""
    from deppy.catalog.fbc import load_catalog
    from deppy.controller.catalogs.cache import CatalogCache
    from deppy.controller.resolving.units import Held, Unit, resolve_unit
    from deppy.resolution.request import ClusterFacts
    from deppy.resolution.request_parsing import parse_installed

    path = write_catalog(tmp_path / "c", simple_package("a", "1.0.0", "1.1.0", "1.2.0"))
    cache = CatalogCache()
    cache.loaded("main", load_catalog(path, name="main"), "d1", "t1")
    body = {
        "metadata": {"name": "want-a", "namespace": "ns"},
        "spec": {
            "constraints": [
                {"type": "olm.packageVersion", "value": {"package": "a", "version": ">=1.0.0"}}
            ]
        },
    }
    held = [Held("unit", parse_installed("a@1.0.0,channel=stable,catalog=main"), "set-1")]
    chosen = {}
    for rules in ("deppy", "olm-v0"):
        params = class_parameters({"metadata": {"name": "c"}, "parameters": {"rules": rules}})
        outcome = resolve_unit(Unit("unit", params, (body,)), held, cache, ClusterFacts())
        assert outcome.reason == "Resolved", outcome.message
        chosen[rules] = [str(e.bundle.version) for e in outcome.entries]
    assert chosen == {"deppy": ["1.2.0"], "olm-v0": ["1.1.0"]}


def test_upgrades_say_when_olm_v0_cannot_sort_the_channel(tmp_path: Path) -> None:
    from tests.olm_builders import bundle, channel, package

    objs = [package("a"), channel("a", "stable", "a.v1.0.0", "a.v2.0.0"),
            bundle("a", "1.0.0"), bundle("a", "2.0.0")]  # fmt: skip
    path = write_catalog(tmp_path / "two", objs)
    args = ("upgrades", "--catalog", f"{path}=main", "--installed",
            "a@1.0.0,channel=stable,catalog=main", "--rules", "olm-v0")  # fmt: skip
    code, out, _ = run(*args, "-o", "json")
    (report,) = json.loads(out)
    assert code == 0 and report["installPlans"] == []
    assert report["refused"].startswith("OLM v0: a unique replacement chain within a channel")
    code, out, _ = run(*args)
    assert code == 0 and "  OLM v0: a unique replacement chain" in out


@pytest.mark.skipif(not COMMUNITY.is_dir(), reason=f"no community catalog at {COMMUNITY}")
def test_a_pending_subscription_of_an_export_is_resolved_under_olm_v0(tmp_path: Path) -> None:
    """A Subscription that installed nothing yet is what OLM v0 resolves next: under olm-v0
    (the export's default) it is asked for, with its channel and startingCSV."""
    export = json.loads((EXPORTS / "cluster-00000.json").read_text())
    export["subscriptions"].append(
        {
            "apiVersion": "operators.coreos.com/v1alpha1",
            "kind": "Subscription",
            "metadata": {"name": "horreum", "namespace": "openshift-operators"},
            "spec": {
                "name": "horreum-operator",
                "channel": "alpha",
                "source": "community-operators-prod-v4.18",
                "sourceNamespace": "openshift-marketplace",
                "startingCSV": "horreum-operator.v0.2.0",
            },
        }
    )
    path = tmp_path / "pending.json"
    path.write_text(json.dumps(export))
    args = ("resolve", "--cluster", str(path), "--catalog", str(COMMUNITY), "-q", "-o", "json")
    code, out, err = run(*args)
    assert code == 0, err
    chosen = {s["package"]: s for s in json.loads(out)["selection"]}
    assert chosen["horreum-operator"]["bundle"] == "horreum-operator.v0.2.0"
    assert chosen["horreum-operator"]["action"] == "install"
    code, out, err = run(*args, "--rules", "deppy")
    assert "horreum-operator" not in {s["package"] for s in json.loads(out)["selection"]}


def test_a_trace_of_an_olm_v0_answer_replays_it(tmp_path: Path, catalog: Path) -> None:
    """The trace keeps the request's rules and OLM v0's fields: the replay is the same answer."""
    trace = tmp_path / "t.jsonl"
    request = request_file(tmp_path, catalog, "olm-v0")
    code, out, _ = run("resolve", "-f", str(request), "--trace", str(trace), "-o", "json")
    assert code == 0
    code, replayed, _ = run("replay", str(trace), "-o", "json")
    assert code == 0 and replayed == out and json.loads(out)["rules"] == "olm-v0"


def test_dry_run_next_says_its_rules(tmp_path: Path, catalog: Path) -> None:
    request = request_file(tmp_path, catalog, "olm-v0")
    code, out, _ = run("resolve", "-f", str(request), "--dry-run-next", "ocp=4.19")
    assert code == 0 and out.rstrip().splitlines()[-1].startswith("rules: olm-v0")
    code, out, _ = run("resolve", "-f", str(request), "--dry-run-next", "ocp=4.19", "-o", "json")
    data = json.loads(out)
    assert code == 0
    assert data["now"]["rules"] == data["then"]["rules"] == "olm-v0"
