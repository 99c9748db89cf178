"""Cluster input: what a cluster holds, read live or from an export.

ClusterServiceVersions, Subscriptions, CatalogSources, OperatorGroups, OLM v1 ClusterCatalogs and
ClusterExtensions, cluster versions; property projection (the ``operatorframework.io/properties``
annotation, synthesised from a CSV's spec when absent); catalogs read over operator-registry's gRPC
API or catalogd's HTTP API.

May import: ``resolution``, ``catalog``, ``errors``. Never a front door.
"""
