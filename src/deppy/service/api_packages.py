"""Browsing: search, one package, its upgrade graph (JSON and SVG), one bundle.

Search answers what ``deppy search TERM -o json`` prints (same ranking: the workflow's), a
package what ``deppy show`` shows, as data.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from starlette.responses import Response

from deppy.errors import InputError
from deppy.service.context import cli_json, json_bytes, json_response, service_of
from deppy.service.description import description_html
from deppy.service.problems import problems
from deppy.service.svg import upgrade_graph_svg
from deppy.workflows.graph import ChannelGraph, graph_as_dict
from deppy.workflows.search import list_packages, search
from deppy.workflows.show import PackageNotFound, bundle_details, package_graphs, package_views

router = APIRouter(prefix="/api/v1", tags=["packages"])

PackageName = Annotated[str, Path(description="The package name (olm.package)")]
Channel = Annotated[str | None, Query(description="Only this channel")]
Catalog = Annotated[str | None, Query(description="Only this catalog")]


@router.get(
    "/packages",
    summary="Search packages (= deppy search TERM -o json --limit N); no q: every package",
    responses={200: {"description": "Matches, best first"}, **problems(422, 503)},
)
def search_packages(
    request: Request,
    q: Annotated[
        str | None,
        Query(description="Name, title, keyword, API kind or group, or words; none: list all"),
    ] = None,
    limit: Annotated[int, Query(ge=0, le=10000, description="At most this many (0: all)")] = 30,
) -> Response:
    """With ``q``, the hits of ``deppy search q``; without, every package with its channels,
    default channel and provider (``deppy search`` with no term: the web UI's home page)."""
    if q is not None and not q.strip():
        raise InputError("query.q", "the search term is empty", "give a word, or no q to list all")
    with service_of(request).catalogs.lease() as loaded:

        def answer() -> bytes:
            found = list_packages(loaded.source) if q is None else search(loaded.source, q)
            return json_bytes([h.as_dict() for h in (found[:limit] if limit else found)])

        return json_response(
            loaded.remember(("search" if q is not None else "all", q or "", str(limit)), answer)
        )


@router.get(
    "/packages/{package}",
    summary="One package: channels, versions, deprecations, dependencies, APIs (= deppy show)",
    responses={200: {"description": "The package in each catalog offering it"}, **problems(404)},
)
def package(request: Request, package: PackageName) -> Response:
    with service_of(request).catalogs.lease() as loaded:

        def answer() -> bytes:
            views = package_views(loaded.source, package)
            return json_bytes({"package": package, "catalogs": [v.as_dict() for v in views]})

        return json_response(loaded.remember(("package", package), answer))


@router.get(
    "/packages/{package}/description.html",
    summary="A package's description (its CSV's Markdown) as a safe HTML fragment for the web UI",
    response_class=Response,
    responses={
        200: {
            "description": "HTML without scripts; links only to http(s)",
            "content": {"text/html": {}},
        },
        **problems(404),
    },
)
def package_description(
    request: Request, package: PackageName, catalog: Catalog = None
) -> Response:
    with service_of(request).catalogs.lease() as loaded:

        def answer() -> bytes:
            views = package_views(loaded.source, package)
            chosen = [v for v in views if catalog is None or v.catalog == catalog]
            if not chosen:
                raise PackageNotFound(
                    "query.catalog", f"catalog {catalog!r} does not offer package {package}"
                )
            return description_html(chosen[0].description).encode()

        html = loaded.remember(("description", package, catalog or ""), answer)
    # Inserted into the page by the UI; opened on its own, it may run nothing either.
    return Response(html, media_type="text/html", headers={"Content-Security-Policy": "sandbox"})


def _graphs(
    request: Request, package: str, channel: str | None, catalog: str | None
) -> list[ChannelGraph]:
    with service_of(request).catalogs.lease() as loaded:
        graphs = package_graphs(loaded.source, package, channel)
    if catalog is not None:
        graphs = [g for g in graphs if g.catalog == catalog]
        if not graphs:
            raise PackageNotFound(
                "query.catalog", f"catalog {catalog!r} does not offer package {package}"
            )
    return graphs


@router.get(
    "/packages/{package}/graph",
    summary="Upgrade graphs of a package's channels (replaces, skips, skipRange edges)",
    responses={200: {"description": "One graph per channel"}, **problems(404)},
)
def package_graph(
    request: Request, package: PackageName, channel: Channel = None, catalog: Catalog = None
) -> Response:
    graphs = _graphs(request, package, channel, catalog)
    return cli_json({"package": package, "channels": [graph_as_dict(g) for g in graphs]})


@router.get(
    "/packages/{package}/graph.svg",
    summary="One channel's upgrade graph drawn (default: the default channel)",
    response_class=Response,
    responses={
        200: {"description": "An SVG picture", "content": {"image/svg+xml": {}}},
        **problems(404),
    },
)
def package_graph_svg(
    request: Request, package: PackageName, channel: Channel = None, catalog: Catalog = None
) -> Response:
    graph = _graphs(request, package, channel, catalog)[0]
    return Response(upgrade_graph_svg(graph_as_dict(graph)), media_type="image/svg+xml")


@router.get(
    "/packages/{package}/bundles/{bundle}",
    summary="One bundle: channels and edges, deprecation, needs, APIs, properties",
    responses={200: {"description": "The bundle"}, **problems(404)},
)
def bundle(
    request: Request,
    package: PackageName,
    bundle: Annotated[str, Path(description="The bundle name (olm.bundle)")],
    catalog: Catalog = None,
) -> Response:
    with service_of(request).catalogs.lease() as loaded:
        details = bundle_details(loaded.source, package, bundle, catalog)
    return cli_json(details)
