"""OLM v1 at the resolution layer: ClusterExtension and ClusterCatalog objects as a request,
OLM v1's rule set (operator-controller's catalog resolver) and its ways out.

``request`` (the objects as a ``ResolutionRequest`` under the ``olmv1`` rules), ``catalogs``
(ClusterCatalogs and their selectors), ``rules`` (``OLMv1Rules``: candidates per catalog,
priority and ties), ``suggestions`` (ways out in the ClusterExtension's own fields). The shared
resolver picks these rules per request (``rule_sets``) and asks for their ways out
(``explanation``); ``request_parsing`` checks a catalog's priority with ``catalogs`` itself,
since ``suggestions`` builds on the shared suggestions, which parse requests.
"""

from typing import TYPE_CHECKING

from deppy.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from deppy.resolution.olmv1.catalogs import (
        API_VERSION,
        NAME_LABEL,
        ClusterCatalogFacts,
        catalog_from_object,
    )
    from deppy.resolution.olmv1.request import (
        ExtensionRequest,
        extension_from_object,
        is_olmv1_document,
        request_from_objects,
    )
    from deppy.resolution.olmv1.rules import (
        OLMv1Rules,
        extension_outcome,
        nothing_walked,
    )
    from deppy.resolution.olmv1.suggestions import (
        extension_ways_out,
    )

# Loaded on first use (deppy.lazy_exports): a name -> the module of this package defining it
_LATER = {
    "API_VERSION": "catalogs",
    "NAME_LABEL": "catalogs",
    "ClusterCatalogFacts": "catalogs",
    "catalog_from_object": "catalogs",
    "ExtensionRequest": "request",
    "extension_from_object": "request",
    "is_olmv1_document": "request",
    "request_from_objects": "request",
    "OLMv1Rules": "rules",
    "extension_outcome": "rules",
    "nothing_walked": "rules",
    "extension_ways_out": "suggestions",
}

__all__ = [
    "API_VERSION",
    "NAME_LABEL",
    "ClusterCatalogFacts",
    "ExtensionRequest",
    "OLMv1Rules",
    "catalog_from_object",
    "extension_from_object",
    "extension_outcome",
    "extension_ways_out",
    "is_olmv1_document",
    "nothing_walked",
    "request_from_objects",
]


__getattr__ = lazy_exports(__name__, _LATER)
