"""``load_problem``: read a problem file in whichever supported format it is."""

from __future__ import annotations

import os

from deppy.errors import InputError
from deppy.input_limits import parse_json, parse_yaml, read_input
from deppy.problem.constraint_format import variables_from_data

TYPE_CHECKING = False  # typing costs start-up, and `deppy solve` pays for every import
if TYPE_CHECKING:
    from deppy.solver import Variable


def load_problem(path: str | os.PathLike[str]) -> list[Variable]:
    """Variables from a JSON, YAML or DIMACS CNF file (by extension, else by content)."""
    where = str(path)
    raw = read_input(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(
            where, f"not UTF-8 text ({error.reason} at byte {error.start})", "save it as UTF-8"
        ) from None
    suffix = os.path.splitext(os.fspath(path))[1].lower()  # not pathlib: start-up time
    if suffix in (".cnf", ".dimacs") or _looks_like_dimacs(text):
        from deppy.problem.dimacs import variables_from_dimacs  # re: start-up time

        return variables_from_dimacs(text, where)
    if suffix == ".json" or text.lstrip().startswith("["):
        data = parse_json(raw, where, small=True)
    else:
        data = parse_yaml(raw, where)
    return variables_from_data(data, where)


def _looks_like_dimacs(text: str) -> bool:
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("c"):
            return stripped.startswith("p cnf")
    return False
