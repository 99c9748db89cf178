"""A stored catalog's earlier contents (issue 36, "Catalog history").

``deppy catalog refresh NAME`` keeps what NAME held before as ``NAME@1`` (the one before that
becomes ``NAME@2``, …), up to a number the user sets; ``deppy catalog history NAME`` lists
them; each answers wherever a stored name does, under the catalog's own name (``--since``,
``catalog diff``, ``--catalog``); pruning never touches the catalog itself; a resolution over
"the stored catalogs" never sees them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.test_store_cli import deppy
from tests.workflow_helpers import WORKFLOWS

EXTRA = """
---
schema: olm.package
name: release-{n}
defaultChannel: stable
---
schema: olm.channel
package: release-{n}
name: stable
entries: [{{name: release-{n}.v1.0.0}}]
---
schema: olm.bundle
name: release-{n}.v1.0.0
package: release-{n}
image: example.com/release-{n}:1.0.0
properties:
  - {{type: olm.package, value: {{packageName: release-{n}, version: 1.0.0}}}}
"""


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "deppy-home"
    monkeypatch.setenv("DEPPY_HOME", str(path))
    monkeypatch.delenv("DEPPY_CATALOG_HISTORY", raising=False)
    return path


@pytest.fixture
def release(tmp_path: Path) -> Path:
    """A catalog directory stored as ``rel``; each ``next_release`` adds a package."""
    target = tmp_path / "rel"
    shutil.copytree(WORKFLOWS / "search", target)
    assert deppy("catalog", "add", "rel", target)[0] == 0
    return target


def next_release(catalog: Path, n: int, *options: str) -> str:
    with open(catalog / "catalog.yaml", "a") as file:
        file.write(EXTRA.format(n=n))
    code, out, err = deppy("catalog", "refresh", "rel", *options)
    assert code == 0, err
    return out


def names(*args: str) -> list[str]:
    code, out, err = deppy(*args, "-o", "name")
    assert code == 0, err
    return out.split()


def test_a_refresh_keeps_what_the_catalog_held_before(release: Path) -> None:
    assert "kept as rel@1" in next_release(release, 1)
    next_release(release, 2)
    assert names("catalog", "history", "rel") == ["rel", "rel@1", "rel@2"]
    code, out, _ = deppy("catalog", "history", "rel", "-o", "json")
    history = json.loads(out)["history"]
    assert [h["bundles"] for h in history] == [10, 9, 8]
    assert deppy("catalog", "history", "rel")[1].split()[:2] == ["NAME", "PRIORITY"]
    # each earlier content answers under the catalog's own name, as the catalog did then
    assert "release-1" not in names("search", "--catalog", "rel@2")
    assert "release-1" in names("search", "--catalog", "rel@1")
    assert "release-2" not in names("search", "--catalog", "rel@1")
    code, out, _ = deppy("search", "release", "--catalog", "rel@1", "-o", "json")
    assert {hit["catalog"] for hit in json.loads(out)} == {"rel"}
    # and only when named: the stored catalogs are the current ones
    assert names("catalog", "list") == ["rel"]
    code, out, _ = deppy("search", "redis", "-o", "json")
    assert [hit["package"] for hit in json.loads(out)].count("redis") == 1
    code, out, err = deppy("catalog", "diff", "rel@2", "rel", "-o", "json")
    assert code == 0, err
    diff = json.loads(out)
    assert [p["package"] for p in diff["packages"]["added"]] == ["release-1", "release-2"]
    assert diff["old"]["catalog"] == "rel@2"


def test_the_number_kept_is_the_users_and_the_catalog_itself_is_never_pruned(
    release: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(1, 6):
        next_release(release, n, "--keep", "2")
    assert names("catalog", "history", "rel") == ["rel", "rel@1", "rel@2"]
    assert "release-3" in names("search", "--catalog", "rel@2")
    assert "release-4" not in names("search", "--catalog", "rel@2")
    code, _, err = deppy("catalog", "history", "rel", "--keep", "0")
    assert code == 0 and "dropped 2 earlier contents of rel" in err
    assert names("catalog", "history", "rel") == ["rel"]
    assert "release-5" in names("search", "--catalog", "rel")
    monkeypatch.setenv("DEPPY_CATALOG_HISTORY", "two")
    code, _, err = deppy("catalog", "refresh", "rel")
    assert code == 2 and err.startswith("deppy: error: $DEPPY_CATALOG_HISTORY: 'two' is not")
    monkeypatch.setenv("DEPPY_CATALOG_HISTORY", "0")
    assert "kept as" not in next_release(release, 6)
    assert names("catalog", "history", "rel") == ["rel"]


def test_earlier_contents_are_read_only_and_go_with_their_catalog(release: Path) -> None:
    next_release(release, 1)
    code, _, err = deppy("catalog", "refresh", "rel@1")
    assert code == 2
    assert err.strip().endswith(
        "earlier contents of rel: is kept as it was, never read again; give rel instead"
    )
    code, _, err = deppy("search", "--catalog", "rel@1", "--catalog", "rel")
    assert code == 2 and "a catalog and its earlier contents cannot answer together" in err
    assert deppy("catalog", "remove", "rel")[0] == 0
    code, _, err = deppy("catalog", "history", "rel")
    assert code == 2 and "no stored catalog has this name" in err
    code, _, err = deppy("search", "--catalog", "rel@1")
    assert code == 2


def test_fleet_since_reads_the_catalog_as_it_was_before_its_refresh(tmp_path: Path) -> None:
    """``--since NAME@1``: the release a refresh replaced, under the catalog's own name (the
    exports' Subscriptions name their source, ``redhat-operators``)."""
    from deppy.workflows.fleet.inputs import cluster_refs
    from deppy.workflows.fleet.plan import FleetSettings, Planner
    from tests.test_fleet import EXCERPTS, _export

    catalog = tmp_path / "redhat"
    shutil.copytree(EXCERPTS / "node-observability-operator-older", catalog)
    assert deppy("catalog", "add", "redhat-operators", catalog)[0] == 0
    shutil.rmtree(catalog)
    shutil.copytree(EXCERPTS / "v4.14-node-observability-operator", catalog)
    assert deppy("catalog", "refresh", "redhat-operators")[0] == 0
    exports = tmp_path / "exports"
    exports.mkdir()
    _export(exports / "a.json", "node-observability-operator",
            "node-observability-operator.v0.1.0", "0.1.0", "alpha")  # fmt: skip
    settings = FleetSettings(catalogs=("redhat-operators",), since=("redhat-operators@1",))
    (record,) = (Planner.load(settings).plan(r) for r in cluster_refs([str(exports)]))
    assert record["since"]["updatesChanged"] == [
        {
            "package": "node-observability-operator",
            "before": None,
            "after": "node-observability-operator.v0.2.0",
        }
    ]


