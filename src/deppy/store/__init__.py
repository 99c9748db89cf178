"""The embedded catalog store (SQLite): catalogs added once, resolved against quickly.

See :class:`Store`. Layer rule: the store depends on ``olm`` (model, loader results) and nothing
above it; front doors use it through ``Store`` and ``deppy.cli.catalog_source.load_catalogs``.
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
