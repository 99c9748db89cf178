"""OLM v1's ``NoDependencyValidation``, exactly as operator-controller (v1.11) applies it.

operator-controller resolves one bundle per ClusterExtension and then validates the bundle it
chose: the first property (in the bundle's own order) of type ``olm.package.required``,
``olm.gvk.required`` or ``olm.constraint`` fails the reconciliation with
``validating bundle "B": bundle "B" has a dependency declared via property "P" which is
currently not supported``. It does not fall back to an older bundle. Everything deppy says OLM v1
"will do" (plans, upgrade paths, fleet plans, the controller's explanations) asks this one
predicate, so the words match OLM v1's word for word.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from deppy.catalog.file_values import plain
from deppy.catalog.model import Bundle, Property
from deppy.catalog.properties import annotation_properties

DEPENDENCY_PROPERTIES = ("olm.package.required", "olm.gvk.required", "olm.constraint")
# the part of OLM v1's message that tells this validation apart in a ClusterExtension's status
REFUSAL_MARK = "which is currently not supported"


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why OLM v1 refuses a chosen bundle: the property it names (the first dependency property
    in the bundle's order) and every dependency property type the bundle declares."""

    bundle: str
    property_type: str
    declared: tuple[str, ...]

    @property
    def message(self) -> str:
        """OLM v1's own words (the reconciliation error on the ClusterExtension)."""
        return (
            f'validating bundle "{self.bundle}": bundle "{self.bundle}" has a dependency '
            f'declared via property "{self.property_type}" {REFUSAL_MARK}'
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "bundle": self.bundle,
            "property": self.property_type,
            "declared": list(self.declared),
            "message": self.message,
        }


def refusal_of_types(bundle: str, property_types: Iterable[str]) -> Refusal | None:
    """The refusal for a bundle whose properties have these types, in the bundle's order."""
    declared = [t for t in property_types if t in DEPENDENCY_PROPERTIES]
    if not declared:
        return None
    return Refusal(bundle, declared[0], tuple(sorted(set(declared))))


def declared_properties(bundle: Bundle) -> tuple[Property, ...]:
    """The properties the catalog declares for the bundle, without those the loader added from
    the CSV's olm.properties annotation (appended last, only when not declared): OLM v1 reads
    the catalog's own list, and a resolved catalog keeps it as written."""
    props = bundle.properties
    metadata = plain(bundle.csv_metadata) if bundle.csv_metadata is not None else None
    annotations = metadata.get("annotations") if isinstance(metadata, Mapping) else None
    annotated, _ = annotation_properties(annotations)
    for cut in range(min(len(annotated), len(props)), 0, -1):
        head = props[:-cut]
        added = list(dict.fromkeys(p for p in annotated if p not in head))
        if list(props[-cut:]) == added:
            return head
    return props


def refusal_of(bundle: Bundle | None) -> Refusal | None:
    """None when OLM v1 installs ``bundle`` (or when deppy has no properties for it)."""
    if bundle is None or not any(p.type in DEPENDENCY_PROPERTIES for p in bundle.properties):
        return None  # the common case, asked on every step of a fleet's walks: no CSV decoded
    return refusal_of_types(bundle.name, (p.type for p in declared_properties(bundle)))


def refused_property(message: str) -> str | None:
    """The property named by an OLM v1 status message carrying this validation's error."""
    if REFUSAL_MARK not in message:
        return None
    for name in DEPENDENCY_PROPERTIES:
        if f'property "{name}"' in message:
            return name
    return None


__all__ = [
    "DEPENDENCY_PROPERTIES",
    "REFUSAL_MARK",
    "Refusal",
    "declared_properties",
    "refusal_of",
    "refusal_of_types",
    "refused_property",
]
