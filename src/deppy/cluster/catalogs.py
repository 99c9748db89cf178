"""The catalogs a cluster offers, and reading them.

An OLM v0 ``CatalogSource`` is read over gRPC from ``spec.address``, else from the address OLM
reports (``status.connectionState.address``, else ``status.registryService``: the registry
pod's Service, ``NAME.NAMESPACE.svc:PORT``), with ``spec.priority``. An OLM v1
``ClusterCatalog`` is read over HTTP from ``status.urls.base`` + ``/api/v1/all``, with
``spec.priority``. Each gets the deppy name ``state.catalog_name_map`` gives it (the name the
Subscriptions' ``spec.source`` is matched against).

Both are shipped as images, and an in-cluster address is seldom reachable from where deppy
runs, so the image is read when the address cannot be (and always for an export: its
addresses are the cluster's, never reachable from a file): a CatalogSource's ``spec.image`` at
the digest its registry pod runs when the export recorded it (``IMAGE_ID_ANNOTATION``), a
ClusterCatalog's ``status.resolvedSource.image.ref`` (the digest catalogd serves) else
``spec.source.image.ref``. A catalog that cannot be read is a warning naming the object, the
address or image, and what to do; the others are still used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from deppy.catalog.model import Catalog
from deppy.cluster.objects import annotations_of, describe, dig, name_of, namespace_of, text
from deppy.cluster.state import ClusterState, catalog_name_map, priority_of
from deppy.errors import InputError

__all__ = [
    "IMAGE_ID_ANNOTATION",
    "CatalogEndpoint",
    "catalog_endpoints",
    "image_reference",
    "load_cluster_catalogs",
]

IMAGE_ID_ANNOTATION = "deppy.io/registry-image-id"
"""Set on a CatalogSource by ``deppy cluster export``: the image digest its registry pod runs
(the pod's ``status.containerStatuses[].imageID``), read in place of ``spec.image``'s tag."""

_RUNTIME_PREFIXES = ("docker-pullable://", "docker://")


@dataclass(frozen=True, slots=True)
class CatalogEndpoint:
    """Where one cluster catalog can be read: ``url`` (None: nowhere yet, ``why`` says why),
    else (or when ``url`` cannot be reached) ``image``, a ``docker://`` reference."""

    name: str
    obj: str
    url: str | None
    priority: int
    why: str | None = None
    image: str | None = None


def image_reference(image: str) -> str | None:
    """A cluster's image name (``quay.io/org/repo:tag``, ``repo@sha256:…``, a runtime's
    ``docker-pullable://…`` image ID) as deppy's ``docker://`` reference; None for none.
    A name with no registry host is Docker Hub's, as the container runtimes read it."""
    image = image.strip()
    for prefix in _RUNTIME_PREFIXES:
        image = image.removeprefix(prefix)
    if not image:
        return None
    first, slash, _ = image.partition("/")
    if not slash or not ("." in first or ":" in first or first == "localhost"):
        image = f"docker.io/{image if slash else 'library/' + image}"
    return f"docker://{image}"


def _source_image(source: Mapping[str, Any]) -> str | None:
    recorded = annotations_of(source).get(IMAGE_ID_ANNOTATION)
    if isinstance(recorded, str) and "@sha256:" in recorded:
        return image_reference(recorded)
    image = text(source, "spec", "image")
    return image_reference(image) if image else None


def _catalog_image(catalog: object) -> str | None:
    image = text(catalog, "status", "resolvedSource", "image", "ref") or text(
        catalog, "spec", "source", "image", "ref"
    )
    return image_reference(image) if image else None


def _grpc_address(source: object) -> str | None:
    address = text(source, "spec", "address") or text(
        source, "status", "connectionState", "address"
    )
    if address:
        return address
    service = dig(source, "status", "registryService")
    name, namespace = text(service, "serviceName"), text(service, "serviceNamespace")
    port = dig(service, "port")
    if name and namespace and isinstance(port, str | int) and str(port):
        return f"{name}.{namespace}.svc:{port}"
    return None


def catalog_endpoints(state: ClusterState) -> list[CatalogEndpoint]:
    """Every CatalogSource and ClusterCatalog of the cluster, with where to read it (an
    export's object with an image: its image only)."""
    names = catalog_name_map(state)
    found: list[CatalogEndpoint] = []
    for source in state.catalog_sources:
        name = names[(namespace_of(source), name_of(source))]
        address = _grpc_address(source)
        image = _source_image(source)
        url = f"grpc://{address}" if address and (state.live or not image) else None
        found.append(
            CatalogEndpoint(
                name,
                describe(source, "CatalogSource"),
                url,
                priority_of(source),
                None
                if address or image
                else "has no spec.address or spec.image, and OLM reports no registry address "
                "for it yet",
                image,
            )
        )
    for catalog in state.cluster_catalogs:
        name = names[("", name_of(catalog))]
        base = text(catalog, "status", "urls", "base")
        image = _catalog_image(catalog)
        url = f"{base.rstrip('/')}/api/v1/all" if base and (state.live or not image) else None
        found.append(
            CatalogEndpoint(
                name,
                describe(catalog, "ClusterCatalog"),
                url,
                priority_of(catalog),
                None
                if base or image
                else "has no status.urls.base yet (catalogd has not unpacked it) and no image",
                image,
            )
        )
    return found


Loader = Callable[[str, str, int], Catalog]
ImageLoader = Callable[[str, str, int], tuple[Catalog, tuple[str, ...]]]
"""(reference, name, priority) -> the image's catalog and warnings for the user."""


def _load(url: str, name: str, priority: int) -> Catalog:
    from deppy.cluster.remote import load_url_catalog

    return load_url_catalog(url, name=name, priority=priority)


def load_cluster_catalogs(
    endpoints: list[CatalogEndpoint],
    *,
    load: Loader = _load,
    load_image: ImageLoader | None = None,
) -> tuple[list[Catalog], list[str]]:
    """The catalogs that could be read, and a warning for each that could not; images are
    read with ``load_image`` (None: never)."""
    catalogs: list[Catalog] = []
    warnings: list[str] = []
    for endpoint in endpoints:
        failed: list[str] = []
        if endpoint.url is not None:
            try:
                catalogs.append(load(endpoint.url, endpoint.name, endpoint.priority))
                continue
            except InputError as error:
                failed.append(str(error))
        if endpoint.image is not None and load_image is not None:
            try:
                catalog, said = load_image(endpoint.image, endpoint.name, endpoint.priority)
            except InputError as error:
                failed.append(str(error))
            else:
                catalogs.append(catalog)
                warnings.extend(said)
                continue
        warnings.append(_unread(endpoint, failed))
    return catalogs, warnings


def _unread(endpoint: CatalogEndpoint, failed: list[str]) -> str:
    if not failed:
        return (
            f"{endpoint.obj} {endpoint.why}; the resolution goes on without it — give "
            f"--catalog PATH={endpoint.name} to use a copy of it"
        )
    if endpoint.image is not None:  # the registry's error says what to check
        return (
            f"{endpoint.obj}: {'; '.join(failed)}; the resolution goes on without it — give "
            f"--catalog PATH={endpoint.name}"
        )
    return (
        f"{endpoint.obj}: {failed[0]}; the resolution goes on without it — reach it with "
        f"'kubectl port-forward' and 'deppy catalog add {endpoint.name} URL', or give "
        f"--catalog PATH={endpoint.name}"
    )
