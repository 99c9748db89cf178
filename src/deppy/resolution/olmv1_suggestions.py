"""Ways out for a ClusterExtension with no bundle, in its own fields: another version
constraint, other channels, ``SelfCertified`` (when only a move outside the upgrade edges —
often a downgrade — helps), a selector naming another catalog (a tie, or a catalog the selector
left out). Each is proposed only when OLM v1's rules pick a bundle with it; the explanation then
re-resolves the changed request before showing it, as every suggestion."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from deppy.catalog.semver.extension_constraint import ExtensionConstraint
from deppy.catalog.semver.release import version_release_key
from deppy.resolution.context import ResolutionContext
from deppy.resolution.olmv1_request import NAME_LABEL
from deppy.resolution.olmv1_rules import extension_outcome
from deppy.resolution.request import SELF_CERTIFIED, CatalogChoice, ExtensionTerms, RequiredPackage
from deppy.resolution.suggestions import ChangeExtension

MAX_CHANNELS = 3


def _channel_names(
    requirement: RequiredPackage, terms: ExtensionTerms, context: ResolutionContext
) -> list[str]:
    names = {
        channel.name
        for choice in terms.catalogs
        for channel in context.catalogs.channels(choice.name, requirement.package)
    }
    return sorted(names - set(terms.channels))


def extension_ways_out(
    requirement: RequiredPackage, index: int, context: ResolutionContext
) -> list[ChangeExtension]:
    terms = requirement.extension
    if terms is None:
        return []
    found: list[ChangeExtension] = []

    def propose(field: str, value: Any, changed: ExtensionTerms, lead: str = "") -> None:
        text = changed.constraint.text if changed.constraint else ""
        outcome = extension_outcome(
            replace(requirement, extension=changed, versions_text=text), context
        )
        chosen = outcome.chosen
        if chosen is None:
            return
        move = ""
        if changed.installed is not None:
            now = version_release_key(changed.installed.version)
            then = version_release_key(chosen.version)
            move = "downgrade to " if then < now else "upgrade to " if then > now else "keep "
        why = f"{lead}{move}{chosen.package} {chosen.version} from catalog {chosen.catalog}"
        found.append(ChangeExtension(index, field, value, changed, why))

    if terms.constraint is not None:
        free = replace(terms, constraint=None)
        best = extension_outcome(replace(requirement, extension=free, versions_text=""), context)
        if best.chosen is not None:
            pinned = str(best.chosen.version)
            propose("version", pinned, replace(terms, constraint=ExtensionConstraint.parse(pinned)))
            propose("version", None, free, "any version: ")
    if terms.channels:
        propose("channels", None, replace(terms, channels=()), "every channel: ")
        for name in _channel_names(requirement, terms, context)[:MAX_CHANNELS]:
            propose("channels", [name], replace(terms, channels=(name,)))
    if terms.installed is not None and terms.policy != SELF_CERTIFIED:
        propose(
            "upgradeConstraintPolicy",
            SELF_CERTIFIED,
            replace(terms, policy=SELF_CERTIFIED),
            "no upgrade edge leads there: ",
        )
    outcome = extension_outcome(requirement, context)
    by_name = {c.name: c for c in (*terms.catalogs, *terms.unselected)}
    others: list[CatalogChoice] = [by_name[n] for n in outcome.tied if n in by_name]
    others += [c for c in terms.unselected if c not in others]
    for choice in others:
        selector = {"matchLabels": {NAME_LABEL: choice.name}}
        propose("selector", selector, replace(terms, catalogs=(choice,)))
    return found


__all__ = ["extension_ways_out"]
