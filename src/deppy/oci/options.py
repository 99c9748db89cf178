"""How catalog images are read: ``--tls-verify``, ``--registry-timeout``, ``--platform`` and
``--offline``, as values.

Every command that takes a catalog parses these options, most of them to read a directory: they
live apart from the pull itself (:mod:`deppy.oci.pull`), so parsing them loads no HTTP, TLS or
tar module (~50 ms of a repeat ``deppy resolve --catalog DIR``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

DEFAULT_TIMEOUT_S: Final = 60.0


@dataclass(frozen=True, slots=True)
class PullOptions:
    """How images are read: ``--tls-verify``, ``--registry-timeout``, ``--platform``,
    ``--offline``."""

    tls_verify: bool = True
    timeout: float = DEFAULT_TIMEOUT_S
    platform: str | None = None
    offline: bool = False
    last_read_when_unreachable: bool = True
    """False for ``catalog add|refresh``: reading the registry is what they are for."""


__all__ = ["DEFAULT_TIMEOUT_S", "PullOptions"]
