"""How a stored catalog read from an image is read again: its TLS setting and platform, kept
beside the store (``image-sources.json``) so ``catalog refresh NAME`` reads the image as
``catalog add`` did, without the options given again.

A small JSON file rather than store columns: the store's schema stays what every reader of it
knows, and a catalog with no entry here is read with the defaults.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any, Final

import orjson

from deppy.store.location import store_home

FILE_NAME: Final = "image-sources.json"
MAX_BYTES: Final = 1 << 20


def _path(home: Path | None) -> Path:
    return (home if home is not None else store_home()) / FILE_NAME


def _all(home: Path | None) -> dict[str, Any]:
    try:
        with open(_path(home), "rb") as file:
            found = orjson.loads(file.read(MAX_BYTES))
    except (OSError, orjson.JSONDecodeError):
        return {}
    return found if isinstance(found, dict) else {}


def image_settings(name: str, home: Path | None = None) -> dict[str, Any]:
    """``tls_verify`` and ``platform`` as stored for catalog ``name`` ({} when none)."""
    found = _all(home).get(name)
    return found if isinstance(found, dict) else {}


def remember_image_settings(
    name: str, settings: dict[str, Any] | None, home: Path | None = None
) -> None:
    """Keep (None: forget) how catalog ``name``'s image is read."""
    entries = _all(home)
    if settings is None:
        if entries.pop(name, None) is None:
            return
    else:
        entries[name] = settings
    path = _path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{FILE_NAME}.{secrets.token_hex(4)}")
    partial.write_bytes(orjson.dumps(entries, option=orjson.OPT_SORT_KEYS))
    os.replace(partial, path)


__all__ = ["image_settings", "remember_image_settings"]
