"""One HTTP exchange with a registry, bounded in time and in size, on the standard library's
http.client.

A registry (or a proxy in front of one) may answer slowly, forever or oddly. So each exchange
has one deadline for all of it — looking the name up, connecting, the TLS handshake, sending,
the status line, the headers and the body, and the redirects it takes — not a timeout per read:
before every read and every write the socket's timeout is set to the time left, so a registry
trickling a byte every 2 s is cut off at the deadline. The body read is capped (``max_body``: a
few MiB for the JSON and error answers deppy reads), so an answer that never ends is an error,
not a MemoryError. Redirects are followed as Go's net/http follows them for skopeo and podman:
at most 10, http and https only, the Authorization header dropped when the host changes.

Every failure is an :class:`ExchangeError` saying what the registry did, for the caller to
name the registry and the destination.
"""

from __future__ import annotations

import http.client
import io
import re
import socket
import ssl
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.message import Message
from typing import Final
from urllib.parse import quote, urljoin, urlsplit

from deppy.oci.options import DEFAULT_TIMEOUT_S

MAX_ANSWER_BYTES: Final = 4 << 20
"""The longest answer body read (a /v2/ ping, an error, a token): 4 MiB, far past any real one."""
MAX_REDIRECTS: Final = 10  # Go's net/http, which skopeo and podman use
_CHUNK: Final = 64 << 10
REDIRECTS: Final = frozenset({301, 302, 303, 307, 308})


class ExchangeError(Exception):
    """What went wrong with an exchange: ``kind`` is ``tls`` (the handshake failed: ``what`` is
    the reason), ``unreachable`` (no connection: ``what`` is the reason), ``late`` (past the
    deadline) or ``odd`` (too much, a bad redirect, not HTTP); for these two ``what`` follows
    "registry HOST"."""

    def __init__(self, what: str, kind: str = "odd") -> None:
        super().__init__(what)
        self.what = what
        self.kind = kind


class _Late(Exception):
    """The deadline passed (``what``: in a step that says so itself, as the name lookup)."""

    def __init__(self, what: str | None = None) -> None:
        super().__init__(what)
        self.what = what


@dataclass(frozen=True, slots=True)
class Deadline:
    """The monotonic time an exchange must be over by."""

    seconds: float
    end: float = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "end", time.monotonic() + self.seconds)

    def left(self) -> float:
        """Seconds left; _Late once there are none."""
        left = self.end - time.monotonic()
        if left <= 0:
            raise _Late
        return left


class _Reader(io.RawIOBase):
    """A socket read with the deadline: each read waits at most for the time left."""

    def __init__(self, sock: socket.socket, deadline: Deadline) -> None:
        self._sock = sock
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        self._sock.settimeout(self._deadline.left())
        try:
            return self._sock.recv_into(buffer)
        except TimeoutError:
            raise _Late from None


class _BoundedSocket:
    """The part of a socket http.client uses, every read and write within the deadline."""

    def __init__(self, sock: socket.socket, deadline: Deadline) -> None:
        self._sock = sock
        self._deadline = deadline

    def sendall(self, data: bytes | bytearray | memoryview) -> None:
        view = memoryview(data)
        try:
            for start in range(0, len(view), _CHUNK):
                self._sock.settimeout(self._deadline.left())
                self._sock.sendall(view[start : start + _CHUNK])
        except TimeoutError:
            raise _Late from None

    def makefile(self, mode: str, *args: object, **kwargs: object) -> io.BufferedReader:
        return io.BufferedReader(_Reader(self._sock, self._deadline))

    def close(self) -> None:
        self._sock.close()


class _Connection(http.client.HTTPConnection):
    """http.client's connection over a socket bound by ``deadline`` (TLS when ``context``)."""

    def __init__(
        self, host: str, port: int | None, deadline: Deadline, context: ssl.SSLContext | None
    ) -> None:
        default = http.client.HTTPS_PORT if context else http.client.HTTP_PORT
        super().__init__(host, port or default)
        self._deadline = deadline
        self._context = context

    def connect(self) -> None:
        try:
            sock = _connected(_addresses(self.host, self.port, self._deadline), self._deadline)
            if self._context is not None:
                sock.settimeout(self._deadline.left())  # the handshake, as a whole (CPython)
                sock = self._context.wrap_socket(sock, server_hostname=self.host)
        except TimeoutError:
            raise _Late from None
        self.sock = _BoundedSocket(sock, self._deadline)


Address = tuple[int, int, int, str, tuple[str, int] | tuple[str, int, int, int] | tuple[int, bytes]]


def _addresses(host: str, port: int, deadline: Deadline) -> list[Address]:
    """The host's addresses, looked up within the deadline. ``getaddrinfo`` takes no timeout
    and cannot be interrupted (a DNS server that never answers holds it for the system
    resolver's retries, 5 s × 2 × servers by default), so it runs in a daemon thread that the
    exchange stops waiting for at the deadline; the thread ends when the lookup gives up."""
    found: list[Address] = []
    failed: list[OSError] = []

    def look_up() -> None:
        try:
            found.extend(socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM))
        except OSError as error:
            failed.append(error)

    thread = threading.Thread(target=look_up, name="deppy-registry-lookup", daemon=True)
    thread.start()
    thread.join(deadline.left())
    if thread.is_alive():
        raise _Late(
            f"had no address within {deadline.seconds:g} s: the lookup of its name (DNS) "
            "did not answer"
        )
    if failed:
        raise failed[0]
    return found


