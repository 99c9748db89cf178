"""``deppy catalog render``: any catalog source deppy reads, written as File-Based Catalog
objects the way ``opm render`` prints them.

A source is what ``--catalog`` takes: a catalog directory or file, an operator-registry SQLite
index (``index.db``), a catalog image (``docker://…``, ``oci:DIR``: pulled into the cache, then
read as the directory or index it holds), a stored catalog's name (``NAME``, ``NAME@N``), or a
URL (``grpc://HOST:PORT``, ``http(s)://…/api/v1/all``). An SQLite index, in a file or an image,
is printed as ``opm render`` reads it (:func:`deppy.catalog.sqlite_index.index_objects`),
everything else as deppy loaded it (:func:`deppy.cluster.fbc_render.catalog_objects`). Objects
come in one stable order, so the same source always prints the same bytes.

JSON is ``opm render -o json``'s: each object indented by four spaces and ended by a newline,
nothing escaped but what JSON must (and U+2028/U+2029, as Go does). YAML is ``opm render -o
yaml``'s shape: a ``---`` line before each object, keys in name order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from deppy.errors import InputError

__all__ = ["render_source", "rendered"]

Report = Callable[[str], None]


def render_source(source: str, report: Report) -> list[dict[str, Any]]:
    """The FBC objects of ``source``; ``report`` hears what was left out or skipped."""
    from deppy.cluster.remote import is_catalog_url

    if is_catalog_url(source):
        from deppy.cluster.remote import load_url_catalog

        name = source.split("://", 1)[1].split("/", 1)[0]
        return _written(load_url_catalog(source, name=name), source, report)
    from deppy.oci.reference import is_image_reference

    if is_image_reference(source):  # read into the cache, then as the directory or index it is
        from deppy.catalog.image_catalog import pulled_image
        from deppy.workflows.catalog_loading import images_path

        pulled = pulled_image(source, images_path(), where="SOURCE", report=report)
        return _file_objects(pulled.path, source, report)
    if Path(source).exists():
        return _file_objects(Path(source), source, report)
    from deppy.store import Store

    store = Store()
    if store.find(source) is not None:
        return _written(store.load_catalog(source), source, report)
    from deppy.store.schema import is_history_name

    if is_history_name(source):
        raise store.missing(source)
    raise InputError(
        source,
        "no such catalog: not a path, a URL nor a stored catalog's name",
        "give a catalog directory, an SQLite index file, a URL or a name "
        "'deppy catalog list' shows",
    )


def _file_objects(path: Path, where: str, report: Report) -> list[dict[str, Any]]:
    """The objects of a catalog directory or file on this machine: an SQLite index as ``opm
    render`` reads it, anything else as loaded."""
    from deppy.catalog.sqlite_index import is_sqlite_file, read_index

    if is_sqlite_file(path):
        read = read_index(path, where=where)
        for obj, why in read.problems:
            report(f"deppy: warning: {where}: {obj}: {why}")
        return read.objects
    from deppy.catalog.bundle_tree import load_any_catalog

    return _written(load_any_catalog(path), where, report)


def _written(catalog: Any, where: str, report: Report) -> list[dict[str, Any]]:
    from deppy.cluster.fbc_render import catalog_objects
    from deppy.workflows.catalog_loading import report_problems

    report_problems(catalog, report, listed=False, where=where)
    return list(catalog_objects(catalog))


def rendered(objects: Iterable[dict[str, Any]], output: str) -> Iterator[str]:
    """The objects as text, one piece per object: ``json`` (as ``opm render`` prints) or
    ``yaml`` (multi-document)."""
    if output == "yaml":
        from deppy.input_limits.yaml_writer import yaml_text

        for obj in objects:
            yield "---\n" + yaml_text(obj, sort_keys=True, allow_unicode=True)
        return
    for obj in objects:
        text = json.dumps(obj, indent=4, ensure_ascii=False)
        if "\u2028" in text or "\u2029" in text:
            text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
        yield text + "\n"
