"""The service as an ASGI app: ``create_app(config)``.

Routers by concern (resolve, packages, catalogs, validate, metrics), problems for every error,
the request metrics, the bearer token and the body limit in front, the web UI's files at ``/``
and a docs page at ``/docs`` that needs nothing from the network.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.responses import FileResponse, Response

from deppy.service import (
    api_catalogs,
    api_olmv1,
    api_packages,
    api_resolve,
    api_validate,
    metrics,
)
from deppy.service.catalogs import CatalogState, Watcher
from deppy.service.config import ServiceConfig
from deppy.service.context import Service
from deppy.service.gate import SolveGate
from deppy.service.guards import BearerToken, BodyLimit
from deppy.service.problems import install_handlers
from deppy.workflows.catalog_loading import Report

STATIC = Path(__file__).parent / "static"
DESCRIPTION = """The interactive resolver: resolve, browse catalogs, see upgrade graphs.

Every answer is computed by the same code as the `deppy` command: `POST /api/v1/resolve` answers
what `deppy resolve -o json` prints for the same ActiveResolution. Errors are
`application/problem+json` with the `field` they are about."""


def create_app(
    config: ServiceConfig, state: CatalogState | None = None, report: Report | None = None
) -> FastAPI:
    """The app; ``state`` is loaded now when not given (a bad catalog fails here, not later);
    ``report`` hears catalog objects skipped as invalid, at each load."""
    if state is None:
        state = CatalogState(config.catalogs, config.store)
        state.report = report
        state.load()
    measured = metrics.ServiceMetrics(state, config.solvers)
    gate = SolveGate(config.solvers, config.deadline, measured.in_flight)
    service = Service(config, state, gate, measured)
    watcher = Watcher(state, config.reload_interval)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        watcher.start()
        try:
            yield
        finally:
            watcher.stop()
            state.close()

    app = FastAPI(
        title="deppy",
        description=DESCRIPTION,
        version="v1",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.service = service
    install_handlers(app)
    for module in (api_resolve, api_olmv1, api_packages, api_catalogs, api_validate, metrics):
        app.include_router(module.router)

    @app.get("/docs", include_in_schema=False)
    def docs() -> Response:
        return FileResponse(STATIC / "docs.html")

    @app.get("/", include_in_schema=False)
    def index() -> Response:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_middleware(BodyLimit, limit=config.max_body)
    if config.token is not None:
        app.add_middleware(BearerToken, token=config.token)
    app.add_middleware(metrics.RequestMetrics, metrics=measured)  # outermost: sees every answer
    return app
