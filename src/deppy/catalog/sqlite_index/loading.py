"""The entry points: an SQLite index read as FBC objects, and loaded as a catalog (see
:mod:`deppy.catalog.sqlite_index`)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deppy.catalog.sqlite_index.database import opened, read_schema
from deppy.catalog.sqlite_index.rendering import IndexRead, IndexReader

if TYPE_CHECKING:
    from deppy.catalog.model import Catalog

__all__ = ["index_objects", "load_sqlite_catalog", "read_index"]


def read_index(path: str | os.PathLike[str], *, where: str) -> IndexRead:
    """The index's FBC objects and what was left out of them (each a (object, why))."""
    with opened(Path(path), where) as connection:
        return IndexReader(connection, read_schema(connection, where)).read()


def index_objects(path: str | os.PathLike[str], *, where: str) -> list[dict[str, Any]]:
    """The FBC objects (``olm.package``, ``olm.channel``, ``olm.bundle``, ``olm.deprecations``)
    of the SQLite index at ``path``, in ``opm render``'s order: packages by name, each
    followed by its channels and bundles by name, then its deprecations."""
    return read_index(path, where=where).objects


def load_sqlite_catalog(
    path: str | os.PathLike[str], *, name: str, priority: int = 0, where: str
) -> Catalog:
    """The SQLite index at ``path`` as a catalog named ``name``; ``where`` names it in errors
    and problems (a path, or an image reference and the file in it)."""
    import orjson

    from deppy.catalog.fbc import load_catalog_documents
    from deppy.catalog.model import LoadProblem

    read = read_index(path, where=where)
    # One document per package (problems name it), each object let go once written: the
    # objects and their JSON are never both whole in memory.
    files: dict[str, bytes] = {}
    objects = read.objects
    objects.reverse()
    chunks: list[bytes] = []
    package = ""
    while objects:  # a package's objects follow it (index_objects' order)
        obj = objects.pop()
        if obj["schema"] == "olm.package":
            package = obj["name"]
        chunks.append(orjson.dumps(obj) + b"\n")
        if not objects or objects[-1]["schema"] == "olm.package":
            files[package] = b"".join(chunks)
            chunks.clear()
    catalog = load_catalog_documents(files, name=name, priority=priority, where=where)
    if not read.problems:
        return catalog
    problems = tuple(LoadProblem(where, obj, why) for obj, why in read.problems)
    return dataclasses.replace(catalog, problems=problems + catalog.problems)
