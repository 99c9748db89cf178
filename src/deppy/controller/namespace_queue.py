"""Namespaces waiting to be resolved, each answered once its events have gone quiet.

Inputs that arrive together are answered together: one ``kubectl apply`` of N Inputs (or N
Operators, which create N Inputs) sends N events within milliseconds, and resolving at the first
would propose a set computed without the others. So a namespace is resolved only after a *quiet
period* with no new event for it (``QUIET_SECONDS``), bounded so that a steady stream of events
cannot postpone the answer for ever (``MAX_WAIT_SECONDS`` after the first event waiting).

The work runs on worker threads of this queue, not on kopf's handler threads: a handler only
records the request and returns. At most one resolution of a namespace runs at a time; requests
arriving meanwhile make it run once more afterwards. A resolution that fails (the API server
stalled, a timeout) is tried again after ``RETRY_SECONDS``, doubling up to ``MAX_RETRY_SECONDS``,
so a stall loses no answer even when the events that asked for it are long gone.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from deppy.controller.kube import ApiError

log = logging.getLogger("deppy.controller")

QUIET_SECONDS = 1.0
MAX_WAIT_SECONDS = 5.0
RETRY_SECONDS = 2.0
MAX_RETRY_SECONDS = 30.0
WORKERS = 4  # a namespace's work mostly waits for the API server: four overlap it


@dataclass
class _Waiting:
    first: float  # when the first request still waiting arrived
    last: float  # the latest request
    retry_delay: float = 0.0  # > 0: a failed attempt is waiting for its retry

    def due(self, quiet: float, bound: float) -> float:
        if self.retry_delay:
            return self.last + self.retry_delay
        return min(self.last + quiet, self.first + bound)


class NamespaceQueue:
    """``request(namespace)`` from any thread; ``work(namespace)`` runs on the queue's threads."""

    def __init__(
        self,
        work: Callable[[str], None],
        *,
        quiet: float = QUIET_SECONDS,
        bound: float = MAX_WAIT_SECONDS,
        workers: int = WORKERS,
        clock: Callable[[], float] = time.monotonic,
        answered: Callable[[float], None] | None = None,
    ) -> None:
        self.work = work
        # metrics: seconds from a namespace's first request waiting to its answer, quiet period
        # and retries included
        self.answered = answered
        self.since: dict[str, float] = {}
        self.quiet, self.bound = quiet, bound
        self.clock = clock
        self.waiting: dict[str, _Waiting] = {}
        self.running: set[str] = set()
        self.changed = threading.Condition()
        self.stopping = False
        self.retries: dict[str, float] = {}  # namespace -> the last retry delay
        self.threads = [
            threading.Thread(target=self._serve, name=f"deppy-namespaces-{n}", daemon=True)
            for n in range(workers)
        ]
        self.started = False

    def start(self) -> None:
        with self.changed:
            if self.started:
                return
            self.started = True
        for thread in self.threads:
            thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        with self.changed:
            self.stopping = True
            self.changed.notify_all()
        for thread in self.threads:
            if thread.is_alive():
                thread.join(timeout)

    def request(self, namespace: str) -> None:
        """Resolve ``namespace`` once its events have gone quiet."""
        moment = self.clock()
        with self.changed:
            found = self.waiting.get(namespace)
            if found is None or found.retry_delay:
                self.waiting[namespace] = _Waiting(found.first if found else moment, moment)
            else:
                found.last = moment
            self.changed.notify_all()

    def idle(self) -> bool:
        with self.changed:
            return not self.waiting and not self.running

    def _next(self) -> str | None:
        """The namespace due first, once due (None when stopping)."""
        with self.changed:
            while not self.stopping:
                moment = self.clock()
                ready = [
                    (w.due(self.quiet, self.bound), ns)
                    for ns, w in self.waiting.items()
                    if ns not in self.running
                ]
                if ready:
                    due, namespace = min(ready)
                    if due <= moment:
                        self.since.setdefault(namespace, self.waiting[namespace].first)
                        del self.waiting[namespace]
                        self.running.add(namespace)
                        return namespace
                    self.changed.wait(due - moment)
                else:
                    self.changed.wait()
            return None

    def _serve(self) -> None:
        while (namespace := self._next()) is not None:
            try:
                self.work(namespace)
                with self.changed:
                    self.retries.pop(namespace, None)
                    first = self.since.pop(namespace, None)
                if self.answered is not None and first is not None:
                    self.answered(self.clock() - first)
            except (ApiError, OSError, TimeoutError) as error:  # a stall, a timeout
                delay = self._retry(namespace)
                log.warning(
                    "namespace %s: %s: %s (trying again in %g s)",
                    namespace,
                    type(error).__name__,
                    error,
                    delay,
                )
            except Exception:  # a bug: say where, and keep serving the other namespaces
                delay = self._retry(namespace)
                log.exception(
                    "namespace %s: resolution failed (trying again in %g s)", namespace, delay
                )
            finally:
                with self.changed:
                    self.running.discard(namespace)
                    self.changed.notify_all()

    def _retry(self, namespace: str) -> float:
        with self.changed:
            delay = min(max(self.retries.get(namespace, 0.0) * 2, RETRY_SECONDS), MAX_RETRY_SECONDS)
            self.retries[namespace] = delay
            if namespace not in self.waiting:  # else a newer request already asks for it
                moment = self.clock()
                self.waiting[namespace] = _Waiting(moment, moment, delay)
            return delay
