"""A free loopback port and the shared test data: for the tests (re-exported by conftest) and
for what runs outside pytest (benchmarks/soak.py), so it imports no test tool."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from tests.kube import fail_test

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DEPPY_SHARED", ROOT.parent / "shared")).resolve()


def shared_path(*parts: str) -> Path:
    """A path under ../shared; fails the test (or the soak) loudly when the data is not there."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        fail_test(
            f"test data {path} is missing: ../shared must sit beside the checkout "
            "(or set DEPPY_SHARED)"
        )
    return path


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listened on a moment ago (for a server to bind, or as
    an address where nothing answers)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
