"""Catalogs over HTTP, as OLM v1's catalogd serves them: ``<status.urls.base>/api/v1/all`` is the
whole File-Based Catalog as one JSON stream.

Reading is a plain GET with the standard library (gzip accepted, as catalogd offers it); the
body is loaded by the FBC loader's in-memory entry point, so the same rules and problems apply as
for a directory. Serving (``deppy catalog serve --http``, the tests) answers GET and HEAD for any
path ending in ``/api/v1/all`` with the catalog rendered once at start (``fbc_render``).
"""

from __future__ import annotations

import gzip
import threading
import urllib.error
import urllib.request
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from deppy.catalog.fbc import load_catalog_documents
from deppy.catalog.model import Catalog
from deppy.cluster.fbc_render import catalog_stream
from deppy.errors import InputError
from deppy.input_limits.limits import UnsafeInput
from deppy.input_limits.streams import GZIP_MAGIC, gunzip_capped, read_capped

__all__ = ["ALL_PATH", "fetch_stream", "load_http_catalog", "start_http_server"]

ALL_PATH = "/api/v1/all"
TIMEOUT = 120.0


def fetch_stream(url: str, timeout: float = TIMEOUT) -> bytes:
    """The body of the FBC stream at ``url``, inflated when gzip (by its Content-Encoding or its
    first bytes), both read with the catalog stream cap. Raises urllib.error.HTTPError for an
    error answer, OSError when unreachable, UnsafeInput past the cap, zlib.error or EOFError
    for a broken gzip stream: each caller says these in its own terms (the CLI's exit 2, the
    controller's Catalog condition)."""
    request = urllib.request.Request(
        url, headers={"Accept-Encoding": "gzip", "User-Agent": "deppy"}
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        body = read_capped(response)
        encoding = response.headers.get("Content-Encoding", "").lower()
    return gunzip_capped(body) if encoding == "gzip" or body[:2] == GZIP_MAGIC else body


def load_http_catalog(url: str, *, name: str, priority: int = 0) -> Catalog:
    """The FBC stream at ``url`` (``http(s)://…/api/v1/all``) as a catalog."""
    try:
        body = fetch_stream(url)
    except urllib.error.HTTPError as error:
        raise InputError(
            url,
            f"the server answered {error.code} {error.reason}",
            "give the catalog's base URL followed by /api/v1/all (status.urls.base of its "
            "ClusterCatalog)",
        ) from None
    except UnsafeInput as error:
        raise InputError(
            url, f"the catalog stream is {error}", "split the catalog or serve a smaller one"
        ) from None
    except (OSError, EOFError, zlib.error) as error:
        reason = getattr(error, "reason", error)
        raise InputError(
            url,
            f"cannot be read: {reason}",
            "check that the catalog server is up and reachable from here",
        ) from None
    return load_catalog_documents({"": body}, name=name, priority=priority, where=url)


class _Handler(BaseHTTPRequestHandler):
    body: bytes = b""
    compressed: bytes = b""

    def _answer(self, send_body: bool) -> None:
        if not self.path.split("?", 1)[0].endswith(ALL_PATH):
            self.send_error(404, f"only {ALL_PATH} is served")
            return
        gzip_ok = "gzip" in self.headers.get("Accept-Encoding", "")
        payload = self.compressed if gzip_ok else self.body
        self.send_response(200)
        self.send_header("Content-Type", "application/jsonl")
        if gzip_ok:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if send_body:
            self.wfile.write(payload)

    def do_GET(self) -> None:
        self._answer(True)

    def do_HEAD(self) -> None:
        self._answer(False)

    def log_message(self, format: str, *args: Any) -> None:
        return  # quiet: the command prints its own lines


def start_http_server(
    catalog: Catalog, host: str = "127.0.0.1", port: int = 0
) -> tuple[ThreadingHTTPServer, int]:
    """Serve ``catalog`` as catalogd does, in a background thread; returns the server and its
    port. Stop it with ``server.shutdown(); server.server_close()``."""
    body = catalog_stream(catalog)
    handler = type(
        "CatalogHandler", (_Handler,), {"body": body, "compressed": gzip.compress(body, 6, mtime=0)}
    )
    try:
        server = ThreadingHTTPServer((host, port), handler)
    except OSError as error:
        raise InputError(
            f"address {host}:{port}", f"cannot listen there: {error.strerror}"
        ) from None
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="deppy-http-catalog", daemon=True).start()
    return server, server.server_address[1]
