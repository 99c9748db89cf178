"""OLM v1 at the catalog layer: the bundle filters and order operator-controller applies, and
the one validation by which OLM v1 refuses a chosen bundle (a declared dependency).

``filters`` (in a channel, in a version constraint, a successor of the installed bundle; newest
first), ``validation`` (``NoDependencyValidation``, word for word). Built on the shared catalog
model only; ``resolution.olmv1`` composes the filters into OLM v1's rule set.
"""

from typing import TYPE_CHECKING

from deppy.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from deppy.catalog.olmv1.filters import (
        BundlePredicate,
        in_any_channel,
        in_constraint,
        names_successor,
        sort_newest_first,
        successor_of,
    )
    from deppy.catalog.olmv1.validation import (
        DEPENDENCY_PROPERTIES,
        Refusal,
        declared_properties,
        refusal_of,
        refusal_of_types,
        refused_property,
    )

# Loaded on first use (deppy.lazy_exports): a name -> the module of this package defining it
_LATER = {
    "BundlePredicate": "filters",
    "in_any_channel": "filters",
    "in_constraint": "filters",
    "names_successor": "filters",
    "sort_newest_first": "filters",
    "successor_of": "filters",
    "DEPENDENCY_PROPERTIES": "validation",
    "Refusal": "validation",
    "declared_properties": "validation",
    "refusal_of": "validation",
    "refusal_of_types": "validation",
    "refused_property": "validation",
}

__all__ = [
    "DEPENDENCY_PROPERTIES",
    "BundlePredicate",
    "Refusal",
    "declared_properties",
    "in_any_channel",
    "in_constraint",
    "names_successor",
    "refusal_of",
    "refusal_of_types",
    "refused_property",
    "sort_newest_first",
    "successor_of",
]


__getattr__ = lazy_exports(__name__, _LATER)
