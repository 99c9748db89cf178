"""The exit codes every command shares: 0 done, 1 no solution (or a finding), 2 bad input, 3
resolved but OLM v1 refuses part of the plan as written (an OLM v1 request whose chosen bundles
declare dependencies, with no resolved catalog to install them from); and how a command ends
when the reader of its output has gone (``deppy … | head``)."""

from __future__ import annotations

import os
import sys

EXIT_OK = 0
EXIT_UNRESOLVABLE = 1
EXIT_INPUT_ERROR = 2
EXIT_OLMV1_REFUSES = 3


def reader_gone() -> None:
    """``deppy … | head``: the reader has what it wanted, so end quietly with exit 0; further
    writes, and the interpreter's last flush, go to /dev/null."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    raise SystemExit(EXIT_OK)
