"""Errors as ``application/problem+json`` (RFC 9457): one object naming the field and what to do.

Every failure a client can cause becomes a :class:`Problem` with a 4xx status — bad syntax 400,
unknown thing 404, too large 413, a request that reads but does not make sense 422 — and the
service's own limits 503 (deadline, busy, loading). Nothing ever answers with a traceback: an
unexpected error is logged here and answered with a plain 500 problem.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import Response

from deppy.errors import DeppyError, InputError, printable
from deppy.workflows.show import PackageNotFound

PROBLEM_JSON = "application/problem+json"
TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    413: "Request body too large",
    415: "Unsupported media type",
    422: "Invalid request",
    500: "Internal error",
    503: "Service unavailable",
}
log = logging.getLogger("deppy.service")


class Problem(Exception):
    """An answer that is an error: ``field`` names where in the request, ``fix`` what to do."""

    def __init__(
        self,
        status: int,
        detail: str,
        *,
        field: str | None = None,
        fix: str | None = None,
        kind: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        detail = printable(detail)  # one line, whatever a library's error text held
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.field = field
        self.fix = fix
        self.kind = kind
        self.headers = dict(headers or {})

    @classmethod
    def of(cls, error: DeppyError, status: int = 422, field: str | None = None) -> Problem:
        """A user error of the layers below, with its place and fix kept apart."""
        if isinstance(error, InputError):
            if field is None:
                return cls(status, str(error), field=error.where or None, fix=error.fix)
            return cls(status, f"{field}: {error.what}", field=field, fix=error.fix)
        return cls(status, str(error), field=field)

    def body(self, instance: str) -> dict[str, Any]:
        data: dict[str, Any] = {
            "type": f"urn:deppy:problem:{self.kind}" if self.kind else "about:blank",
            "title": TITLES.get(self.status, "Error"),
            "status": self.status,
            "detail": self.detail,
            "instance": instance,
        }
        if self.field:
            data["field"] = self.field
        if self.fix:
            data["fix"] = self.fix
        return data

    def response(self, instance: str) -> Response:
        return problem_response(self.status, self.body(instance), self.headers)


def problem_response(
    status: int, body: Mapping[str, Any], headers: Mapping[str, str] | None = None
) -> Response:
    return Response(
        orjson.dumps(body), status_code=status, media_type=PROBLEM_JSON, headers=headers
    )


def _field(location: tuple[Any, ...]) -> str:
    parts = [str(p) for p in location]
    text = parts[0] if parts else ""
    for part in parts[1:]:
        text += f"[{part}]" if part.isdigit() else f".{part}"
    return text


def install_handlers(app: FastAPI) -> None:
    """Every way a request can fail, answered as a problem."""

    async def on_problem(request: Request, error: Exception) -> Response:
        assert isinstance(error, Problem)
        return error.response(request.url.path)

    async def on_not_found(request: Request, error: Exception) -> Response:
        assert isinstance(error, PackageNotFound)
        return Problem.of(error, 404).response(request.url.path)

    async def on_user_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, DeppyError)
        return Problem.of(error).response(request.url.path)

    async def on_validation(request: Request, error: Exception) -> Response:
        assert isinstance(error, RequestValidationError)
        first = error.errors()[0] if error.errors() else {}
        where = _field(tuple(first.get("loc", ())))
        message = str(first.get("msg", "invalid value"))
        problem = Problem(422, f"{where}: {message}" if where else message, field=where or None)
        return problem.response(request.url.path)

    async def on_http(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        detail = error.detail if isinstance(error.detail, str) else TITLES.get(error.status_code)
        problem = Problem(error.status_code, detail or "error", headers=error.headers)
        return problem.response(request.url.path)

    async def on_crash(request: Request, error: Exception) -> Response:
        log.exception("unexpected error answering %s %s", request.method, request.url.path)
        problem = Problem(500, "the service failed to answer; the error is in its log")
        return problem.response(request.url.path)

    app.add_exception_handler(Problem, on_problem)
    app.add_exception_handler(PackageNotFound, on_not_found)
    app.add_exception_handler(DeppyError, on_user_error)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(HTTPException, on_http)
    app.add_exception_handler(Exception, on_crash)


PROBLEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type", "title", "status", "detail"],
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "instance": {"type": "string"},
        "field": {"type": "string", "description": "where in the request, e.g. spec.sources[0]"},
        "fix": {"type": "string", "description": "what to do about it"},
    },
}


def problems(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries for the problems a route may answer."""
    return {
        status: {
            "description": TITLES[status],
            "content": {PROBLEM_JSON: {"schema": PROBLEM_SCHEMA}},
        }
        for status in statuses
    }
