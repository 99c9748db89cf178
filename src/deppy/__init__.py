"""deppy: a dependency and constraint resolver.

The domain-agnostic solver is the public core: ``from deppy import Variable, Mandatory,
Dependency, solve``. The OLM domain lives in ``deppy.olm`` (``deppy.olm.resolver.resolve``).
"""

from deppy.problem import load_problem
from deppy.solver import (
    And,
    AppliedConstraint,
    AtMost,
    Clause,
    Conflict,
    Constraint,
    Dependency,
    DuplicateIdentifier,
    Identifier,
    Mandatory,
    Not,
    NotSatisfiable,
    Or,
    Prohibited,
    SolveTimeout,
    UnknownIdentifier,
    Variable,
    solve,
)

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
    "load_problem",
    "solve",
]
