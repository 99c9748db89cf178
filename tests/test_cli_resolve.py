"""``deppy resolve`` as a user runs it: outputs, exit codes and one-line errors.

The catalogs are tests/data/olm/cli/apps (YAML, priority 10) and tests/data/olm/cli/infra (JSON):
webapp needs package db and the API Queue (broker); legacy needs an API nothing provides.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from deppy.cli.main import cli, register_commands
from deppy.workflows.catalog_loading import embedded_request_path

register_commands()

DATA = Path(__file__).resolve().parent / "data" / "olm" / "cli"
APPS = f"{DATA / 'apps'}=apps:10"
INFRA = f"{DATA / 'infra'}=infra"
REQUEST = DATA / "request.yaml"
CATALOGS = ("--catalog", APPS, "--catalog", INFRA)
SELECTION_FIELDS = {"package", "version", "bundle", "channel", "catalog", "image", "action"}


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["resolve", *args])
    return result.exit_code, result.stdout, result.stderr


def as_json(*args: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = run(*args, "-o", "json")
    return code, json.loads(out)


def by_package(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["package"]: item for item in data["selection"]}


# --- answers -----------------------------------------------------------------------------------


def test_make_run_request_resolves_with_an_upgrade_path() -> None:
    code, data = as_json("-f", str(embedded_request_path()))
    assert code == 0
    prometheus = by_package(data)["prometheus-operator"]
    assert prometheus["action"] == "upgrade"
    assert prometheus["from"] == "0.56.3"
    assert prometheus["path"] == ["prometheus-operator.v0.56.3", "prometheus-operator.v0.70.0"]
    assert [item["package"] for item in data["selection"]][-1] == "observability-stack"
    code, out, err = run("-f", str(embedded_request_path()))
    assert code == 0
    assert "upgrade 0.56.3 → 0.70.0" in out
    assert "no --catalog and no stored" not in err, "the sample request names its own catalog"
    assert {item["catalog"] for item in data["selection"]} == {"embedded"}


def test_json_has_the_documented_selection() -> None:
    code, data = as_json("-f", str(REQUEST))
    assert code == 0
    assert data["resolved"] is True and "explanation" not in data
    assert [item["package"] for item in data["selection"]] == ["db", "broker", "webapp"]
    for item in data["selection"]:
        assert SELECTION_FIELDS | {"reasons"} <= set(item)
        assert isinstance(item["reasons"], list) and item["reasons"]
    selected = by_package(data)
    properties = selected["db"].pop("properties")  # exactly those the resolution used
    assert {"type": "olm.package", "value": {"packageName": "db", "version": "2.1.0"}} in properties
    assert selected["db"] == {
        "package": "db",
        "version": "2.1.0",
        "bundle": "db.v2.1.0",
        "channel": "stable",
        "catalog": "infra",
        "image": "registry.example/db-bundle:2.1.0",
        "action": "upgrade",
        "from": "2.0.0",
        "path": ["db.v2.0.0", "db.v2.1.0"],
        "pathVersions": ["2.0.0", "2.1.0"],
        "reasons": [
            "installed: db 2.0.0 (channel stable)",
            "dependency of webapp 1.2.0 (package db >=2.0.0 <3.0.0)",
        ],
    }
    assert selected["webapp"]["catalog"] == "apps"
    assert selected["webapp"]["reasons"] == ["required: webapp >= 1.0.0 in channel stable"]
    assert selected["broker"]["reasons"] == [
        "required: broker >=3.0.0 <4.0.0",
        "dependency of webapp 1.2.0 (API Queue (mq.example.com/v1))",
    ]


def test_options_say_what_the_request_file_says() -> None:
    options = (
        *CATALOGS,
        "--require",
        "webapp@>= 1.0.0,channel=stable",
        "--installed",
        "db@2.0.0,channel=stable",
        "--require",
        "broker@>=3.0.0 <4.0.0",
        "--source",
        "apps",
        "--source",
        "infra",
        "--ocp-version",
        "4.18",
        "--kube-version",
        "1.31.0",
    )
    assert run(*options, "-o", "json") == run("-f", str(REQUEST), "-o", "json")


def test_yaml_output_is_the_json_answer() -> None:
    code, out, _ = run("-f", str(REQUEST), "-o", "yaml")
    assert code == 0
    assert yaml.safe_load(out) == as_json("-f", str(REQUEST))[1]


def test_unresolvable_json_has_an_explanation_without_solver_ids() -> None:
    code, out, _ = run(*CATALOGS, "--require", "legacy", "-o", "json")
    assert code == 1
    data = json.loads(out)
    assert data["resolved"] is False and "selection" not in data
    explanation = data["explanation"]
    assert explanation["summary"] == "Cannot resolve required package legacy"
    assert explanation["roots"] == ["required package legacy"]
    assert any(
        c["kind"] == "missing" and "Mainframe (ibm.example.com/v1)" in c["text"]
        for c in explanation["causes"]
    )
    assert "find a catalog offering API Mainframe (ibm.example.com/v1)" in [
        s["text"] for s in explanation["suggestions"]
    ]
    assert "apps/legacy/" not in out
    # the solver's own constraints (which name variables) only with -v
    code, verbose, _ = run(*CATALOGS, "--require", "legacy", "-o", "json", "-v")
    assert any(
        "apps/legacy/legacy.v1.0.0" in c for c in json.loads(verbose)["explanation"]["constraints"]
    )


def test_unresolvable_text_names_packages_and_a_way_out() -> None:
    code, out, _ = run(*CATALOGS, "--require", "webapp", "--source", "apps")
    assert code == 1
    assert out.startswith("Cannot resolve required package webapp\nWhy:\n")
    assert "  - webapp 1.2.0 needs db >=2.0.0 <3.0.0: in no catalog (apps)\n" in out
    # the catalog --source leaves out has it: named, and seen to resolve
    assert "Try: catalog infra offers db 2.1.0: add `--source infra`\n" in out
    assert "apps/webapp/" not in out
    code, out, _ = run(*CATALOGS, "--require", "webapp", "--source", "apps", "--source", "infra")
    assert code == 0 and "db" in out
    code, out, _ = run(*CATALOGS, "--require", "webapp", "--source", "apps", "-v")
    assert "needs package db" in out and "no catalog (apps) contains package db" in out
    assert "What would make it work:" in out


def test_cluster_versions_and_restrictions_from_options() -> None:
    # webapp 1.2.0 supports OpenShift up to 4.18: on 4.19 webapp 1.1.0 is the answer
    code, data = as_json(*CATALOGS, "--require", "webapp", "--ocp-version", "4.19")
    assert code == 0 and by_package(data)["webapp"]["version"] == "1.1.0"
    code, out, _ = run(*CATALOGS, "--require", "webapp@1.2.0", "--ocp-version", "4.19")
    assert code == 1
    assert "webapp 1.2.0 supports OpenShift up to 4.18" in out and "runs 4.19" in out
    # broker needs Kubernetes 1.28.0
    code, out, _ = run(*CATALOGS, "--require", "broker", "--kube-version", "1.27.3")
    assert code == 1 and "needs Kubernetes 1.28.0 or newer" in out
    # db 2.1.0 is labelled tech-preview
    code, data = as_json(*CATALOGS, "--require", "db", "--exclude", "olm.label=tech-preview")
    assert code == 0 and by_package(data)["db"]["version"] == "2.0.0"


def test_warnings_go_to_stderr() -> None:
    code, out, err = run(*CATALOGS, "--require", "db@1.9.0", "-o", "json")
    assert code == 0
    message = "bundle db.v1.9.0 is deprecated in catalog infra: db 1.9.0 is end of life; use 2.x"
    assert err == f"deppy: warning: {message}\n"
    assert json.loads(out)["warnings"] == [message]


@pytest.mark.parametrize("output", ["table", "json", "yaml"])
def test_output_is_byte_identical_across_runs(output: str) -> None:
    args = ("-f", str(REQUEST), "-o", output)
    first = run(*args)
    assert first[0] == 0
    assert run(*args) == first
    failing = (*CATALOGS, "--require", "legacy", "--require", "webapp", "-o", output)
    assert run(*failing) == run(*failing)


def test_output_does_not_depend_on_hash_seeds() -> None:
    """Byte-identical in separate processes too, whatever order sets and dicts take there."""
    args = [*CATALOGS, "--require", "webapp", "--require", "legacy", "--installed", "db@1.9.0"]
    outputs = set()
    for seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", "from deppy.cli.main import main; main()", "resolve", *args],
            capture_output=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=False,
        )
        assert done.returncode == 1, done.stderr
        outputs.add(done.stdout)
    assert len(outputs) == 1


# --- bad input: exit 2, one line naming the place ---------------------------------------------


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "request.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (("--require", "webapp,chanel=stable"), ["--require 'webapp,chanel=stable'", "chanel"]),
        (("--require", "webapp@>=1.0.0 <<2.0.0"), ["--require", "<<2.0.0"]),
        (("--require", "Web App"), ["--require", "'Web App' is not a package name"]),
        (("--require", "webapp,within=micro:1.0.0"), ["within", "micro"]),
        (("--installed", "db"), ["--installed 'db'", "version is missing"]),
        (("--installed", "db@two"), ["--installed 'db@two'", "two"]),
        (("--exclude", "olm.label"), ["--exclude 'olm.label'", "TYPE=VALUE"]),
        (("--ocp-version", "four"), ["--ocp-version", "four"]),
        (("--source", "nowhere"), ["nowhere", "known catalogs: apps, infra"]),
        (("--timeout", "0.000000001"), ["--timeout", "did not finish in time"]),
    ],
)
def test_bad_option_is_one_line_and_exit_2(args: tuple[str, ...], names: list[str]) -> None:
    code, out, err = run(*CATALOGS, "--require", "db", *args)
    assert code == 2, out
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("deppy: error: "), err
    assert "Traceback" not in err
    for name in names:
        assert name in err


def test_missing_catalog_path_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-catalog"
    code, _, err = run("--catalog", str(missing), "--require", "db")
    assert code == 2
    fix = "give the directory of a File-Based Catalog"
    assert err == f"deppy: error: {missing}: catalog not found; {fix}\n"


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("spec: [\n", ["invalid YAML"]),
        ("- just a list\n", ["expected an ActiveResolution with a 'spec' mapping"]),
        ("spec:\n  constraints: required(webapp)\n", ["spec.constraints", "expected a list"]),
        ('spec:\n  constraints:\n    - want("webapp")\n', ["spec.constraints[0]", "want"]),
        (
            "spec:\n  constraints:\n    - required:\n        name: webapp\n        chanel: x\n",
            ["spec.constraints[0].required.chanel", "unknown field"],
        ),
        (
            "spec:\n  constraints:\n    - required: {versionRange: '>=1.0.0'}\n",
            ["spec.constraints[0].required.name", "a package name is required"],
        ),
        (
            "spec:\n  constraints:\n    - required: {name: webapp, versionRange: '>=1.0.0 <<2'}\n",
            ["spec.constraints[0].required.versionRange", "<<2"],
        ),
        (
            'spec:\n  constraints:\n    - \'required("webapp", ">=1.0.0, <2.0.0")\'\n',
            ["spec.constraints[0].required.versionRange", ">=1.0.0, <2.0.0"],
        ),
        (
            'spec:\n  constraints:\n    - \'required("a", ">=1.0.0", "stable", "x")\'\n',
            ["spec.constraints[0]", "at most 3 arguments"],
        ),
        (
            "spec:\n  constraints:\n    - installed: {name: db}\n",
            ["spec.constraints[0].installed.version", "required"],
        ),
        (
            "spec:\n  cluster: {openshiftVersion: 'four'}\n  constraints: ['required(\"db\")']\n",
            ["spec.cluster.openshiftVersion", "four"],
        ),
        (
            "spec:\n  exclude: [{type: olm.label}]\n  constraints: ['required(\"db\")']\n",
            ["spec.exclude[0]", "{type: ..., value: ...}"],
        ),
        (
            "spec:\n  catalogs: [{name: x}]\n  constraints: ['required(\"db\")']\n",
            ["spec.catalogs[0]", "path"],
        ),
        (
            "spec:\n  catalogs: [{path: ., priority: high}]\n  constraints: ['required(\"db\")']\n",
            ["spec.catalogs[0].priority", "integer"],
        ),
    ],
)
def test_bad_request_file_is_one_line_and_exit_2(
    tmp_path: Path, text: str, names: list[str]
) -> None:
    path = write(tmp_path, text)
    code, out, err = run(*CATALOGS, "-f", path)
    assert code == 2, out
    assert err.count("\n") == 1 and err.startswith(f"deppy: error: {path}"), err
    assert "Traceback" not in err
    for name in names:
        assert name in err


def test_request_file_that_does_not_exist(tmp_path: Path) -> None:
    code, _, err = run("-f", str(tmp_path / "absent.yaml"))
    assert code == 2
    assert err == f"deppy: error: {tmp_path / 'absent.yaml'}: no such file\n"


def test_nothing_to_resolve_is_a_usage_error() -> None:
    code, _, err = run(*CATALOGS)
    assert code == 2
    assert "nothing to resolve" in err and "Traceback" not in err


def test_html_report_for_an_answer_and_for_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    code, page, _ = run("-f", str(REQUEST), "-o", "html")
    assert code == 0
    # what a reader needs to reproduce it: request, catalogs, cluster, time, deppy's version
    assert "<dt>request</dt><dd>require webapp &gt;= 1.0.0 in channel stable;" in page
    assert re.search(r"<dt>catalog apps</dt><dd>sha256:[0-9a-f]{64}</dd>", page)
    assert "<dt>cluster</dt><dd>OpenShift 4.18, Kubernetes 1.31.0</dd>" in page
    assert "<dt>time</dt><dd>2023-11-14T22:13:20Z (SOURCE_DATE_EPOCH)</dd>" in page
    assert f"<dt>deppy</dt><dd>{importlib.metadata.version('deppy')}</dd>" in page
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<th>action</th>" in page and "upgrade 2.0.0 → 2.1.0" in page
    assert run("-f", str(REQUEST), "-o", "html")[1] == page, "same input, same bytes"
    code, page, _ = run("--catalog", str(DATA), "--require", "missing-package", "-o", "html")
    assert code == 1
    assert '<section class="explanation">' in page and "What would make it work" in page
    assert "<script" not in page
