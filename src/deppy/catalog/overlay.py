"""Catalogs in memory laid over any other bundle source, preferred to all of it.

``deppy validate`` resolves a bundle directory as if it were a catalog of its own with the
highest priority; the catalogs beneath may be loaded in memory or answered by the store, so the
overlay speaks only the ``BundleSource`` protocol to them and never copies them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from deppy.catalog.catalog_set import BundleSource, CatalogSet
from deppy.catalog.model import GVK, Bundle, Channel, Deprecation, Package

__all__ = ["Overlay"]


class Overlay:
    """``top`` before ``base`` in every lookup (catalog names must differ)."""

    def __init__(self, top: CatalogSet, base: BundleSource) -> None:
        self.top = top
        self.base = base
        self._top_names = set(top.names())

    def _for(self, catalog: str) -> BundleSource:
        return self.top if catalog in self._top_names else self.base

    def rank(self, catalog: str) -> int:
        if catalog in self._top_names:
            return self.top.rank(catalog)
        return len(self._top_names) + self.base.rank(catalog)

    def priority(self, catalog: str) -> int:
        return self._for(catalog).priority(catalog)

    def names(self) -> list[str]:
        return self.top.names() + self.base.names()

    def restricted(self, names: Sequence[str]) -> BundleSource:
        upper = [n for n in names if n in self._top_names]
        lower = [n for n in names if n not in self._top_names]
        if not lower:
            return self.top.restricted(upper)
        if not upper:
            return self.base.restricted(lower)
        top = self.top.restricted(upper)
        assert isinstance(top, CatalogSet)
        return Overlay(top, self.base.restricted(lower))

    def bundles_of(self, package: str) -> list[Bundle]:
        return self.top.bundles_of(package) + self.base.bundles_of(package)

    def providers_of(self, gvk: GVK) -> list[Bundle]:
        return self.top.providers_of(gvk) + self.base.providers_of(gvk)

    def labelled(self, label: str) -> list[Bundle]:
        return self.top.labelled(label) + self.base.labelled(label)

    def has_package(self, package: str) -> bool:
        return self.top.has_package(package) or self.base.has_package(package)

    def package(self, catalog: str, name: str) -> Package | None:
        return self._for(catalog).package(catalog, name)

    def channels(self, catalog: str, package: str) -> list[Channel]:
        return self._for(catalog).channels(catalog, package)

    def all_bundles(self) -> Iterator[Bundle]:
        yield from self.top.all_bundles()
        yield from self.base.all_bundles()

    def package_names(self) -> list[str]:
        return sorted(set(self.top.package_names()) | set(self.base.package_names()))

    def catalogs_with(self, package: str) -> list[str]:
        return self.top.catalogs_with(package) + self.base.catalogs_with(package)

    def deprecation_of(self, bundle: Bundle, channel: str | None = None) -> Deprecation | None:
        return self._for(bundle.catalog).deprecation_of(bundle, channel)

    def is_deprecated(self, bundle: Bundle) -> bool:
        return self._for(bundle.catalog).is_deprecated(bundle)

    def channel_deprecated(self, catalog: str, package: str, channel: str) -> str | None:
        return self._for(catalog).channel_deprecated(catalog, package, channel)
