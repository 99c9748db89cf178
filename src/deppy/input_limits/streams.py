"""Catalog streams that arrive whole: an HTTP body and a gzip member (an HTTP ``Content-Encoding``
or a ConfigMap's ``catalog.json.gz``), both read with a cap.

A catalog server that never stops sending, or 1 MiB of gzip that inflates to 1 GiB of zeros (a
ConfigMap holds 1 MiB; gzip reaches ~1,000:1), would otherwise fill the controller's memory
before any parser sees a byte. What passes :data:`MAX_STREAM_BYTES` is refused as
:class:`UnsafeInput`, after reading at most one byte more than the cap.
"""

from __future__ import annotations

import zlib
from typing import BinaryIO, Final

from deppy.input_limits.limits import UnsafeInput

MAX_STREAM_BYTES: Final = 1 << 30
"""One catalog stream, as received and after gzip: 1 GiB. The largest real catalog (community
v4.18, all of it as one FBC stream) is ~74 MB, the 10x benchmark catalog ~700 MB."""

GZIP_MAGIC: Final = b"\x1f\x8b"
_CHUNK: Final = 1 << 20


def too_big_message(limit: int) -> str:
    return f"more than {limit:,} bytes (deppy's limit for one catalog stream)"


def read_capped(stream: BinaryIO, limit: int | None = None) -> bytes:
    """All of ``stream``; UnsafeInput once it passes ``limit`` bytes."""
    limit = MAX_STREAM_BYTES if limit is None else limit
    body = stream.read(limit + 1)
    if len(body) > limit:
        raise UnsafeInput(too_big_message(limit))
    return body


def gunzip_capped(raw: bytes, limit: int | None = None) -> bytes:
    """The content of a gzip stream (one member or several, as ``gzip.decompress`` reads);
    UnsafeInput once it inflates past ``limit`` bytes, zlib.error or EOFError when it is not a
    whole gzip stream."""
    limit = MAX_STREAM_BYTES if limit is None else limit
    parts: list[bytes] = []
    size = 0
    rest = raw
    while rest:
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        pending = rest
        while True:
            chunk = inflater.decompress(pending, _CHUNK)
            size += len(chunk)
            if size > limit:
                raise UnsafeInput(too_big_message(limit))
            parts.append(chunk)
            pending = inflater.unconsumed_tail
            if inflater.eof or not (chunk or pending):
                break
        if not inflater.eof:
            raise EOFError("the gzip stream ends before its end marker")
        rest = inflater.unused_data.lstrip(b"\x00")  # gzip.decompress also skips zero padding
    return b"".join(parts)


__all__ = ["GZIP_MAGIC", "MAX_STREAM_BYTES", "gunzip_capped", "read_capped", "too_big_message"]
