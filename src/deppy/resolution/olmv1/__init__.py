"""OLM v1 at the resolution layer: ClusterExtension and ClusterCatalog objects as a request,
OLM v1's rule set (operator-controller's catalog resolver) and its ways out."""
