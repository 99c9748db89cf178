"""deppy in front of OLM v1: approved resolvesets handed to OLM v1 as ClusterExtensions, and
explanations where OLM v1 finds no bundle.

``extensions`` (one ClusterExtension per package of a set: its body, and whether an existing one
is deppy's to write), ``provisioner`` (an approved Instance of an ``deppy.io/olm-v1``
ProvisionerClass applied, and the ClusterExtensions' conditions mirrored on it),
``explanations`` (an Event with deppy's explanation and a way out on a ClusterExtension OLM v1
cannot resolve). ClusterCatalogs, the catalogs OLM v1 reads, are loaded with deppy's Catalogs
(``catalogs.cluster_catalogs``).

May import: ``resolution``, ``workflows``, ``explain``, the controller's ``approval`` and
``catalogs`` and its plumbing; never ``resolving`` or the wiring.
"""
