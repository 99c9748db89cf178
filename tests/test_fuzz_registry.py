"""The fuzz suite's registry doors (issue 39): what a registry answers a push, the credentials
files, the destinations, and the service's OLM v1 request bodies. Same rules as
tests/test_fuzz.py, whose helpers and counter this module shares: deppy's own errors (one
printable line) or an answer, in bounded time and memory, and here also: no credential deppy
sent in any message. The long profile runs ``DOOR_FACTOR`` times its examples per door.

The registry is a raw socket server on 127.0.0.1 answering each request, in order, with the
bytes of a mutated answer (a status line, headers, a body: a 401's challenge, a 202's
Location, a token, a manifest's digest), then closing the connection.
"""

from __future__ import annotations

import base64
import os
import socket
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deppy.errors import DeppyError
from deppy.oci import auth_from_files, catalog_image, parse_destination, publish
from tests.test_fuzz import (
    HOSTILE,
    _problem,
    checked,
    count,  # noqa: F401  (the module's counter and memory cap: an autouse fixture)
    mutated,
    service,  # noqa: F401  (the fixture)
)
from tests.test_fuzz_fleet_olmv1 import OLMV1_SEEDS

DOOR_FACTOR = 2  # 2 x 3,000 examples per door in the long profile: 24,000 over the four
MORE = settings(max_examples=settings().max_examples * DOOR_FACTOR)
IMAGE = catalog_image({"pkg/catalog.json": b'{"schema":"olm.package","name":"pkg"}\n'})
USER, PASSWORD = "fuzz-user", "fuzz-Pa55-word"
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
TIMEOUT = 0.5


ECHOED = b'{"errors": [{"code": "DENIED", "message": "you sent Basic ' + BASIC.encode() + b'"}]}'


def _answer(status: str, headers: str = "", body: bytes = b"") -> bytes:
    head = f"HTTP/1.1 {status}\r\n{headers}Content-Length: {len(body)}\r\n\r\n"
    return head.encode() + body


ANSWERS = [
    _answer("200 OK", "Content-Type: application/json\r\n", b"{}"),
    _answer("401 Unauthorized", 'WWW-Authenticate: Basic realm="r"\r\n'),
    _answer("401 Unauthorized", 'WWW-Authenticate: Bearer realm="http://127.0.0.1:1/t",service="s"\r\n'),
    _answer("200 OK", "Content-Type: application/json\r\n", b'{"token": "t0k3n-abcdef"}'),
    _answer("404 Not Found"),
    _answer("202 Accepted", "Location: /v2/r/blobs/uploads/1?state=x\r\n"),
    _answer("307 Temporary Redirect", "Location: /v2/\r\n"),
    _answer("201 Created", f"Docker-Content-Digest: {IMAGE.digest}\r\n"),
    _answer("400 Bad Request", "Content-Type: application/json\r\n", ECHOED),
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
]  # fmt: skip


class _Registry:
    """Answers the n-th plain-HTTP request with ``answers[n]`` (the last one again after),
    then closes; a TLS hello is hung up on (deppy falls back to plain HTTP)."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        self.answers: list[bytes] = []
        self.served = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            with connection:
                connection.settimeout(2)
                try:
                    head = connection.recv(65536)
                    if not head or head[:1] == b"\x16" or not self.answers:
                        continue
                    answer = self.answers[min(self.served, len(self.answers) - 1)]
                    self.served += 1
                    connection.sendall(answer)
                    connection.shutdown(socket.SHUT_WR)
                except OSError:
                    continue

    def close(self) -> None:
        self.listener.close()


@pytest.fixture(scope="module")
def registry() -> Iterator[_Registry]:
    served = _Registry()
    yield served
    served.close()


@pytest.fixture(scope="module")
def login(tmp_path_factory: pytest.TempPathFactory, registry: _Registry) -> Any:
    path = tmp_path_factory.mktemp("auth") / "auth.json"
    path.write_text(f'{{"auths": {{"{registry.address}": {{"auth": "{BASIC}"}}}}}}')
    return auth_from_files((str(path),))


@MORE
@given(st.lists(mutated(ANSWERS), min_size=1, max_size=8))
def test_registry_answers(registry: _Registry, login: Any, answers: list[bytes]) -> None:
    """A push to a registry answering each request with mutated bytes: pushed, or one line
    naming the registry, with no credential in it."""
    registry.answers, registry.served = answers, 0
    destination = parse_destination(f"docker://{registry.address}/r:t")

    def run() -> None:
        try:
            publish(IMAGE, destination, tls_verify=False, auth=login, timeout=TIMEOUT)
        except DeppyError as error:
            message = str(error)
            assert registry.address in message, message
            for secret in (PASSWORD, BASIC, f"{USER}:{PASSWORD}"):
                assert secret not in message, message
            raise

    checked("registry answers", run)


AUTH_SEEDS = [
    f'{{"auths": {{"reg.example": {{"auth": "{BASIC}"}}}}}}'.encode(),
    b'{"auths": {"https://index.docker.io/v1/": {"username": "u", "password": "p"}}}',
    b'{"auths": {"quay.io/team": {"identitytoken": "x"}}, "credsStore": "desktop"}',
]


@MORE
@given(mutated(AUTH_SEEDS + HOSTILE), st.sampled_from(["file", "fifo", "device", "loop"]))
def test_credentials_files(data: bytes, oddity: str) -> None:
    """``$REGISTRY_AUTH_FILE`` as written, or a FIFO, a link to /dev/zero or a link loop."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "auth.json"
        if oddity == "file":
            path.write_bytes(data)
        elif oddity == "fifo":
            os.mkfifo(path)
        elif oddity == "device":
            path.symlink_to("/dev/zero")
        else:
            path.symlink_to(path)

        def run() -> None:
            found = auth_from_files((str(path),))
            if found is not None:
                assert found.for_registry("reg.example", "r") is None or oddity == "file"

        checked("credentials file", run)


DESTINATION_SEEDS = [
    b"docker://127.0.0.1:5000/deppy/resolved:t1",
    b"docker://[::1]:5000/a/b",
    b"docker://user:pass@quay.io/team/catalog",
    b"docker://user:pass@pass@quay.io/team/catalog",
    b"docker://user:\tpass word@quay.io/team/catalog",
    b"docker://busybox",
    b"oci:/tmp/layout:t1",
    b"oci:.",
]


@MORE
@given(mutated(DESTINATION_SEEDS + HOSTILE))
def test_destinations(raw: bytes) -> None:
    """``--resolved-catalog DEST``: a destination or one line, never the password echoed."""
    text = raw.decode("utf-8", "replace")

    # the credentials of a URL: its authority (after "://", up to a "/") before its last "@"
    authority = text.partition("://")[2].partition("/")[0]
    secret = authority.rpartition("@")[0]

    def run() -> None:
        try:
            parse_destination(text)
        except DeppyError as error:
            if len(secret) >= 3:
                assert secret not in str(error) and repr(secret)[1:-1] not in str(error)
            raise

    checked("destination", run)


@MORE
@given(mutated(OLMV1_SEEDS + HOSTILE), st.sampled_from(["application/yaml", "application/json"]))
def test_service_cluster_extension_bodies(service: Any, body: bytes, content_type: str) -> None:  # noqa: F811
    """``POST /api/v1/resolve/clusterextensions`` (the plan as ClusterExtensions, what a
    resolved catalog serves) with mutated ClusterExtension bodies: an answer or a 4xx problem
    of one line."""
    headers = {"Content-Type": content_type}
    route = "/api/v1/resolve/clusterextensions"
    checked("service body", lambda: _problem(service.post(route, content=body, headers=headers)))
