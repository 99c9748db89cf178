"""The embedded catalog store (SQLite): catalogs added once, resolved against quickly.

See :class:`Store`. May import: ``catalog`` (the model it stores) and ``errors``; nothing above.
Front doors reach it through ``Store`` and ``deppy.workflows.catalog_loading.load_catalogs``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deppy.store.location import HOME_VARIABLE, database_path, store_home
    from deppy.store.schema import StoreError
    from deppy.store.source import StoreSource
    from deppy.store.store import Store
    from deppy.store.summary import StoredCatalog

__all__ = [
    "HOME_VARIABLE",
    "Store",
    "StoreError",
    "StoreSource",
    "StoredCatalog",
    "database_path",
    "store_home",
]

_MODULES = {
    "HOME_VARIABLE": "location",
    "database_path": "location",
    "store_home": "location",
    "StoreError": "schema",
    "StoreSource": "source",
    "Store": "store",
    "StoredCatalog": "summary",
}


def __getattr__(name: str) -> Any:
    """Names load on first use (PEP 562): ``resolve --catalog DIR`` reads where the
    parsed-catalog cache lives (``location``) without paying for SQLite and the store."""
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'deppy.store' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"deppy.store.{module}"), name)
    globals()[name] = value
    return value
