"""Raw catalog values to bytes and back, exactly, including what JSON cannot say.

Catalog values come from JSON and YAML. YAML hands over a few things JSON has no word for —
timestamps (17 bundles of the community index carry ``datetime`` values), binary, sets, non-string
mapping keys — and file names may hold undecodable bytes. The store must give back what the
loader gave, so such values are written as tagged objects; everything else (nearly all of it) is
plain orjson, and only blobs that needed tags pay for the walk that removes them. Tuples are
written as lists (loaders never make tuples; the codec rebuilds its own), and a YAML ``.nan`` or
``.inf`` reads back as null, as in JSON (OLM itself cannot load such a value).
"""

from __future__ import annotations

import base64
import datetime
import math
from typing import Any

import orjson

_PLAIN = b"J"
_TAGGED = b"T"
PACKED = (_PLAIN, _TAGGED)
"""The first byte of what :func:`pack` writes (a zlib stream starts otherwise: 0x78)."""
# A key no catalog uses; a real mapping that has it is itself written tagged.
_TAG = "\x00deppy"
_I64 = (-(2**63), 2**64 - 1)


def pack(value: Any) -> bytes:
    """Bytes for ``value``; :func:`unpack` returns an equal value of the same types."""
    try:
        return _PLAIN + orjson.dumps(value, option=orjson.OPT_PASSTHROUGH_DATETIME)
    except TypeError:
        return _TAGGED + orjson.dumps(_tag(value))


def unpack(data: bytes) -> Any:
    body = memoryview(data)[1:]
    if data[:1] == _PLAIN:
        return orjson.loads(body)
    return _untag(orjson.loads(body))


def _tag(value: Any) -> Any:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raw = value.encode("utf-8", "surrogateescape")
            return {_TAG: "str", "v": base64.b64encode(raw).decode()}
        return value
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value if _I64[0] <= value <= _I64[1] else {_TAG: "int", "v": str(value)}
    if isinstance(value, float):
        return value if math.isfinite(value) else {_TAG: "float", "v": repr(value)}
    if isinstance(value, dict):
        if all(type(k) is str and _tag(k) is k for k in value) and _TAG not in value:
            return {k: _tag(v) for k, v in value.items()}
        return {_TAG: "map", "v": [[_tag(k), _tag(v)] for k, v in value.items()]}
    if isinstance(value, list | tuple):
        return [_tag(v) for v in value]
    if isinstance(value, datetime.datetime):
        return {_TAG: "datetime", "v": value.isoformat()}
    if isinstance(value, datetime.date):
        return {_TAG: "date", "v": value.isoformat()}
    if isinstance(value, bytes):
        return {_TAG: "bytes", "v": base64.b64encode(value).decode()}
    if isinstance(value, set | frozenset):
        kind = "set" if isinstance(value, set) else "frozenset"
        return {_TAG: kind, "v": [_tag(v) for v in sorted(value, key=repr)]}
    raise TypeError(f"cannot store a value of type {type(value).__name__}: {value!r}")


def _untag(value: Any) -> Any:
    if isinstance(value, list):
        return [_untag(v) for v in value]
    if not isinstance(value, dict):
        return value
    kind = value.get(_TAG)
    if kind is None:
        return {k: _untag(v) for k, v in value.items()}
    raw = value["v"]
    if kind == "map":
        return {_untag(k): _untag(v) for k, v in raw}
    if kind == "set":
        return {_untag(v) for v in raw}
    if kind == "frozenset":
        return frozenset(_untag(v) for v in raw)
    if kind == "datetime":
        return datetime.datetime.fromisoformat(raw)
    if kind == "date":
        return datetime.date.fromisoformat(raw)
    if kind == "bytes":
        return base64.b64decode(raw)
    if kind == "str":
        return base64.b64decode(raw).decode("utf-8", "surrogateescape")
    if kind == "int":
        return int(raw)
    if kind == "float":
        return float(raw)
    raise ValueError(f"unknown tag {kind!r} in a stored value")
