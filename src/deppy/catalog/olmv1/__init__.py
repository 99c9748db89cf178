"""OLM v1 at the catalog layer: the bundle filters and order operator-controller applies, and
the one validation by which OLM v1 refuses a chosen bundle (a declared dependency)."""