def test_resolve_takes_earlier_contents_and_a_missing_one_reads_the_same_everywhere(
    release: Path,
) -> None:
    """Issue 39: ``resolve --catalog NAME@1`` was refused ("no catalog has this name") while
    search, show and upgrades took it; issue 40: a missing ``NAME@N`` read differently in
    ``catalog diff`` and ``--catalog``."""
    next_release(release, 1)
    next_release(release, 2)
    code, out, err = deppy("resolve", "--require", "release-1", "--catalog", "rel@1", "-o", "json")
    assert code == 0, err
    assert [s["package"] for s in json.loads(out)["selection"]] == ["release-1"]
    code, _, err = deppy("resolve", "--require", "release-2", "--catalog", "rel@1")
    assert code == 1, err  # rel@1 is the release before release-2 was added
    code, out, err = deppy("catalog", "check", "rel@1", "-o", "json")  # was refused
    assert (code, json.loads(out)["catalog"], json.loads(out)["bundles"]) == (0, "rel@1", 9), err
    said = set()
    for args in (
        ("resolve", "--require", "redis", "--catalog", "rel@9"),
        ("resolve", "--require", "redis", "--source", "rel@9"),
        ("search", "redis", "--catalog", "rel@9"),
        ("show", "redis", "--catalog", "rel@9"),
        ("upgrades", "--installed", "redis@1.0.0", "--catalog", "rel@9"),
        ("catalog", "diff", "rel@9", "rel"),
        ("catalog", "diff", "rel", "rel@9"),
        ("catalog", "problems", "rel@9"),
        ("catalog", "check", "rel@9"),
        ("fleet", "plan", str(release), "--catalog", "rel@9"),  # its check before any worker
    ):
        code, out, err = deppy(*args)
        assert code == 2, (args, out, err)
        said.add(err)
    assert said == {
        "deppy: error: catalog 'rel@9': no earlier contents of rel has this number; "
        "kept: rel@1, rel@2 (deppy catalog history rel)\n"
    }


