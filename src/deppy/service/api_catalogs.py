"""The loaded catalogs: list, check one (= ``deppy catalog check NAME -o json``), reload; and
the probes (health: the process answers; readiness: catalogs are loaded)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.concurrency import run_in_threadpool
from starlette.responses import Response

from deppy.service.api_resolve import KubeVersion, OcpVersion, _cluster
from deppy.service.catalogs import ADD_ONE, NO_CATALOG_STORED, no_catalog_stored
from deppy.service.context import cli_json, json_bytes, json_response, service_of
from deppy.service.problems import Problem, problems
from deppy.solver import SolveTimeout
from deppy.workflows.catalog_check import check_catalog
from deppy.workflows.show import PackageNotFound

router = APIRouter(prefix="/api/v1", tags=["catalogs"])


@router.get(
    "/catalogs",
    summary="The loaded catalogs, most preferred first",
    responses={
        200: {
            "description": "Where they come from and one row per catalog; `empty`, when the "
            "store was emptied under the service, says that no catalog is stored and what to do"
        }
    },
)
def catalogs(request: Request) -> Response:
    with service_of(request).catalogs.lease(listing=True) as loaded:
        listing = {
            "origin": loaded.origin,
            "generation": loaded.generation,
            "loadedAt": datetime.fromtimestamp(loaded.loaded_at, UTC).isoformat(),
            "catalogs": list(loaded.catalogs),
        }
        if loaded.no_catalog_stored:
            listing["empty"] = f"{NO_CATALOG_STORED}; {ADD_ONE}"
        return cli_json(listing)


@router.get(
    "/catalogs/{catalog}/check",
    summary="Bundles of a catalog that cannot be installed alone (= deppy catalog check -o json)",
    responses={200: {"description": "The check, failures by package"}, **problems(404, 422, 503)},
)
def check(
    request: Request,
    catalog: Annotated[str, Path(description="A loaded catalog's name")],
    ocp_version: OcpVersion = None,
    kube_version: KubeVersion = None,
) -> Response:
    service = service_of(request)
    cluster = _cluster(ocp_version, kube_version)
    with service.catalogs.lease() as loaded:
        if catalog not in loaded.source.names():
            raise PackageNotFound(
                f"catalog {catalog!r}",
                "no loaded catalog has this name",
                f"loaded: {', '.join(loaded.source.names())}",
            )
        key = ("check", catalog, str(cluster.openshift_version), str(cluster.kube_version))
        source = loaded.source.restricted([catalog])

        def work(left: float) -> bytes:
            deadline = time.monotonic() + left

            def progress(_done: int, _total: int) -> None:
                if time.monotonic() > deadline:
                    raise SolveTimeout()

            return json_bytes(check_catalog(source, catalog, cluster, progress).as_dict())

        return json_response(loaded.remember(key, lambda: service.gate.run(work)))


@router.post(
    "/catalogs/reload",
    summary="Load the catalogs again if their files or the store changed",
    responses={200: {"description": "Whether a new generation was loaded"}},
)
async def reload(request: Request) -> Response:
    state = service_of(request).catalogs
    reloaded = await run_in_threadpool(state.reload_if_changed)
    current = state.current
    return cli_json(
        {
            "reloaded": reloaded,
            "generation": current.generation if current else 0,
            "error": state.last_error,
        }
    )


@router.get("/healthz", summary="The process answers", tags=["probes"])
def health() -> Response:
    return cli_json({"status": "ok"})


@router.get(
    "/readyz",
    summary="Catalogs are loaded and requests can be answered",
    tags=["probes"],
    responses=problems(503),
)
def ready(request: Request) -> Response:
    state = service_of(request).catalogs
    current = state.current
    if current is None:
        raise Problem(503, "the catalogs are still loading", kind="loading")
    if current.no_catalog_stored:
        raise no_catalog_stored()
    return cli_json({"status": "ready", "generation": current.generation})
