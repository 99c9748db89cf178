"""How ``deppy serve`` is set up: catalogs, limits and access, in one value."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path

from deppy.errors import InputError
from deppy.resolution.request_parsing import CatalogSpec

MIB = 1024 * 1024
MAX_TOKEN_FILE = 4096  # a token is tens of bytes; a header holds a few kilobytes at most


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
    """The bearer token in a file (surrounding whitespace ignored): UTF-8 text without spaces
    or control characters, as a client can send it in a header; anything else is refused here,
    at start, so the service never runs with a token no request can match."""
    fix = "e.g. python3 -c 'import secrets; print(secrets.token_urlsafe(32))' > FILE"
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_TOKEN_FILE + 1)
    except OSError as error:
        raise InputError(f"{option} {path}", f"cannot read the file: {error.strerror}") from None
    if len(raw) > MAX_TOKEN_FILE:
        raise InputError(f"{option} {path}", f"the file is over {MAX_TOKEN_FILE} bytes", fix)
    try:
        token = raw.decode("utf-8").strip()
    except UnicodeDecodeError as error:
        raise InputError(
            f"{option} {path}", f"the file is not UTF-8 text (byte {error.start})", fix
        ) from None
    if not token or not token.isprintable() or any(c.isspace() for c in token):
        raise InputError(
            f"{option} {path}",
            "the file must hold one token (no spaces or control characters)",
            fix,
        )
    return token
