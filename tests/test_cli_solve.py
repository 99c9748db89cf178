"""``deppy solve`` as a user runs it: formats, exit codes and error lines."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from deppy.cli import solve_command  # noqa: F401  (registers the subcommand)
from deppy.cli.main import cli
from deppy.problem import load_problem
from deppy.solver import solve
from tests.conftest import shared_path

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_example_is_satisfiable() -> None:
    code, out, _ = run("solve", str(ROOT / "examples" / "preference.json"))
    assert code == 0
    assert "app" in out and "agent-v2" in out


def test_json_lines_have_the_documented_shape(tmp_path: Path) -> None:
    sat = shared_path("conformance/deppy-go/instances/benchmark-256.json")
    unsat = shared_path("conformance/deppy-go/instances/catalog-7.json")
    code, out, _ = run("solve", "-o", "json", str(sat), str(unsat))
    assert code == 1
    first, second = (json.loads(line) for line in out.splitlines())
    assert list(first) == ["file", "satisfiable", "selected"]
    assert first["satisfiable"] is True and first["file"] == str(sat)
    assert list(second) == ["file", "satisfiable", "explanation"]
    assert second["satisfiable"] is False
    assert all(list(item) == ["variable", "constraint"] for item in second["explanation"])


def test_output_is_byte_identical_across_runs() -> None:
    unsat = str(shared_path("conformance/deppy-go/instances/catalog-30.json"))
    assert run("solve", unsat) == run("solve", unsat)


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('[{"id": "a", "constraints": [{"type": "depends", "ids": ["b"]}]}]')
    code, _, err = run("solve", str(bad))
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "bad.json" in err and "'a'" in err and "depends" in err


def test_unknown_reference_names_variable(tmp_path: Path) -> None:
    bad = tmp_path / "ghost.yaml"
    bad.write_text("- id: a\n  constraints:\n  - {type: dependency, ids: [ghost]}\n")
    code, _, err = run("solve", str(bad))
    assert code == 2 and "ghost" in err and "'a'" in err


def test_missing_file_and_good_file_together(tmp_path: Path) -> None:
    code, out, err = run(
        "solve", str(tmp_path / "nope.json"), str(ROOT / "examples/preference.json")
    )
    assert code == 2
    assert "no such file" in err
    assert "agent-v2" in out, "the valid file is still solved"


def test_yaml_and_json_agree(tmp_path: Path) -> None:
    source = shared_path("conformance/deppy-go/instances/catalog-1.json")
    as_yaml = tmp_path / "catalog-1.yaml"
    import yaml

    as_yaml.write_text(yaml.safe_dump(json.loads(source.read_text())))
    assert [v.id for v in solve(load_problem(as_yaml))] == [
        v.id for v in solve(load_problem(source))
    ]


def test_dimacs_is_faithful(tmp_path: Path) -> None:
    cnf = tmp_path / "p.cnf"
    # 1, (-1 or 2 or 3), -2, -3: unsatisfiable only when the 3-literal clause stays whole
    cnf.write_text("c example\np cnf 3 4\n1 0\n-1 2 3 0\n-2 0\n-3 0\n")
    code, out, _ = run("solve", str(cnf))
    assert code == 1
    assert "at least one of not 1, 2, 3 holds" in out
    cnf.write_text("p cnf 3 3\n1 0\n-1 2 3 0\n-2 0\n")
    code, out, _ = run("solve", "-o", "json", str(cnf))
    assert code == 0 and json.loads(out)["selected"] == ["1", "3"]


def test_bad_dimacs_header(tmp_path: Path) -> None:
    cnf = tmp_path / "p.cnf"
    cnf.write_text("p cnf x 1\n1 0\n")
    code, _, err = run("solve", str(cnf))
    assert code == 2 and "header" in err
