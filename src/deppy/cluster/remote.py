"""Catalogs named by URL: ``grpc://HOST:PORT`` (operator-registry's gRPC API) and
``http(s)://…/api/v1/all`` (catalogd's FBC stream). ``deppy catalog add`` stores them like a
directory (the URL in place of the path) and ``refresh`` reads the URL again."""

from __future__ import annotations

from deppy.catalog.model import Catalog
from deppy.errors import InputError

__all__ = ["is_catalog_url", "load_url_catalog"]

_SCHEMES = ("grpc://", "http://", "https://")


def is_catalog_url(text: str) -> bool:
    return text.lower().startswith(_SCHEMES)


def load_url_catalog(url: str, *, name: str, priority: int = 0) -> Catalog:
    """Read the catalog at ``url``; InputError naming the URL when it cannot be read."""
    lowered = url.lower()
    if lowered.startswith("grpc://"):
        from deppy.cluster.registry_client import load_registry_catalog

        address = url[len("grpc://") :].rstrip("/")
        if not address or "/" in address:
            raise InputError(url, "expected grpc://HOST:PORT", "e.g. grpc://localhost:50051")
        catalog = load_registry_catalog(address, name=name, priority=priority)
    elif lowered.startswith(("http://", "https://")):
        from deppy.cluster.http_catalog import load_http_catalog

        catalog = load_http_catalog(url, name=name, priority=priority)
    else:
        raise InputError(
            url, "not a catalog URL", "use grpc://HOST:PORT or http(s)://HOST/.../api/v1/all"
        )
    catalog.path = url  # where 'deppy catalog refresh' reads it again
    return catalog
