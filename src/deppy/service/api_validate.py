"""Would this bundle install? A tar.gz of a bundle directory, resolved as ``deppy validate``
resolves the directory (its answer is what ``deppy validate DIR -o json`` prints)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from starlette.responses import Response

from deppy.catalog.bundle_dir import load_bundle_dir
from deppy.resolution.request import ClusterFacts
from deppy.service.api_resolve import KubeVersion, OcpVersion, _cluster, resolution_data
from deppy.service.bodies import unpack_bundle
from deppy.service.context import Service, cli_json, service_of
from deppy.service.problems import problems
from deppy.workflows.validate import validate_bundle

router = APIRouter(prefix="/api/v1", tags=["validate"])


def _validate(service: Service, body: bytes, cluster: ClusterFacts) -> Response:
    if not body:
        from deppy.service.problems import Problem

        raise Problem(400, "the request body is empty", field="body", fix="send a tar.gz")
    with tempfile.TemporaryDirectory() as folder, service.catalogs.lease() as loaded:
        directory = unpack_bundle(body, Path(folder))
        bundle = load_bundle_dir(directory)
        resolution = service.gate.run(
            lambda _left: validate_bundle(bundle, "body", loaded.source, cluster)
        )
    return cli_json(resolution_data(resolution, verbose=False))


@router.post(
    "/validate",
    summary="Would this bundle install against the loaded catalogs? (= deppy validate -o json)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "tar -czf - -C BUNDLE_DIR . (manifests/ and metadata/)",
            "content": {"application/gzip": {"schema": {"type": "string", "format": "binary"}}},
        }
    },
    responses={
        200: {"description": "The resolution with the bundle required exactly"},
        **problems(400, 413, 422, 503),
    },
)
async def validate(
    request: Request, ocp_version: OcpVersion = None, kube_version: KubeVersion = None
) -> Response:
    service = service_of(request)
    cluster = _cluster(ocp_version, kube_version)
    body = await request.body()
    return await run_in_threadpool(_validate, service, body, cluster)
