"""OLM v1's last case (issue 48): when no ClusterCatalog a ClusterExtension's selector matches
exists any more, the extension is installed and its spec asks for no other version, OLM v1's
controller keeps the installed bundle (operator-controller @df2c201d,
``clusterextension_reconcile_steps.go``: ``handleResolutionError``, ``CheckCatalogsExist``).
deppy answers the same, and says so; every other case stays OLM v1's error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from deppy.cli.main import cli, register_commands
from tests.olm_builders import simple_package, write_catalog
from tests.olmv1_objects import cluster_catalog, cluster_extension

register_commands()

NAME_LABEL = "olm.operatorframework.io/metadata.name"
GONE = {"matchLabels": {NAME_LABEL: "gone"}}
FALLBACK = "no ClusterCatalog its selector matches exists"


def run(tmp_path: Path, docs: list[dict[str, Any]], *args: str) -> tuple[int, str, str]:
    """``deppy resolve -f`` on ``docs`` with catalog ``main`` (pkg 1.0.0 and 1.1.0)."""
    main = write_catalog(tmp_path / "main", list(simple_package("pkg", "1.0.0", "1.1.0")))
    path = tmp_path / "request.yaml"
    path.write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    result = CliRunner().invoke(cli, ["resolve", "-f", str(path), "--catalog", f"{main}=main",
                                      *args])  # fmt: skip
    return result.exit_code, result.stdout, result.stderr


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(
    "asked",
    [{}, {"version": "1.0.0"}, {"channels": ["fast"]}],
    ids=["no-version", "the-installed-version", "a-channel-it-is-not-in"],
)
def test_the_installed_bundle_is_kept_when_every_catalog_it_could_use_is_gone(
    tmp_path: Path, asked: dict[str, Any]
) -> None:
    """OLM v1 checks neither channels nor anything but the version string before it falls
    back, so a channel the installed bundle is not in is kept too."""
    doc = cluster_extension("ext", "pkg", "1.0.0", selector=GONE, **asked)
    code, out, err = run(tmp_path, [doc], "-o", "json")
    assert code == 0, out + err
    answer = json.loads(out)
    (kept,) = answer["selection"]
    assert (kept["bundle"], kept["version"], kept["action"]) == ("pkg.v1.0.0", "1.0.0", "keep")
    assert kept["catalog"] == "(installed)"
    (note,) = [w for w in answer["warnings"] if FALLBACK in w]
    assert "ClusterExtension ext" in note and "keeps the installed pkg.v1.0.0 (1.0.0)" in note
    assert FALLBACK in flat(err)


@pytest.mark.parametrize("version", ["<1.0.0", "1.1.0", ">=1.0.0"])
def test_a_spec_asking_another_version_is_no_fallback(tmp_path: Path, version: str) -> None:
    """OLM v1 compares ``version`` with the installed version as strings: a range that holds
    1.0.0 is "another version" to it as well, and it retries with its error."""
    doc = cluster_extension("ext", "pkg", "1.0.0", selector=GONE, version=version)
    code, out, err = run(tmp_path, [doc])
    assert code == 1, out
    assert 'error upgrading from currently installed version "1.0.0"' in flat(out)
    assert FALLBACK not in out + err


def test_removing_a_range_that_holds_the_installed_version_is_a_way_out(tmp_path: Path) -> None:
    """Without ``version`` OLM v1 would fall back: the way out says so, and works."""
    doc = cluster_extension("ext", "pkg", "1.0.0", selector=GONE, version=">=1.0.0")
    code, out, _ = run(tmp_path, [doc], "-o", "json")
    assert code == 1, out
    ways = json.loads(out)["explanation"]["suggestions"]
    (way,) = [w for w in ways if w["change"]["field"] == "spec.source.catalog.version"]
    assert way["change"]["value"] is None
    assert "keep pkg 1.0.0: no catalog is left, OLM v1 falls back" in way["text"]
    del doc["spec"]["source"]["catalog"]["version"]
    assert run(tmp_path, [doc])[0] == 0


def test_a_catalog_that_is_there_without_the_package_is_no_fallback(tmp_path: Path) -> None:
    """``CheckCatalogsExist`` finds the catalog: OLM v1 retries instead of falling back."""
    doc = cluster_extension("ext", "other", "1.0.0", selector={"matchLabels": {NAME_LABEL: "main"}})
    code, out, err = run(tmp_path, [doc])
    assert code == 1, out
    assert 'no bundles found for package "other"' in flat(out)
    assert FALLBACK not in out + err


def test_an_unavailable_catalog_still_exists_so_there_is_no_fallback(tmp_path: Path) -> None:
    """OLM v1 reads no content from an Unavailable ClusterCatalog, but lists it when it checks
    whether any exists: no fallback, the error says it is Unavailable."""
    docs = [
        cluster_catalog("main", available=False),
        cluster_extension("ext", "pkg", "1.0.0", selector={"matchLabels": {NAME_LABEL: "main"}}),
    ]
    code, out, err = run(tmp_path, docs)
    assert code == 1, out
    assert "ClusterCatalog main is Unavailable" in flat(out)
    assert FALLBACK not in out + err


def test_a_described_catalog_without_content_is_no_fallback(tmp_path: Path) -> None:
    """A ClusterCatalog document deppy has no content for still exists on the cluster."""
    docs = [cluster_catalog("gone"), cluster_extension("ext", "pkg", "1.0.0", selector=GONE)]
    code, out, err = run(tmp_path, docs)
    assert code == 1, out
    assert FALLBACK not in out + err


def test_nothing_installed_is_no_fallback(tmp_path: Path) -> None:
    code, out, err = run(tmp_path, [cluster_extension("ext", "pkg", None, selector=GONE)])
    assert code == 1, out
    assert FALLBACK not in out + err


def test_the_plan_keeps_the_selector_as_written(tmp_path: Path) -> None:
    doc = cluster_extension("ext", "pkg", "1.0.0", selector=GONE)
    code, out, _ = run(tmp_path, [doc], "-o", "clusterextensions")
    assert code == 0, out
    (plan,) = [d for d in yaml.safe_load_all(out) if d]
    assert plan["spec"]["source"]["catalog"]["selector"] == GONE
    assert plan["spec"]["source"]["catalog"]["version"] == "1.0.0"


def test_upgrades_says_olm_v1_falls_back(tmp_path: Path) -> None:
    main = write_catalog(tmp_path / "main", list(simple_package("pkg", "1.0.0", "1.1.0")))
    path = tmp_path / "request.yaml"
    path.write_text(yaml.safe_dump(cluster_extension("ext", "pkg", "1.0.0", selector=GONE)))
    result = CliRunner().invoke(cli, ["upgrades", "-f", str(path), "--catalog", f"{main}=main"])
    assert result.exit_code == 0, result.output
    assert f"{FALLBACK}: OLM v1 keeps it (its fallback)" in result.stdout


def test_the_service_answers_the_same(tmp_path: Path) -> None:
    from tests.service_support import client, paths_app

    main = write_catalog(tmp_path / "main", list(simple_package("pkg", "1.0.0", "1.1.0")))
    doc = cluster_extension("ext", "pkg", "1.0.0", selector=GONE)
    with client(paths_app(f"{main}=main")) as api:
        response = api.post("/api/v1/resolve", json=doc)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert [(s["bundle"], s["action"]) for s in answer["selection"]] == [("pkg.v1.0.0", "keep")]
    assert any(FALLBACK in w for w in answer["warnings"])
