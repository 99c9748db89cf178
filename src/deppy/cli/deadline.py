"""``--timeout``: one deadline for the whole command, loading and writing the answer included.

The solver and the pipeline check their deadline between steps; loading a catalog or a problem
file, building the encoding and printing the answer do not. A watchdog thread covers those: when
the deadline passes it sends SIGINT to the main thread, which stops at its next Python instruction
and reports the time-out as bad input (exit 2), the same as a solve that ran out of time. A real
signal, not ``_thread.interrupt_main``: that one only sets a flag, which a main thread blocked in
a read (``-f -`` from a writer that keeps the pipe open and says nothing) sees when the read
returns; a signal ends the read with EINTR, and Python then raises in the main thread.
"""

from __future__ import annotations

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


class Seconds(click.FloatRange):
    """A finite number of seconds, above zero (or from zero, ``min_open=False``) and at most
    ``max``: the type of every float option of the CLI. click's own FloatRange lets NaN through
    (every comparison with NaN is false), and without a maximum ``inf``; such a value then
    fails far from the option (``--registry-timeout nan`` passed the check, the whole
    resolution ran, and setting the socket's timeout raised ValueError)."""

    name = "seconds"

    def __init__(self, *, min_open: bool = True, max: float | None = None) -> None:
        super().__init__(min=0, max=max, min_open=min_open)

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        lowest = self.min or 0
        too_low = seconds <= lowest if self.min_open else seconds < lowest
        if not math.isfinite(seconds) or too_low or (self.max is not None and seconds > self.max):
            self.fail(f"{value!r} is not {self.wanted()}", param, ctx)
        return seconds

    def wanted(self) -> str:
        """The values taken, in words."""
        wanted = (
            "a finite, positive number of seconds"
            if self.min_open
            else ("a finite number of seconds, 0 or more")
        )
        return wanted if self.max is None else f"{wanted}, at most {self.max:g}"


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
    main_thread = threading.get_ident()

    def expire() -> None:
        with lock:
            if finished:
                return
            deadline.expired = True
            signal.pthread_kill(main_thread, signal.SIGINT)

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
