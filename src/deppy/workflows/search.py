"""Finding packages by what a person remembers of them: a name, a title, a keyword or an API.

A package matches on its name and its bundles' names first (exact, then prefix, then substring),
then on what its newest bundle says of itself (display name, keywords) and the APIs its bundles
provide, and last on its description — so the package someone names exactly is never buried
under packages that merely mention the word. One hit per package per catalog, best match kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.model import Bundle

__all__ = ["SearchHit", "package_head", "search"]

# Match tiers, best first.
EXACT, PREFIX, SUBSTRING, METADATA, DESCRIPTION = range(5)
TIER_NAMES = ("exact name", "name prefix", "name contains", "metadata", "description")


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
        if self.what == "name":
            return TIER_NAMES[self.tier]
        if self.what == "bundle name":
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


def package_head(
    source: BundleSource, catalog: str, package: str, bundles: Iterable[Bundle] | None = None
) -> Bundle | None:
    """The bundle that speaks for a package: the newest of its default channel (where OLM's
    package manifest takes the display name and description), else its newest bundle.
    ``bundles`` are the package's bundles in ``catalog`` when the caller has them already."""
    if bundles is None:
        bundles = source.bundles_of(package)
    bundles = [b for b in bundles if b.catalog == catalog]
    if not bundles:
        return None
    meta = source.package(catalog, package)
    default = meta.default_channel if meta else None
    entries = {
        e.name for c in source.channels(catalog, package) if c.name == default for e in c.entries
    }
    in_default = [b for b in bundles if b.name in entries] or bundles
    return max(in_default, key=lambda b: (b.version, b.name))


def _metadata(bundle: Bundle | None) -> Mapping[str, Any]:
    meta = bundle.csv_metadata if bundle is not None else None
    return meta if isinstance(meta, Mapping) else {}


def _text(meta: Mapping[str, Any], key: str) -> str:
    value = meta.get(key)
    return value if isinstance(value, str) else ""


def _keywords(meta: Mapping[str, Any]) -> list[str]:
    value = meta.get("keywords")
    return [k for k in value if isinstance(k, str)] if isinstance(value, list) else []


def _name_tier(term: str, name: str) -> int | None:
    name = name.lower()
    if name == term:
        return EXACT
    if name.startswith(term):
        return PREFIX
    if term in name:
        return SUBSTRING
    return None


@dataclass(slots=True)
class _Best:
    """The best match found so far for one package of one catalog."""

    tier: int = DESCRIPTION + 1
    what: str = ""
    matched: str = ""
    bundles: list[str] = field(default_factory=list)

    def offer(self, tier: int, what: str, matched: str, bundle: str | None = None) -> None:
        if tier < self.tier:
            self.tier, self.what, self.matched, self.bundles = tier, what, matched, []
        elif (tier, what, matched) != (self.tier, self.what, self.matched):
            return
        if bundle is not None and bundle not in self.bundles:
            self.bundles.append(bundle)


def _bundle_matches(term: str, bundle: Bundle, best: _Best) -> None:
    tier = _name_tier(term, bundle.name)
    if tier is not None:
        best.offer(tier, "bundle name", "", bundle.name)
    for gvk in bundle.provided_gvks:
        kind, group = gvk.kind.lower(), gvk.group.lower()
        if term in (kind, group):
            best.offer(METADATA, "API", str(gvk), bundle.name)
        elif term in kind or term in group:
            best.offer(DESCRIPTION, "API", str(gvk), bundle.name)


def _package_matches(term: str, package: str, head: Bundle | None, description: str) -> _Best:
    best = _Best()
    tier = _name_tier(term, package)
    if tier is not None:
        best.offer(tier, "name", package)
    meta = _metadata(head)
    display = _text(meta, "displayName")
    if display and term in display.lower():
        best.offer(METADATA, "display name", display)
    for keyword in _keywords(meta):
        if keyword.lower() == term:
            best.offer(METADATA, "keyword", keyword)
        elif term in keyword.lower():
            best.offer(DESCRIPTION, "keyword", keyword)
    text = description or _text(meta, "description")
    if text and term in text.lower():
        best.offer(DESCRIPTION, "description", _excerpt(text, term))
    return best


def _excerpt(text: str, term: str, width: int = 60) -> str:
    """The words around the match, on one line."""
    flat = " ".join(text.split())
    at = flat.lower().find(term)
    start = max(0, at - width // 3)
    end = min(len(flat), start + width)
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")


def search(source: BundleSource, term: str) -> list[SearchHit]:
    """Packages matching ``term`` (case-insensitive), best matches first, then by name and
    catalog preference."""
    needle = " ".join(term.split()).lower()
    if not needle:
        return []
    by_package: dict[tuple[str, str], list[Bundle]] = {}
    for bundle in source.all_bundles():
        by_package.setdefault((bundle.catalog, bundle.package), []).append(bundle)
    hits: list[SearchHit] = []
    for (catalog, package), bundles in by_package.items():
        hit = _hit(source, needle, catalog, package, bundles)
        if hit is not None:
            hits.append(hit)
    hits.sort(key=lambda h: (h.tier, h.package, source.rank(h.catalog)))
    return hits


def _hit(
    source: BundleSource, term: str, catalog: str, package: str, bundles: Iterable[Bundle]
) -> SearchHit | None:
    meta = source.package(catalog, package)
    bundles = list(bundles)
    head = package_head(source, catalog, package, bundles)
    best = _package_matches(term, package, head, meta.description if meta else "")
    for bundle in sorted(bundles, key=lambda b: (b.version, b.name), reverse=True):
        _bundle_matches(term, bundle, best)
    if best.tier > DESCRIPTION:
        return None
    return SearchHit(
        package=package,
        catalog=catalog,
        tier=best.tier,
        what=best.what,
        matched=best.matched,
        display_name=_text(_metadata(head), "displayName"),
        latest=str(head.version) if head else "",
        default_channel=meta.default_channel if meta else None,
        bundles=tuple(best.bundles),
    )
