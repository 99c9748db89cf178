"""``load_problem``: read a problem file in whichever supported format it is."""

from __future__ import annotations

from pathlib import Path

import orjson

from deppy.errors import InputError
from deppy.problem.constraint_format import variables_from_data
from deppy.problem.dimacs import variables_from_dimacs
from deppy.solver import Variable


def load_problem(path: str | Path) -> list[Variable]:
    """Variables from a JSON, YAML or DIMACS CNF file (by extension, else by content)."""
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(where, "no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(where, f"cannot read the file: {error}") from None
    suffix = Path(path).suffix.lower()
    if suffix in (".cnf", ".dimacs") or _looks_like_dimacs(text):
        return variables_from_dimacs(text, where)
    if suffix == ".json" or text.lstrip().startswith("["):
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError as error:
            raise InputError(where, f"invalid JSON: {error}") from None
    else:
        import yaml  # deferred: JSON and DIMACS problems, the common ones, do not need it

        try:
            data = yaml.load(text, Loader=yaml.CSafeLoader)
        except yaml.YAMLError as error:
            raise InputError(where, f"invalid YAML: {_one_line(error)}") from None
    return variables_from_data(data, where)


def _looks_like_dimacs(text: str) -> bool:
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("c"):
            return stripped.startswith("p cnf")
    return False


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())
