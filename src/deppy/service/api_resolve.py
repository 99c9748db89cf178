"""Resolve, what the next cluster version changes, and the updates of installed bundles.

``POST /api/v1/resolve`` answers exactly what ``deppy resolve -o json`` prints for the same
question (``-v`` is ``?verbose=true``), ``?dryRunNext=`` what ``--dry-run-next -o json`` prints,
``?trace=true`` the trace file ``--trace`` writes; ``GET /api/v1/upgrades`` what ``deppy
upgrades -o json`` prints. Each resolution runs in a solver slot under a deadline.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from starlette.responses import Response

from deppy.errors import InputError
from deppy.pipeline.timing import NodeTimes
from deppy.pipeline.trace import append_notes
from deppy.resolution.answer import Resolution
from deppy.resolution.request import ClusterFacts
from deppy.resolution.request_parsing import parse_installed, parse_version
from deppy.resolution.suggestions import in_resource_words
from deppy.service.bodies import parse_request
from deppy.service.context import Service, cli_json, service_of
from deppy.service.history import source_for
from deppy.service.problems import Problem, problems
from deppy.service.schemas import RESOLVE_BODY
from deppy.service.svg import resolution_graph_svg
from deppy.workflows.catalog_loading import catalogs_used, problem_notes
from deppy.workflows.olmv1 import build_plan, catalog_priorities
from deppy.workflows.resolution_graph import resolution_graph
from deppy.workflows.resolve import resolve_with_options
from deppy.workflows.upgrades import upgrade_reports

router = APIRouter(prefix="/api/v1", tags=["resolve"])

Timeout = Annotated[
    float | None,
    Query(gt=0, description="Seconds this resolution may take (at most deppy serve --deadline)."),
]


def resolution_data(resolution: Resolution, *, verbose: bool) -> dict[str, Any]:
    """``Resolution.as_dict`` as ``deppy resolve -o json`` shows it (solver-level texts only
    with ``verbose``); a catalog to add is named by the body's field, ``spec.sources``."""
    if resolution.explanation is not None:
        resolution = replace(resolution, explanation=in_resource_words(resolution.explanation))
    data = resolution.as_dict()
    if not verbose and "explanation" in data:
        data["explanation"].pop("constraints", None)
    if resolution.request.rules == "olmv1" and resolution.selection is not None:
        # what OLM v1 does with the plan, as -o json says it (a resolved catalog is the CLI's
        # and the controller's to publish: the service has no registry credentials)
        data["olmv1"] = build_plan(resolution).summary()
    return data


def _resolve(
    service: Service,
    body: bytes,
    content_type: str,
    timeout: float | None,
    trace: Path | None = None,
) -> Resolution:
    times = NodeTimes()
    with service.metrics.resolution() as seen, service.catalogs.lease() as loaded:
        request = parse_request(
            body, content_type, loaded.source.names(), catalog_priorities(loaded.source)
        )
        with source_for(loaded, service.catalogs.store, request.sources) as source:
            resolution = service.gate.run(
                lambda left: resolve_with_options(
                    source, request, timeout=left, pipeline=None, trace=trace, times=times
                ),
                asked=timeout,
            )
            seen.outcome = "resolved" if resolution.resolved else "unsatisfiable"
            seen.solver_seconds = times.seconds.get("solver")
            # the load problems of the catalogs the answer used, as resolve -o json has them
            used = catalogs_used(resolution, request, source)
            notes = tuple(problem_notes(source, used, stored=loaded.origin == "store"))
        if trace is not None:  # for a replay, which reads no catalog, to say them too
            append_notes(trace, notes)
        if notes:
            warnings = tuple(dict.fromkeys(notes + resolution.warnings))
            resolution = replace(resolution, warnings=warnings)
        return resolution


_BODY_VERSIONS = (
    "give spec.cluster.openshiftVersion and/or spec.cluster.kubernetesVersion in the body, "
    "or name the target: dryRunNext=ocp=4.19,kube=1.32.0"
)


def _dry_run(
    service: Service, body: bytes, content_type: str, value: str, timeout: float | None
) -> dict[str, Any]:
    from deppy.workflows.whatif import parse_next, what_if

    with service.metrics.resolution() as seen, service.catalogs.lease() as loaded:
        request = parse_request(
            body, content_type, loaded.source.names(), catalog_priorities(loaded.source)
        )
        try:
            target = parse_next(value, request.cluster, versions=_BODY_VERSIONS)
        except InputError as error:
            raise Problem.of(error, field="query.dryRunNext") from None
        with source_for(loaded, service.catalogs.store, request.sources) as source:
            report = service.gate.run(
                lambda left: what_if(source, request, target, timeout=left), asked=timeout
            )
        seen.outcome = "resolved" if report.after.resolved else "unsatisfiable"
    return report.as_dict()


def _trace(service: Service, body: bytes, content_type: str, timeout: float | None) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "resolution.trace.jsonl"
        _resolve(service, body, content_type, timeout, trace=path)
        return path.read_bytes()


