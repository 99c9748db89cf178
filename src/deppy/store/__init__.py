"""The embedded catalog store (SQLite): catalogs added once, resolved against quickly.

See :class:`Store`. May import: ``catalog`` (the model it stores) and ``errors``; nothing above.
Front doors reach it through ``Store`` and ``deppy.workflows.catalog_loading.load_catalogs``.
"""

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
