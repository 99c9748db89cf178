"""Several catalogs seen as one source of bundles, with the lookups resolution needs.

This is the OLM entity source: bundles are the entities, looked up by package, provided API and
label across catalogs, with catalog priority and deprecations at hand. Indexes are built once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Protocol

from deppy.catalog.model import GVK, Bundle, Catalog, Channel, Deprecation, Package
from deppy.errors import InputError, excerpt


def find_deprecation(
    bundle: Bundle, channel: str | None, lookup: Callable[[str, str | None], str | None]
) -> Deprecation | None:
    """The most specific deprecation of a bundle: its own, its channel's, then its package's.

    ``lookup(schema, name)`` answers from whatever holds the catalog's deprecation entries.
    """
    keys: list[tuple[str, str | None]] = [("olm.bundle", bundle.name)]
    if channel is not None:
        keys.append(("olm.channel", channel))
    keys.append(("olm.package", None))
    for schema, name in keys:
        message = lookup(schema, name)
        if message is not None:
            return Deprecation(bundle.package, schema, name, message)
    return None


class BundleSource(Protocol):
    """What the resolver asks of its catalogs (the OLM entity source).

    ``CatalogSet`` answers from catalogs loaded in memory; the SQLite store answers the same
    questions lazily, loading only the packages a resolution touches. Orders are part of the
    contract: catalogs by ``rank`` (priority, then name), bundles grouped by catalog rank.
    """

    def rank(self, catalog: str) -> int: ...
    def priority(self, catalog: str) -> int: ...
    def names(self) -> list[str]: ...
    def restricted(self, names: Sequence[str]) -> BundleSource: ...
    def bundles_of(self, package: str) -> list[Bundle]: ...
    def providers_of(self, gvk: GVK) -> list[Bundle]: ...
    def labelled(self, label: str) -> list[Bundle]: ...
    def has_package(self, package: str) -> bool: ...
    def package(self, catalog: str, name: str) -> Package | None: ...
    def channels(self, catalog: str, package: str) -> list[Channel]: ...
    def all_bundles(self) -> Iterator[Bundle]: ...
    def package_names(self) -> list[str]: ...
    def catalogs_with(self, package: str) -> list[str]: ...
    def deprecation_of(self, bundle: Bundle, channel: str | None = None) -> Deprecation | None: ...
    def is_deprecated(self, bundle: Bundle) -> bool: ...
    def channel_deprecated(self, catalog: str, package: str, channel: str) -> str | None: ...


class CatalogSet:
    """An ordered union of catalogs; higher ``priority`` first, then name, for every lookup."""

    def __init__(self, catalogs: Iterable[Catalog]) -> None:
        ordered = sorted(catalogs, key=lambda c: (-c.priority, c.name))
        names = [c.name for c in ordered]
        duplicate = next((n for n in names if names.count(n) > 1), None)
        if duplicate is not None:
            raise InputError(
                f"catalog {excerpt(duplicate)}",
                "two catalogs have the same name",
                "name them apart",
            )
        self.catalogs: tuple[Catalog, ...] = tuple(ordered)
        self._by_name = {c.name: c for c in ordered}
        self._rank = {c.name: index for index, c in enumerate(ordered)}
        self._by_package: dict[str, list[Bundle]] = {}
        self._by_gvk: dict[GVK, list[Bundle]] = {}
        self._by_label: dict[str, list[Bundle]] = {}
        self._deprecated: dict[tuple[str, str, str, str | None], str] = {}
        for catalog in ordered:
            for bundle in catalog.bundles.values():
                self._by_package.setdefault(bundle.package, []).append(bundle)
                for gvk in bundle.provided_gvks:
                    self._by_gvk.setdefault(gvk, []).append(bundle)
                for label in bundle.labels:
                    self._by_label.setdefault(label, []).append(bundle)
            for deprecation in catalog.deprecations:
                key = (catalog.name, deprecation.package, deprecation.schema, deprecation.name)
                self._deprecated[key] = deprecation.message

    # -- catalogs ----------------------------------------------------------------------------
    def rank(self, catalog: str) -> int:
        """Position by preference: 0 is the most preferred catalog (unknown ones last)."""
        return self._rank.get(catalog, len(self._rank))

    def priority(self, catalog: str) -> int:
        """The catalog's own priority (0 for one it does not hold): OLM v0 orders catalogs of
        one priority by namespace before name, which ``rank`` cannot tell."""
        found = self._by_name.get(catalog)
        return found.priority if found else 0

    def catalog(self, name: str) -> Catalog:
        try:
            return self._by_name[name]
        except KeyError:
            known = ", ".join(sorted(self._by_name)) or "none"
            raise InputError(
                f"catalog {excerpt(name)}", "no catalog has this name", f"known catalogs: {known}"
            ) from None

    def names(self) -> list[str]:
        return [c.name for c in self.catalogs]

    def restricted(self, names: Sequence[str]) -> BundleSource:
        """Only the named catalogs (the request's ``sources``); this set itself when it holds
        exactly those (the controller's views already are): indexing a full catalog again costs
        more than the resolution that asks."""
        wanted = [self.catalog(name) for name in dict.fromkeys(names)]
        if len(wanted) == len(self.catalogs):
            return self
        return CatalogSet(wanted)

    # -- lookups -----------------------------------------------------------------------------
    def bundles_of(self, package: str) -> list[Bundle]:
        return list(self._by_package.get(package, ()))

    def providers_of(self, gvk: GVK) -> list[Bundle]:
        return list(self._by_gvk.get(gvk, ()))

    def labelled(self, label: str) -> list[Bundle]:
        return list(self._by_label.get(label, ()))

    def has_package(self, package: str) -> bool:
        return package in self._by_package

    def package(self, catalog: str, name: str) -> Package | None:
        found = self._by_name.get(catalog)
        return found.packages.get(name) if found else None

    def channels(self, catalog: str, package: str) -> list[Channel]:
        found = self._by_name.get(catalog)
        return found.channels_of(package) if found else []

    def all_bundles(self) -> Iterator[Bundle]:
        for catalog in self.catalogs:
            yield from catalog.bundles.values()

    def package_names(self) -> list[str]:
        return sorted(self._by_package)

    def catalogs_with(self, package: str) -> list[str]:
        return sorted({b.catalog for b in self._by_package.get(package, ())}, key=self.rank)

    # -- deprecations ------------------------------------------------------------------------
    def deprecation_of(self, bundle: Bundle, channel: str | None = None) -> Deprecation | None:
        """The most specific deprecation that applies to a bundle (bundle, channel, package)."""
        deprecated = self._deprecated
        return find_deprecation(
            bundle,
            channel,
            lambda schema, name: deprecated.get((bundle.catalog, bundle.package, schema, name)),
        )

    def is_deprecated(self, bundle: Bundle) -> bool:
        return self.deprecation_of(bundle) is not None

    def channel_deprecated(self, catalog: str, package: str, channel: str) -> str | None:
        return self._deprecated.get((catalog, package, "olm.channel", channel))
