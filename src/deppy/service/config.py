"""How ``deppy serve`` is set up: catalogs, limits and access, in one value."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path

from deppy.errors import InputError
from deppy.resolution.request_parsing import CatalogSpec

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class ServiceConfig:
    """``catalogs`` empty means the stored catalogs, else the embedded example (as the CLI).

    ``deadline`` bounds each resolution (seconds); ``solvers`` is how many may run at once (a
    request waits for a free one until its deadline); ``reload_interval`` is how often the
    catalogs' files or the store are looked at for changes (0: only on request).
    """

    catalogs: tuple[CatalogSpec, ...] = ()
    token: str | None = None
    metrics_token: str | None = None  # None: /metrics is open, like the probes
    max_body: int = MIB
    deadline: float = 10.0
    solvers: int = 2
    reload_interval: float = 2.0
    store: Path | None = None  # the catalog store's home; default $DEPPY_HOME or the user's


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the service on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def read_token(path: str, option: str = "--token-file") -> str:
    """The bearer token in a file (surrounding whitespace ignored); empty is refused."""
    try:
        with open(path, encoding="utf-8") as handle:
            token = handle.read().strip()
    except OSError as error:
        raise InputError(f"{option} {path}", f"cannot read the file: {error.strerror}") from None
    if not token or any(c.isspace() for c in token):
        raise InputError(
            f"{option} {path}",
            "the file must hold one token (no spaces)",
            "e.g. python3 -c 'import secrets; print(secrets.token_urlsafe(32))' > FILE",
        )
    return token
