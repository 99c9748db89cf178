"""A free loopback port: for the tests (re-exported by conftest) and for what runs outside
pytest (benchmarks/soak.py), so it imports no test tool."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listened on a moment ago (for a server to bind, or as
    an address where nothing answers)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
