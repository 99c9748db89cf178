"""Catalog streams that arrive whole: an HTTP body and a gzip member (an HTTP ``Content-Encoding``
or a ConfigMap's ``catalog.json.gz``), both read with a cap.

A catalog server that never stops sending, or 1 MiB of gzip that inflates to 1 GiB of zeros (a
ConfigMap holds 1 MiB; gzip reaches ~1,000:1), would otherwise fill the controller's memory
before any parser sees a byte. What passes :data:`MAX_STREAM_BYTES` is refused as
:class:`UnsafeInput`, after reading at most one byte more than the cap.
"""

from __future__ import annotations

import io
import re
import zlib
from typing import BinaryIO, Final

from deppy.input_limits.limits import UnsafeInput

MAX_STREAM_BYTES: Final = 1 << 30
"""One catalog stream, as received and after gzip: 1 GiB. The largest real catalog (community
v4.18, all of it as one FBC stream) is ~74 MB, the 10x benchmark catalog ~700 MB."""

GZIP_MAGIC: Final = b"\x1f\x8b"
_CHUNK: Final = 1 << 20
MAX_GZIP_MEMBERS: Final = 100_000
"""Members of one gzip stream. A gzip tool writes one (bgzip one per 64 KiB: 16,000 for 1 GiB);
a stream of empty members costs ~4 µs each to open, so 1 GiB of them would take minutes."""

_FIRST_FEED: Final = 64  # bytes of a gzip member handed to the inflater first (then doubled)
_NOT_ZERO: Final = re.compile(rb"[^\x00]")


def too_big_message(limit: int) -> str:
    return f"more than {limit:,} bytes (deppy's limit for one catalog stream)"


def read_capped(stream: BinaryIO, limit: int | None = None) -> bytes:
    """All of ``stream``; UnsafeInput once it passes ``limit`` bytes. Read a chunk at a time
    into one growing buffer, so a body costs about its own size (``read(limit + 1)`` made
    http.client allocate the whole limit, or join its chunks into a second copy)."""
    limit = MAX_STREAM_BYTES if limit is None else limit
    body = io.BytesIO()
    while True:
        chunk = stream.read(min(_CHUNK, limit + 1 - body.tell()))
        if not chunk:
            return body.getvalue()
        body.write(chunk)
        if body.tell() > limit:
            raise UnsafeInput(too_big_message(limit))


def gunzip_capped(raw: bytes, limit: int | None = None) -> bytes:
    """The content of a gzip stream (one member or several, as ``gzip.decompress`` reads);
    UnsafeInput once it inflates past ``limit`` bytes, zlib.error or EOFError when it is not a
    whole gzip stream. The one reader of gzip in deppy (HTTP bodies, ConfigMap keys, archives).

    Linear in the stream's size whatever its members: each member is fed in pieces that start
    small and double (an empty member is 20 bytes, and handing the inflater the whole rest of
    the stream made it copy that rest back as ``unused_data`` once per member: 4 MB of empty
    members took 30 s). What comes out is written to one growing buffer, never held twice."""
    limit = MAX_STREAM_BYTES if limit is None else limit
    out = io.BytesIO()
    view = memoryview(raw)
    pos, end = 0, len(raw)
    members = 0
    while pos < end:
        members += 1
        if members > MAX_GZIP_MEMBERS:
            raise UnsafeInput(
                f"more than {MAX_GZIP_MEMBERS:,} gzip members (deppy's limit for one stream)"
            )
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        feed = _FIRST_FEED
        while not inflater.eof:
            piece = view[pos : pos + feed]
            if not piece:
                raise EOFError("the gzip stream ends before its end marker")
            pending: bytes | memoryview = piece
            while True:
                chunk = inflater.decompress(pending, _CHUNK)
                if out.tell() + len(chunk) > limit:
                    raise UnsafeInput(too_big_message(limit))
                out.write(chunk)
                pending = inflater.unconsumed_tail
                if inflater.eof or not (chunk or pending):
                    break
            pos += len(piece) - (len(inflater.unused_data) if inflater.eof else 0)
            feed = min(feed * 2, _CHUNK)
        padding = _NOT_ZERO.search(raw, pos)  # gzip.decompress also skips zero padding
        pos = padding.start() if padding is not None else end
    return out.getvalue()


__all__ = [
    "GZIP_MAGIC",
    "MAX_GZIP_MEMBERS",
    "MAX_STREAM_BYTES",
    "gunzip_capped",
    "read_capped",
    "too_big_message",
]
