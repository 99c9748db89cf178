"""Would this bundle install from these catalogs? (``opm alpha resolve`` of the dependency
resolution enhancement, operator-dependency-resolution.md.)

The bundle directory becomes a catalog of its own, preferred to every other catalog, with the
bundle in each channel its annotations name; then the bundle is required exactly and resolved as
a cluster would resolve it. A bundle that is already published (same name in a catalog) is thus
checked in its new form, not in the published one.
"""

from __future__ import annotations

from deppy.catalog.bundle_dir import BundleDir
from deppy.catalog.bundle_tree import catalog_of_bundle_dirs
from deppy.catalog.catalog_set import BundleSource, CatalogSet
from deppy.catalog.model import Catalog
from deppy.catalog.overlay import Overlay
from deppy.errors import InputError
from deppy.resolution.answer import Resolution
from deppy.resolution.request import ClusterFacts, ResolutionRequest
from deppy.resolution.resolver import resolve
from deppy.workflows.catalog_check import require_exactly

__all__ = ["BUNDLE_CATALOG", "bundle_catalog", "validate_bundle"]

BUNDLE_CATALOG = "bundle-dir"


def bundle_catalog(loaded: BundleDir, name: str, where: str) -> Catalog:
    """A one-bundle catalog, as ``opm render`` + a channel entry per annotated channel."""
    if loaded.bundle is None:
        first = f": {loaded.problems[0]}" if loaded.problems else ""
        raise InputError(where, f"no bundle can be built from this directory{first}")
    if not loaded.channels:
        raise InputError(
            where,
            "metadata/annotations.yaml names no channel, so no catalog could offer the bundle",
            "set operators.operatorframework.io.bundle.channels.v1",
        )
    return catalog_of_bundle_dirs([(loaded, where)], name, 0, where)


def validate_bundle(
    loaded: BundleDir, where: str, source: BundleSource, cluster: ClusterFacts
) -> Resolution:
    """Resolve the directory's bundle, required exactly, over ``source``."""
    name = BUNDLE_CATALOG
    while name in source.names():
        name += "-"
    catalog = bundle_catalog(loaded, name, where)
    bundle = next(iter(catalog.bundles.values()))
    combined = Overlay(CatalogSet([catalog]), source)
    request = ResolutionRequest(required=(require_exactly(bundle),), cluster=cluster)
    return resolve(combined, request)
