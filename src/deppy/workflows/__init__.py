"""Workflows: the everyday questions every front door asks, answered once.

Search, show (package description and upgrade graph), upgrades, what-if (next cluster version),
validate (would this bundle install), catalog check, resolve with a pipeline/trace and its
graph (who brought in whom) and report facts, a cluster as input, a CSV's properties
annotation, serving a catalog (gRPC/HTTP), and where a front door's catalogs come from (paths,
the store, the embedded example).

Sub-rooms: ``olmv1/`` (OLM v1: requests from files or a cluster, plans as ClusterExtensions,
upgrade paths, ways out applied, resolved catalogs), ``fleet/`` (fleet plans, OLM v0 and v1),
``catalog_diff/`` (what changed between two releases of a catalog).

May import: ``cluster``, ``resolution``, ``catalog``, ``store``, ``explain``, ``pipeline``,
``solver``, ``oci``, ``errors``, ``input_limits``, ``data``. Never a front door (``cli``,
``service``, ``controller``).
"""
