"""OLM v1's rule set for a ClusterExtension request (operator-controller's catalog resolver).

Per catalog the extension's selector chose (``ExtensionTerms.catalogs``), the package's bundles
are filtered — in any of the requested channels (none named: every bundle), in the version
constraint, and under ``CatalogProvided`` a direct successor of the installed bundle (or the
installed version itself) by a replaces/skips/skipRange edge of those channels; ``SelfCertified``
takes anything in range, downgrades included — then sorted: bundle-level deprecations last, then
version and release, highest first. Each catalog offers its best; a non-deprecated best beats a
deprecated one, then the higher catalog priority wins, and two catalogs left with the same
priority are an error naming them (OLM v1 will not choose).

The winning catalog's filtered bundles are the candidates, in that order: with no
dependencies the solver takes the first, as OLM v1 does; a dependency that cannot be met moves
it to the next one (OLM v1 would refuse the bundle; deppy resolves dependencies).

Where no catalog offers a bundle, no ClusterCatalog the selector matches exists any more, and
the spec asks for no other version than the installed one (:func:`falls_back`), the
installed bundle is the one candidate: OLM v1's controller falls back to it
(operator-controller's ``handleResolutionError``), and the answer says so in a warning.
"""

from __future__ import annotations

from dataclasses import dataclass

from deppy.catalog.model import Bundle
from deppy.catalog.olmv1 import (
    BundlePredicate,
    in_any_channel,
    in_constraint,
    sort_newest_first,
    successor_of,
)
from deppy.resolution.context import ResolutionContext
from deppy.resolution.dependencies import DeppyChoices
from deppy.resolution.installed import CLUSTER_CATALOG
from deppy.resolution.request import (
    SELF_CERTIFIED,
    CatalogChoice,
    ExtensionTerms,
    InstalledBundle,
    RequiredPackage,
)


@dataclass(frozen=True, slots=True)
class CatalogFigures:
    """How far one catalog got with a ClusterExtension (OLM v1 keeps these in its log only)."""

    catalog: str
    priority: int
    package_found: bool
    total: int = 0  # bundles of the package
    in_channels: int = 0  # ... in the requested channels (all, when none is named)
    in_range: int = 0  # ... and in the version constraint
    matched: int = 0  # ... and successors of the installed bundle (CatalogProvided)
    best: Bundle | None = None
    best_deprecated: bool = False

    def describe(self, terms: ExtensionTerms) -> str:
        if not self.package_found:
            return f"catalog {self.catalog}: no such package"
        parts = [f"{self.total} bundle{'s' if self.total != 1 else ''}"]
        if terms.channels:
            parts.append(f"{self.in_channels} in channels [{' '.join(terms.channels)}]")
        if terms.constraint is not None:
            parts.append(f"{self.in_range} in range {terms.constraint.text}")
        if terms.installed is not None and terms.policy != SELF_CERTIFIED:
            parts.append(f"{self.matched} successors of {terms.installed.version} or itself")
        return f"catalog {self.catalog} (priority {self.priority}): " + ", ".join(parts)