def test_a_refresh_of_unchanged_content_keeps_no_history_and_says_so(release: Path) -> None:
    """Issue 40: ``catalog refresh`` of unchanged content made a NAME@1 equal to NAME."""
    code, out, err = deppy("catalog", "refresh", "rel")
    assert code == 0, err
    assert out.startswith("catalog rel unchanged: ") and "kept as" not in out
    assert names("catalog", "history", "rel") == ["rel"]
    assert "kept as rel@1" in next_release(release, 1)  # a change is kept, as before
    assert names("catalog", "history", "rel") == ["rel", "rel@1"]


def test_catalog_add_and_refresh_take_q(tmp_path: Path) -> None:
    """Issue 40: ``catalog add -q`` was missing, though other commands have -q: no warnings
    (the load problems stay listed by ``catalog problems``), only the one line of what was done."""
    catalog = tmp_path / "broken"
    shutil.copytree(WORKFLOWS / "search", catalog)
    (catalog / "broken.json").write_text('{"schema": "olm.bundle", "name": "broken"}\n')
    code, out, err = deppy("catalog", "add", "b", catalog, "-q")
    assert (code, err) == (0, "") and out.startswith("added catalog b ")
    code, out, err = deppy("catalog", "refresh", "b", "--quiet")
    assert (code, err) == (0, "") and out.startswith("catalog b unchanged: ")
    assert deppy("catalog", "problems", "b")[0] == 1  # still there to be listed


def test_the_service_takes_earlier_contents_in_spec_sources(release: Path, home: Path) -> None:
    """Issue 39: ``NAME@N`` wherever a catalog name is taken, the service's ``spec.sources``
    too: the answer ``deppy resolve --source NAME@N`` prints, and a missing one in its words."""
    from deppy.service.app import create_app
    from deppy.service.config import ServiceConfig
    from tests.service_support import client, paths_app

    next_release(release, 1)
    next_release(release, 2)
    api = client(create_app(ServiceConfig(store=home, reload_interval=0)))

    def resolve(api: TestClient, source: str, package: str) -> Any:
        body = {"spec": {"sources": [source], "constraints": [f"required({package})"]}}
        return api.post("/api/v1/resolve", json=body)

    for package in ("release-1", "release-2"):  # rel@1: the release before release-2
        answer = resolve(api, "rel@1", package)
        code, out, err = deppy("resolve", "--require", package, "--source", "rel@1", "-o", "json")
        assert (answer.status_code, code) == (200, 0 if package == "release-1" else 1), err
        assert answer.json() == json.loads(out)
    missing = resolve(api, "rel@9", "release-1")
    assert missing.status_code == 422
    said = deppy("resolve", "--require", "release-1", "--source", "rel@9")[2]
    problem = missing.json()
    assert problem["field"] == "spec.sources"
    assert f"deppy: error: {problem['detail']}; {problem['fix']}\n" == said
    both = api.post(
        "/api/v1/resolve",
        json={"spec": {"sources": ["rel", "rel@1"], "constraints": ["required(release-1)"]}},
    )
    assert (both.status_code, both.json()["field"]) == (422, "spec.sources")
    assert "a catalog and its earlier contents cannot answer together" in both.json()["detail"]
    from_paths = resolve(client(paths_app(str(release))), "rel@1", "release-1")
    assert from_paths.status_code == 422
    assert "earlier contents are kept for stored catalogs only" in from_paths.json()["detail"]
