"""Logging in to a registry the way its 401 asks: ``WWW-Authenticate: Basic`` (the user and
password on each request) or ``Bearer realm=…,service=…`` (a token from the realm, asked for
with the user and password, or anonymously without them), as the distribution token spec and
containers/image (skopeo, podman) do.

What a registry can get wrong here — no challenge, a challenge that does not parse, a Bearer
challenge without a realm, a token endpoint that answers HTML, a list, a number or JSON without
a token — is a :class:`LoginError` in words that follow "registry HOST ...".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlencode, urlsplit

import orjson

from deppy.errors import excerpt, json_type
from deppy.oci.exchange import Answer, is_web_url

# RFC 7235: a scheme, then auth-params (token=token or token=quoted-string) separated by commas.
_SCHEME: Final = re.compile(r"\s*([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)")
_PARAM: Final = re.compile(
    r"\s*([A-Za-z0-9!#$%&'*+.^_`|~-]+)\s*=\s*(\"(?:[^\"\\]|\\.)*\"|[^\s,\"]*)\s*(,|$)"
)
_ESCAPE: Final = re.compile(r"\\(.)")


class LoginError(Exception):
    """What the registry did wrong while logging in, after "registry HOST"."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


@dataclass(frozen=True, slots=True)
class Challenge:
    scheme: str  # lower case: basic, bearer
    params: dict[str, str]


Quote = Callable[[str], str]
"""How registry text is quoted in a message: the session's takes its credentials out first."""


def _challenges(header: str, quote: Quote) -> list[Challenge]:
    """The challenges in one WWW-Authenticate value; LoginError when it does not parse."""
    found: list[Challenge] = []
    position = 0
    while position < len(header.rstrip()):
        scheme = _SCHEME.match(header, position)
        if scheme is None:
            raise LoginError(f"sent a WWW-Authenticate header that does not parse: {quote(header)}")
        position = scheme.end()
        params: dict[str, str] = {}
        while (param := _PARAM.match(header, position)) is not None and param.end() > position:
            value = param.group(2)
            if value.startswith('"'):
                value = _ESCAPE.sub(r"\1", value[1:-1])
            params[param.group(1).lower()] = value
            position = param.end()
        found.append(Challenge(scheme.group(1).lower(), params))
        rest = header[position:].lstrip(" ,")
        position = len(header) - len(rest)
    if not found:
        raise LoginError("answered 401 with an empty WWW-Authenticate header")
    return found


def challenge_of(answer: Answer, quote: Quote = excerpt) -> Challenge:
    """The challenge deppy can answer (Bearer before Basic), from a 401."""
    header = answer.header("WWW-Authenticate")
    if header is None:
        raise LoginError(
            "answered 401 without a WWW-Authenticate header (it does not say how to log in)"
        )
    challenges = {c.scheme: c for c in _challenges(header, quote)}
    for scheme in ("bearer", "basic"):
        if scheme in challenges:
            return challenges[scheme]
    schemes = ", ".join(sorted(challenges))
    raise LoginError(f"asks for a login deppy does not speak ({quote(schemes)}; Basic or Bearer)")


def token_url(
    challenge: Challenge, repository: str, quote: Quote = excerpt, *, actions: str = "pull,push"
) -> str:
    """Where to ask for a token for ``actions`` on ``repository`` (``pull`` to read it)."""
    realm = challenge.params.get("realm")
    if not realm:
        raise LoginError("sent a Bearer challenge without a realm (no token endpoint to ask)")
    try:
        web = is_web_url(realm)
    except ValueError:
        raise LoginError(f"sent a Bearer realm that is not a URL: {quote(realm)}") from None
    if not web:
        raise LoginError(f"sent a Bearer realm that is not an http(s) URL: {quote(realm)}")
    parts = urlsplit(realm)
    query = {"scope": f"repository:{repository}:{actions}"}
    if challenge.params.get("service"):
        query["service"] = challenge.params["service"]
    joiner = "&" if parts.query else "?"
    return f"{realm}{joiner}{urlencode(query)}"


def token_of(answer: Answer, realm: str, quote: Quote = excerpt) -> str:
    """The token in a token endpoint's 200 answer (``token``, or OAuth2's ``access_token``)."""
    where = f"sent deppy to token endpoint {quote(realm)}, which"
    try:
        document = orjson.loads(answer.body)
    except orjson.JSONDecodeError:
        kind = answer.header("Content-Type") or "no Content-Type"
        raise LoginError(f"{where} answered something that is not JSON ({quote(kind)})") from None
    if not isinstance(document, dict):
        raise LoginError(f"{where} answered {json_type(document)}, not a JSON object")
    for key in ("token", "access_token"):
        value = document.get(key)
        if isinstance(value, str) and value:
            if not value.isprintable() or not value.isascii():
                raise LoginError(f"{where} answered a token that cannot go in a header")
            return value
    raise LoginError(f"{where} answered JSON without a token")


__all__ = ["Challenge", "LoginError", "challenge_of", "token_of", "token_url"]
