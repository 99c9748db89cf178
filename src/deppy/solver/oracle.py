"""Full SAT solves through PySAT, with deadlines.

The search needs a complete solve when its choices run out, minimisation needs bounded solves,
and explanations need cores; all go through :class:`SatOracle`. MiniSat 2.2 is the backend: the
cheapest per call for many small assumption solves, and it supports ``interrupt()`` (CaDiCaL
does not), which is how a deadline stops a long solve.
"""

from __future__ import annotations

import time

from deppy.solver.errors import SolveTimeout

TYPE_CHECKING = False  # `deppy solve` pays for every import (tests/test_solve_startup.py)
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from deppy.solver.cnf import AtMostRecord, Problem

BACKEND = "minisat22"


class SatOracle:
    """A PySAT solver loaded with a problem's groups, hard or guarded by selector literals."""

    def __init__(
        self,
        problem: Problem | None,
        *,
        guarded: bool = False,
        deadline: float | None = None,
        top: int = 0,
    ) -> None:
        """Load ``problem``'s groups; with ``problem=None`` start empty over ``top`` variables."""
        self.deadline = deadline
        self.top = problem.top if problem is not None else top
        self.selectors: list[int] = []
        # PySAT loads only when a solve needs a full SAT call: most resolutions finish on
        # propagation alone, and a CLI run pays for every import.
        from pysat.solvers import Solver

        self._solver = Solver(name=BACKEND)
        if problem is not None:
            self._load(problem, guarded)

    def _load(self, problem: Problem, guarded: bool) -> None:
        add = self._solver.add_clause
        if guarded:
            self.selectors = [self._new_var() for _ in problem.owners]
            for clause, group in zip(problem.clauses, problem.clause_group, strict=True):
                add([*clause, -self.selectors[group]])
        else:
            for clause in problem.clauses:
                add(clause)
        for record, group in zip(problem.at_most, problem.at_most_group, strict=True):
            guard = [-self.selectors[group]] if guarded else []
            for clause in self._at_most_clauses(record):
                add([*clause, *guard])

    def _new_var(self) -> int:
        self.top += 1
        return self.top

    def _at_most_clauses(self, record: AtMostRecord) -> list[list[int]]:
        from pysat.card import CardEnc, EncType

        if record.bound == 0:
            return [[-lit] for lit in record.lits]
        small = record.bound == 1 and len(record.lits) <= 5
        encoding = EncType.pairwise if small else EncType.seqcounter
        cnf = CardEnc.atmost(
            lits=record.lits, bound=record.bound, top_id=self.top, encoding=encoding
        )
        self.top = max(self.top, cnf.nv)
        clauses: list[list[int]] = cnf.clauses
        return clauses

    def add_clauses(self, clauses: Iterable[Sequence[int]], top: int) -> None:
        for clause in clauses:
            self._solver.add_clause(list(clause))
        self.top = max(self.top, top)

    def solve(self, assumptions: Sequence[int] = ()) -> bool:
        """Satisfiable under the assumptions? Raises SolveTimeout past the deadline."""
        if self.deadline is None:
            return bool(self._solver.solve(assumptions=list(assumptions)))
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise SolveTimeout()
        import threading  # only a solve with a deadline needs it (start-up time)

        timer = threading.Timer(remaining, self._solver.interrupt)
        timer.start()
        try:
            outcome = self._solver.solve_limited(
                assumptions=list(assumptions), expect_interrupt=True
            )
        finally:
            timer.cancel()
        if outcome is None:
            raise SolveTimeout()
        self._solver.clear_interrupt()
        return bool(outcome)

    def model(self) -> list[int]:
        model: list[int] = self._solver.get_model()
        return model

    def core(self) -> list[int]:
        core: list[int] | None = self._solver.get_core()
        return list(core or [])

    def close(self) -> None:
        self._solver.delete()

    def __enter__(self) -> SatOracle:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