@dataclass(frozen=True, slots=True)
class ExtensionOutcome:
    """OLM v1's answer for one ClusterExtension, with the figures behind it."""

    terms: ExtensionTerms
    candidates: tuple[Bundle, ...]  # the winning catalog's, most preferred first
    figures: tuple[CatalogFigures, ...]
    tied: tuple[str, ...] = ()  # catalogs OLM v1 refuses to choose between
    fell_back: bool = False  # no bundle found: the installed one kept (``fallback``)

    @property
    def chosen(self) -> Bundle | None:
        return self.candidates[0] if self.candidates else None

    def fallback_note(self) -> str:
        """What the answer says when OLM v1's controller keeps the installed bundle."""
        installed = self.terms.installed
        assert installed is not None
        return (
            f"ClusterExtension {self.terms.name}: no ClusterCatalog its selector matches exists, "
            f"so OLM v1 finds no bundle and keeps the installed {installed_name(installed)} "
            f"({installed.version}), as its controller falls back when the catalogs are gone "
            "and the spec asks for no other version; it resolves again once a catalog returns"
        )

    def error(self, package: str) -> str:
        """OLM v1's own message (operator-controller's resolutionError), word for word."""
        terms = self.terms
        words = []
        if terms.installed is not None:
            words.append(
                f'error upgrading from currently installed version "{terms.installed.version}":'
            )
        found = "found bundles" if self.tied else "no bundles found"
        words.append(f'{found} for package "{package}"')
        if terms.constraint is not None:
            words.append(f'matching version "{terms.constraint.text}"')
        if terms.channels:
            words.append(f"in channels [{' '.join(terms.channels)}]")
        if self.tied:
            words.append(f"in multiple catalogs with the same priority [{' '.join(self.tied)}]")
        return " ".join(words)


def _terms(requirement: RequiredPackage, context: ResolutionContext) -> ExtensionTerms:
    if requirement.extension is not None:
        return requirement.extension
    # a plain requirement under OLM v1's rules: every catalog, priority by rank (none tie)
    names = context.catalogs.names()
    return ExtensionTerms(
        requirement.package,
        catalogs=tuple(CatalogChoice(n, len(names) - i) for i, n in enumerate(names)),
    )


def extension_outcome(requirement: RequiredPackage, context: ResolutionContext) -> ExtensionOutcome:
    """Filter and sort per catalog, then choose a catalog, as OLM v1 does (memoised per
    resolution: candidates and the explanation ask the same question)."""
    key = ("olmv1", requirement)
    found = context.memo.get(key)
    if isinstance(found, ExtensionOutcome):
        return found
    outcome = _outcome(requirement, _terms(requirement, context), context)
    context.memo[key] = outcome
    return outcome


def _deprecated(context: ResolutionContext) -> BundlePredicate:
    """OLM v1 sorts by bundle-level deprecation only (a deprecated channel or package does not
    move a bundle)."""

    def deprecated(bundle: Bundle) -> bool:
        found = context.catalogs.deprecation_of(bundle)
        return found is not None and found.schema == "olm.bundle"

    return deprecated


def _outcome(
    requirement: RequiredPackage, terms: ExtensionTerms, context: ResolutionContext
) -> ExtensionOutcome:
    deprecated = _deprecated(context)
    by_catalog: dict[str, list[Bundle]] = {}
    for bundle in context.catalogs.bundles_of(requirement.package):
        by_catalog.setdefault(bundle.catalog, []).append(bundle)
    figures: list[CatalogFigures] = []
    matched_by_catalog: dict[str, list[Bundle]] = {}
    for choice in sorted(terms.catalogs, key=lambda c: c.name):  # OLM v1 lists them by name
        bundles = by_catalog.get(choice.name, [])
        if not bundles and context.catalogs.package(choice.name, requirement.package) is None:
            figures.append(CatalogFigures(choice.name, choice.priority, False))
            continue
        channels = context.catalogs.channels(choice.name, requirement.package)
        if terms.channels:
            wanted = set(terms.channels)
            channels = [c for c in channels if c.name in wanted]
            offered = in_any_channel(channels)
            bundles_in_channels = [b for b in bundles if offered(b)]
        else:
            bundles_in_channels = bundles
        in_range = bundles_in_channels
        if terms.constraint is not None:
            allowed = in_constraint(terms.constraint)
            in_range = [b for b in in_range if allowed(b)]
        matched = in_range
        installed = terms.installed
        if installed is not None and terms.policy != SELF_CERTIFIED:
            name = installed_name(installed)
            follows = successor_of(name, installed.version, channels)
            matched = [b for b in matched if follows(b)]
        ordered = sort_newest_first(matched, deprecated)
        matched_by_catalog[choice.name] = ordered
        best = ordered[0] if ordered else None
        figures.append(
            CatalogFigures(
                choice.name,
                choice.priority,
                True,
                len(bundles),
                len(bundles_in_channels),
                len(in_range),
                len(matched),
                best,
                best is not None and deprecated(best),
            )
        )
    contenders = [f for f in figures if f.best is not None]
    if any(not f.best_deprecated for f in contenders):
        contenders = [f for f in contenders if not f.best_deprecated]
    if not contenders and terms.installed is not None and falls_back(terms):
        return ExtensionOutcome(terms, (_kept(terms.installed),), tuple(figures), fell_back=True)
    if not contenders:
        return ExtensionOutcome(terms, (), tuple(figures))
    top = max(f.priority for f in contenders)
    winners = [f for f in contenders if f.priority == top]
    if len(winners) > 1:
        # OLM v1's message names every catalog still in the running, whatever its priority
        tied = tuple(sorted(f.catalog for f in contenders))
        return ExtensionOutcome(terms, (), tuple(figures), tied)
    return ExtensionOutcome(terms, tuple(matched_by_catalog[winners[0].catalog]), tuple(figures))


