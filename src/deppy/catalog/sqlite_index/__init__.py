"""Older index images: operator-registry's SQLite index (``/database/index.db``) read as
``opm render`` reads it, and loaded as a catalog.

Catalog images built before File-Based Catalogs carry one SQLite file (the image label
``operators.operatorframework.io.index.database.v1`` names it) instead of a ``/configs``
directory. :func:`index_objects` gives its packages, channels, bundles and deprecations as the
FBC objects ``opm render`` prints for it (:mod:`.rendering` says where deppy differs);
:func:`load_sqlite_catalog` loads those objects through the File-Based Catalog loader
(:func:`deppy.catalog.fbc.load_catalog_documents`), so an index is checked, and its problems
reported, as any catalog is. The file is opened read-only and immutable and never migrated
(:mod:`.database`); a file that is no index, or is corrupt, truncated or too large, is one
:class:`~deppy.errors.InputError` naming ``where``.

Here: the entry points in ``loading``; a file told by its header in ``header``, opened and its
tables read in ``database``, channel edges in ``channels``, the objects in ``rendering``. Names
are loaded on first use (:mod:`deppy.lazy_exports`): telling an SQLite file from a catalog
directory costs no import of SQLite.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deppy.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from deppy.catalog.sqlite_index.header import SQLITE_HEADER, is_sqlite_file
    from deppy.catalog.sqlite_index.loading import index_objects, load_sqlite_catalog, read_index
    from deppy.catalog.sqlite_index.rendering import IndexRead

__all__ = [
    "SQLITE_HEADER",
    "IndexRead",
    "index_objects",
    "is_sqlite_file",
    "load_sqlite_catalog",
    "read_index",
]

# Loaded on first use (deppy.lazy_exports): a name -> the module of this package defining it
_LATER = {
    "SQLITE_HEADER": "header",
    "is_sqlite_file": "header",
    "IndexRead": "rendering",
    "index_objects": "loading",
    "load_sqlite_catalog": "loading",
    "read_index": "loading",
}

__getattr__ = lazy_exports(__name__, _LATER)
