"""Would this bundle install from these catalogs? (``opm alpha resolve`` of the dependency
resolution enhancement, operator-dependency-resolution.md.)

The bundle directory becomes a catalog of its own, preferred to every other catalog, with the
bundle in each channel its annotations name; then the bundle is required exactly and resolved as
a cluster would resolve it. A bundle that is already published (same name in a catalog) is thus
checked in its new form, not in the published one.
"""

from __future__ import annotations

from dataclasses import replace

from deppy.catalog.bundle_dir import BundleDir
from deppy.catalog.bundle_tree import catalog_of_bundle_dirs
from deppy.catalog.catalog_set import BundleSource, CatalogSet
from deppy.catalog.model import Catalog
from deppy.catalog.overlay import Overlay
from deppy.errors import InputError
from deppy.explain import Explanation, Suggestion
from deppy.resolution.answer import Resolution
from deppy.resolution.request import ClusterFacts, ResolutionRequest
from deppy.resolution.resolver import resolve
from deppy.workflows.catalog_check import require_exactly

__all__ = ["BUNDLE_CATALOG", "author_advice", "bundle_catalog", "validate_bundle"]

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
    resolution = resolve(combined, request)
    if resolution.explanation is None:
        return resolution
    advice = author_advice(resolution.explanation)
    return replace(resolution, explanation=replace(resolution.explanation, suggestions=advice))


def author_advice(explanation: Explanation) -> tuple[Suggestion, ...]:
    """What to change in the bundle, for each cause of the failure: an operator author edits
    the bundle, not a request (a resolver's "require another version" means nothing here)."""
    found: dict[str, Suggestion] = {}
    for cause in explanation.causes:
        need = str(cause.data.get("need", ""))
        text = _ADVICE.get(cause.kind)
        if cause.kind == "missing" and need.startswith("package "):
            text = (
                f"depend on versions a catalog offers: change the {need} dependency "
                "(olm.package.required in metadata/dependencies.yaml), or publish it first"
            )
        elif cause.kind == "missing" and need.startswith("API "):
            text = (
                f"remove the bundle's need for {need} from the CSV's "
                "spec.customresourcedefinitions.required or olm.gvk in "
                "metadata/dependencies.yaml, or publish an operator that provides it first"
            )
        elif cause.kind == "missing" and need:
            text = f"change or drop the dependency on {need} in metadata/dependencies.yaml"
        if text is not None:
            found.setdefault(text, Suggestion(text, {"kind": "edit-bundle", "cause": cause.kind}))
    return tuple(found.values())


_ADVICE = {
    "invalid-constraint": (
        "fix the olm.constraint in metadata/dependencies.yaml (or the CSV's olm.properties): "
        "OLM rejects the whole bundle while it is invalid"
    ),
    "openshift": (
        "if the operator runs on newer OpenShift, raise olm.maxOpenShiftVersion (the CSV's "
        "olm.properties annotation); else this cluster version is out of its support"
    ),
    "kubernetes": (
        "if the operator runs on older Kubernetes, lower the CSV's spec.minKubeVersion; "
        "else this cluster is too old for it"
    ),
    "one-per-api": (
        "another operator the bundle installs with owns the same API: own a distinct CRD, or "
        "require that operator's API instead of owning it"
    ),
}
