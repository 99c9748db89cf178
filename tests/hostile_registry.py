"""A small registry that misbehaves, on 127.0.0.1, for the tests of deppy's registry client.

It is a working registry (the distribution API's push half, blobs and manifests in memory) that
misbehaves in one way, named by ``behaviour`` — the odd answers real registries and the proxies
in front of them give: a /v2/ body that is not UTF-8, an upload without a Location, a redirect
loop, a 401 without a challenge, a token endpoint answering HTML, a trickle, a body that never
ends, an error that echoes the Authorization header, a manifest digest that is not the one
pushed. ``tls`` serves it over HTTPS (a self-signed certificate from openssl), which deppy needs
before it sends credentials. Standard library only.
"""

from __future__ import annotations

import hashlib
import json
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

TOKEN = "tok-0123456789-the-registry-token"
TRICKLE_S = 0.4  # one byte this often: each read is quick, the whole answer is not
TRICKLE_FOR_S = 20.0  # then the server gives up (a test of old code ends)

BEHAVIOURS = (
    "well",  # a registry that works
    "bearer",  # one that works, with a token from its realm (anonymous, or for a login)
    "ping-not-utf8",  # /v2/ answers 200 with bytes that are not UTF-8
    "ping-500-not-utf8",  # /v2/ answers 500 with bytes that are not UTF-8
    "upload-no-location",  # POST /blobs/uploads/ answers 202 without Location
    "upload-bad-location",  # ... with a Location that is no URL
    "redirect-loop",  # /v2/ redirects to itself
    "redirect-ftp",  # /v2/ redirects to ftp://
    "401-no-challenge",  # /v2/ answers 401 without WWW-Authenticate
    "bearer-no-realm",  # a Bearer challenge with no realm
    "bearer-unparsable",  # a WWW-Authenticate that does not parse
    "token-html",  # the token endpoint answers HTML
    "token-list",  # ... a JSON list
    "token-no-token",  # ... JSON without a token
    "token-number",  # ... a number
    "trickle-headers",  # /v2/'s status line and headers, one byte at a time
    "trickle-body",  # /v2/'s headers at once, its body one byte at a time
    "endless-body",  # /v2/ answers a chunked body that never ends
    "echo-basic",  # Basic login; the manifest PUT's error echoes the Authorization header
    "echo-bearer",  # Bearer login; the manifest PUT's error echoes the token
    "wrong-digest",  # the manifest is stored under another Docker-Content-Digest
    # pulls (what was pushed is served back, misbehaving in one way)
    "pull-other-blob",  # a blob answered with other bytes of the same length
    "pull-endless-blob",  # a blob answered with a chunked body that never ends
    "pull-manifest-not-json",  # a manifest answered with bytes that are no JSON
    "pull-manifest-500",  # manifests answered 500
)


