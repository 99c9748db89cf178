"""Outcomes of a solve that are not a selection.

``NotSatisfiable`` and ``SolveTimeout`` are answers, not user mistakes: the CLI maps the first to
exit 1. Malformed problems (unknown or duplicate identifiers) are input errors (exit 2).
"""

from __future__ import annotations

from deppy.errors import InputError

TYPE_CHECKING = False  # `deppy solve` pays for every import (tests/test_solve_startup.py)
if TYPE_CHECKING:
    from collections.abc import Sequence

    from deppy.solver.model import AppliedConstraint


class NotSatisfiable(Exception):
    """No selection satisfies every constraint.

    ``constraints`` is a *minimal* unsatisfiable subset of the applied constraints: dropping any
    one of them makes the rest satisfiable, so each is part of the reason.
    """

    def __init__(self, constraints: Sequence[AppliedConstraint]) -> None:
        self.constraints: tuple[AppliedConstraint, ...] = tuple(constraints)
        lines = "; ".join(applied.text for applied in self.constraints)
        super().__init__(f"constraints not satisfiable: {lines}")


class SolveTimeout(Exception):
    """The deadline passed before the solver reached an answer; nothing partial is returned."""

    def __init__(self, seconds: float | None = None) -> None:
        detail = f" after {seconds:.3f} s" if seconds is not None else ""
        super().__init__(f"solve stopped at its deadline{detail} without an answer")


class DuplicateIdentifier(InputError):
    """Two variables share an identifier, so constraints could not say which one they mean."""

    def __init__(self, identifier: str, where: str = "problem") -> None:
        super().__init__(
            where,
            f"duplicate variable identifier {identifier!r}",
            "give every variable a unique id",
        )
        self.identifier = identifier


class UnknownIdentifier(InputError):
    """A constraint names a variable that the problem does not define."""

    def __init__(self, subject: str, missing: str, where: str = "problem") -> None:
        super().__init__(
            f"{where}: variable {subject!r}",
            f"a constraint refers to unknown variable {missing!r}",
            f"define a variable {missing!r} or remove the reference",
        )
        self.subject = subject
        self.missing = missing
