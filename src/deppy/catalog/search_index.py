"""What a package can be found by, and how well a term matches: shared by every search.

A package offers rows to match against: its name, its bundles' names, what its head bundle says
of itself (display name, keywords, description) and the APIs its bundles provide. The store
writes these rows when a catalog is added, so ``deppy search`` reads a few matching rows with
SQL instead of decoding every bundle; an in-memory catalog computes the same rows on the fly.
One function ranks a row for a term, so both give the same hits in the same order.

A term matches a text exactly, at its start, or at the start of one of its words (after a
non-alphanumeric character, or where camelCase starts a new word) — never inside an unrelated
word: "dis" does not find "redis".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from deppy.catalog.model import Bundle, Channel, Package

__all__ = ["PackageCard", "SearchRow", "head_bundle", "package_rows", "row_tier", "word_match"]

# Match tiers, best first.
EXACT, PREFIX, NAME_WORD, METADATA, DESCRIPTION = range(5)
TIER_NAMES = ("exact name", "name prefix", "name word", "metadata", "description")

NAME, BUNDLE_NAME, DISPLAY, KEYWORD, API, ABOUT = (
    "name",
    "bundle name",
    "display name",
    "keyword",
    "API",
    "description",
)


FLOOR = {NAME: EXACT, BUNDLE_NAME: EXACT, DISPLAY: METADATA, KEYWORD: METADATA, API: METADATA}
FLOOR[ABOUT] = DESCRIPTION  # the best tier each field can reach


@dataclass(frozen=True, slots=True)
class SearchRow:
    """One text a package can be found by. ``ordinal`` orders a package's rows (the first best
    match wins); ``shown`` is what a hit says matched; ``bundles`` the bundles it is theirs."""

    catalog: str
    package: str
    ordinal: int
    field: str
    text: str
    shown: str
    bundles: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PackageCard:
    """What a hit shows of its package."""

    catalog: str
    package: str
    display_name: str
    latest: str
    default_channel: str | None


def head_bundle(
    package: Package | None, channels: Iterable[Channel], bundles: Sequence[Bundle]
) -> Bundle | None:
    """The bundle that speaks for a package: the newest of its default channel (where OLM's
    package manifest takes the display name and description), else its newest bundle."""
    if not bundles:
        return None
    default = package.default_channel if package else None
    entries = {e.name for c in channels if c.name == default for e in c.entries}
    in_default = [b for b in bundles if b.name in entries] or list(bundles)
    return max(in_default, key=lambda b: (b.version, b.name))


def _metadata(bundle: Bundle | None) -> Mapping[str, Any]:
    meta = bundle.csv_metadata if bundle is not None else None
    return meta if isinstance(meta, Mapping) else {}


def _text(meta: Mapping[str, Any], key: str) -> str:
    value = meta.get(key)
    return value if isinstance(value, str) else ""


def package_rows(
    catalog: str,
    package: Package | None,
    name: str,
    channels: Iterable[Channel],
    bundles: Sequence[Bundle],
) -> tuple[PackageCard, list[SearchRow]]:
    """The card and the rows of one package of one catalog (``bundles``: its bundles there)."""
    head = head_bundle(package, channels, bundles)
    meta = _metadata(head)
    card = PackageCard(
        catalog,
        name,
        _text(meta, "displayName"),
        str(head.version) if head else "",
        package.default_channel if package else None,
    )
    # ``shown`` is left empty where it is the text itself (most rows): less to store and read
    found: list[tuple[str, str, str, str | None]] = [(NAME, name, "", None)]
    if card.display_name:
        found.append((DISPLAY, card.display_name, "", None))
    keywords = meta.get("keywords")
    for keyword in keywords if isinstance(keywords, list) else ():
        if isinstance(keyword, str) and keyword:
            found.append((KEYWORD, keyword, "", None))
    about = (package.description if package else "") or _text(meta, "description")
    if about:
        found.append((ABOUT, about, "", None))
    for bundle in sorted(bundles, key=lambda b: (b.version, b.name), reverse=True):
        found.append((BUNDLE_NAME, bundle.name, "", bundle.name))
        for gvk in bundle.provided_gvks:
            shown = str(gvk)
            found.append((API, gvk.kind, shown, bundle.name))
            found.append((API, gvk.group, shown, bundle.name))
    return card, _grouped(catalog, name, found)


def _grouped(
    catalog: str, package: str, found: list[tuple[str, str, str, str | None]]
) -> list[SearchRow]:
    """One row per distinct (field, text, shown), its bundles in the order they were found."""
    order: dict[tuple[str, str, str], list[str]] = {}
    for field, text, shown, bundle in found:
        bundles = order.setdefault((field, text, shown), [])
        if bundle is not None and bundle not in bundles:
            bundles.append(bundle)
    return [
        SearchRow(catalog, package, n, field, text, shown, tuple(bundles))
        for n, ((field, text, shown), bundles) in enumerate(order.items())
    ]


def word_match(text: str, needle: str) -> bool:
    """Whether ``needle`` (lower case) starts at the start of a word of ``text``: after a
    character that is not a letter or digit, or where camelCase starts a word."""
    return _word_start(needle).search(text) is not None


@lru_cache(maxsize=64)
def _word_start(needle: str) -> re.Pattern[str]:
    boundary = r"(?:(?<![^\W_])|(?-i:(?<=[a-z])(?=[A-Z])))"
    return re.compile(boundary + re.escape(needle), re.IGNORECASE)


def row_tier(row: SearchRow, needle: str) -> int | None:
    """How well ``needle`` (lower case, single-spaced) matches a row; None: not at all."""
    folded = row.text.lower()
    if row.field in (NAME, BUNDLE_NAME):
        if folded == needle:
            return EXACT
        if folded.startswith(needle):
            return PREFIX
        return NAME_WORD if word_match(row.text, needle) else None
    if row.field == DISPLAY:
        return METADATA if word_match(row.text, needle) else None
    if row.field in (KEYWORD, API) and folded == needle:
        return METADATA
    return DESCRIPTION if word_match(row.text, needle) else None