@dataclass(frozen=True)
class Hostile:
    """A running hostile registry: ``address`` is 127.0.0.1:PORT."""

    address: str
    behaviour: str
    tls: bool
    manifests: dict[str, bytes]
    scopes: list[str]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    behaviour = "well"
    blobs: dict[str, bytes]
    manifests: dict[str, bytes]
    by_digest: dict[str, str]
    base = ""
    uploads = 0
    scopes: list[str]

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # deppy hanging up on a misbehaviour is what the tests want, not news


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    # -- answers

    def answer(self, code: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def trickle(self, raw: bytes) -> None:
        end = time.monotonic() + TRICKLE_FOR_S
        for byte in raw:
            if time.monotonic() > end:
                return
            self.wfile.write(bytes([byte]))
            self.wfile.flush()
            time.sleep(TRICKLE_S)

    def endless(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunk = b"x" * 65536
        framed = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
        try:
            for _ in range(1 << 14):  # 1 GiB, far past deppy's cap
                self.wfile.write(framed)
        except OSError:
            pass  # deppy hung up, as it should

    def ping(self) -> None:
        odd = self.server.behaviour
        if odd == "ping-not-utf8":
            self.answer(200, b"\xff\xfe\x00\xc3(", {"Content-Type": "application/json"})
        elif odd == "ping-500-not-utf8":
            self.answer(500, b"\xff\xfe\x00\xc3(", {"Content-Type": "text/plain"})
        elif odd == "redirect-loop":
            self.answer(302, headers={"Location": "/v2/"})
        elif odd == "redirect-ftp":
            self.answer(302, headers={"Location": "ftp://127.0.0.1/v2/"})
        elif odd == "trickle-headers":
            self.trickle(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
            self.close_connection = True
        elif odd == "trickle-body":
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.trickle(b"{" + b" " * 98 + b"}")
        elif odd == "endless-body":
            self.endless()
        elif self.login_asked():
            return
        else:
            self.answer(200, b"{}", {"Content-Type": "application/json"})

    def login_asked(self) -> bool:
        """Answer 401 as the behaviour asks when the request has no (valid) login."""
        odd, given = self.server.behaviour, self.headers.get("Authorization")
        challenge = {
            "401-no-challenge": None,
            "bearer-no-realm": 'Bearer service="hostile"',
            "bearer-unparsable": 'Bearer realm="https://127.0.0.1/token, service=',
            "echo-basic": 'Basic realm="hostile"',
        }
        if odd.startswith(("token-", "echo-bearer")) or odd == "bearer":
            challenge[odd] = f'Bearer realm="{self.server.base}/token",service="hostile"'
        if (
            odd not in challenge
            or (given and odd.startswith("echo-"))
            or given == f"Bearer {TOKEN}"
        ):
            return False
        value = challenge[odd]
        self.answer(401, b"{}", {"WWW-Authenticate": value} if value else {})
        return True

    def token(self) -> None:
        from urllib.parse import parse_qs

        self.server.scopes += parse_qs(self.path.partition("?")[2]).get("scope", [])
        bodies = {
            "token-html": (b"<html><body>Sign in</body></html>", "text/html"),
            "token-list": (b'["token"]', "application/json"),
            "token-no-token": (b'{"expires_in": 300}', "application/json"),
            "token-number": (b"42", "application/json"),
        }
        body, kind = bodies.get(
            self.server.behaviour, (json.dumps({"token": TOKEN}).encode(), "application/json")
        )
        self.answer(200, body, {"Content-Type": kind})

    # -- the registry API

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/v2/":
            self.ping()
        elif path == "/token":
            self.token()
        elif not self.login_asked():
            self.pulled(path)

    def pulled(self, path: str) -> None:
        """What was pushed, served back as the behaviour says."""
        odd = self.server.behaviour
        if "/manifests/" in path:
            known = self.server.by_digest.get(path.rsplit("/", 1)[-1], "")
            if odd == "pull-manifest-not-json":  # by its own digest too, as a proxy serves it
                known = next(iter(self.server.manifests), "")
            body = self.server.manifests.get(path) or self.server.manifests.get(known)
            if body is None:
                self.answer(404)
            elif odd == "pull-manifest-500":
                self.answer(500, b"{}")
            else:
                data = b"\xff not json" if odd == "pull-manifest-not-json" else body
                kind = json.loads(body).get("mediaType", "application/json")
                digest = "sha256:" + hashlib.sha256(data).hexdigest()
                self.answer(200, data, {"Content-Type": kind, "Docker-Content-Digest": digest})
            return
        blob = self.server.blobs.get(path.rsplit("/", 1)[-1])
        if blob is None:
            self.answer(404)
        elif odd == "pull-endless-blob":
            self.endless()
        elif odd == "pull-other-blob":
            self.answer(200, bytes(len(blob)))
        else:
            self.answer(200, blob)

    def do_HEAD(self) -> None:
        if self.login_asked():
            return
        if "/manifests/" in self.path:
            self.pulled(self.path)
            return
        digest = self.path.rsplit("/", 1)[-1]
        self.answer(200 if digest in self.server.blobs else 404)

    def do_POST(self) -> None:
        if self.login_asked():
            return
        odd = self.server.behaviour
        self.server.uploads += 1
        location = {
            "upload-no-location": {},
            "upload-bad-location": {"Location": "http://[::1:bad/upload"},
        }.get(odd, {"Location": f"/upload/{self.server.uploads}"})
        self.answer(202, headers=location)

    def do_PUT(self) -> None:
        if self.login_asked():
            return
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        path, _, query = self.path.partition("?")
        if path.startswith("/upload/"):
            self.server.blobs[query.removeprefix("digest=")] = body
            self.answer(201)
            return
        odd, given = self.server.behaviour, self.headers.get("Authorization") or ""
        if odd.startswith("echo-"):
            message = f"denied: you sent Authorization: {given} ({given.split(' ')[-1]})"
            errors = {"errors": [{"code": "DENIED", "message": message}]}
            self.answer(400, json.dumps(errors).encode(), {"Content-Type": "application/json"})
            return
        digest = "sha256:" + hashlib.sha256(body).hexdigest()
        if odd == "wrong-digest":
            digest = "sha256:" + "0" * 64
        self.server.manifests[path] = body
        self.server.by_digest["sha256:" + hashlib.sha256(body).hexdigest()] = path
        self.answer(201, headers={"Docker-Content-Digest": digest})


@contextmanager
def hostile_registry(
    behaviour: str, *, tls: bool = False, certificate: tuple[Path, Path] | None = None
) -> Iterator[Hostile]:
    """A hostile registry for as long as the block runs (``tls``: over HTTPS with
    ``certificate``, a (cert, key) pair)."""
    assert behaviour in BEHAVIOURS, behaviour
    server = _Server(("127.0.0.1", 0), _Handler)
    server.behaviour, server.blobs, server.manifests = behaviour, {}, {}
    server.by_digest, server.scopes = {}, []
    if tls:
        assert certificate is not None
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*certificate)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    address = f"127.0.0.1:{server.server_address[1]}"
    server.base = f"{'https' if tls else 'http'}://{address}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Hostile(address, behaviour, tls, server.manifests, server.scopes)
    finally:
        server.shutdown()
        server.server_close()
