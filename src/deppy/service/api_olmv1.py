"""OLM v1 beside the resolve endpoint: the upgrades of installed ClusterExtensions, and an
explanation's way out applied to the objects it was found for.

``POST /api/v1/upgrades`` takes ClusterExtension (and ClusterCatalog) objects, as ``POST
/resolve`` does, and answers what ``deppy upgrades -f FILE -o json`` prints: where OLM v1 moves
each installed extension next, and the path over reconciliations; where OLM v1 finds no
bundle, the ways out ``resolve`` offers (``suggestions``, as the CLI's). ``POST
/api/v1/olmv1/changed`` takes ``{"objects": YAML, "change": {...}}`` and answers ``{"objects":
YAML}`` with the change made — the web UI's "Try this" for OLM v1 ways out, which edit an
object's field rather than a form's row.
"""

from __future__ import annotations

from typing import Any

import yaml
from fastapi import APIRouter, Request
from starlette.responses import Response

from deppy.errors import InputError
from deppy.service.bodies import parse_request, read_document
from deppy.service.context import cli_json, service_of
from deppy.service.problems import Problem, problems
from deppy.service.schemas import RESOLVE_BODY
from deppy.workflows.olmv1 import (
    apply_olmv1_change,
    catalog_priorities,
    extension_upgrades,
    olmv1_documents_of,
    with_ways_out,
)

router = APIRouter(prefix="/api/v1", tags=["resolve"])


@router.post(
    "/upgrades",
    summary="Where OLM v1 moves installed ClusterExtensions (= deppy upgrades -f FILE -o json)",
    openapi_extra={"requestBody": RESOLVE_BODY},
    responses={
        200: {
            "description": "One report per ClusterExtension with status.install.bundle; "
            "where OLM v1 finds no bundle (error), the ways out (suggestions) resolve offers"
        },
        **problems(400, 413, 415, 422, 503),
    },
)
async def extension_upgrades_endpoint(request: Request) -> Response:
    service = service_of(request)
    body = await request.body()
    content_type = request.headers.get("content-type", "")
    with service.catalogs.lease() as loaded:
        asked = parse_request(
            body, content_type, loaded.source.names(), catalog_priorities(loaded.source)
        )
        if asked.rules != "olmv1":
            raise Problem(
                422,
                "no ClusterExtension in the body",
                field="body",
                fix="send installed ClusterExtensions (apiVersion: olm.operatorframework.io/v1); "
                "GET /api/v1/upgrades?installed=… takes deppy's installed bundles",
            )
        reports = service.gate.run(
            lambda left: with_ways_out(
                loaded.source, asked, extension_upgrades(loaded.source, asked), timeout=left
            )
        )
    return cli_json([r.as_dict() for r in reports])


@router.post(
    "/olmv1/changed",
    summary="An OLM v1 way out applied to the objects it was found for",
    responses={
        200: {"description": '{"objects": the objects as YAML, with the change made}'},
        **problems(400, 415, 422),
    },
)
async def changed_objects(request: Request) -> Response:
    body = read_document(await request.body(), request.headers.get("content-type", ""))
    if not isinstance(body, dict) or not isinstance(body.get("objects"), str):
        raise Problem(400, "expected {objects: YAML text, change: {...}}", field="body")
    change: Any = body.get("change")
    if not isinstance(change, dict):
        raise Problem(422, "required field (a suggestion's change)", field="change")
    try:
        documents = olmv1_documents_of(body["objects"].encode("utf-8"), "objects")
        if documents is None:
            raise InputError("objects", "no ClusterExtension or ClusterCatalog among them")
        changed = apply_olmv1_change(documents, change)
    except InputError as error:
        raise Problem.of(error) from None
    text = yaml.safe_dump_all(changed, sort_keys=False, allow_unicode=True)
    return cli_json({"objects": text})
