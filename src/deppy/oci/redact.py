"""Taking the credentials deppy sent out of what a registry says back.

A registry or a proxy may copy the request into its error text (the Authorization header, a
token in a URL). Every piece of registry text that becomes a message (the CLI's line, a log
record, an Event, a status condition) goes through :func:`redact` with every secret the
exchange sent: the password, ``user:password`` and its base64, the Authorization header values
and the bearer tokens.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from typing import Final

REDACTED: Final = "<redacted>"
# What follows an auth scheme in echoed text: taken out even when deppy did not send it (a
# proxy's own header), since it is a credential whoever sent it.
# A credential has a digit or a sign among its 12 or more characters ("Bearer challenge" is words).
_SCHEME_VALUE: Final = re.compile(
    r"\b(Basic|Bearer)\s+(?=[A-Za-z]*[0-9+/=._~-])[A-Za-z0-9+/=._~-]{12,}", re.IGNORECASE
)


def basic_secrets(username: str, password: str) -> tuple[str, ...]:
    """What a basic login puts on the wire and a registry may echo: the password,
    ``user:password``, its base64 and the header value."""
    pair = f"{username}:{password}"
    encoded = base64.b64encode(pair.encode()).decode()
    return (password, pair, encoded, f"Basic {encoded}")


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each of ``secrets`` (and any ``Basic``/``Bearer`` value) replaced by
    ``<redacted>``, the longest secret first so that none is left half-shown."""
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return _SCHEME_VALUE.sub(lambda m: f"{m.group(1)} {REDACTED}", text)


__all__ = ["REDACTED", "basic_secrets", "redact"]
