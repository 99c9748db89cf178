"""Cluster input: what a cluster holds, read live or from an export.

ClusterServiceVersions, Subscriptions, CatalogSources, OperatorGroups, OLM v1 ClusterCatalogs and
ClusterExtensions, cluster versions; property projection (the ``operatorframework.io/properties``
annotation, synthesised from a CSV's spec when absent); catalogs read over operator-registry's gRPC
API or catalogd's HTTP API.

Public API (importing ``deppy.cluster`` loads neither ``kubernetes`` nor ``grpc``):

* ``project_properties(csv, package=None) -> (list[Property], list[str])`` — a CSV (a dict as the
  API server returns it) to its projected properties and warnings; ``project_csv`` gives the
  fuller ``Projection`` (package, version, whether synthesised). ``annotation_value(properties)``
  writes the annotation (canonical JSON); ``parse_annotation(value)`` reads one;
  ``projected_properties(bundle)`` are a catalog bundle's properties as a resolution uses them.
  ``PROJECTED_PROPERTIES_ANNOTATION`` is the annotation's name.
* ``ClusterState`` — the objects of a cluster (plain dicts) and its versions; build one directly
  (the controller has the objects already), or read one with ``read_cluster_files(path)`` (an
  export, or ``kubectl get -o yaml`` output) or ``deppy.cluster.live.read_live(kubeconfig,
  context)``; ``export_document(state)`` is the export file's content.
* ``installed_from_state(state, namespace=None) -> ClusterInstalled`` — the installed bundles
  (``.installed``: Subscriptions, ClusterExtensions and the pins of hand-installed CSVs;
  ``.subscribed``: the upgradable ones), the synthetic catalog ``HAND_INSTALLED_CATALOG`` of the
  hand-installed CSVs (``.catalog``, None if none: lay it over the other catalogs, e.g. with
  ``deppy.catalog.overlay.Overlay``), the cluster's versions (``.cluster``) and the warnings, the
  note about synthesised properties among them, once.
* ``catalog_endpoints(state)`` / ``load_cluster_catalogs(endpoints, load_image=)`` — the
  cluster's catalogs and reading them (over gRPC or HTTP, else from their images);
  ``deppy.cluster.remote.load_url_catalog(url, name=, priority=)`` reads one ``grpc://`` or
  ``http(s)://`` catalog. Serving: ``deppy.cluster.registry_server.
  start_registry_server(catalog)`` (gRPC) and ``deppy.cluster.http_catalog.start_http_server``.
* Catalog images (built, pushed, pulled) are ``deppy.oci``'s, a room below this one.

May import: ``resolution``, ``store``, ``catalog``, ``errors``, ``input_limits``. Never a front
door.
"""

from deppy.cluster.catalogs import CatalogEndpoint, catalog_endpoints, load_cluster_catalogs
from deppy.cluster.export import export_document, read_cluster_export, read_cluster_files
from deppy.cluster.installed import (
    HAND_INSTALLED_CATALOG,
    HAND_INSTALLED_CHANNEL,
    ClusterInstalled,
    installed_from_state,
)
from deppy.cluster.projection import (
    PROJECTED_PROPERTIES_ANNOTATION,
    Projection,
    annotation_value,
    parse_annotation,
    project_csv,
    project_properties,
    projected_properties,
)
from deppy.cluster.state import ClusterState

__all__ = [
    "HAND_INSTALLED_CATALOG",
    "HAND_INSTALLED_CHANNEL",
    "PROJECTED_PROPERTIES_ANNOTATION",
    "CatalogEndpoint",
    "ClusterInstalled",
    "ClusterState",
    "Projection",
    "annotation_value",
    "catalog_endpoints",
    "export_document",
    "installed_from_state",
    "load_cluster_catalogs",
    "parse_annotation",
    "project_csv",
    "project_properties",
    "projected_properties",
    "read_cluster_export",
    "read_cluster_files",
]
