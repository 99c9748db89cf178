"""DIMACS CNF as a faithful constraint model.

Variables keep their DIMACS numbers as ids. A positive unit clause is ``Mandatory`` (it anchors
the search, as in the Go tool), a negative one ``Prohibited``; every longer clause stays one
``Clause`` constraint on the variable of its first literal, meaning exactly what it says.

The header is a claim, not a size: structures are built for the variables the clauses use (a
variable no clause mentions is never selected, so leaving it out changes no answer), and a
header declaring more than :data:`MAX_VARIABLES` variables or :data:`MAX_CLAUSES` clauses is
refused before anything is allocated.
"""

from __future__ import annotations

import re
from typing import Final

from deppy.errors import InputError, excerpt
from deppy.solver import Clause, Constraint, Mandatory, Prohibited, Variable

MAX_VARIABLES: Final = 10_000_000
"""The most variables a header may declare (the largest SAT-competition problems have ~10^7)."""

MAX_CLAUSES: Final = 50_000_000
"""The most clauses a header may declare."""

_HEADER = re.compile(r"p\s+cnf\s+([0-9]+)\s+([0-9]+)", re.ASCII)
_LITERAL = re.compile(r"-?[0-9]{1,19}", re.ASCII)


def variables_from_dimacs(text: str, where: str) -> list[Variable]:
    declared: int | None = None
    clauses: list[list[int]] = []
    pending: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith(("c", "%")):
            continue
        if stripped.startswith("p"):
            declared = _header(stripped, f"{where}:{number}")
            continue
        for token in stripped.split():
            if not _LITERAL.fullmatch(token):
                raise InputError(
                    f"{where}:{number}",
                    f"{excerpt(token)} is not a literal",
                    "write integers ending in 0",
                )
            lit = int(token)
            if lit == 0:
                clauses.append(pending)
                pending = []
            else:
                pending.append(lit)
    if pending:
        clauses.append(pending)
    if declared is None:
        raise InputError(where, "no 'p cnf VARIABLES CLAUSES' header")
    used = sorted({abs(lit) for clause in clauses for lit in clause})
    if used and used[-1] > declared:
        raise InputError(where, f"literal {used[-1]} exceeds the declared {declared} variables")
    constraints: dict[int, list[Constraint]] = {v: [] for v in used}
    for clause in clauses:
        if not clause:
            raise InputError(where, "an empty clause can never be satisfied")
        first = clause[0]
        if len(clause) == 1:
            constraints[abs(first)].append(Mandatory() if first > 0 else Prohibited())
        else:
            constraints[abs(first)].append(Clause(*((str(abs(lit)), lit > 0) for lit in clause)))
    return [Variable(str(v), constraints[v]) for v in used]


def _count(digits: str) -> str:
    return digits if len(digits) <= 15 else f"{digits[:6]}…({len(digits)} digits)"


def _header(line: str, where: str) -> int:
    match = _HEADER.fullmatch(line)
    if match is None:
        raise InputError(where, f"bad header {excerpt(line)}", "write 'p cnf VARIABLES CLAUSES'")
    texts = [group.lstrip("0") or "0" for group in match.groups()]
    # a count past 12 digits is over any limit: never convert it (Python refuses > 4,300 digits)
    variables, clauses = (int(t) if len(t) <= 12 else MAX_CLAUSES + 1 for t in texts)
    if variables > MAX_VARIABLES or clauses > MAX_CLAUSES:
        raise InputError(
            where,
            f"the header declares {_count(texts[0])} variables and {_count(texts[1])} clauses; "
            f"deppy reads at most {MAX_VARIABLES:,} variables and {MAX_CLAUSES:,} clauses",
            "split the problem",
        )
    return variables
