"""``load_problem``: read a problem file in whichever supported format it is.

Plain ``open`` and the standard ``json`` module: ``deppy solve`` is a whole process of ~50 ms,
and pathlib and orjson (with what they import) cost a fifth of it for a one-shot read.
"""

from __future__ import annotations

import json
import os

from deppy.errors import InputError
from deppy.problem.constraint_format import variables_from_data
from deppy.problem.dimacs import variables_from_dimacs
from deppy.solver import Variable


def load_problem(path: str | os.PathLike[str]) -> list[Variable]:
    """Variables from a JSON, YAML or DIMACS CNF file (by extension, else by content)."""
    where = os.fspath(path)
    try:
        with open(where, encoding="utf-8") as file:
            text = file.read()
    except FileNotFoundError:
        raise InputError(where, "no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(where, f"cannot read the file: {error}") from None
    suffix = os.path.splitext(where)[1].lower()
    if suffix in (".cnf", ".dimacs") or _looks_like_dimacs(text):
        return variables_from_dimacs(text, where)
    if suffix == ".json" or text.lstrip().startswith("["):
        try:
            data = json.loads(text, parse_constant=_not_json)
        except ValueError as error:  # JSONDecodeError is one
            raise InputError(where, f"invalid JSON: {error}") from None
    else:
        import yaml  # deferred: JSON and DIMACS problems, the common ones, do not need it

        try:
            data = yaml.load(text, Loader=yaml.CSafeLoader)
        except yaml.YAMLError as error:
            raise InputError(where, f"invalid YAML: {_one_line(error)}") from None
    return variables_from_data(data, where)


def _not_json(name: str) -> object:
    raise ValueError(f"{name} is not a JSON value")


def _looks_like_dimacs(text: str) -> bool:
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("c"):
            return stripped.startswith("p cnf")
    return False


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())
