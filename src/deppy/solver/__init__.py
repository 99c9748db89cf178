"""The domain-agnostic solver: variables and constraints in, a preferred selection out.

It knows identifiers and constraints, nothing about packages (as resolvelib's resolver knows
nothing about Python packages); domains build variables and read selections.
"""

from deppy.solver.constraints import (
    And,
    AtMost,
    Clause,
    Conflict,
    Constraint,
    Dependency,
    Mandatory,
    Not,
    Or,
    Prohibited,
)
from deppy.solver.errors import DuplicateIdentifier, NotSatisfiable, SolveTimeout, UnknownIdentifier
from deppy.solver.model import AppliedConstraint, Identifier, Variable
from deppy.solver.solve import solve

__all__ = [
    "And",
    "AppliedConstraint",
    "AtMost",
    "Clause",
    "Conflict",
    "Constraint",
    "Dependency",
    "DuplicateIdentifier",
    "Identifier",
    "Mandatory",
    "Not",
    "NotSatisfiable",
    "Or",
    "Prohibited",
    "SolveTimeout",
    "UnknownIdentifier",
    "Variable",
    "solve",
]
