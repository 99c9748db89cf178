"""DIMACS CNF as a faithful constraint model.

Variables keep their DIMACS numbers as ids. A positive unit clause is ``Mandatory`` (it anchors
the search, as in the Go tool), a negative one ``Prohibited``; every longer clause stays one
``Clause`` constraint on the variable of its first literal, meaning exactly what it says.
"""

from __future__ import annotations

from deppy.errors import InputError
from deppy.solver import Clause, Constraint, Mandatory, Prohibited, Variable


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
            try:
                lit = int(token)
            except ValueError:
                raise InputError(
                    f"{where}:{number}", f"{token!r} is not a literal", "write integers ending in 0"
                ) from None
            if lit == 0:
                clauses.append(pending)
                pending = []
            else:
                pending.append(lit)
    if pending:
        clauses.append(pending)
    if declared is None:
        raise InputError(where, "no 'p cnf VARIABLES CLAUSES' header")
    used = max((abs(lit) for clause in clauses for lit in clause), default=0)
    if used > declared:
        raise InputError(where, f"literal {used} exceeds the declared {declared} variables")
    constraints: dict[int, list[Constraint]] = {v: [] for v in range(1, declared + 1)}
    for clause in clauses:
        if not clause:
            raise InputError(where, "an empty clause can never be satisfied")
        first = clause[0]
        if len(clause) == 1:
            constraints[abs(first)].append(Mandatory() if first > 0 else Prohibited())
        else:
            constraints[abs(first)].append(Clause(*((str(abs(lit)), lit > 0) for lit in clause)))
    return [Variable(str(v), constraints[v]) for v in range(1, declared + 1)]


def _header(line: str, where: str) -> int:
    parts = line.split()
    if len(parts) != 4 or parts[1] != "cnf" or not parts[2].isdigit() or not parts[3].isdigit():
        raise InputError(where, f"bad header {line!r}", "write 'p cnf VARIABLES CLAUSES'")
    return int(parts[2])
