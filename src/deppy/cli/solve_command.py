"""``deppy solve``: run the domain-agnostic solver on problem files."""

from __future__ import annotations

from pathlib import Path

import click
import orjson

from deppy.cli.deadline import timeout_option, whole_command
from deppy.cli.main import EXIT_INPUT_ERROR, cli
from deppy.errors import DeppyError
from deppy.problem import load_problem
from deppy.solver import NotSatisfiable, SolveTimeout, Variable, solve

EXIT_UNSATISFIABLE = 1


@cli.command("solve")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text for people; json prints one object per line per file.",
)
@timeout_option(
    "Give up after this many seconds, reading files and printing included (an error, exit 2)."
)
def solve_cmd(files: tuple[Path, ...], output: str, timeout: float | None) -> None:
    """Solve problem FILES (conformance JSON/YAML or DIMACS CNF).

    Prints the selected variables in input order, or a minimal set of constraints that cannot
    all hold. Exit 0 when every file is satisfiable, 1 when any is not, 2 on input errors.
    """
    worst = 0
    with whole_command(timeout) as deadline:
        for path in files:
            try:
                variables = load_problem(path)
                selected = solve(variables, deadline=deadline.at, where=str(path))
            except NotSatisfiable as unsat:
                _print_unsatisfiable(path, unsat, output)
                worst = max(worst, EXIT_UNSATISFIABLE)
            except SolveTimeout as stopped:
                click.echo(f"deppy: error: {path}: {stopped}", err=True)
                worst = EXIT_INPUT_ERROR
            except DeppyError as error:
                click.echo(f"deppy: error: {error}", err=True)
                worst = EXIT_INPUT_ERROR
            else:
                _print_selection(path, selected, output)
    raise SystemExit(worst)


def _print_selection(path: Path, selected: list[Variable], output: str) -> None:
    ids = [variable.id for variable in selected]
    if output == "json":
        record = {"file": str(path), "satisfiable": True, "selected": ids}
        click.echo(orjson.dumps(record).decode())
        return
    click.echo(f"{path}: satisfiable, {len(ids)} selected")
    for identifier in ids:
        click.echo(f"  {identifier}")


def _print_unsatisfiable(path: Path, unsat: NotSatisfiable, output: str) -> None:
    if output == "json":
        explanation = [
            {"variable": applied.variable.id, "constraint": applied.text}
            for applied in unsat.constraints
        ]
        record = {"file": str(path), "satisfiable": False, "explanation": explanation}
        click.echo(orjson.dumps(record).decode())
        return
    count = len(unsat.constraints)
    click.echo(f"{path}: not satisfiable; these {count} constraints cannot all hold")
    click.echo("(dropping any one of them would allow a solution):")
    for applied in unsat.constraints:
        click.echo(f"  - {applied.text}")
