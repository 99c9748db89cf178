"""``deppy solve FILE`` imports only what solving needs (issue 21: start-up under 50 ms).

Python starts in ~15 ms; every further module is paid for on each run, and a few of the standard
library's cost more than the whole solve of a 256-variable problem: orjson (which imports uuid,
datetime, dataclasses, json and enum itself) ~23 ms, dataclasses (inspect, ast, dis, tokenize)
~16 ms, typing ~10 ms, json and re (enum, functools) ~8 ms. These tests run the command as a
user does and read what it imported (``python -X importtime``): a behaviour, not a timing, so
they hold on a busy machine. ``benchmarks/cold_path.py --only solve`` prints the time itself.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PREFERENCE = ROOT / "examples" / "preference.json"
ENTRY_POINT = "from deppy.cli.main import main; main()"  # what the `deppy` script runs

HEAVY = frozenset(
    {
        "orjson",
        "json",
        "re",
        "enum",
        "typing",
        "dataclasses",
        "inspect",
        "ast",
        "functools",
        "contextlib",
        "yaml",
        "click",
        "rich",
        "pysat",
        "platformdirs",
        "pathlib",
        "uuid",
        "datetime",
        "sqlite3",
    }
)
"""Modules a satisfiable problem in JSON never needs: each (with what it imports) costs
milliseconds of a start-up budget the solve itself fits in a few of."""


def imported(*args: str, env: dict[str, str] | None = None) -> set[str]:
    """The modules ``deppy ARGS`` imports, as run from a shell (the entry point's own code)."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", ENTRY_POINT, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return {
        line.rsplit("|", 1)[-1].strip()
        for line in run.stderr.splitlines()
        if line.startswith("import time:")
    }


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


def test_solving_a_json_problem_imports_nothing_heavy() -> None:
    modules = imported("solve", str(PREFERENCE))
    assert "deppy.solver.search" in modules, "the command did solve"
    assert heavy(modules) == []


def test_json_output_imports_only_the_standard_json_writer() -> None:
    """-o json writes with the standard library's json (and so re): ~8 ms, not orjson's ~23."""
    modules = imported("solve", "-o", "json", str(PREFERENCE))
    assert {m.split(".")[0] for m in heavy(modules)} <= {"json", "re", "enum", "functools"}


def test_version_imports_nothing_heavy() -> None:
    modules = imported("--version")
    assert heavy(modules) == []
    assert not any(m.startswith("deppy.solver") for m in modules)


def test_reading_a_catalog_directory_loads_no_registry_client(tmp_path: Path) -> None:
    """Every command that takes a catalog parses the registry options (``--tls-verify`` and the
    rest, issue 46), most of them to read a directory: parsing them loaded the whole pull
    (HTTP, TLS, tar, gzip: ~30 ms of a 0.12 s repeat resolve). Only reading an image does."""
    import os

    catalog = str(ROOT / "src" / "deppy" / "data" / "catalog")
    args = ["resolve", "--catalog", catalog, "--require", "grafana-operator", "-q"]
    modules = imported(*args, env={**os.environ, "DEPPY_HOME": str(tmp_path)})
    assert "deppy.workflows.resolve" in modules, "the command did resolve"
    pulled = {"tarfile", "ssl", "http.client", "gzip", "deppy.oci.pull", "deppy.oci.exchange"}
    assert sorted(modules & pulled) == []
