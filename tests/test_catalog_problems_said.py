"""A catalog's load problems are said where they help (issue 40, item 6: "catalog problems are
repeated and lost"): listed at ``catalog add``; elsewhere once, only for the catalogs the
answer used, never before another error; and always in the machine formats' ``warnings``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from tests.conftest import shared_path
from tests.test_store_cli import deppy
from tests.workflow_helpers import WORKFLOWS

ETCD = shared_path("catalogs", "community-operators-prod-v4.18", "etcd")
NOTE = "catalog hub: 1 invalid object skipped: deppy catalog problems hub"
EXTENSION = """\
apiVersion: olm.operatorframework.io/v1
kind: ClusterExtension
metadata: {name: etcd}
spec:
  namespace: etcd
  serviceAccount: {name: installer}
  source: {sourceType: Catalog, catalog: {packageName: etcd}}
"""


@pytest.fixture(autouse=True)
def stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``hub`` (etcd, one invalid object) and ``clean`` (the search catalog: redis…)."""
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    hub = tmp_path / "hub"
    shutil.copytree(ETCD, hub / "etcd")
    (hub / "etcd" / "broken.json").write_text('{"schema":"olm.bundle","name":"broken"}\n')
    code, _, err = deppy("catalog", "add", "hub", hub)
    assert code == 0 and "1 invalid object skipped" in err  # said when added
    assert deppy("catalog", "add", "clean", WORKFLOWS / "search")[0] == 0


def test_text_says_them_once_for_the_catalogs_used_and_never_before_an_error() -> None:
    for args in (("search", "etcd"), ("show", "etcd"), ("resolve", "--require", "etcd")):
        code, _, err = deppy(*args)
        assert code == 0, err
        assert err.count("invalid object skipped") == 1 and NOTE in err, (args, err)
    for args in (("search", "redis"), ("show", "redis"), ("resolve", "--require", "redis")):
        code, _, err = deppy(*args)
        assert code == 0, err
        assert "invalid object" not in err, (args, err)
    code, _, err = deppy("show", "nosuchpkg")
    assert code == 2 and err.startswith("deppy: error: ") and len(err.splitlines()) == 1


@pytest.mark.parametrize("output", ["json", "yaml"])
def test_machine_formats_carry_them_in_their_warnings(output: str) -> None:
    code, out, err = deppy("resolve", "--require", "etcd", "-o", output)
    assert code == 0, err
    assert yaml.safe_load(out)["warnings"] == [NOTE]
    code, out, _ = deppy("resolve", "--require", "redis", "-o", output)
    assert yaml.safe_load(out)["warnings"] == []


def test_clusterextensions_output_says_them(tmp_path: Path) -> None:
    request = tmp_path / "etcd.yaml"
    request.write_text(EXTENSION)
    code, out, err = deppy("resolve", "-f", request, "-o", "clusterextensions")
    assert code == 0, err
    assert f"deppy: warning: {NOTE}" in err and err.count("invalid object") == 1
    code, out, err = deppy("resolve", "-f", request, "-o", "json")
    assert NOTE in json.loads(out)["warnings"]
