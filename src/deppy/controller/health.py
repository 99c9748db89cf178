"""The controller's health port: ``/healthz`` for the liveness probe and ``/metrics`` for
Prometheus, on one aiohttp server in kopf's event loop.

kopf's own liveness endpoint serves one path only, so deppy serves both here; ``/healthz``
answers as kopf's does when no probe handlers are registered (``{}``, 200) — from the operator's
event loop, so a loop that hangs fails the probe.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import web
from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder


def health_app(registry: CollectorRegistry) -> web.Application:
    async def healthz(_request: web.Request) -> web.Response:
        return web.json_response({})

    async def metrics(request: web.Request) -> web.Response:
        encoder, content_type = choose_encoder(request.headers.get("Accept", ""))
        body = await asyncio.to_thread(encoder, registry)  # collectors take the cache's lock
        response = web.Response(body=body)
        response.headers["Content-Type"] = content_type
        return response

    app = web.Application()
    app.add_routes([web.get("/healthz", healthz), web.get("/metrics", metrics)])
    return app


@asynccontextmanager
async def serving(host: str, port: int, registry: CollectorRegistry) -> AsyncIterator[None]:
    runner = web.AppRunner(health_app(registry), handle_signals=False, shutdown_timeout=1.0)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
        yield
    finally:
        await asyncio.shield(runner.cleanup())
