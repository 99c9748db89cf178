"""OLM v1 at the workflows layer: requests from files or a cluster, plans as ClusterExtensions,
upgrade paths, explanations' changes applied, and resolved catalogs built and published.

``requests`` (OLM v1 documents and the catalogs given with them), ``plan`` (a resolution as
ClusterExtensions, and what OLM v1 does with each), ``upgrades`` (where OLM v1 moves each
installed extension), ``changes`` (a way out applied to the objects), ``resolved_catalog`` and
``resolved_publishing`` (the catalog OLM v1 needs for bundles that declare dependencies).
"""

from typing import TYPE_CHECKING

from deppy.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from deppy.workflows.olmv1.changes import (
        apply_olmv1_change,
    )
    from deppy.workflows.olmv1.plan import (
        RESOLVED_CATALOG_WAY_OUT,
        OLMv1Plan,
        PublishedCatalog,
        Publisher,
        build_plan,
        refusal_notes,
    )
    from deppy.workflows.olmv1.requests import (
        catalog_priorities,
        extension_request,
        extension_request_on,
        extension_request_on_cluster,
        olmv1_documents,
        olmv1_documents_of,
    )
    from deppy.workflows.olmv1.resolved_catalog import (
        RESOLVED_CATALOG_LABEL,
    )
    from deppy.workflows.olmv1.resolved_publishing import (
        catalog_name,
        cli_publisher,
        publish_resolved,
    )
    from deppy.workflows.olmv1.upgrades import (
        ExtensionUpgrade,
        extension_upgrades,
        with_ways_out,
    )

# Loaded on first use (deppy.lazy_exports): a name -> the module of this package defining it
_LATER = {
    "apply_olmv1_change": "changes",
    "RESOLVED_CATALOG_WAY_OUT": "plan",
    "OLMv1Plan": "plan",
    "PublishedCatalog": "plan",
    "Publisher": "plan",
    "build_plan": "plan",
    "refusal_notes": "plan",
    "catalog_priorities": "requests",
    "extension_request": "requests",
    "extension_request_on": "requests",
    "extension_request_on_cluster": "requests",
    "olmv1_documents": "requests",
    "olmv1_documents_of": "requests",
    "RESOLVED_CATALOG_LABEL": "resolved_catalog",
    "catalog_name": "resolved_publishing",
    "cli_publisher": "resolved_publishing",
    "publish_resolved": "resolved_publishing",
    "ExtensionUpgrade": "upgrades",
    "extension_upgrades": "upgrades",
    "with_ways_out": "upgrades",
}

__all__ = [
    "RESOLVED_CATALOG_LABEL",
    "RESOLVED_CATALOG_WAY_OUT",
    "ExtensionUpgrade",
    "OLMv1Plan",
    "PublishedCatalog",
    "Publisher",
    "apply_olmv1_change",
    "build_plan",
    "catalog_name",
    "catalog_priorities",
    "cli_publisher",
    "extension_request",
    "extension_request_on",
    "extension_request_on_cluster",
    "extension_upgrades",
    "olmv1_documents",
    "olmv1_documents_of",
    "publish_resolved",
    "refusal_notes",
    "with_ways_out",
]


__getattr__ = lazy_exports(__name__, _LATER)
