"""Property projection (seed property-projection.md): a ClusterServiceVersion's properties.

Read direction: the ``operatorframework.io/properties`` annotation holds the properties a
resolution used when it chose the bundle — a JSON object whose ``properties`` is a list of
``{type, value}``. A CSV without it (installed by hand, or by an OLM older than the annotation)
gets properties synthesised from its spec: its package and version, an ``olm.gvk`` for every
owned CRD and API service, an ``olm.gvk.required`` for every required one, and the bundle's own
declared properties (``olm.properties``, e.g. ``olm.maxOpenShiftVersion``). A malformed annotation
is one warning naming the CSV and the fault, and the CSV falls back to synthesis.

Write direction: :func:`annotation_value` serialises properties into the annotation, canonically
(keys sorted inside values, no spaces), so the same properties always give the same bytes.
Properties that are not facts about the operator but bulk content (``olm.bundle.object``,
``olm.csv.metadata``) are never projected, as operator-registry leaves them out of its API
(they would double a CSV's size in etcd).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from deppy.catalog.model import Bundle, Property
from deppy.catalog.properties import (
    GVK_PROVIDED,
    GVK_REQUIRED,
    NOT_PROJECTED,
    PACKAGE,
    annotation_properties,
    interpret,
    projected_properties,
)
from deppy.cluster.objects import annotations_of, describe, dig, labels_of, namespace_of, text
from deppy.input_limits import UnsafeInput, json_value

__all__ = [
    "PROJECTED_PROPERTIES_ANNOTATION",
    "Projection",
    "annotation_value",
    "bundle_of_projection",
    "csv_package",
    "parse_annotation",
    "project_csv",
    "project_properties",
    "projected_properties",
    "synthesise_properties",
]

PROJECTED_PROPERTIES_ANNOTATION = "operatorframework.io/properties"
PACKAGE_LABEL_PREFIX = "operators.coreos.com/"


@dataclass(frozen=True, slots=True)
class Projection:
    """What a CSV says about itself: its properties, where they came from, and what was wrong.

    ``package`` and ``version`` are read from the ``olm.package`` property (None when the CSV
    has no usable version: such a CSV cannot take part in a resolution).
    """

    csv: str
    name: str
    properties: tuple[Property, ...]
    synthesised: bool
    warnings: tuple[str, ...]
    package: str | None
    version: str | None


def annotation_value(properties: Iterable[Property]) -> str:
    """The ``operatorframework.io/properties`` value for ``properties``, canonical JSON."""
    items = [{"type": p.type, "value": p.value} for p in properties if p.type not in NOT_PROJECTED]
    return orjson.dumps({"properties": items}, option=orjson.OPT_SORT_KEYS).decode()


def parse_annotation(raw: Any) -> list[Property]:
    """The properties of an annotation value; ValueError saying what is wrong with it."""
    if not isinstance(raw, str | bytes):
        raise ValueError(f"its value must be a JSON string, not {type(raw).__name__}")
    try:
        document = json_value(raw)
    except (orjson.JSONDecodeError, UnsafeInput) as error:
        raise ValueError(f"it is not JSON ({error})") from None
    if not isinstance(document, Mapping):
        raise ValueError('it must be a JSON object like {"properties": [...]}')
    items = document.get("properties", [])
    if not isinstance(items, list):
        raise ValueError("its 'properties' must be a list of {type, value} objects")
    found: list[Property] = []
    for n, item in enumerate(items, 1):
        if not isinstance(item, Mapping) or not isinstance(item.get("type"), str):
            raise ValueError(f"property {n} must be an object with a 'type' string: {item!r}")
        found.append(Property(item["type"], item.get("value")))
    return found


def csv_package(csv: Mapping[str, Any], package: str | None = None) -> str:
    """The package a CSV belongs to: ``package`` (its Subscription's) if given, else OLM's
    ``operators.coreos.com/<package>.<namespace>`` label, else its name without a trailing
    version (``etcdoperator.v0.9.4`` -> ``etcdoperator``), else its name."""
    if package:
        return package
    namespace = namespace_of(csv)
    suffix = f".{namespace}" if namespace else ""
    for key in sorted(labels_of(csv)):
        if isinstance(key, str) and key.startswith(PACKAGE_LABEL_PREFIX):
            rest = key[len(PACKAGE_LABEL_PREFIX) :]
            if suffix and rest.endswith(suffix) and len(rest) > len(suffix):
                return rest[: -len(suffix)]
    name = text(csv, "metadata", "name") or ""
    version = text(csv, "spec", "version")
    if version:
        for ending in (f".v{version}", f".{version}", f"-v{version}"):
            if name.endswith(ending) and len(name) > len(ending):
                return name[: -len(ending)]
    return name


def _apis(csv: Mapping[str, Any], role: str) -> list[dict[str, str]]:
    """GVK values of a CSV's CRDs (``plural.group`` names) and API services in ``role``."""
    found: list[dict[str, str]] = []
    for section in ("customresourcedefinitions", "apiservicedefinitions"):
        items = dig(csv, "spec", section, role)
        for item in items if isinstance(items, list) else ():
            if not isinstance(item, Mapping):
                continue
            kind, version = item.get("kind"), item.get("version")
            if section == "customresourcedefinitions":
                name = item.get("name")
                group = name.split(".", 1)[1] if isinstance(name, str) and "." in name else None
            else:
                group = item.get("group")
            if isinstance(group, str) and isinstance(kind, str) and isinstance(version, str):
                found.append({"group": group, "kind": kind, "version": version})
    return found


def synthesise_properties(
    csv: Mapping[str, Any], package: str | None = None
) -> tuple[list[Property], list[str]]:
    """Properties read from a CSV's spec (see the module docstring), and what was wrong."""
    warnings: list[str] = []
    props: list[Property] = []
    version = dig(csv, "spec", "version")
    if isinstance(version, str) and version:
        props.append(
            Property(PACKAGE, {"packageName": csv_package(csv, package), "version": version})
        )
    else:
        warnings.append(
            f"{describe(csv, 'ClusterServiceVersion')} has no spec.version, so it cannot take "
            "part in a resolution; it is left out — give it a version (a string like 1.2.3)"
        )
    props += [Property(GVK_PROVIDED, value) for value in _apis(csv, "owned")]
    props += [Property(GVK_REQUIRED, value) for value in _apis(csv, "required")]
    declared, problem = annotation_properties(annotations_of(csv))
    if problem:
        warnings.append(f"{describe(csv, 'ClusterServiceVersion')}: {problem}")
    props += [p for p in declared if p.type != PACKAGE]
    unique: list[Property] = []
    for prop in props:
        if prop not in unique:
            unique.append(prop)
    return unique, warnings


def project_csv(csv: Mapping[str, Any], package: str | None = None) -> Projection:
    """The CSV's projected properties (annotation, else synthesised), with warnings."""
    where = describe(csv, "ClusterServiceVersion")
    warnings: list[str] = []
    raw = annotations_of(csv).get(PROJECTED_PROPERTIES_ANNOTATION)
    props: list[Property] | None = None
    if raw is not None:
        try:
            props = [p for p in parse_annotation(raw) if p.type not in NOT_PROJECTED]
        except ValueError as error:
            warnings.append(
                f"{where}: annotation {PROJECTED_PROPERTIES_ANNOTATION} is malformed: {error}; "
                "its properties are synthesised from the CSV instead — fix or remove the "
                "annotation"
            )
    synthesised = props is None
    if props is None:
        props, more = synthesise_properties(csv, package)
        warnings += more
    elif not any(p.type == PACKAGE for p in props):
        found, _ = synthesise_properties(csv, package)
        own = [p for p in found if p.type == PACKAGE]
        warnings.append(
            f"{where}: annotation {PROJECTED_PROPERTIES_ANNOTATION} has no {PACKAGE} property; "
            "the package and version are taken from the CSV"
            + ("" if own else ", which has no spec.version either: it is left out")
        )
        props = own + props
    package_name, version = _identity(props)
    return Projection(
        csv=where,
        name=text(csv, "metadata", "name") or "",
        properties=tuple(props),
        synthesised=synthesised,
        warnings=tuple(warnings),
        package=package_name,
        version=version,
    )


def project_properties(
    csv: Mapping[str, Any], package: str | None = None
) -> tuple[list[Property], list[str]]:
    """``(properties, warnings)`` of a CSV as the API server returns it (a dict)."""
    projection = project_csv(csv, package)
    return list(projection.properties), list(projection.warnings)


def _identity(props: Iterable[Property]) -> tuple[str | None, str | None]:
    for prop in props:
        if prop.type == PACKAGE and isinstance(prop.value, Mapping):
            name, version = prop.value.get("packageName"), prop.value.get("version")
            if isinstance(name, str) and name and isinstance(version, str) and version:
                return name, version
    return None, None


_SPACE = re.compile(r"\s+")


def bundle_of_projection(
    projection: Projection, *, catalog: str, source: str
) -> tuple[Bundle | None, list[str]]:
    """The bundle an installed CSV stands for, built by the catalog loaders' own rules; None
    (and why) when its properties do not make a valid bundle."""
    if projection.package is None:
        return None, []
    facts = interpret(list(projection.properties))
    problems = [f"{projection.csv}: {_SPACE.sub(' ', w)}" for w in facts.warnings]
    if facts.errors or facts.version is None:
        problems += [
            f"{projection.csv}: {error}; it is left out of the resolution" for error in facts.errors
        ]
        return None, problems
    bundle = facts.bundle(
        name=projection.name,
        package=projection.package,
        image="",
        catalog=catalog,
        source=source,
        properties=list(projection.properties),
        related_images=(),
        replaces=None,
        skips=(),
        skip_range=None,
    )
    return bundle, problems
