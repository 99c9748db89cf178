"""OLM v1 requests from files: ClusterExtension (+ ClusterCatalog) documents and the catalogs
given with them, ready for the same resolution every other request takes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from deppy.errors import InputError
from deppy.input_limits import read_input, yaml_documents, yaml_problem
from deppy.resolution.olmv1_request import (
    ExtensionRequest,
    is_olmv1_document,
    request_from_objects,
)
from deppy.resolution.request_parsing import CatalogSpec


def olmv1_documents(path: str | Path) -> list[Any] | None:
    """The file's documents when it holds OLM v1 objects (ClusterExtension, ClusterCatalog),
    else None (an ActiveResolution, read as before)."""
    import yaml

    from deppy.input_limits import UnsafeInput

    where = str(path)
    data = read_input(path)
    if b"olm.operatorframework.io/" not in data:
        return None
    try:
        documents = yaml_documents(data)
    except UnsafeInput as error:
        raise InputError(where, str(error), "deppy refuses such input") from None
    except yaml.YAMLError as error:
        raise InputError(where, yaml_problem(error), "fix the syntax") from None
    return documents if any(is_olmv1_document(d) for d in documents) else None


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


__all__ = ["catalog_name", "extension_request", "olmv1_documents"]
