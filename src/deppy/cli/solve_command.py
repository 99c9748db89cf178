"""``deppy solve``: run the domain-agnostic solver on problem files (the work is in
``solve_files``; plain invocations never reach this module — see ``deppy.cli.quick``)."""

from __future__ import annotations

from pathlib import Path

import click

from deppy.cli.deadline import timeout_option, whole_command
from deppy.cli.main import cli
from deppy.cli.solve_files import OUTPUTS, solve_files


@cli.command("solve")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Choice(OUTPUTS),
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
    with whole_command(timeout) as deadline:
        code = solve_files(files, output, deadline.at)
    raise SystemExit(code)
