"""What comparing two releases of a catalog looks at, package by package.

A catalog diff (``deppy catalog diff``, a fleet plan ``--since`` an older catalog) needs of each
package only its default channel, its channels, its deprecation entries and its bundles' names
and versions — plus the platform limits of the few bundles whose content changed. Those facts
come from a loaded :class:`~deppy.catalog.model.Catalog` (:func:`facts_of_catalog`) or straight
from the store's rows (``deppy.store.release_facts``), which decodes a bundle only when asked:
decoding every bundle of two community catalogs would cost seconds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from deppy.catalog.model import Catalog, Channel, Deprecation
from deppy.catalog.semver import Version

__all__ = ["CatalogFacts", "Limits", "ModelFacts", "PackageFacts", "facts_of_catalog"]


@dataclass(frozen=True, slots=True)
class Limits:
    """A bundle's platform limits: the newest OpenShift it allows, the oldest Kubernetes."""

    max_openshift_version: Version | None = None
    min_kube_version: Version | None = None


@dataclass(frozen=True, slots=True)
class PackageFacts:
    """One package of one catalog as a diff compares it; channels in name order."""

    name: str
    default_channel: str | None
    channels: tuple[Channel, ...]
    deprecations: tuple[Deprecation, ...]
    # bundle name -> version; the package's own bundles (channel entries may name others)
    versions: Mapping[str, Version] = field(compare=False)


class CatalogFacts:
    """A catalog's packages (in name order) and, on demand, its bundles' platform limits."""

    def __init__(self, name: str, packages: Mapping[str, PackageFacts]) -> None:
        self.name = name
        self.packages = packages

    def limits(self, package: str, bundle: str) -> Limits:
        """The platform limits of one bundle of the catalog."""
        raise NotImplementedError

    def same_bundle(self, other: CatalogFacts, package: str, bundle: str) -> bool:
        """True when the bundle is known to be the same in ``other`` down to its last
        property (nothing of it can have changed); False when that is not known cheaply."""
        return False

    def bundle_count(self) -> int:
        return sum(len(p.versions) for p in self.packages.values())


class ModelFacts(CatalogFacts):
    """The facts of a catalog loaded whole."""

    def __init__(self, catalog: Catalog) -> None:
        super().__init__(catalog.name, _packages_of(catalog))
        self._catalog = catalog

    def limits(self, package: str, bundle: str) -> Limits:
        found = self._catalog.bundles[(package, bundle)]
        return Limits(found.max_openshift_version, found.min_kube_version)

    def same_bundle(self, other: CatalogFacts, package: str, bundle: str) -> bool:
        # the very same object: two sides that share one loaded catalog
        return isinstance(other, ModelFacts) and (
            self._catalog.bundles.get((package, bundle))
            is other._catalog.bundles.get((package, bundle))
        )


def facts_of_catalog(catalog: Catalog) -> CatalogFacts:
    """The diff's view of a loaded catalog."""
    return ModelFacts(catalog)


def _packages_of(catalog: Catalog) -> dict[str, PackageFacts]:
    deprecations: dict[str, list[Deprecation]] = {}
    for deprecation in catalog.deprecations:
        deprecations.setdefault(deprecation.package, []).append(deprecation)
    versions: dict[str, dict[str, Version]] = {}
    for (package, name), bundle in catalog.bundles.items():
        versions.setdefault(package, {})[name] = bundle.version
    names = sorted(set(catalog.packages) | set(versions))
    return {
        name: PackageFacts(
            name,
            catalog.packages[name].default_channel if name in catalog.packages else None,
            tuple(catalog.channels_of(name)),
            tuple(deprecations.get(name, ())),
            versions.get(name, {}),
        )
        for name in names
    }
