"""Reading Kubernetes objects held as plain dicts (as the API server or ``kubectl -o yaml`` gives
them): their identity, labels and annotations, and nested fields, never raising on odd shapes.

Objects come from outside (a live cluster, an export someone edited), so every accessor here
answers ``None`` or an empty mapping for a missing or mistyped field instead of failing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

KIND_CSV = "ClusterServiceVersion"
KIND_SUBSCRIPTION = "Subscription"
KIND_CATALOG_SOURCE = "CatalogSource"
KIND_OPERATOR_GROUP = "OperatorGroup"
KIND_CLUSTER_CATALOG = "ClusterCatalog"
KIND_CLUSTER_EXTENSION = "ClusterExtension"
KIND_CLUSTER_VERSION = "ClusterVersion"

# Label OLM copies a CSV with into every namespace its OperatorGroup targets: copies are not
# installations of their own.
COPIED_FROM_LABEL = "olm.copiedFrom"


def dig(value: Any, *keys: str) -> Any:
    """``value[k1][k2]...``, or None as soon as a level is missing or not a mapping."""
    for key in keys:
        # a plain dict (what JSON and YAML give) first: the abstract check costs ~10x more,
        # and a fleet plan reads a million fields
        if type(value) is not dict and not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def text(value: Any, *keys: str) -> str | None:
    """A non-empty string field, else None."""
    for key in keys:  # dig, inlined: the most frequent call of reading a cluster
        if type(value) is not dict and not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value if isinstance(value, str) and value else None


def mapping(value: Any, *keys: str) -> Mapping[str, Any]:
    found = dig(value, *keys)
    return found if isinstance(found, Mapping) else {}


def name_of(obj: Mapping[str, Any]) -> str:
    return text(obj, "metadata", "name") or ""


def namespace_of(obj: Mapping[str, Any]) -> str:
    return text(obj, "metadata", "namespace") or ""


def labels_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return mapping(obj, "metadata", "labels")


def annotations_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return mapping(obj, "metadata", "annotations")


def describe(obj: Mapping[str, Any], kind: str | None = None) -> str:
    """How a message names an object: ``Kind namespace/name`` (or ``Kind name``)."""
    shown = kind or text(obj, "kind") or "object"
    name, namespace = name_of(obj) or "(no name)", namespace_of(obj)
    return f"{shown} {namespace}/{name}" if namespace else f"{shown} {name}"


def is_copied_csv(csv: Mapping[str, Any]) -> bool:
    """A copy OLM made of a CSV for another namespace (label olm.copiedFrom, reason Copied)."""
    return COPIED_FROM_LABEL in labels_of(csv) or dig(csv, "status", "reason") == "Copied"


def sort_key(obj: Mapping[str, Any]) -> tuple[str, str]:
    return (namespace_of(obj), name_of(obj))
