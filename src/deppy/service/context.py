"""What every route reaches: the configuration, the catalogs and the solver gate, and how an
answer is written (JSON exactly as the CLI prints it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
from fastapi import Request
from starlette.responses import Response

from deppy.service.catalogs import CatalogState
from deppy.service.config import ServiceConfig
from deppy.service.gate import SolveGate
from deppy.service.metrics import ServiceMetrics


@dataclass(frozen=True, slots=True)
class Service:
    config: ServiceConfig
    catalogs: CatalogState
    gate: SolveGate
    metrics: ServiceMetrics


def service_of(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


def json_bytes(data: Any) -> bytes:
    """The bytes ``deppy ... -o json`` prints: indented by two, keys in the answer's order,
    one newline at the end."""
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"


def cli_json(data: Any, status: int = 200) -> Response:
    return json_response(json_bytes(data), status)


def json_response(body: bytes, status: int = 200) -> Response:
    return Response(body, status_code=status, media_type="application/json")
