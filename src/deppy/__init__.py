"""deppy: a dependency and constraint resolver.

The domain-agnostic solver is the public core: ``from deppy import Variable, Mandatory,
Dependency, solve``. The OLM domain is ``deppy.resolution`` (``deppy.resolution.resolver.resolve``)
over ``deppy.catalog``; ``src/deppy/*/__init__.py`` says what each room holds.

The names are loaded on first use (PEP 562): ``import deppy.cli.main`` for ``deppy --version``
must not pay for the solver and the problem-file readers.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: `deppy --version` must not pay ~8 ms to import typing
__version__ = "0.1.0"  # as in pyproject.toml (a test holds them equal); read without metadata

if TYPE_CHECKING:
    from typing import Any

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


def __getattr__(name: str) -> Any:
    if name == "load_problem":
        from deppy.problem import load_problem

        return load_problem
    if name in __all__:
        from deppy import solver

        return getattr(solver, name)
    raise AttributeError(f"module 'deppy' has no attribute {name!r}")
