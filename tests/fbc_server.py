"""A local HTTP server that serves a catalog directory as one FBC JSON stream, the way catalogd
serves ``…/api/v1/all`` (127.0.0.1 only; tests and benchmarks start and stop it)."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson

from deppy.catalog.fbc.files import catalog_files, read_docs


def fbc_stream(root: Path) -> bytes:
    """Every object of the catalog tree, one compact JSON object per line."""
    lines: list[bytes] = []
    for rel in catalog_files(root, []):
        path = root / rel
        for doc in read_docs(path.read_bytes(), path.suffix, []):
            lines.append(orjson.dumps(doc.obj))
    return b"\n".join(lines) + b"\n"


def without_heads(stream: bytes, packages: set[str]) -> bytes:
    """``stream`` with the head of each package's default channel withdrawn (from that channel;
    its bundle too when no other channel lists it): the next answer picks the version before."""
    docs = [orjson.loads(line) for line in stream.splitlines() if line.strip()]
    defaults = {d["name"]: d["defaultChannel"] for d in docs if d.get("schema") == "olm.package"}
    heads: dict[str, str] = {}
    for doc in docs:
        package = doc.get("package")
        if doc.get("schema") != "olm.channel" or package not in packages:
            continue
        if doc["name"] != defaults.get(package):
            continue
        replaced = {e.get("replaces") for e in doc["entries"]}
        replaced |= {s for e in doc["entries"] for s in e.get("skips") or ()}
        head = [e["name"] for e in doc["entries"] if e["name"] not in replaced]
        heads[package] = sorted(head)[-1]
        doc["entries"] = [e for e in doc["entries"] if e["name"] != heads[package]]
    listed = {
        e["name"]
        for d in docs
        if d.get("schema") == "olm.channel"
        for e in d["entries"]
        if d.get("package") in packages
    }
    kept = [
        d
        for d in docs
        if not (d.get("schema") == "olm.bundle" and d["name"] in set(heads.values()) - listed)
    ]
    return b"\n".join(orjson.dumps(d) for d in kept) + b"\n"


def only_packages(stream: bytes, packages: set[str]) -> bytes:
    """``stream`` with only the objects of ``packages``: a small catalog cut from a big one."""
    docs = [orjson.loads(line) for line in stream.splitlines() if line.strip()]
    kept = [
        d
        for d in docs
        if d.get("package") in packages
        or (d.get("schema") == "olm.package" and d.get("name") in packages)
    ]
    return b"\n".join(orjson.dumps(d) for d in kept) + b"\n"


class _Handler(http.server.BaseHTTPRequestHandler):
    body = b""

    def do_GET(self) -> None:
        if not self.server.up:  # type: ignore[attr-defined]
            self.send_error(503, "catalog server is down (test)")
            return
        body = self.server.body  # type: ignore[attr-defined]
        hook = self.server.on_get  # type: ignore[attr-defined]
        if hook is not None:
            hook()  # a test changes the world while the body is being served
        self.send_response(200)
        self.send_header("Content-Type", "application/jsonl")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class CatalogServer:
    """``url`` serves ``body``; set ``up = False`` to make it answer 503."""

    def __init__(self, body: bytes) -> None:
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.server.body = body  # type: ignore[attr-defined]
        self.server.up = True  # type: ignore[attr-defined]
        self.server.on_get = None  # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}/api/v1/all"

    def set_up(self, up: bool) -> None:
        self.server.up = up  # type: ignore[attr-defined]

    def set_body(self, body: bytes) -> None:
        self.server.body = body  # type: ignore[attr-defined]

    def on_get(self, hook: Callable[[], None] | None) -> None:
        """Call ``hook`` at each GET, before the body is sent (None: no hook)."""
        self.server.on_get = hook  # type: ignore[attr-defined]


@contextmanager
def serve_catalog(body: bytes) -> Iterator[CatalogServer]:
    server = CatalogServer(body)
    server.thread.start()
    try:
        yield server
    finally:
        server.server.shutdown()
        server.server.server_close()
