"""Ways out for a ClusterExtension with no bundle, in its own fields: ``SelfCertified`` (when
only a move outside the upgrade edges — often a downgrade — helps), a selector naming another
catalog (a tie, a catalog the selector left out, a selector that matches none) or no selector,
a ClusterCatalog made Available, another channel, the nearest versions on either side of the
constraint, no channel or version constraint at all.

Each is proposed only when OLM v1's rules pick a bundle with it; the explanation then
re-resolves the changed request before showing it, as every suggestion. They come ranked by how
little of the request they change — what the user asked for (the version, the channels) kept
first — and JSON lists them in that order; the text shows those that keep the version range
first (``Suggestion.keeps_asked``), so advice ranked among them, or a version change, never
pushes them off the one screen. A policy change that OLM v1 would accept but whose bundles
need APIs no catalog provides is not offered; advice says so instead of staying silent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from deppy.catalog.model import Bundle
from deppy.catalog.semver import Version, VersionError
from deppy.catalog.semver.extension_constraint import ExtensionConstraint
from deppy.catalog.semver.release import version_release_key
from deppy.resolution.context import ResolutionContext
from deppy.resolution.installed import CLUSTER_CATALOG
from deppy.resolution.olmv1.catalogs import NAME_LABEL
from deppy.resolution.olmv1.rules import extension_outcome
from deppy.resolution.request import SELF_CERTIFIED, CatalogChoice, ExtensionTerms, RequiredPackage
from deppy.resolution.suggestions import Advice, ChangeCatalog, ChangeExtension, RequestChange

MAX_CHANNELS = 3
MAX_TRIES = 6  # versions tried on each side of a constraint before giving up on that side

# How much of the request a way out changes, least first (the order they are shown in).
AVAILABLE, POLICY, SELECTOR, CHANNEL, NO_SELECTOR, EVERY_CHANNEL, VERSION, ANY_VERSION = range(8)


Propose = Callable[..., bool]
"""Proposes one change of a field (rank, field, value, terms after it, lead, nearness); True
when OLM v1 would then pick a bundle."""


@dataclass(frozen=True, slots=True)
class _Ranked:
    rank: int
    nearness: tuple[int, ...]
    change: RequestChange


def _channel_names(
    requirement: RequiredPackage, terms: ExtensionTerms, context: ResolutionContext
) -> list[str]:
    names = {
        channel.name
        for choice in terms.catalogs
        for channel in context.catalogs.channels(choice.name, requirement.package)
    }
    return sorted(names - set(terms.channels))


def _anchor(constraint: ExtensionConstraint) -> Version:
    """The lowest version a constraint names: versions below it lie "below" the range."""
    lowest = min((c for group in constraint.groups for c in group), key=lambda c: c.key)
    return Version(lowest.major, lowest.minor, lowest.patch)


def _distance(version: Version, anchor: Version) -> tuple[int, ...]:
    return (
        abs(version.major - anchor.major),
        abs(version.minor - anchor.minor),
        abs(version.patch - anchor.patch),
    )


def _nearest_sides(
    bundles: Sequence[Bundle], constraint: ExtensionConstraint
) -> tuple[list[Version], list[Version]]:
    """Versions outside the constraint, nearest first: those below its lowest named version
    (highest first), and those from it up (lowest first)."""
    anchor = _anchor(constraint)
    versions = sorted({b.version for b in bundles if not constraint.contains(b.version)})
    below = [v for v in versions if v < anchor][::-1]
    above = [v for v in versions if v >= anchor]
    return below[:MAX_TRIES], above[:MAX_TRIES]


def _unmet_apis(bundles: Sequence[Bundle], context: ResolutionContext) -> list[str]:
    """The APIs each of ``bundles`` needs that no catalog provides, when every one needs one
    (else [])."""
    missing: dict[str, None] = {}
    for bundle in bundles:
        lacking = [g for g in bundle.required_gvks if not context.catalogs.providers_of(g)]
        if not lacking:
            return []
        missing.update((f"the API {g}", None) for g in lacking)
    return list(missing)


def extension_ways_out(
    requirement: RequiredPackage, index: int, context: ResolutionContext
) -> list[RequestChange]:
    terms = requirement.extension
    if terms is None:
        return []
    found: list[_Ranked] = []

    def outcome_of(changed: ExtensionTerms) -> Bundle | None:
        text = changed.constraint.text if changed.constraint else ""
        asked = replace(requirement, extension=changed, versions_text=text)
        return extension_outcome(asked, context).chosen

    def why(chosen: Bundle, lead: str = "") -> str:
        move = ""
        if terms.installed is not None:
            now = version_release_key(terms.installed.version)
            then = version_release_key(chosen.version)
            move = "downgrade to " if then < now else "upgrade to " if then > now else "keep "
        if chosen.catalog == CLUSTER_CATALOG:  # OLM v1's fallback (rules.falls_back)
            kept = f"{chosen.package} {chosen.version}"
            return f"{lead}keep {kept}: no catalog is left, OLM v1 falls back"
        return f"{lead}{move}{chosen.package} {chosen.version} from catalog {chosen.catalog}"

    def propose(
        rank: int,
        field: str,
        value: Any,
        changed: ExtensionTerms,
        lead: str = "",
        near: tuple[int, ...] = (),
    ) -> bool:
        chosen = outcome_of(changed)
        if chosen is None:
            return False
        change = ChangeExtension(index, field, value, changed, why(chosen, lead))
        found.append(_Ranked(rank, near, change))
        return True

    for choice in terms.unavailable:
        chosen = outcome_of(replace(terms, catalogs=(*terms.catalogs, choice)))
        if chosen is not None:
            change = ChangeCatalog(choice.name, why(chosen, f"{terms.name}: "))
            found.append(_Ranked(AVAILABLE, (), change))
    if terms.installed is not None and terms.policy != SELF_CERTIFIED:
        _self_certified(requirement, index, context, found)
    _selectors(requirement, context, propose)
    if terms.channels:
        for name in _channel_names(requirement, terms, context)[:MAX_CHANNELS]:
            propose(CHANNEL, "channels", [name], replace(terms, channels=(name,)))
        propose(EVERY_CHANNEL, "channels", None, replace(terms, channels=()), "every channel: ")
    if terms.constraint is not None:
        _versions(requirement, terms, context, propose)
        propose(ANY_VERSION, "version", None, replace(terms, constraint=None), "any version: ")
    found.sort(key=lambda r: (r.rank, r.nearness))
    return [r.change for r in found]


def _self_certified(
    requirement: RequiredPackage, index: int, context: ResolutionContext, found: list[_Ranked]
) -> None:
    """``SelfCertified`` when OLM v1 would then pick a bundle; advice naming the APIs when
    every bundle it could pick needs one no catalog provides (the change could never resolve)."""
    terms = requirement.extension
    assert terms is not None and terms.installed is not None
    changed = replace(terms, policy=SELF_CERTIFIED)
    text = changed.constraint.text if changed.constraint else ""
    outcome = extension_outcome(
        replace(requirement, extension=changed, versions_text=text), context
    )
    chosen = outcome.chosen
    if chosen is None:
        return
    apis = _unmet_apis(outcome.candidates, context)
    if apis:
        advice = (
            f"upgradeConstraintPolicy: SelfCertified is no way out for ClusterExtension "
            f"{terms.name}: {chosen.package} {chosen.version} and the other bundles it allows "
            f"need {', '.join(apis)}, which no catalog provides"
        )
        brief = f"SelfCertified is no way out: its bundles need {apis[0]}, which no catalog has"
        found.append(_Ranked(POLICY, (), Advice("add-catalog", advice, need=apis[0], brief=brief)))
        return
    now = version_release_key(terms.installed.version)
    move = "downgrade to " if version_release_key(chosen.version) < now else ""
    why = (
        f"no upgrade edge leads there: {move}{chosen.package} {chosen.version} "
        f"from catalog {chosen.catalog}"
    )
    change = ChangeExtension(index, "upgradeConstraintPolicy", SELF_CERTIFIED, changed, why)
    found.append(_Ranked(POLICY, (), change))


def _selectors(requirement: RequiredPackage, context: ResolutionContext, propose: Propose) -> None:
    """A selector naming one catalog (of a tie, or one the selector leaves out), else none."""
    terms = requirement.extension
    assert terms is not None
    outcome = extension_outcome(requirement, context)
    by_name = {c.name: c for c in (*terms.catalogs, *terms.unselected)}
    others: list[CatalogChoice] = [by_name[n] for n in outcome.tied if n in by_name]
    others += [c for c in terms.unselected if c not in others]
    for choice in others:
        selector = {"matchLabels": {NAME_LABEL: choice.name}}
        propose(SELECTOR, "selector", selector, replace(terms, catalogs=(choice,)))
    if terms.unselected:
        every = replace(terms, catalogs=(*terms.catalogs, *terms.unselected), unselected=())
        propose(NO_SELECTOR, "selector", None, every, "every ClusterCatalog: ")


def _versions(
    requirement: RequiredPackage,
    terms: ExtensionTerms,
    context: ResolutionContext,
    propose: Propose,
) -> None:
    """The nearest version below the constraint and the nearest from it up that OLM v1 would
    pick with every other field kept (for 0.4.2 among 0.4.1, 0.5.0, 0.6.0: 0.4.1 and 0.5.0)."""
    assert terms.constraint is not None
    bundles = [
        b
        for b in context.catalogs.bundles_of(requirement.package)
        if b.catalog in {c.name for c in terms.catalogs}
    ]
    anchor = _anchor(terms.constraint)
    for side in _nearest_sides(bundles, terms.constraint):
        for version in side:
            pinned = str(version)
            try:
                constraint = ExtensionConstraint.parse(pinned)
            except VersionError:
                continue
            changed = replace(terms, constraint=constraint)
            if propose(VERSION, "version", pinned, changed, near=_distance(version, anchor)):
                break


__all__ = ["extension_ways_out"]
