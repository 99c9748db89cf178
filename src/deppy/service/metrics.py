"""``GET /metrics``: what Prometheus scrapes from ``deppy serve`` (prometheus-client's exposition).

Requests by route and status, resolutions by outcome with their duration and the solver's part
of it, solves in flight, and — read from the catalogs at each scrape, never kept twice — the
loaded catalogs with their bundle counts and the age of their content, and the reloads.

Each app has its own registry, so two apps in one process (tests) never share counts.
``/metrics`` is open like the probes (it carries counts and catalog names, no request content
and no answer); ``--metrics-token-file`` puts it behind a token of its own, so a scraper never
holds the API's token.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from prometheus_client import Counter, Gauge, Histogram
from prometheus_client.exposition import choose_encoder
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.responses import Response
from starlette.routing import Match

from deppy.errors import InputError
from deppy.observability import SECONDS, LabelValues
from deppy.observability import registry as new_registry
from deppy.service.catalogs import CatalogState
from deppy.service.guards import ASGIApp, Bearer, Message, Receive, Scope, Send, unauthorized
from deppy.service.problems import Problem

log = logging.getLogger("deppy.service")
OUTCOMES = ("resolved", "unsatisfiable", "invalid", "deadline", "busy")
# The methods of RFC 9110 and PATCH; any other token a client sends is counted as "other"
# (every distinct one would otherwise be a new series, before authentication even).
METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH")
method_of = LabelValues(METHODS)


class CatalogCollector(Collector):
    """The current generation of catalogs, as it is at the moment of the scrape."""

    def __init__(self, state: CatalogState) -> None:
        self.state = state

    def collect(self) -> Iterator[Metric]:
        bundles = GaugeMetricFamily(
            "deppy_catalog_bundles", "Bundles in each loaded catalog.", labels=["catalog"]
        )
        packages = GaugeMetricFamily(
            "deppy_catalog_packages", "Packages in each loaded catalog.", labels=["catalog"]
        )
        age = GaugeMetricFamily(
            "deppy_catalog_content_age_seconds",
            "Seconds since the content served was loaded (a reload happens when files change).",
            labels=["catalog"],
        )
        loaded = self.state.current
        if loaded is not None:
            seconds = max(0.0, time.time() - loaded.loaded_at)
            for row in loaded.catalogs:
                bundles.add_metric([row["name"]], row["bundles"])
                packages.add_metric([row["name"]], row["packages"])
                age.add_metric([row["name"]], seconds)
        yield from (bundles, packages, age)
        yield GaugeMetricFamily(
            "deppy_catalog_generation",
            "How many times the catalogs were loaded (1: never reloaded).",
            value=loaded.generation if loaded is not None else 0,
        )
        reloads = CounterMetricFamily(
            "deppy_catalog_reloads",
            "Reloads after a change of the catalogs' files, by result (a failed one keeps the "
            "content served).",
            labels=["result"],
        )
        reloads.add_metric(["ok"], self.state.reloads)
        reloads.add_metric(["failed"], self.state.reload_failures)
        yield reloads
        yield GaugeMetricFamily(
            "deppy_catalog_reload_failing",
            "1 while the last reload failed (the older content is served), else 0.",
            value=1 if self.state.last_error is not None else 0,
        )


@dataclass
class Seen:
    """What one resolution turned out to be (set by the route before the block ends)."""

    outcome: str = "resolved"
    solver_seconds: float | None = None


class ServiceMetrics:
    def __init__(self, state: CatalogState, slots: int) -> None:
        self.registry = registry = new_registry()
        self.requests = Counter(
            "deppy_http_requests",
            "HTTP requests answered, by route template, method (other: not a standard method) "
            "and status.",
            ["route", "method", "status"],
            registry=registry,
        )
        self.request_seconds = Histogram(
            "deppy_http_request_duration_seconds",
            "Time to answer an HTTP request, by route template.",
            ["route"],
            buckets=SECONDS,
            registry=registry,
        )
        self.resolutions = Counter(
            "deppy_resolutions",
            "Resolutions asked for, by outcome: resolved, unsatisfiable, invalid (a 4xx), "
            "deadline (ran out of time), busy (no solver slot free in time).",
            ["outcome"],
            registry=registry,
        )
        for outcome in OUTCOMES:
            self.resolutions.labels(outcome)
        self.resolution_seconds = Histogram(
            "deppy_resolution_duration_seconds",
            "Time from a resolution's request read to its answer (waiting for a slot included).",
            buckets=SECONDS,
            registry=registry,
        )
        self.solver_seconds = Histogram(
            "deppy_solver_duration_seconds",
            "Time the solver node took in a resolution (the rest is reading the request, "
            "generating variables and writing the answer).",
            buckets=SECONDS,
            registry=registry,
        )
        self.in_flight = Gauge(
            "deppy_solves_in_flight",
            "Resolutions holding a solver slot now.",
            registry=registry,
        )
        Gauge(
            "deppy_solver_slots", "Resolutions that may run at once (--solvers).", registry=registry
        ).set(slots)
        registry.register(CatalogCollector(state))

    @contextmanager
    def resolution(self) -> Iterator[Seen]:
        """Count and time the resolution run inside the block, by how it ended."""
        seen = Seen()
        started = time.perf_counter()
        try:
            yield seen
        except Problem as problem:
            seen.outcome = problem.kind if problem.kind in ("deadline", "busy") else "invalid"
            raise
        except InputError:
            seen.outcome = "invalid"
            raise
        finally:
            seconds = time.perf_counter() - started
            self.resolutions.labels(seen.outcome).inc()
            self.resolution_seconds.observe(seconds)
            if seen.solver_seconds is not None:
                self.solver_seconds.observe(seen.solver_seconds)
            log.info(
                "resolution %s in %.3f s",
                seen.outcome,
                seconds,
                extra={"reason": seen.outcome, "duration": round(seconds, 6)},
            )


def route_of(scope: Scope) -> str:
    """The route's template (``/api/v1/packages/{name}``), never the raw path: one series per
    route however many names are asked for. A request refused before routing (401, 413) is
    matched against the routes here; nothing matching is ``unmatched``."""
    route = scope.get("route")
    if route is None:
        app = scope.get("app")
        for candidate in getattr(app, "routes", ()):
            match, _child = candidate.matches(scope)
            if match is Match.FULL:
                route = candidate
                break
    return str(getattr(route, "path", "")) or "unmatched"


class RequestMetrics:
    """ASGI middleware, outermost: every answer counted by route, method and status, and timed."""

    def __init__(self, app: ASGIApp, metrics: ServiceMetrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500
        started = time.perf_counter()

        async def watched(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, watched)
        finally:
            route = route_of(scope)
            method = method_of(str(scope.get("method", "")))
            self.metrics.requests.labels(route, method, str(status)).inc()
            self.metrics.request_seconds.labels(route).observe(time.perf_counter() - started)


router = APIRouter()


@router.get("/metrics", include_in_schema=False)
def metrics(request: Request) -> Response:
    """The exposition in the format the scraper asks for (Prometheus text, or OpenMetrics)."""
    service = request.app.state.service
    token = service.config.metrics_token
    if token is not None and not Bearer(token).allows(request.scope):
        raise unauthorized(
            "/metrics needs the metrics token",
            "--metrics-token-file",
            " (Prometheus: authorization.credentials_file)",
        )
    encoder, content_type = choose_encoder(request.headers.get("accept", ""))
    body: Any = encoder(service.metrics.registry)
    return Response(body, media_type=content_type)
