"""Finding packages by what a person remembers of them: a name, a title, a keyword or an API.

A package matches on its name and its bundles' names first (exact, then prefix, then a word of
the name), then on what its newest bundle says of itself (display name, keywords) and the APIs
its bundles provide, and last on its description — so the package someone names exactly is never
buried under packages that merely mention the word, and a term never matches inside an unrelated
word. One hit per package per catalog, best match kept. The rows matched and their ranking are
:mod:`deppy.catalog.search_index`'s: the store answers from rows it wrote when the catalog was
added (a few rows read, no bundle decoded); other sources compute the same rows here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.model import Bundle
from deppy.catalog.search_index import (
    ABOUT,
    BUNDLE_NAME,
    DESCRIPTION,
    FLOOR,
    NAME,
    TIER_NAMES,
    PackageCard,
    SearchRow,
    head_bundle,
    package_rows,
    row_tier,
)
from deppy.store.source import StoreSource

__all__ = ["PackageListing", "SearchHit", "list_packages", "package_head", "search"]


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A package of one catalog that matches, and how well (``tier``: 0 exact name … 4
    description); ``bundles`` names the bundles that matched when the match was theirs (a
    bundle name or an API only some versions provide)."""

    package: str
    catalog: str
    tier: int
    what: str
    matched: str
    display_name: str
    latest: str
    default_channel: str | None
    bundles: tuple[str, ...] = ()

    def match_text(self) -> str:
        """What matched, in a few words ("name prefix", "API: Kind (group/version)")."""
        if self.what == NAME:
            return TIER_NAMES[self.tier]
        if self.what == BUNDLE_NAME:
            return "bundle " + ", ".join(self.bundles)
        return f"{self.what}: {self.matched}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "package": self.package,
            "catalog": self.catalog,
            "match": TIER_NAMES[self.tier],
            "field": self.what,
            "matched": self.matched,
            "displayName": self.display_name,
            "latest": self.latest,
            "defaultChannel": self.default_channel,
            "bundles": list(self.bundles),
        }


@dataclass(frozen=True, slots=True)
class PackageListing:
    """One package of one catalog as ``deppy search`` with no term lists it (what ``kubectl
    operator olmv1 search catalog`` shows): its channels, default channel and provider (the
    ``provider.name`` of the bundle that speaks for it, empty when it says none)."""

    package: str
    catalog: str
    channels: tuple[str, ...]
    default_channel: str | None
    provider: str
    latest: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "package": self.package,
            "catalog": self.catalog,
            "channels": list(self.channels),
            "defaultChannel": self.default_channel,
            "provider": self.provider,
            "latest": self.latest,
        }


def list_packages(source: BundleSource) -> list[PackageListing]:
    """Every package of every catalog, by name, then catalog preference (one row per catalog
    that has it, as a term's hits are)."""
    listing: list[PackageListing] = []
    for package in sorted(source.package_names()):
        bundles = source.bundles_of(package)
        for catalog in sorted(source.catalogs_with(package), key=source.rank):
            head = package_head(source, catalog, package, bundles)
            about = source.package(catalog, package)
            listing.append(
                PackageListing(
                    package=package,
                    catalog=catalog,
                    channels=tuple(sorted(c.name for c in source.channels(catalog, package))),
                    default_channel=about.default_channel if about else None,
                    provider=_provider(head),
                    latest=str(head.version) if head else "",
                )
            )
    return listing


def _provider(head: Bundle | None) -> str:
    meta = head.csv_metadata if head is not None else None
    provider = meta.get("provider") if isinstance(meta, Mapping) else None
    name = provider.get("name") if isinstance(provider, Mapping) else None
    return " ".join(name.split()) if isinstance(name, str) else ""


def package_head(
    source: BundleSource, catalog: str, package: str, bundles: Iterable[Bundle] | None = None
) -> Bundle | None:
    """The bundle that speaks for a package in ``catalog`` (see search_index.head_bundle)."""
    if bundles is None:
        bundles = source.bundles_of(package)
    mine = [b for b in bundles if b.catalog == catalog]
    return head_bundle(source.package(catalog, package), source.channels(catalog, package), mine)


def search(source: BundleSource, term: str) -> list[SearchHit]:
    """Packages matching ``term`` (case-insensitive), best matches first, then by name and
    catalog preference."""
    needle = " ".join(term.split()).lower()
    if not needle:
        return []
    indexed = source.search_rows(needle) if isinstance(source, StoreSource) else None
    rows, cards = indexed if indexed is not None else _rows_in_memory(source, needle)
    hits = [
        hit
        for key, package_rows_ in _by_package(rows).items()
        if (hit := _hit(needle, package_rows_, cards[key])) is not None
    ]
    hits.sort(key=lambda h: (h.tier, h.package, source.rank(h.catalog)))
    return hits


def _rows_in_memory(
    source: BundleSource, needle: str
) -> tuple[list[SearchRow], dict[tuple[str, str], PackageCard]]:
    by_package: dict[tuple[str, str], list[Bundle]] = {}
    for bundle in source.all_bundles():
        by_package.setdefault((bundle.catalog, bundle.package), []).append(bundle)
    rows: list[SearchRow] = []
    cards: dict[tuple[str, str], PackageCard] = {}
    for (catalog, package), bundles in by_package.items():
        card, mine = package_rows(
            catalog,
            source.package(catalog, package),
            package,
            source.channels(catalog, package),
            bundles,
        )
        matching = [row for row in mine if needle in row.text.lower()]
        if matching:
            cards[(catalog, package)] = card
            rows.extend(matching)
    return rows, cards


def _by_package(rows: Iterable[SearchRow]) -> dict[tuple[str, str], list[SearchRow]]:
    grouped: dict[tuple[str, str], list[SearchRow]] = {}
    for row in rows:
        grouped.setdefault((row.catalog, row.package), []).append(row)
    return grouped


def _hit(needle: str, rows: list[SearchRow], card: PackageCard) -> SearchHit | None:
    best: tuple[int, SearchRow] | None = None
    for row in sorted(rows, key=lambda r: r.ordinal):
        if best is not None and FLOOR[row.field] >= best[0]:
            continue  # this row cannot do better than the best so far
        tier = row_tier(row, needle)
        if tier is not None and (best is None or tier < best[0]):
            best = (tier, row)
    if best is None:
        return None
    tier, row = best
    bundles = row.bundles if row.field != NAME else ()
    if row.field == BUNDLE_NAME:  # every bundle whose name matches as well
        bundles = tuple(
            b
            for r in sorted(rows, key=lambda r: r.ordinal)
            if r.field == BUNDLE_NAME and row_tier(r, needle) == tier
            for b in r.bundles
        )
    shown = _excerpt(row.text, needle) if row.field == ABOUT else row.shown or row.text
    return SearchHit(
        package=card.package,
        catalog=card.catalog,
        tier=tier,
        what=row.field,
        matched=shown,
        display_name=card.display_name,
        latest=card.latest,
        default_channel=card.default_channel,
        bundles=bundles if tier <= DESCRIPTION else (),
    )


def _excerpt(text: str, term: str, width: int = 60) -> str:
    """The words around the match, on one line."""
    flat = " ".join(text.split())
    at = max(0, flat.lower().find(term))
    start = max(0, at - width // 3)
    end = min(len(flat), start + width)
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")
