"""The solver as a pipeline node: everything it receives is one problem, solved at once.

It emits the selection (in input order) or, when nothing satisfies every constraint, the
variables cited by the minimal core together with the core; an unsatisfiable problem is an
answer, not a node failure.
"""

from __future__ import annotations

from typing import Any, Protocol

from deppy.pipeline.events import Batch
from deppy.pipeline.library import Run
from deppy.solver import NotSatisfiable, Variable, solve


class Solvable(Protocol):
    """A pipeline variable: anything that carries a solver variable."""

    @property
    def variable(self) -> Variable: ...


class SolverNode:
    def __init__(self, where: str) -> None:
        self.where = where  # how solver errors name the problem (e.g. "resolution")

    def process(self, run: Run, batch: Batch[Any]) -> Batch[Any]:
        items: tuple[Solvable, ...] = batch.variables
        try:
            selected = solve([i.variable for i in items], deadline=run.deadline, where=self.where)
        except NotSatisfiable as unsat:
            owner = {id(i.variable): i for i in items}
            cited = {id(a.variable): owner[id(a.variable)] for a in unsat.constraints}
            return Batch(tuple(cited.values()), unsat.constraints)
        owner = {id(i.variable): i for i in items}
        return Batch(tuple([owner[id(v)] for v in selected]))
