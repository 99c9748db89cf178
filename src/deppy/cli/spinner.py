"""A spinner on a terminal while something slow runs: shown only when stderr is a terminal
and the work takes longer than half a second (a quick command never flickers), and gone when
the work ends, so the answer that follows is all that stays."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

DELAY = 0.5


@contextmanager
def spinner(text: str, *, delay: float = DELAY) -> Iterator[None]:
    if not sys.stderr.isatty():
        yield
        return
    done = threading.Event()

    def show() -> None:
        if done.wait(delay):
            return
        from rich.console import Console  # deferred: only a slow run on a terminal needs it

        with Console(stderr=True).status(text):
            done.wait()

    thread = threading.Thread(target=show, name="deppy-spinner", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
