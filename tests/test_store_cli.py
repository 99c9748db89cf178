"""``deppy catalog add/list/remove/refresh`` and ``deppy resolve`` without --catalog.

Each test has its own DEPPY_HOME; errors must be one line on stderr with exit 2 and must leave
the store as it was.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from deppy.cli.main import cli
from deppy.store import Store
from tests.test_store_support import one_line

DATA = Path(__file__).resolve().parent / "data"
APPS = DATA / "olm" / "cli" / "apps"
INFRA = DATA / "olm" / "cli" / "infra"
TRICKY = DATA / "store" / "tricky"
REQUEST = (
    "--require",
    "webapp@>= 1.0.0,channel=stable",
    "--installed",
    "db@2.0.0,channel=stable",
    "--require",
    "broker@>=3.0.0 <4.0.0",
    "--ocp-version",
    "4.18",
)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "deppy-home"
    monkeypatch.setenv("DEPPY_HOME", str(path))
    return path


def deppy(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def add_apps_and_infra() -> None:
    assert deppy("catalog", "add", "apps", APPS, "--priority", "10")[0] == 0
    assert deppy("catalog", "add", "infra", INFRA)[0] == 0


def listed() -> list[dict[str, Any]]:
    code, out, _ = deppy("catalog", "list", "-o", "json")
    assert code == 0
    catalogs: list[dict[str, Any]] = json.loads(out)["catalogs"]
    return catalogs


def test_add_list_remove_refresh(home: Path) -> None:
    code, out, err = deppy("catalog", "list")
    assert (code, out) == (0, "") and "no stored catalogs" in err and str(home) in err

    code, out, err = deppy("catalog", "add", "apps", APPS, "--priority", "10")
    assert code == 0 and err == ""
    assert out == (
        f"added catalog apps (priority 10): 2 packages, 2 channels, 4 bundles from {APPS}\n"
    )
    assert deppy("catalog", "add", "infra", INFRA)[0] == 0

    code, out, _ = deppy("catalog", "list")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 3
    assert lines[0].split() == [
        "NAME", "PRIORITY", "PACKAGES", "CHANNELS", "BUNDLES", "PROBLEMS", "UPDATED", "PATH"
    ]  # fmt: skip
    assert lines[1].split()[:6] == ["apps", "10", "2", "2", "4", "0"]
    assert lines[2].split()[0] == "infra" and lines[2].endswith(str(INFRA))

    code, out, _ = deppy("catalog", "list", "-o", "json")
    document = json.loads(out)
    assert document["store"] == str(home / "catalogs.sqlite3")
    assert [c["name"] for c in document["catalogs"]] == ["apps", "infra"]
    assert set(document["catalogs"][0]) == {
        "name", "priority", "path", "packages", "channels", "bundles", "problems", "updated"
    }  # fmt: skip

    code, out, _ = deppy("catalog", "refresh", "apps")  # its files did not change
    assert code == 0 and out.startswith("catalog apps unchanged: 2 packages")
    assert [c["priority"] for c in listed()] == [10, 0]

    code, out, _ = deppy("catalog", "remove", "infra")
    assert (code, out) == (0, "removed catalog infra (4 bundles)\n")
    assert [c["name"] for c in listed()] == ["apps"]


def test_add_reports_skipped_objects_and_keeps_the_valid_ones() -> None:
    code, out, err = deppy("catalog", "add", "tricky", TRICKY)
    assert code == 0 and out.startswith("added catalog tricky (priority 0): 3 packages")
    assert err.startswith("deppy: warning: catalog tricky:\n  1 invalid object skipped\n")
    assert "  1 entry kept without its skipRange\n  1 package kept without its default" in err
    assert "alpha.broken" in err
    assert listed()[0]["problems"] == 4 and listed()[0]["bundles"] == 5


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("catalog", "add", "apps", INFRA), "'apps': a catalog of this name is already in"),
        (("catalog", "add", "new", "/no/such/dir"), "/no/such/dir: catalog not found"),
        (("catalog", "add", "bad name", INFRA), "catalog name 'bad name': not a valid name"),
        (("catalog", "add", "a=b", INFRA), "catalog name 'a=b': not a valid name"),
        (("catalog", "remove", "nope"), "'nope': no stored catalog has this name"),
        (("catalog", "refresh", "nope"), "stored catalogs: apps, infra"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_changes_nothing(
    args: tuple[str | Path, ...], expected: str
) -> None:
    add_apps_and_infra()
    before = Store().list()
    code, out, err = deppy(*args)
    assert code == 2 and out == ""
    line = one_line(err)
    assert line.startswith("deppy: error: ") and expected in line
    assert Store().list() == before


def test_a_catalog_with_nothing_valid_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "catalog.yaml").write_text("schema: olm.bundle\nname: x\n---\nnot: fbc\n")
    code, out, err = deppy("catalog", "add", "junk", junk)
    assert code == 2 and out == ""
    assert "no valid bundle found in the catalog" in one_line(err)
    assert Store().list() == []


def test_refresh_of_a_vanished_catalog_keeps_the_stored_one(tmp_path: Path) -> None:
    tree = tmp_path / "apps"
    shutil.copytree(APPS, tree)
    assert deppy("catalog", "add", "apps", tree)[0] == 0
    shutil.rmtree(tree)
    code, _, err = deppy("catalog", "refresh", "apps")
    assert code == 2 and "catalog not found" in one_line(err)
    assert [c["bundles"] for c in listed()] == [4]


def test_commands_that_only_read_create_no_store(home: Path) -> None:
    assert deppy("catalog", "list")[0] == 0
    assert deppy("catalog", "remove", "x")[0] == 2
    assert deppy("catalog", "refresh", "x")[0] == 2
    assert not home.exists()


# --- resolve without --catalog ----------------------------------------------------------------


def test_resolve_uses_the_stored_catalogs_with_their_priorities() -> None:
    catalogs = ("--catalog", f"{APPS}=apps:10", "--catalog", f"{INFRA}=infra")
    from_files = deppy("resolve", *catalogs, *REQUEST, "-o", "json")
    add_apps_and_infra()
    from_store = deppy("resolve", *REQUEST, "-o", "json")
    assert from_store == from_files
    assert from_store[0] == 0
    selected = {s["package"]: s for s in json.loads(from_store[1])["selection"]}
    assert selected["webapp"]["catalog"] == "apps" and selected["db"]["catalog"] == "infra"
    # --source narrows the stored catalogs as it narrows --catalog ones
    assert deppy("resolve", *REQUEST, "--source", "apps", "-o", "json") == deppy(
        "resolve", *catalogs, *REQUEST, "--source", "apps", "-o", "json"
    )
    code, _, err = deppy("resolve", "--require", "webapp", "--source", "nope")
    assert code == 2 and "known catalogs: apps, infra" in one_line(err)


def test_resolve_falls_back_to_the_embedded_catalog_only_when_the_store_is_empty() -> None:
    code, _, err = deppy("resolve", "--require", "observability-stack")
    assert code == 0 and "using the embedded example catalog" in err
    add_apps_and_infra()
    code, out, err = deppy("resolve", "--require", "observability-stack", "-o", "json")
    assert code == 1 and "embedded" not in err
    assert "no catalog (apps, infra) contains package observability-stack" in out
    deppy("catalog", "remove", "apps")
    deppy("catalog", "remove", "infra")
    code, _, err = deppy("resolve", "--require", "observability-stack")
    assert code == 0 and "using the embedded example catalog" in err
