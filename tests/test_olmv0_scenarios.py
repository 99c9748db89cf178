"""OLM v0's own resolver tests, restated as data (tests/data/olm-v0-scenarios/, see its README),
run through ``deppy resolve -f`` twice: under the ``olm-v0`` rules each scenario must give the
answer OLM v0's Go test asserts (``expect``); under deppy's own rules, deppy's answer
(``expect_deppy`` where the two differ, with ``why_deppy``), so every disagreement between the
rule sets is a line of data, not a surprise.

A scenario marked ``unstatable`` (OLM v0's test data cannot be stated as catalogs and a request)
is skipped with its reason. The olm-v0 half skips while that rule set does not exist.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from deppy.cli.main import cli, register_commands
from deppy.resolution.rule_sets import RULE_SETS

register_commands()

DATA = Path(__file__).resolve().parent / "data" / "olm-v0-scenarios"
SCENARIOS = sorted(DATA.rglob("*.yaml"))
OLM_V0 = "olm-v0"
# A deppy without the olm-v0 rule set reads request files without OLM v0's fields: deppy's half
# asks it the question without them, and skips a scenario whose answer turns on one of them.
OLM_V0_SPEC_FIELDS = ("rules", "namespace")
OLM_V0_ENTRY_FIELDS = ("subscription", "catalogNamespace", "startingCSV", "subscribed")
DECIDING_FIELDS = ("startingCSV", "subscribed")


def scenario_id(path: Path) -> str:
    return str(path.relative_to(DATA).with_suffix(""))


def load(path: Path) -> dict[str, Any]:
    scenario = yaml.safe_load(path.read_text(encoding="utf-8"))
    if scenario.get("unstatable"):
        pytest.skip(f"unstatable: {scenario['unstatable']}")
    return scenario


def entries(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [body for c in request["spec"].get("constraints", []) for body in c.values()]


def deppy_request(scenario: dict[str, Any]) -> dict[str, Any]:
    """The scenario's request under deppy's rules: the same one, ``rules: deppy``."""
    request = copy.deepcopy(scenario["request"])
    request["spec"]["rules"] = "deppy"
    if OLM_V0 in RULE_SETS:
        return request
    used = sorted({k for body in entries(request) for k in DECIDING_FIELDS if k in body})
    if used:
        pytest.skip(f"this deppy's request files have no {', '.join(used)}")
    for key in OLM_V0_SPEC_FIELDS:
        request["spec"].pop(key, None)
    for catalog in request["spec"].get("catalogs", []):
        catalog.pop("namespace", None)
    for body in entries(request):
        for key in OLM_V0_ENTRY_FIELDS:
            body.pop(key, None)
    return request


def write_request(scenario: dict[str, Any], request: dict[str, Any], root: Path) -> Path:
    """Each catalog as an FBC directory beside the request file that names it."""
    for name, objects in scenario["catalogs"].items():
        (root / name).mkdir(parents=True)
        text = "".join(json.dumps(o) + "\n" for o in objects)
        (root / name / "catalog.json").write_text(text, encoding="utf-8")
    request = copy.deepcopy(request)
    for catalog in request["spec"].get("catalogs", []):
        catalog["path"] = catalog["name"]
    path = root / "request.yaml"
    path.write_text(yaml.safe_dump(request, sort_keys=False), encoding="utf-8")
    return path


def outcome(request: Path) -> tuple[dict[str, Any], str]:
    """What OLM v0's tests assert of a resolution: resolved or not, and the bundles it installs or
    upgrades to (an installed bundle that stays is no operator of OLM's answer); and the text."""
    result = CliRunner().invoke(cli, ["resolve", "-f", str(request), "-o", "json"])
    if result.exit_code == 2:
        return {"resolved": False, "bad_input": True}, result.stderr
    assert result.exit_code in (0, 1), result.output
    if result.exit_code == 1:
        text = CliRunner().invoke(cli, ["resolve", "-f", str(request)]).output
        return {"resolved": False}, text
    chosen = [
        {"bundle": item["bundle"], "catalog": item["catalog"]}
        for item in json.loads(result.stdout)["selection"]
        if item["action"] != "keep"
    ]
    return {"resolved": True, "operators": in_order(chosen)}, ""


def in_order(operators: list[dict[str, str]]) -> list[dict[str, str]]:
    """OLM's tests compare operators as a set (ElementsMatch)."""
    return sorted(operators, key=lambda o: (o["bundle"], o["catalog"]))


def comparable(expect: dict[str, Any]) -> dict[str, Any]:
    """``expect`` without the words of an error (checked apart), operators in a stable order."""
    found = {k: v for k, v in expect.items() if k != "error"}
    if "operators" in found:
        found["operators"] = in_order(found["operators"])
    return found


@pytest.mark.parametrize("path", SCENARIOS, ids=scenario_id)
def test_olm_v0_rules_give_olm_v0s_answer(path: Path, tmp_path: Path) -> None:
    scenario = load(path)
    if OLM_V0 not in RULE_SETS:
        pytest.skip("the olm-v0 rule set is not part of this deppy")
    found, text = outcome(write_request(scenario, scenario["request"], tmp_path))
    assert found == comparable(scenario["expect"])
    if words := scenario["expect"].get("error"):
        assert " ".join(words.split()) in " ".join(text.split())  # the text wraps long lines


@pytest.mark.parametrize("path", SCENARIOS, ids=scenario_id)
def test_deppy_rules_answer_as_recorded(path: Path, tmp_path: Path) -> None:
    scenario = load(path)
    found, _ = outcome(write_request(scenario, deppy_request(scenario), tmp_path))
    expected = scenario.get("expect_deppy", scenario["expect"])
    assert found == comparable(expected)
    assert ("expect_deppy" in scenario) == bool(scenario.get("why_deppy")), "say why deppy differs"
