"""OLM v1 at the workflows layer: requests from files or a cluster, plans as ClusterExtensions,
upgrade paths, explanations' changes applied, and resolved catalogs built and published."""
