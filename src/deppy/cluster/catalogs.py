"""The catalogs a cluster offers, and reading them.

An OLM v0 ``CatalogSource`` is read over gRPC from ``spec.address``, else from the address OLM
reports (``status.connectionState.address``, else ``status.registryService``: the registry
pod's Service, ``NAME.NAMESPACE.svc:PORT``), with ``spec.priority``. An OLM v1
``ClusterCatalog`` is read over HTTP from ``status.urls.base`` + ``/api/v1/all``, with
``spec.priority``. Each gets the deppy name ``state.catalog_name_map`` gives it (the name the
Subscriptions' ``spec.source`` is matched against). A catalog that cannot be read is a warning
naming the object and what to do; the others are still used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from deppy.catalog.model import Catalog
from deppy.cluster.objects import describe, dig, name_of, namespace_of, text
from deppy.cluster.state import ClusterState, catalog_name_map, priority_of
from deppy.errors import InputError

__all__ = ["CatalogEndpoint", "catalog_endpoints", "load_cluster_catalogs"]


@dataclass(frozen=True, slots=True)
class CatalogEndpoint:
    """Where one cluster catalog can be read (``url`` None: nowhere yet, ``why`` says why)."""

    name: str
    obj: str
    url: str | None
    priority: int
    why: str | None = None


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
    """Every CatalogSource and ClusterCatalog of the cluster, with where to read it."""
    names = catalog_name_map(state)
    found: list[CatalogEndpoint] = []
    for source in state.catalog_sources:
        name = names[(namespace_of(source), name_of(source))]
        address = _grpc_address(source)
        found.append(
            CatalogEndpoint(
                name,
                describe(source, "CatalogSource"),
                f"grpc://{address}" if address else None,
                priority_of(source),
                None
                if address
                else "has no spec.address and OLM reports no registry address for it yet",
            )
        )
    for catalog in state.cluster_catalogs:
        name = names[("", name_of(catalog))]
        base = text(catalog, "status", "urls", "base")
        found.append(
            CatalogEndpoint(
                name,
                describe(catalog, "ClusterCatalog"),
                f"{base.rstrip('/')}/api/v1/all" if base else None,
                priority_of(catalog),
                None if base else "has no status.urls.base yet (catalogd has not unpacked it)",
            )
        )
    return found


Loader = Callable[[str, str, int], Catalog]


def _load(url: str, name: str, priority: int) -> Catalog:
    from deppy.cluster.remote import load_url_catalog

    return load_url_catalog(url, name=name, priority=priority)


def load_cluster_catalogs(
    endpoints: list[CatalogEndpoint], *, load: Loader = _load
) -> tuple[list[Catalog], list[str]]:
    """The catalogs that could be read, and a warning for each that could not."""
    catalogs: list[Catalog] = []
    warnings: list[str] = []
    for endpoint in endpoints:
        if endpoint.url is None:
            warnings.append(
                f"{endpoint.obj} {endpoint.why}; the resolution goes on without it — give "
                f"--catalog PATH={endpoint.name} to use a copy of it"
            )
            continue
        try:
            catalogs.append(load(endpoint.url, endpoint.name, endpoint.priority))
        except InputError as error:
            warnings.append(
                f"{endpoint.obj}: {error}; the resolution goes on without it — reach it with "
                f"'kubectl port-forward' and 'deppy catalog add {endpoint.name} URL', or give "
                f"--catalog PATH={endpoint.name}"
            )
    return catalogs, warnings
