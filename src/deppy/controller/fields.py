"""Reading a custom resource's fields without trusting their types.

The API server checks deppy's objects against the CRDs' schemas, but not on every cluster: a
schema can be relaxed, an object can predate a CRD change, a client can write through a
looser version. So every field is read through these helpers, which answer the value or raise
an ``InputError`` naming the field and what was found (``Input ns/a: spec.constraints:
expected a list, found a string``): the controller writes that as an ``InvalidSpec`` condition
instead of retrying an AttributeError forever.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from deppy.errors import InputError, json_type


def mapping(value: Any, where: str) -> Mapping[str, Any]:
    """A mapping; absent (None) reads as empty."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(where, f"expected a mapping, found {json_type(value)}")
    return value


def items(value: Any, where: str) -> list[Any]:
    """A list; absent (None) reads as empty."""
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        raise InputError(where, f"expected a list, found {json_type(value)}")
    return list(value)


def text(value: Any, where: str, default: str = "") -> str:
    """Text; absent (None or empty) reads as ``default``."""
    if value is None or value == "":
        return default
    if not isinstance(value, str):
        raise InputError(where, f"expected a string, found {json_type(value)}")
    return value


def flag(value: Any, where: str) -> bool:
    """A boolean; absent reads as false (``"false"``, a string, is refused, not taken as true)."""
    if value is None:
        return False
    if not isinstance(value, bool):
        raise InputError(where, f"expected true or false, found {json_type(value)}")
    return value


def seconds(value: Any, where: str, default: float) -> float:
    """A finite, positive number of seconds; absent reads as ``default``."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(where, f"expected a number of seconds, found {json_type(value)}")
    if not math.isfinite(value) or value <= 0:
        raise InputError(where, "expected a finite, positive number of seconds")
    return float(value)


def name_in(body: Mapping[str, Any]) -> tuple[str, str]:
    """``(namespace, name)`` of an object, ``?`` for a missing name; never raises (it is what
    messages use to say where)."""
    meta = body.get("metadata") if isinstance(body, Mapping) else None
    if not isinstance(meta, Mapping):
        return "", "?"
    namespace, name = meta.get("namespace"), meta.get("name")
    return (
        namespace if isinstance(namespace, str) else "",
        name if isinstance(name, str) and name else "?",
    )