def falls_back(terms: ExtensionTerms) -> bool:
    """Whether OLM v1's controller keeps the installed bundle when it finds no bundle
    (``handleResolutionError``): one is installed, ``version`` is unset or the installed
    version as written (a range that includes it is another version to OLM v1: the strings
    differ), and no ClusterCatalog the selector matches exists (``CheckCatalogsExist`` lists
    Unavailable ones too); none chosen, so a way out naming a catalog is never a fallback."""
    installed = terms.installed
    if installed is None or not terms.no_catalog_left or terms.catalogs or terms.unavailable:
        return False
    return terms.constraint is None or terms.constraint.text == str(installed.version)


def installed_name(installed: InstalledBundle) -> str:
    return installed.bundle or f"{installed.package}.v{installed.version}"


def _kept(installed: InstalledBundle) -> Bundle:
    """The installed bundle as OLM v1's fallback keeps it: from the cluster, no catalog has it
    (the installed revision's own content stays applied)."""
    return Bundle(
        name=installed_name(installed),
        package=installed.package,
        version=installed.version,
        image="",
        catalog=CLUSTER_CATALOG,
        source="the cluster",
    )


class OLMv1Rules(DeppyChoices):
    """Which candidates, in which order, and why none: OLM v1's answers."""

    name = "olmv1"

    @staticmethod
    def candidates(requirement: RequiredPackage, context: ResolutionContext) -> list[Bundle]:
        outcome = extension_outcome(requirement, context)
        if outcome.fell_back:
            context.warn(outcome.fallback_note())
        return list(outcome.candidates)

    @staticmethod
    def why_none(requirement: RequiredPackage, context: ResolutionContext) -> str:
        outcome = extension_outcome(requirement, context)
        figures = "; ".join(f.describe(outcome.terms) for f in outcome.figures)
        if not outcome.figures:
            figures = nothing_walked(outcome.terms)
        return f"{outcome.error(requirement.package)} ({figures})"


def nothing_walked(terms: ExtensionTerms) -> str:
    """Why OLM v1 walked no catalog: those chosen are Unavailable, or the selector chose none."""
    if terms.unavailable:
        names = ", ".join(c.name for c in terms.unavailable)
        many = len(terms.unavailable) > 1
        return (
            f"ClusterCatalog{'s' if many else ''} {names} {'are' if many else 'is'} "
            f"Unavailable: OLM v1 reads no content from {'them' if many else 'it'} "
            "while spec.availabilityMode says so"
        )
    known = ", ".join(sorted(c.name for c in terms.unselected)) or "none"
    return f"the selector matches no ClusterCatalog; ClusterCatalogs: {known}"


__all__ = [
    "CatalogFigures",
    "ExtensionOutcome",
    "OLMv1Rules",
    "extension_outcome",
    "nothing_walked",
]
