"""What ``make image`` says while it works: each step as it starts, a line every half minute
while a long one runs (mmdebstrap and the wheels take minutes on a loaded machine, and a build
that says nothing for that long looks hung), and how long each took. Standard library only:
the unit tests import it without the image's tools.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
STILL_RUNNING_EVERY = 30.0


def say(line: str) -> None:
    print(f"image: {line}", file=sys.stderr, flush=True)


def step(name: str, action: Callable[[], T], *, every: float = STILL_RUNNING_EVERY) -> T:
    """``action``, announced as it starts, with a line each ``every`` seconds while it runs and
    how long it took at the end (a failure says which step it was and after how long)."""
    started = time.monotonic()
    say(f"{name} …")
    done = threading.Event()

    def still_running() -> None:
        while not done.wait(every):
            say(f"{name}: still running, {time.monotonic() - started:.0f} s")

    ticker = threading.Thread(target=still_running, name="image-progress", daemon=True)
    ticker.start()
    try:
        result = action()
    except SystemExit as failure:
        raise SystemExit(
            f"image: step '{name}' failed after {time.monotonic() - started:.1f} s: {failure.code}"
        ) from None
    finally:
        done.set()
        ticker.join()
    say(f"{name}: {time.monotonic() - started:.1f} s")
    return result
