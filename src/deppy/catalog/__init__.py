"""Catalogs: what bundles exist, read from disk and held as a model.

File-Based Catalog and bundle-directory loading, the catalog model (packages, channels,
bundles, properties, deprecations), olm.constraint parsing and CEL, blang/semver versions and
ranges, upgrade edges within a channel, channel and catalog checks, the rows package search
ranks, an overlay of one catalog over others, ``CatalogSet`` — several catalogs seen as one
``BundleSource`` — and catalogs read from images (``image_catalog``: pulled by ``deppy.oci``).

Sub-rooms: ``fbc/`` (File-Based Catalog loading), ``sqlite_index/`` (operator-registry's
SQLite index of older index images, read as ``opm render`` reads it), ``cel/`` (the CEL of
olm.constraint rules), ``semver/`` (versions and ranges as blang reads them), ``olmv1/`` (OLM
v1's bundle filters and the one validation by which it refuses a chosen bundle).

May import: ``errors``, ``input_limits`` and ``oci`` only (nothing from resolution, pipeline,
solver or the front doors).
"""