@router.post(
    "/resolve",
    summary="Resolve an ActiveResolution (= deppy resolve -o json)",
    openapi_extra={"requestBody": RESOLVE_BODY},
    responses={
        200: {
            "description": "The answer: the selection in install order, or an explanation "
            "(resolved: false); with dryRunNext, the comparison; with trace, the trace lines",
            "content": {
                "application/json": {"schema": {"type": "object"}},
                "application/x-ndjson": {"schema": {"type": "string"}},
            },
        },
        **problems(400, 413, 415, 422, 503),
    },
)
async def resolve(
    request: Request,
    timeout: Timeout = None,
    verbose: Annotated[bool, Query(description="Also the solver-level constraints.")] = False,
    trace: Annotated[bool, Query(description="Answer with the trace (JSON lines).")] = False,
    dry_run_next: Annotated[
        str | None,
        Query(
            alias="dryRunNext",
            description="'next' (the next minor versions of spec.cluster) or "
            "'ocp=4.19,kube=1.32.0': what that cluster version changes, per package.",
        ),
    ] = None,
) -> Response:
    service = service_of(request)
    body = await request.body()
    content_type = request.headers.get("content-type", "")
    if dry_run_next is not None:
        report = await run_in_threadpool(
            _dry_run, service, body, content_type, dry_run_next, timeout
        )
        return cli_json(report)
    if trace:
        lines = await run_in_threadpool(_trace, service, body, content_type, timeout)
        return Response(lines, media_type="application/x-ndjson")
    resolution = await run_in_threadpool(_resolve, service, body, content_type, timeout)
    return cli_json(resolution_data(resolution, verbose=verbose))


async def _resolved(request: Request, timeout: float | None) -> Resolution:
    """The request's body resolved in a solver slot (off the event loop)."""
    body = await request.body()
    content_type = request.headers.get("content-type", "")
    return await run_in_threadpool(_resolve, service_of(request), body, content_type, timeout)


@router.post(
    "/resolve/graph",
    summary="Resolve, with who brought in whom as a graph (JSON and SVG)",
    openapi_extra={"requestBody": RESOLVE_BODY},
    responses={
        200: {
            "description": "resolution (as POST /resolve answers), graph (nodes and edges) "
            "and svg (the graph drawn)",
            "content": {"application/json": {"schema": {"type": "object"}}},
        },
        **problems(400, 413, 415, 422, 503),
    },
)
async def resolve_graph(request: Request, timeout: Timeout = None) -> Response:
    resolution = await _resolved(request, timeout)
    graph = resolution_graph(resolution)
    return cli_json(
        {
            "resolution": resolution_data(resolution, verbose=False),
            "graph": graph,
            "svg": resolution_graph_svg(graph) if resolution.resolved else None,
        }
    )


@router.post(
    "/resolve/clusterextensions",
    summary="An OLM v1 request's plan as ClusterExtension YAML (= -o clusterextensions)",
    openapi_extra={"requestBody": RESOLVE_BODY},
    responses={
        200: {
            "description": "The plan, in install order, each ClusterExtension annotated with "
            "whether OLM v1 installs it as written (a resolved catalog is the CLI's and the "
            "controller's to publish: the service holds no registry credentials)",
            "content": {"application/yaml": {"schema": {"type": "string"}}},
        },
        **problems(400, 409, 413, 415, 422, 503),
    },
)
async def resolve_clusterextensions(request: Request, timeout: Timeout = None) -> Response:
    resolution = await _resolved(request, timeout)
    if resolution.request.rules != "olmv1":
        raise Problem(
            422, "not an OLM v1 request: no ClusterExtension", fix="send ClusterExtension YAML"
        )
    if not resolution.resolved:
        raise Problem(
            409, "no plan: the request does not resolve", fix="POST /resolve explains why"
        )
    try:
        documents = build_plan(resolution).documents()
    except InputError as error:
        raise Problem.of(error) from None
    import yaml

    text = yaml.safe_dump_all(documents, sort_keys=False)
    return Response(text, media_type="application/yaml")


def _cluster(ocp: str | None, kube: str | None) -> ClusterFacts:
    return ClusterFacts(
        parse_version(ocp, "query.ocpVersion", tolerant=True) if ocp else None,
        parse_version(kube, "query.kubeVersion", tolerant=True) if kube else None,
    )


OcpVersion = Annotated[
    str | None, Query(alias="ocpVersion", description="The cluster's OpenShift version (4.18).")
]
KubeVersion = Annotated[
    str | None,
    Query(alias="kubeVersion", description="The cluster's Kubernetes version (1.31.0)."),
]


@router.get(
    "/upgrades",
    summary="Updates of installed bundles (= deppy upgrades -o json)",
    responses={
        200: {"description": "One report per installed bundle, in the order given"},
        **problems(404, 422, 503),
    },
)
def upgrades(
    request: Request,
    installed: Annotated[
        list[str],
        Query(
            min_length=1,
            description="PACKAGE@VERSION[,channel=C][,catalog=NAME][,bundle=NAME], repeatable",
        ),
    ],
    ocp_version: OcpVersion = None,
    kube_version: KubeVersion = None,
) -> Response:
    service = service_of(request)
    specs = []
    for n, spec in enumerate(installed):
        try:
            specs.append(parse_installed(spec))
        except InputError as error:
            raise Problem.of(error, field=f"query.installed[{n}]") from None
    cluster = _cluster(ocp_version, kube_version)
    with service.catalogs.lease() as loaded:
        reports, _ = service.gate.run(lambda _left: upgrade_reports(loaded.source, specs, cluster))
    return cli_json([r.as_dict() for r in reports])
