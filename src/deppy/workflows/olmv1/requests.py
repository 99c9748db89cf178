"""OLM v1 requests from files: ClusterExtension (+ ClusterCatalog) documents and the catalogs
given with them, ready for the same resolution every other request takes."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from deppy.catalog.catalog_set import BundleSource, CatalogSet
from deppy.cluster import ClusterState
from deppy.cluster.objects import name_of
from deppy.cluster.state import catalog_name_map
from deppy.errors import InputError
from deppy.input_limits import json_value, read_input, yaml_documents, yaml_problem
from deppy.resolution.olmv1 import (
    ExtensionRequest,
    catalog_from_object,
    is_olmv1_document,
    request_from_objects,
)
from deppy.resolution.request import ResolutionRequest
from deppy.resolution.request_parsing import CatalogSpec
from deppy.store.source import StoreSource
from deppy.workflows.cluster_input import ClusterInput


def olmv1_documents(path: str | Path) -> list[Any] | None:
    """The file's documents when it holds OLM v1 objects (ClusterExtension, ClusterCatalog),
    else None (an ActiveResolution, read as before)."""
    return olmv1_documents_of(read_input(path), str(path))


def olmv1_documents_of(data: bytes, where: str) -> list[Any] | None:
    """The documents of a YAML (or JSON) stream when it holds OLM v1 objects, else None; the
    items of a ``kind: List`` stand in its place. Unreadable input is an InputError naming
    ``where``.

    The kind of request is decided on the parsed documents, never on the raw bytes: an
    apiVersion written with escapes (JSON ``olm.operatorframework.io\\/v1``, ``\\u002f``,
    YAML ``"\\x2F"``) is the same apiVersion, and a request the bytes misjudged was read as an
    ActiveResolution and refused with a message that contradicted itself."""
    import yaml

    from deppy.input_limits import UnsafeInput

    try:
        documents = _documents(data)
    except UnsafeInput as error:
        raise InputError(where, str(error), "deppy refuses such input") from None
    except yaml.YAMLError as error:
        raise InputError(where, yaml_problem(error), "fix the syntax") from None
    flat = list(_flattened(documents))
    return flat if any(is_olmv1_document(d) for d in flat) else None


def _documents(data: bytes) -> list[Any]:
    """The stream's documents: JSON read as JSON (a request body is; orjson reads it ~10x
    faster than YAML), anything else, or JSON orjson refuses, as YAML."""
    import orjson

    if data.lstrip()[:1] in (b"{", b"["):
        try:
            return [json_value(data)]
        except orjson.JSONDecodeError:
            pass  # JSON lines, or YAML's flow style: read as YAML
    return yaml_documents(data)


def _flattened(documents: Sequence[Any]) -> Iterator[Any]:
    """Documents, with the items of a ``kind: List`` (``kubectl get -o yaml``) in its place."""
    for document in documents:
        if isinstance(document, Mapping) and document.get("kind") == "List":
            items = document.get("items")
            yield from items if isinstance(items, list) else ()
        else:
            yield document


def catalog_name(spec: CatalogSpec) -> str:
    """The name a catalog is loaded under (``--catalog DIR=NAME``, else the directory's name)."""
    return spec.name if spec.name is not None else Path(spec.path).name


def extension_request(
    documents: Sequence[Any], where: str, specs: Sequence[CatalogSpec]
) -> tuple[ExtensionRequest, list[CatalogSpec]]:
    """The OLM v1 request, and the catalog specs to load with each ClusterCatalog's priority
    (so that dependencies, resolved by deppy's order, see the same priorities)."""
    if not specs:
        raise InputError(
            "--catalog",
            "a ClusterExtension request needs the content of its ClusterCatalogs",
            "give --catalog DIR=NAME[:PRIORITY] for each (NAME as in the ClusterCatalog)",
        )
    content = [(catalog_name(s), s.priority) for s in specs]
    found = request_from_objects(documents, where, content)
    priorities = {c.name: c.priority for c in found.catalogs}
    adjusted = [replace(s, priority=priorities.get(catalog_name(s), s.priority)) for s in specs]
    return found, adjusted


def catalog_priorities(source: BundleSource) -> dict[str, int]:
    """Each catalog's priority, where the source keeps it (catalogs in memory, the store)."""
    if isinstance(source, CatalogSet):
        return {c.name: c.priority for c in source.catalogs}
    if isinstance(source, StoreSource):
        return source.priorities()
    return {}


def extension_request_on(
    documents: Sequence[Any], where: str, source: BundleSource
) -> ExtensionRequest:
    """The OLM v1 request on catalogs already loaded (the stored ones, when no ``--catalog``
    is given; the service's): each is a ClusterCatalog of its name and priority."""
    priorities = catalog_priorities(source)
    content = [(name, priorities.get(name, 0)) for name in source.names()]
    return request_from_objects(documents, where, content)


def extension_request_on_cluster(
    documents: Sequence[Any],
    where: str,
    state: ClusterState,
    found: ClusterInput,
    asked: ResolutionRequest | None = None,
) -> tuple[ExtensionRequest, ResolutionRequest]:
    """The OLM v1 request on a cluster: its ClusterCatalogs supply labels, priority and
    availability (a ClusterCatalog in the file wins), its catalogs the content (or
    ``--catalog``); an extension in the file without a status takes the installed bundle of the
    cluster's ClusterExtension of the same name; the cluster's other installed operators stay
    installed (one bundle per package, one provider per API) unless an extension asks for
    their package. ``asked`` holds what the command line adds (flags, cluster versions)."""
    names = catalog_name_map(state)
    described = []
    for obj in state.cluster_catalogs:
        facts = catalog_from_object(obj, f"{state.where}: ClusterCatalog {name_of(obj)}")
        described.append(replace(facts, name=names.get(("", facts.name), facts.name)))
    on_cluster = {name_of(e): e for e in state.cluster_extensions}
    merged = []
    for document in documents:
        if (
            isinstance(document, Mapping)
            and document.get("kind") == "ClusterExtension"
            and "status" not in document
        ):
            metadata = document.get("metadata")
            name = metadata.get("name") if isinstance(metadata, Mapping) else None
            twin = on_cluster.get(name) if isinstance(name, str) else None
            if twin is not None and "status" in twin:
                document = {**document, "status": twin["status"]}
        merged.append(document)
    priorities = {c.name: c.priority for c in described}
    content = [
        (name, priorities.get(name, 0)) for name in found.catalogs.names() if name != "(cluster)"
    ]
    olm = request_from_objects(merged, where, content, described=described)
    base = asked or ResolutionRequest()
    combined = replace(base, required=olm.request.required + base.required, rules="olmv1")
    wanted = {r.package for r in olm.request.required}
    request = found.request(combined)
    kept = tuple(i for i in request.installed if i.package not in wanted)
    return olm, replace(request, installed=kept)


__all__ = [
    "catalog_name",
    "catalog_priorities",
    "extension_request",
    "extension_request_on",
    "extension_request_on_cluster",
    "olmv1_documents",
    "olmv1_documents_of",
]
