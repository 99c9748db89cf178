"""``deppy catalog serve``: a catalog served over gRPC (as ``opm serve``) and/or HTTP (as
catalogd), in the foreground until SIGINT or SIGTERM, then stopped cleanly.

The catalog is a directory or file (any catalog path deppy reads), else a stored catalog of that
name. Addresses are ``HOST:PORT``; port 0 takes a free port, and the announced lines say which.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from deppy.catalog.model import Catalog
from deppy.errors import InputError

__all__ = ["load_served_catalog", "serve_until_stopped"]


def load_served_catalog(source: str) -> Catalog:
    from deppy.oci.reference import is_image_reference

    if is_image_reference(source):  # read once, at the start, with the command's options
        from deppy.catalog.image_catalog import load_image_catalog
        from deppy.workflows.catalog_loading import images_path, parsed_cache

        return load_image_catalog(
            source, name=None, cache_dir=images_path(), cache=parsed_cache(), where="SOURCE"
        )
    if Path(source).exists():
        from deppy.catalog.bundle_tree import load_any_catalog

        return load_any_catalog(source)
    from deppy.store import Store

    if Store().find(source) is not None:
        return Store().load_catalog(source)
    raise InputError(
        source,
        "neither a catalog path nor a stored catalog",
        "give a File-Based Catalog directory, a catalog image (docker://…, oci:DIR) or a name "
        "'deppy catalog list' shows",
    )


def _split(address: str, option: str) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise InputError(f"{option} {address}", "expected HOST:PORT", "e.g. 127.0.0.1:50051")
    return host, int(port)


def serve_until_stopped(
    source: str,
    grpc_address: str | None,
    http_address: str | None,
    *,
    announce: Callable[[str], None],
) -> None:
    """Serve until SIGINT/SIGTERM; ``announce`` hears where, once everything listens."""
    http_at = _split(http_address, "--http") if http_address else None
    if grpc_address is not None:
        _split(grpc_address, "--grpc")
    catalog = load_served_catalog(source)
    stopped = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        stopped.set()

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    grpc_server = http_server = None
    try:
        counts = f"{len(catalog.packages)} packages, {len(catalog.bundles)} bundles"
        if grpc_address is not None:
            from deppy.cluster.registry_server import start_registry_server

            grpc_server, port = start_registry_server(catalog, grpc_address)
            host = grpc_address.rpartition(":")[0]
            announce(f"serving catalog {catalog.name} ({counts}) on grpc://{host}:{port}")
        if http_at is not None:
            from deppy.cluster.http_catalog import start_http_server

            http_server, port = start_http_server(catalog, http_at[0], http_at[1])
            url = f"http://{http_at[0]}:{port}/catalogs/{catalog.name}/api/v1/all"
            announce(f"serving catalog {catalog.name} ({counts}) on {url}")
        stopped.wait()
    finally:
        if grpc_server is not None:
            grpc_server.stop(2).wait()
        if http_server is not None:
            http_server.shutdown()
            http_server.server_close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
