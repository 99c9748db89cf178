"""ClusterCatalogs as OLM v1 reads them when it resolves: name, labels, ``spec.priority``,
``spec.availabilityMode`` — and the label selectors a ClusterExtension chooses them by.

Also the small readers the OLM v1 object parsers share: a field as a mapping or a string, or
an ``InputError`` naming the document and the field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from deppy.errors import InputError, excerpt, only_fields, quoted

GROUP: Final = "olm.operatorframework.io"
API_VERSION: Final = f"{GROUP}/v1"
NAME_LABEL: Final = f"{GROUP}/metadata.name"
"""The label OLM v1 sets on every ClusterCatalog: its own name (selectors may use it)."""

_SELECTOR_FIELDS = ("matchLabels", "matchExpressions")
_EXPRESSION_FIELDS = ("key", "operator", "values")
_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
_AVAILABILITY = ("Available", "Unavailable")


@dataclass(frozen=True, slots=True)
class ClusterCatalogFacts:
    """What OLM v1 reads of a ClusterCatalog when it resolves (content aside)."""

    name: str
    labels: tuple[tuple[str, str], ...] = ()
    priority: int = 0
    priority_stated: bool = False
    available: bool = True

    def label_map(self) -> dict[str, str]:
        """Its labels, with the name label OLM v1 puts on every ClusterCatalog."""
        return {**dict(self.labels), NAME_LABEL: self.name}


def string_map(value: Any, where: str) -> dict[str, str]:
    """``metadata.labels`` or ``metadata.annotations``: strings to strings (null: none), as
    the API server takes them; anything else is refused here, where the document is read, so
    no output format (``-o clusterextensions`` copies them) meets it later."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        field = where.rsplit(".", 1)[-1]
        raise InputError(
            where,
            f"expected a mapping of strings, got {excerpt(value)}",
            f"write {field}: {{KEY: VALUE}}, or leave it out",
        )
    found = {}
    for key, item in value.items():
        if not isinstance(key, str):
            raise InputError(where, f"expected string keys, got {excerpt(key)}", "quote it")
        found[key] = string_field(item, f"{where}.{key}") or ""
    return found


def metadata_of(
    data: Mapping[str, Any], where: str, *, required: bool = False
) -> Mapping[str, Any]:
    """An object's ``metadata``: a mapping (``metadata: null`` is refused, as the API server
    refuses it), its labels and annotations checked by :func:`string_map`."""
    at = field_at(where, "metadata")
    if "metadata" in data and data["metadata"] is None:
        raise InputError(at, "is null", "give a mapping, e.g. metadata: {name: NAME}")
    metadata = mapping_field(data.get("metadata"), at, required=required)
    for key in ("labels", "annotations"):
        string_map(metadata.get(key), field_at(where, f"metadata.{key}"))
    return metadata


def field_at(where: str, path: str) -> str:
    return f"{where}: {path}" if where else path


def mapping_field(value: Any, where: str, *, required: bool = False) -> Mapping[str, Any]:
    if value is None and not required:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(where, "expected a mapping" if value is not None else "required field")
    return value


def string_field(value: Any, where: str, *, required: bool = False) -> str | None:
    if value is None or value == "":
        if required:
            raise InputError(where, "required field")
        return None
    if not isinstance(value, str):
        raise InputError(where, f"expected a string, got {excerpt(value)}", "quote it")
    return value


# -- ClusterCatalog ------------------------------------------------------------------------------


PRIORITY_RANGE: Final = range(-(2**31), 2**31)
"""What ClusterCatalog's ``spec.priority`` takes: an int32."""
_PRIORITY_TEXT: Final = re.compile(r"-?[0-9]+", re.ASCII)


def checked_priority(value: object, where: str) -> int:
    """A catalog priority as ClusterCatalog's ``spec.priority`` takes it: an integer (not a
    boolean) of 32 bits; written as text (``--catalog DIR=NAME:PRIORITY``), plain ASCII digits
    with an optional leading '-', as the CRD reads a number (Python's ``int()`` would also take
    ``5_0``, ``+5``, spaces and other scripts' digits, and an int of any size: a priority the
    cluster refuses must not decide which catalog wins here)."""
    if isinstance(value, str):
        if not _PRIORITY_TEXT.fullmatch(value):
            raise InputError(
                where,
                f"{excerpt(value)} is not an integer",
                "write digits, with '-' before them for a negative priority",
            )
        digits = value.lstrip("-").lstrip("0")  # past 10 digits: out of range, not parsed
        value = int(value) if len(digits) <= 10 else PRIORITY_RANGE.stop
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(where, "expected an integer")
    if value not in PRIORITY_RANGE:
        raise InputError(
            where,
            "out of range (a 32-bit integer, as ClusterCatalog's spec.priority)",
            f"give {PRIORITY_RANGE[0]} to {PRIORITY_RANGE[-1]}",
        )
    return value


