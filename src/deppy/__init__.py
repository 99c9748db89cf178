"""deppy: a dependency and constraint resolver."""
