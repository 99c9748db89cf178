"""``--timeout``: one deadline for the whole command, loading and writing the answer included.

The solver and the pipeline check their deadline between steps; loading a catalog or a problem
file, building the encoding and printing the answer do not. A watchdog thread covers those: when
the deadline passes it interrupts the main thread, which stops at its next Python instruction and
reports the time-out as bad input (exit 2), the same as a solve that ran out of time.
"""

from __future__ import annotations

import _thread
import math
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

import click

from deppy.errors import InputError

F = TypeVar("F", bound=Callable[..., Any])


class Seconds(click.ParamType[float]):
    """A finite, positive number of seconds (``inf``, ``nan``, ``0`` and ``-1`` are refused)."""

    name = "seconds"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(seconds) or seconds <= 0:
            self.fail(f"{value!r} is not a finite, positive number of seconds", param, ctx)
        return seconds


def timeout_option(help_text: str) -> Callable[[F], F]:
    return click.option("--timeout", type=Seconds(), default=None, help=help_text)


class Deadline:
    """The instant a command must be done by (``time.monotonic()``), or None for no limit."""

    def __init__(self, timeout: float | None) -> None:
        self.timeout = timeout
        self.at = None if timeout is None else time.monotonic() + timeout
        self.expired = False

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None for no limit."""
        return None if self.at is None else max(0.0, self.at - time.monotonic())

    def error(self) -> InputError:
        assert self.timeout is not None
        return InputError(
            f"--timeout {self.timeout:g}",
            "the command did not finish in time (loading, solving and output included)",
            "allow more seconds, or narrow the request",
        )


@contextmanager
def whole_command(timeout: float | None) -> Iterator[Deadline]:
    """Run the body under ``timeout``; past it, raise the time-out InputError."""
    deadline = Deadline(timeout)
    main = threading.current_thread() is threading.main_thread()
    if timeout is None or timeout >= threading.TIMEOUT_MAX or not main:
        yield deadline  # (off the main thread only the solver's own deadline checks apply)
        return
    # The interrupt must arrive as KeyboardInterrupt whatever handler another library set.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)

    lock = threading.Lock()
    finished = False

    def expire() -> None:
        with lock:
            if finished:
                return
            deadline.expired = True
            _thread.interrupt_main()

    watchdog = threading.Timer(timeout, expire)
    watchdog.daemon = True
    try:
        watchdog.start()  # inside: a tiny timeout may interrupt before start() returns
        if deadline.remaining() == 0.0:  # past already (a busy machine may run the timer late)
            deadline.expired = True
            raise deadline.error()
        yield deadline
    except KeyboardInterrupt:
        if deadline.expired:
            raise deadline.error() from None
        raise
    finally:
        # the interrupt may land anywhere in here, or still be on its way: let it land
        with suppress(KeyboardInterrupt):
            with lock:
                finished = True
            watchdog.cancel()
            if deadline.expired:
                time.sleep(0.05)
        signal.signal(signal.SIGINT, previous)