def _connected(addresses: list[Address], deadline: Deadline) -> socket.socket:
    """A socket connected to the first of ``addresses`` that takes the connection, as
    ``socket.create_connection`` tries them, each attempt within the time left."""
    last: OSError = OSError("no address")
    for family, kind, protocol, _, address in addresses:
        left = deadline.left()
        sock = socket.socket(family, kind, protocol)
        sock.settimeout(left)
        try:
            sock.connect(address)
            return sock
        except OSError as error:
            sock.close()
            if isinstance(error, TimeoutError):  # the deadline: the caller says it
                raise
            last = error
    raise last


@dataclass(frozen=True, slots=True)
class Answer:
    """A registry's answer: ``url`` is where it came from after redirects."""

    status: int
    reason: str
    headers: Message
    body: bytes
    url: str

    def header(self, name: str) -> str | None:
        return self.headers.get(name)


_CONTEXTS: dict[bool, ssl.SSLContext] = {}


def tls_context(verify: bool) -> ssl.SSLContext:
    """The process's TLS context (verifying or not): made once, as loading the system's CA
    certificates costs ~20 ms, and a pull makes a dozen exchanges."""
    found = _CONTEXTS.get(verify)
    if found is None:
        found = _CONTEXTS[verify] = _new_context(verify)
    return found


def _new_context(verify: bool) -> ssl.SSLContext:
    context = ssl.create_default_context()
    if not verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def _read_body(response: http.client.HTTPResponse, limit: int) -> bytes:
    """The answer's body, read as every stream deppy reads is: capped, a chunk at a time."""
    from deppy.input_limits import UnsafeInput
    from deppy.input_limits.streams import read_capped

    try:
        return read_capped(response, limit)
    except UnsafeInput:
        raise ExchangeError(f"sent an answer longer than {limit:,} bytes") from None


def _once(
    method: str,
    url: str,
    headers: Mapping[str, str],
    body: bytes,
    deadline: Deadline,
    context: ssl.SSLContext,
    limit: int,
) -> Answer:
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    tls = context if parts.scheme == "https" else None
    connection = _Connection(parts.hostname or "", parts.port, deadline, tls)
    try:
        connection.request(method, path, body=body or None, headers=dict(headers))
        response = connection.getresponse()
        data = b"" if method == "HEAD" else _read_body(response, limit)
        return Answer(response.status, response.reason or "", response.msg, data, url)
    finally:
        connection.close()


def sendable_url(url: str) -> str:
    """``url`` as a request line can carry it: spaces, control characters and non-ASCII
    percent-encoded (as Go's URL parser does for skopeo), what is encoded already kept."""
    return quote(url, safe=":/?#[]@!$&'()*+,;=%~")


def _next_url(answer: Answer) -> str:
    location = answer.header("Location")
    if not location:
        raise ExchangeError(f"answered {answer.status} (a redirect) without a Location header")
    try:
        target = sendable_url(urljoin(answer.url, location.strip()))
        web = is_web_url(target)
    except ValueError:
        raise ExchangeError(f'redirected to an unusable Location "{location}"') from None
    if not web:
        raise ExchangeError(f'redirected to "{location}", which is not an http(s) URL')
    return target


def is_web_url(url: str) -> bool:
    """Whether ``url`` is an http(s) URL with a host (where a redirect or a Bearer realm may
    send deppy); ValueError when it does not parse, its port included."""
    parts = urlsplit(url)
    parts.port  # noqa: B018 - raises ValueError for a port that is no number
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def exchange(
    method: str,
    url: str,
    *,
    headers: Mapping[str, str],
    timeout: float,
    tls_verify: bool,
    body: bytes = b"",
    max_body: int = MAX_ANSWER_BYTES,
) -> Answer:
    """``method url`` and its answer, redirects followed, all of it within ``timeout`` seconds;
    an :class:`ExchangeError` saying what went wrong otherwise."""
    deadline = Deadline(timeout)
    context = tls_context(tls_verify)
    sent = dict(headers)
    try:
        for _ in range(MAX_REDIRECTS + 1):
            answer = _once(method, url, sent, body, deadline, context, max_body)
            if answer.status not in REDIRECTS:
                return answer
            target = _next_url(answer)
            if urlsplit(target).netloc != urlsplit(url).netloc:
                sent.pop("Authorization", None)  # credentials stay with the host they are for
            if answer.status == 303 or (answer.status in (301, 302) and method == "POST"):
                method, body = "GET", b""
            url = target
        raise ExchangeError(f"redirected more than {MAX_REDIRECTS} times (a redirect loop)")
    except _Late as late:
        what = f"did not finish answering {method} {urlsplit(url).path} within {timeout:g} s"
        raise ExchangeError(late.what or what, "late") from None
    except ssl.SSLError as error:
        found = re.search(r"\] ([^(]+)", str(error))  # "[SSL: X] what (_ssl.c:1)"
        reason = found.group(1).strip() if found else (error.reason or "the handshake failed")
        raise ExchangeError(reason, "tls") from None
    except http.client.HTTPException as error:
        kind = type(error).__name__
        raise ExchangeError(f"sent an answer that is not HTTP or broke off ({kind})") from None
    except UnicodeError:
        raise ExchangeError("sent a URL or header deppy cannot send on (not ASCII)") from None
    except OSError as error:
        reason = error.strerror or str(error) or type(error).__name__
        raise ExchangeError(reason, "unreachable") from None


__all__ = [
    "DEFAULT_TIMEOUT_S",
    "MAX_ANSWER_BYTES",
    "Answer",
    "ExchangeError",
    "exchange",
    "sendable_url",
]
