"""The work of ``deppy solve``, without the CLI framework: solve problem files, print each
answer, return the exit code. ``solve_command`` (click) and ``quick`` (no click) both call it,
so the fast path and the full one print the same bytes."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import orjson

from deppy.cli.exit_codes import EXIT_INPUT_ERROR, EXIT_OK, EXIT_UNRESOLVABLE
from deppy.errors import DeppyError
from deppy.problem import load_problem
from deppy.solver import NotSatisfiable, SolveTimeout, Variable, solve

OUTPUTS = ("text", "json")


def solve_files(
    files: Sequence[Path],
    output: str,
    timeout: float | None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Exit 0 when every file is satisfiable, 1 when any is not, 2 on input errors."""
    out = out or sys.stdout
    err = err or sys.stderr
    worst = EXIT_OK
    for path in files:
        try:
            variables = load_problem(path)
            deadline = None if timeout is None else time.monotonic() + timeout
            selected = solve(variables, deadline=deadline, where=str(path))
        except NotSatisfiable as unsat:
            out.write(_unsatisfiable(path, unsat, output))
            worst = max(worst, EXIT_UNRESOLVABLE)
        except SolveTimeout as stopped:
            err.write(f"deppy: error: {path}: {stopped}\n")
            worst = EXIT_INPUT_ERROR
        except DeppyError as error:
            err.write(f"deppy: error: {error}\n")
            worst = EXIT_INPUT_ERROR
        else:
            out.write(_selection(path, selected, output))
    return worst


def _selection(path: Path, selected: list[Variable], output: str) -> str:
    ids = [variable.id for variable in selected]
    if output == "json":
        record = {"file": str(path), "satisfiable": True, "selected": ids}
        return orjson.dumps(record).decode() + "\n"
    lines = [f"{path}: satisfiable, {len(ids)} selected", *(f"  {i}" for i in ids)]
    return "".join(f"{line}\n" for line in lines)


def _unsatisfiable(path: Path, unsat: NotSatisfiable, output: str) -> str:
    if output == "json":
        explanation = [
            {"variable": applied.variable.id, "constraint": applied.text}
            for applied in unsat.constraints
        ]
        record = {"file": str(path), "satisfiable": False, "explanation": explanation}
        return orjson.dumps(record).decode() + "\n"
    count = len(unsat.constraints)
    lines = [
        f"{path}: not satisfiable; these {count} constraints cannot all hold",
        "(dropping any one of them would allow a solution):",
        *(f"  - {applied.text}" for applied in unsat.constraints),
    ]
    return "".join(f"{line}\n" for line in lines)
