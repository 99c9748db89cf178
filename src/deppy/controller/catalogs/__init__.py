"""The controller's catalogs: Catalog objects read, loaded and kept.

``sources`` (where a Catalog's content comes from: HTTP, ConfigMaps, a mounted directory, read
with a cap), ``loading`` (one Catalog loaded into the cache, its status written; skipped while
the digest is unchanged), ``cluster_catalogs`` (OLM v1's ClusterCatalogs, loaded from catalogd
when their digest changes; never written), ``cache`` (the last good content of each, and its
health: the controller's only state besides kopf's).

May import: ``catalog``, ``input_limits``, ``errors`` and the controller's shared plumbing
(``runtime``, ``kube``, ``conditions``, ``fields``); never resolution, the other jobs of the
controller or its wiring (``runner``, ``handlers``).
"""
