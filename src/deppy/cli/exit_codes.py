"""The exit codes every command shares: 0 done, 1 no solution (or a finding), 2 bad input, 3
resolved but OLM v1 refuses part of the plan as written (an OLM v1 request whose chosen bundles
declare dependencies, with no resolved catalog to install them from), 130 interrupted (Ctrl-C)
and 143 terminated (SIGTERM); and how a command ends when the reader of its output has gone
(``deppy … | head``) or when it is stopped.

Stopping is decided here, once, for every command (``deppy.cli.main`` and the click group call
in): a command never sees Ctrl-C as anything but the ``KeyboardInterrupt`` that unwinds it, so
every ``finally`` runs (a parse worker stopped, a temporary file removed) and the command ends
with one line. ``deppy serve`` and ``deppy controller`` stop as servers do instead (see their
modules). This module stays cheap to import: ``deppy --version`` loads it.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import FrameType

EXIT_OK = 0
EXIT_UNRESOLVABLE = 1
EXIT_INPUT_ERROR = 2
EXIT_OLMV1_REFUSES = 3
EXIT_INTERRUPTED = 130  # as a shell reports a command that SIGINT ended (128 + 2)
EXIT_TERMINATED = 143  # as a shell reports a command that SIGTERM ended (128 + 15)


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, ``timeout``, a CI job cancelled) in a command: a KeyboardInterrupt, so
    every clean-up that Ctrl-C runs runs for it too, instead of the process dying mid-write."""


def reader_gone() -> None:
    """``deppy … | head``: the reader has what it wanted, so end quietly with exit 0; further
    writes, and the interpreter's last flush, go to /dev/null."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    raise SystemExit(EXIT_OK)


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def terminate_as_interrupt() -> object:
    """From now on SIGTERM unwinds the command as Ctrl-C does; returns the handler it replaced
    (for ``signal.signal``). Only the main thread may set a handler: elsewhere (a test running a
    command in a thread) nothing changes and None is returned."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _raise_terminated)


def restore_sigterm(previous: object) -> None:
    """Undo ``terminate_as_interrupt`` (``previous`` is what it returned)."""
    import signal

    if previous is not None:
        signal.signal(signal.SIGTERM, previous)  # type: ignore[arg-type]


def stopped(stop: KeyboardInterrupt) -> int:
    """Say in one line that the command was stopped, and return its exit code: 143 for
    SIGTERM, else 130 (Ctrl-C). Whatever the command had not finished writing it has removed on
    its way out (files are written to a temporary name and renamed when complete)."""
    terminated = isinstance(stop, Terminated)
    try:
        start = "\n" if sys.stderr.isatty() else ""  # a terminal echoed ^C, with no newline
        sys.stderr.write(start + ("deppy: terminated\n" if terminated else "deppy: interrupted\n"))
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # no stderr to say it on: the exit code says it
    return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
