"""Bounded solving: at most ``slots`` resolutions at once, each under a deadline.

A request waits for a free slot no longer than its own deadline, and what is left of the deadline
is what the resolution gets; either way running out is a 503 that says which, so one heavy
request cannot starve the rest and no client waits without bound.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

from prometheus_client import Gauge

from deppy.service.problems import Problem
from deppy.solver import SolveTimeout

T = TypeVar("T")


class SolveGate:
    def __init__(self, slots: int, deadline: float, in_flight: Gauge | None = None) -> None:
        self.slots = slots
        self.deadline = deadline
        self.in_flight = in_flight  # metrics: resolutions holding a slot
        self._free = threading.BoundedSemaphore(slots)

    def budget(self, asked: float | None) -> float:
        """The deadline for one request: the client's, never more than the service's."""
        return self.deadline if asked is None else min(asked, self.deadline)

    def run(self, work: Callable[[float], T], *, asked: float | None = None) -> T:
        """``work(seconds left)`` in a free slot; SolveTimeout from it is the deadline's 503."""
        budget = self.budget(asked)
        started = time.monotonic()
        if not self._free.acquire(timeout=budget):
            raise Problem(
                503,
                f"all {self.slots} solver slots stayed busy for the whole deadline ({budget:g} s)",
                fix="try again shortly",
                kind="busy",
                headers={"Retry-After": "1"},
            )
        try:
            left = budget - (time.monotonic() - started)
            if left <= 0:
                raise SolveTimeout()
            if self.in_flight is None:
                return work(left)
            with self.in_flight.track_inprogress():
                return work(left)
        except SolveTimeout:
            raise Problem(
                503,
                f"the resolution did not finish within its deadline of {budget:g} s",
                fix="narrow the request (versions, channels, spec.sources), or ask the service "
                "for more time (?timeout=SECONDS, up to deppy serve --deadline)",
                kind="deadline",
            ) from None
        finally:
            self._free.release()
