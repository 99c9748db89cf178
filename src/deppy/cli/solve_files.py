"""The work of ``deppy solve``, without the CLI framework: solve problem files, print each
answer, return the exit code. ``solve_command`` (click) and ``quick`` (no click) both call it,
so the fast path and the full one print the same bytes."""

from __future__ import annotations

import os
import sys

from deppy.cli.exit_codes import EXIT_INPUT_ERROR, EXIT_OK, EXIT_UNRESOLVABLE
from deppy.errors import DeppyError
from deppy.problem import load_problem
from deppy.solver import NotSatisfiable, SolveTimeout, solve

TYPE_CHECKING = False  # typing costs start-up, which is most of a plain `deppy solve`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TextIO

    from deppy.solver import Variable

OUTPUTS = ("text", "json")


def solve_files(
    files: Sequence[str | os.PathLike[str]],
    output: str,
    deadline: float | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Exit 0 when every file is satisfiable, 1 when any is not, 2 on input errors; the
    solver stops at ``deadline`` (a ``time.monotonic()`` instant for the whole command)."""
    out = out or sys.stdout
    err = err or sys.stderr
    worst = EXIT_OK
    for path in files:
        try:
            variables = load_problem(os.fspath(path))
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


def _record(record: dict[str, object]) -> str:
    """One compact JSON line (the stdlib's: orjson costs start-up time for one line)."""
    import json

    return json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"


def _selection(path: str | os.PathLike[str], selected: list[Variable], output: str) -> str:
    ids = [variable.id for variable in selected]
    if output == "json":
        return _record({"file": str(path), "satisfiable": True, "selected": ids})
    lines = [f"{path}: satisfiable, {len(ids)} selected", *(f"  {i}" for i in ids)]
    return "".join(f"{line}\n" for line in lines)


def _unsatisfiable(path: str | os.PathLike[str], unsat: NotSatisfiable, output: str) -> str:
    if output == "json":
        explanation = [
            {"variable": applied.variable.id, "constraint": applied.text}
            for applied in unsat.constraints
        ]
        failed = {"file": str(path), "satisfiable": False, "explanation": explanation}
        return _record(failed)
    count = len(unsat.constraints)
    lines = [
        f"{path}: not satisfiable; these {count} constraints cannot all hold",
        "(dropping any one of them would allow a solution):",
        *(f"  - {applied.text}" for applied in unsat.constraints),
    ]
    return "".join(f"{line}\n" for line in lines)
