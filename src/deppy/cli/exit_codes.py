"""The exit codes every command shares: 0 done, 1 no solution (or a finding), 2 bad input;
and how a command ends when the reader of its output has gone (``deppy … | head``)."""

from __future__ import annotations

import os
import sys

EXIT_OK = 0
EXIT_UNRESOLVABLE = 1
EXIT_INPUT_ERROR = 2


def reader_gone() -> None:
    """``deppy … | head``: the reader has what it wanted, so end quietly with exit 0; further
    writes, and the interpreter's last flush, go to /dev/null."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    raise SystemExit(EXIT_OK)
