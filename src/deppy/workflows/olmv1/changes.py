"""A way out of an OLM v1 explanation applied to the objects it was found for.

An explanation's change (``-o json``: ``suggestions[].change``) says which object and which
field to edit: ``change-extension`` sets or removes a field of a ClusterExtension's
``spec.source.catalog``, ``new-extension`` puts a new ClusterExtension in place of an installed
one whose ``packageName`` OLM v1 will not change, ``change-catalog`` sets a ClusterCatalog's
field. The web UI's "Try this" button sends the YAML it holds and the change here, and resolves
what comes back: the objects as the user would ``kubectl apply`` them, the rest kept as written.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any

from deppy.errors import InputError
from deppy.resolution.olmv1 import is_olmv1_document

__all__ = ["CHANGE_KINDS", "apply_olmv1_change"]

CHANGE_KINDS = ("change-extension", "new-extension", "change-catalog")
CATALOG_FIELD = "spec.source.catalog."


def _named(documents: Sequence[Any], kind: str, name: str, where: str) -> int:
    for n, document in enumerate(documents):
        if not (is_olmv1_document(document) and document.get("kind") == kind):
            continue
        metadata = document.get("metadata")
        if isinstance(metadata, Mapping) and metadata.get("name") == name:
            return n
    raise InputError(where, f"no {kind} named {name!r} among the objects", "send the same objects")


def _text(change: Mapping[str, Any], key: str) -> str:
    value = change.get(key)
    if not isinstance(value, str) or not value:
        raise InputError(f"change.{key}", "required field (a string)")
    return value


def _catalog_field(change: Mapping[str, Any]) -> str:
    path = _text(change, "field")
    if not path.startswith(CATALOG_FIELD) or "." in path.removeprefix(CATALOG_FIELD):
        raise InputError("change.field", f"expected {CATALOG_FIELD}<field>, got {path!r}")
    return path.removeprefix(CATALOG_FIELD)


def _catalog_of(document: MutableMapping[str, Any], where: str) -> MutableMapping[str, Any]:
    spec = document.get("spec")
    source = spec.get("source") if isinstance(spec, MutableMapping) else None
    catalog = source.get("catalog") if isinstance(source, MutableMapping) else None
    if not isinstance(catalog, MutableMapping):
        raise InputError(where, "has no spec.source.catalog mapping")
    return catalog


def apply_olmv1_change(documents: Sequence[Any], change: Mapping[str, Any]) -> list[Any]:
    """``documents`` with ``change`` made (copies; the input is left as it was). A change of
    another kind, or naming an object the documents lack, is an ``InputError``."""
    kind = change.get("kind")
    if kind not in CHANGE_KINDS:
        raise InputError("change.kind", f"not a change of OLM v1 objects: {kind!r}",
                         f"one of {', '.join(CHANGE_KINDS)}")  # fmt: skip
    changed = copy.deepcopy(list(documents))
    if kind == "change-catalog":
        name = _text(change, "catalog")
        target = changed[_named(changed, "ClusterCatalog", name, "change.catalog")]
        path = _text(change, "field")
        if not path.startswith("spec.") or "." in path.removeprefix("spec."):
            raise InputError("change.field", f"expected spec.<field>, got {path!r}")
        spec = target.setdefault("spec", {})
        spec[path.removeprefix("spec.")] = change.get("value")
        return changed
    name = _text(change, "extension")
    at = _named(changed, "ClusterExtension", name, "change.extension")
    target = changed[at]
    field = _catalog_field(change)
    if kind == "new-extension":  # in place of the installed one, which the user then deletes
        target.pop("status", None)
        target["metadata"] = {"name": _text(change, "name")}
    catalog = _catalog_of(target, f"ClusterExtension {name}")
    value = change.get("value")
    if value is None:
        catalog.pop(field, None)
    else:
        catalog[field] = value
    return changed
