"""What every request passes before a route sees it: the bearer token and the body limit.

Both are plain ASGI middleware so they act before FastAPI reads anything: a body over the limit
is refused with 413 as soon as its size is known (from Content-Length, or while it streams in),
so no more than the limit is ever held; a request without the token never reaches a route.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from deppy.service.problems import Problem

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

API = "/api/v1/"
OPEN = ("/api/v1/healthz", "/api/v1/readyz")  # probes need no token


async def _send_problem(scope: Scope, send: Send, problem: Problem) -> None:
    response = problem.response(str(scope.get("path", "")))
    await response(scope, _no_receive, send)


async def _no_receive() -> Message:
    return {"type": "http.disconnect"}


class _TooLarge(Exception):
    pass


class BodyLimit:
    """413 for a request body over ``limit`` bytes; smaller bodies are read once and replayed."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = Problem(
            413,
            f"the request body is larger than {self.limit} bytes",
            field="body",
            fix="send a smaller body (deppy serve --max-body BYTES raises the limit)",
            kind="too-large",
        )
        declared = _content_length(scope)
        if declared is not None and declared > self.limit:
            await _send_problem(scope, send, too_large)
            return
        try:
            chunks = await self._read(receive)
        except _TooLarge:
            await _send_problem(scope, send, too_large)
            return
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def _read(self, receive: Receive) -> list[bytes]:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return chunks
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                raise _TooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                return chunks


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class Bearer:
    """One token's check, the same for the API's token and the metrics token: the
    ``Authorization`` header's bytes as received, against ``Bearer `` and the token's UTF-8
    bytes, compared in constant time. (Decoding the header first — Starlette decodes headers
    as Latin-1 — made a non-ASCII token never match.)"""

    __slots__ = ("expected",)

    def __init__(self, token: str) -> None:
        self.expected = b"Bearer " + token.encode("utf-8")

    def allows(self, scope: Scope) -> bool:
        given = next((v for k, v in scope.get("headers", ()) if k == b"authorization"), b"")
        return hmac.compare_digest(bytes(given), self.expected)


class BearerToken:
    """Every /api/v1/ call but the probes needs ``Authorization: Bearer TOKEN``."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.bearer = Bearer(token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        guarded = scope["type"] == "http" and path.startswith(API) and path not in OPEN
        if guarded and not self.bearer.allows(scope):
            problem = unauthorized("this service needs a bearer token", "--token-file")
            await _send_problem(scope, send, problem)
            return
        await self.app(scope, receive, send)


def unauthorized(detail: str, option: str, more: str = "") -> Problem:
    """The 401 for a missing or wrong bearer token; ``option`` is where the token comes from."""
    return Problem(
        401,
        detail,
        field="header.Authorization",
        fix=f"send 'Authorization: Bearer TOKEN' with the token of {option}{more}",
        kind="unauthorized",
        headers={"WWW-Authenticate": "Bearer"},
    )
