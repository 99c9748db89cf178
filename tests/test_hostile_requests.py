"""Round 5 of hostile input on requests: an apiVersion written with escapes is the same
apiVersion (the kind of request is decided on the parsed document, in the CLI and the
service); a catalog priority is what ClusterCatalog's spec.priority takes, no more; an empty
path or value is refused; an empty file, and a List inside a List, say what they are; the
service's dryRunNext names the body's fields, not the CLI's flags."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from deppy.errors import InputError
from deppy.resolution.request_parsing import parse_catalog, request_from_document
from tests.service_support import client, paths_app
from tests.workflow_helpers import run

EXAMPLE = Path(__file__).resolve().parents[1] / "src" / "deppy" / "data" / "catalog"
CATALOG = f"{EXAMPLE}=example"
EXTENSION = """\
apiVersion: API
kind: ClusterExtension
metadata: {name: observability}
spec:
  namespace: monitoring
  serviceAccount: {name: installer}
  source: {sourceType: Catalog, catalog: {packageName: observability-stack}}
"""
EXTENSION_JSON = (
    '{"apiVersion": "API", "kind": "ClusterExtension", "metadata": {"name": "observability"},'
    ' "spec": {"namespace": "monitoring", "serviceAccount": {"name": "installer"}, "source":'
    ' {"sourceType": "Catalog", "catalog": {"packageName": "observability-stack"}}}}'
)
ESCAPED = [
    (EXTENSION_JSON, "olm.operatorframework.io\\/v1"),
    (EXTENSION_JSON, "olm.operatorframework.io\\u002fv1"),
    (EXTENSION_JSON, "\\u006flm.operatorframework.io/v1"),
    (EXTENSION, '"olm.operatorframework.io\\x2Fv1"'),
    (EXTENSION, '"olm\\u002Eoperatorframework\\x2Eio/v1"'),
]


@pytest.fixture(scope="module")
def api() -> Iterator[TestClient]:
    with client(paths_app(CATALOG)) as c:
        yield c


def _resolve_file(tmp_path: Path, text: str) -> tuple[int, str, str]:
    file = tmp_path / "request.yaml"
    file.write_text(text, encoding="utf-8")
    return run("resolve", "-f", str(file), "--catalog", CATALOG, "-o", "json")


@pytest.mark.parametrize(("template", "api_version"), ESCAPED)
def test_an_escaped_api_version_is_olm_v1_in_the_cli_and_the_service(
    tmp_path: Path, api: TestClient, template: str, api_version: str
) -> None:
    plain = template.replace("API", "olm.operatorframework.io/v1")
    code, expected, said = _resolve_file(tmp_path, plain)
    assert code == 3, said  # resolved as OLM v1 (which refuses observability-stack as written)
    escaped = template.replace("API", api_version)
    assert _resolve_file(tmp_path, escaped) == (3, expected, said)
    answer = api.post("/api/v1/resolve", content=escaped.encode(),
                      headers={"content-type": "application/yaml"})  # fmt: skip
    assert answer.status_code == 200, answer.text
    assert answer.text == expected


@pytest.mark.parametrize(
    "priority", ["5_0", "+5", " 5", "5 ", "\u0665", "\uff15", "2147483648", "-2147483649",
                 "9" * 5000, "0x10", "1e3", "five"],
)  # fmt: skip
def test_a_catalog_priority_is_what_cluster_catalogs_take(priority: str) -> None:
    with pytest.raises(InputError) as refused:
        parse_catalog(f"/catalog=community:{priority}")
    assert "priority" in str(refused.value)
    code, _, err = run("resolve", "--require", "x", "--catalog", f"{EXAMPLE}=example:{priority}")
    assert code == 2 and "priority" in err and "Traceback" not in err


def test_the_priorities_cluster_catalogs_take_are_taken() -> None:
    for text, number in (("10", 10), ("-3", -3), ("2147483647", 2**31 - 1),
                         ("-2147483648", -(2**31)), ("007", 7)):  # fmt: skip
        assert parse_catalog(f"/catalog=community:{text}").priority == number
    document = {"spec": {"catalogs": [{"path": "/c", "priority": 2**31}]}}
    with pytest.raises(InputError, match=r"spec.catalogs\[0\].priority: out of range"):
        request_from_document(document, "request.yaml")


@pytest.mark.parametrize(
    "args",
    [
        ["catalog", "diff", "", str(EXAMPLE)],
        ["resolve", "--require", "x", "--catalog", ""],
        ["resolve", "--require", "x", "--catalog="],
        ["upgrades", "--cluster", ""],
        ["validate", ""],
        ["fleet", "plan", ""],
        ["fleet", "plan", str(EXAMPLE), "--ocp-version", ""],
    ],
)
def test_an_empty_path_or_value_is_refused(args: list[str]) -> None:
    code, out, err = run(*args)
    assert code == 2, err
    assert "empty" in err and out == ""


def test_an_empty_file_and_a_list_in_a_list_say_so(tmp_path: Path) -> None:
    for empty in ("", "\n# nothing\n", "---\n"):
        code, _, err = _resolve_file(tmp_path, empty)
        assert code == 2 and "the file is empty" in err, err
    nested = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items: []\n"
    code, _, err = _resolve_file(tmp_path, nested)
    assert code == 2 and "items[0]: a kind: List inside a kind: List" in err, err


def test_dry_run_next_in_the_service_names_the_body_not_cli_flags(api: TestClient) -> None:
    body = {"apiVersion": "deppy.io/v1alpha1", "kind": "ActiveResolution",
            "spec": {"constraints": [{"required": {"name": "observability-stack"}}]}}  # fmt: skip
    answer = api.post("/api/v1/resolve?dryRunNext=next", json=body)
    assert answer.status_code == 422
    problem = answer.json()
    assert problem["field"] == "query.dryRunNext"
    assert "spec.cluster" in problem["fix"] and "--" not in problem["fix"]