def catalog_from_object(data: Mapping[str, Any], where: str) -> ClusterCatalogFacts:
    """A ClusterCatalog's name, labels, priority and availability."""
    metadata = metadata_of(data, where, required=True)
    name = string_field(metadata.get("name"), field_at(where, "metadata.name"), required=True)
    assert name is not None
    pairs = tuple(
        sorted(string_map(metadata.get("labels"), field_at(where, "metadata.labels")).items())
    )
    spec = mapping_field(data.get("spec"), field_at(where, "spec"))
    priority = checked_priority(spec.get("priority", 0), field_at(where, "spec.priority"))
    mode = spec.get("availabilityMode", "Available")
    if mode not in _AVAILABILITY:
        raise InputError(
            field_at(where, "spec.availabilityMode"),
            f"unknown mode {excerpt(mode)}",
            "write Available or Unavailable",
        )
    return ClusterCatalogFacts(name, pairs, priority, "priority" in spec, mode == "Available")


# -- selectors -----------------------------------------------------------------------------------


def _selector_matches(selector: Mapping[str, Any], labels: Mapping[str, str], where: str) -> bool:
    only_fields(selector, _SELECTOR_FIELDS, where)
    match_labels = mapping_field(selector.get("matchLabels"), f"{where}.matchLabels")
    for key, value in match_labels.items():
        if not key:
            raise InputError(f"{where}.matchLabels", "a label key is empty")
        wanted = string_field(value, f"{where}.matchLabels.{key}") or ""
        if labels.get(str(key)) != wanted:
            return False
    expressions = selector.get("matchExpressions") or []
    if not isinstance(expressions, list):
        raise InputError(f"{where}.matchExpressions", "expected a list")
    for n, raw in enumerate(expressions):
        here = f"{where}.matchExpressions[{n}]"
        if not _expression_matches(mapping_field(raw, here, required=True), labels, here):
            return False
    return True


def _expression_matches(
    expression: Mapping[str, Any], labels: Mapping[str, str], where: str
) -> bool:
    only_fields(expression, _EXPRESSION_FIELDS, where)
    key = string_field(expression.get("key"), f"{where}.key", required=True)
    operator = expression.get("operator")
    if operator not in _OPERATORS:
        raise InputError(
            f"{where}.operator",
            f"{quoted(str(operator))} is not a valid label selector operator",
            f"write one of {', '.join(_OPERATORS)}",
        )
    values = expression.get("values") or []
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise InputError(f"{where}.values", "expected a list of strings")
    if operator in ("In", "NotIn") and not values:
        raise InputError(f"{where}.values", f"operator {operator} needs at least one value")
    if operator in ("Exists", "DoesNotExist") and values:
        raise InputError(f"{where}.values", f"operator {operator} takes no values")
    present = key in labels
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator == "In":
        return present and labels[str(key)] in values
    return not present or labels[str(key)] not in values  # NotIn


def selected_catalogs(
    selector: Mapping[str, Any] | None, catalogs: Sequence[ClusterCatalogFacts], where: str
) -> list[ClusterCatalogFacts]:
    """The ClusterCatalogs a ClusterExtension's selector matches (all, without a selector)."""
    if not selector:
        return list(catalogs)
    return [c for c in catalogs if _selector_matches(selector, c.label_map(), where)]


def merge_catalogs(
    described: Iterable[ClusterCatalogFacts], content: Sequence[tuple[str, int]]
) -> tuple[list[ClusterCatalogFacts], list[str]]:
    """The ClusterCatalogs a request resolves on: one per catalog whose content deppy has
    (``content``: name and the priority given with it), with the labels, priority and
    availability of the ClusterCatalog document of that name when the file has one (a stated
    ``spec.priority`` wins over the command line's). Also warnings for described catalogs
    without content."""
    by_name = {c.name: c for c in described}
    merged = []
    for name, priority in content:
        facts = by_name.get(name)
        if facts is None:
            merged.append(ClusterCatalogFacts(name, priority=priority))
        elif not facts.priority_stated:
            merged.append(replace(facts, priority=priority))
        else:
            merged.append(facts)
    names = {name for name, _ in content}
    warnings = [
        f"ClusterCatalog {c.name}: no content for it (give --catalog DIR={c.name}); not used"
        for c in by_name.values()
        if c.name not in names
    ]
    return merged, warnings


__all__ = [
    "API_VERSION",
    "GROUP",
    "NAME_LABEL",
    "ClusterCatalogFacts",
    "catalog_from_object",
    "field_at",
    "mapping_field",
    "merge_catalogs",
    "selected_catalogs",
    "string_field",
]
