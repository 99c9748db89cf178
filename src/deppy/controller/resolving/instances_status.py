"""An Input's ``status.instances`` as the seed shows it: the bundles that meet its constraints,
what each depends on and what depends on it (with the need each one meets), and — when the
namespace cannot be resolved — ``DependenciesMissing`` on the bundle the Input would get."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from deppy.catalog.model import Bundle
from deppy.controller.conditions import set_condition
from deppy.resolution.answer import Resolution
from deppy.resolution.context import ResolutionContext
from deppy.resolution.dependencies import needs_of
from deppy.resolution.nodes import RequiredPackageProducer
from deppy.resolution.request import RequiredPackage

Links = dict[str, dict[str, list[str]]]  # bundle name -> other bundle name -> needs met


def _links(selected: Sequence[Bundle], context: ResolutionContext) -> tuple[Links, Links]:
    chosen = set(selected)
    depends: Links = {b.name: {} for b in selected}
    satisfies: Links = {b.name: {} for b in selected}
    for bundle in selected:
        for need in needs_of(bundle, context):
            target = next((c for c in need.candidates if c in chosen and c != bundle), None)
            if target is None:
                continue
            depends[bundle.name].setdefault(target.name, []).append(need.need)
            satisfies[target.name].setdefault(bundle.name, []).append(need.need)
    return depends, satisfies


def _listed(links: Mapping[str, list[str]]) -> list[dict[str, Any]]:
    return [{"name": n, "meets": sorted(set(m))} for n, m in sorted(links.items())]


def _instance(bundle: Bundle, channel: str | None) -> dict[str, Any]:
    return {
        "name": bundle.name,
        "package": bundle.package,
        "version": str(bundle.version),
        "catalog": bundle.catalog,
        "channel": channel or "",
    }


def input_statuses(
    wanted_by: Mapping[str, Sequence[RequiredPackage]],
    resolution: Resolution | None,
    context: ResolutionContext,
    entries: Sequence[Bundle],
) -> dict[str, dict[str, Any]]:
    """``status.instances`` per Input name."""
    if resolution is not None and not resolution.resolved:
        return {
            name: {"instances": _missing(wanted, context)} for name, wanted in wanted_by.items()
        }
    if resolution is not None:
        picked = [(s.source, s.channel) for s in resolution.selection or () if s.source]
    else:
        picked = [(b, context.order.preferred_channel(b)) for b in entries]
    selected = [b for b, _ in picked]
    depends, satisfies = _links(selected, context)
    result: dict[str, dict[str, Any]] = {}
    for name, wanted in wanted_by.items():
        packages = {r.package for r in wanted}
        instances = []
        for bundle, channel in picked:
            if bundle.package not in packages:
                continue
            item = _instance(bundle, channel)
            item["dependencies"] = _listed(depends.get(bundle.name, {}))
            item["satisfies"] = _listed(satisfies.get(bundle.name, {}))
            instances.append(item)
        result[name] = {"instances": instances}
    return result


def _missing(wanted: Sequence[RequiredPackage], context: ResolutionContext) -> list[dict[str, Any]]:
    """For a failed resolution: the bundle each requirement would prefer, and which of its
    dependency constraints no bundle in the catalogs can meet."""
    instances = []
    for requirement in wanted:
        candidates = RequiredPackageProducer.candidates(requirement, context)
        if not candidates:
            continue
        bundle = candidates[0]
        needs = needs_of(bundle, context)
        unmet = [n for n in needs if not n.candidates]
        item = _instance(bundle, context.order.preferred_channel(bundle, requirement.channel))
        if unmet:
            why = "; ".join(f"{n.need}: {n.missing or 'no bundle provides it'}" for n in unmet)
            message = (
                f"{bundle.name} has {len(needs)} dependency constraints; "
                f"{len(needs) - len(unmet)} can be met, not: {why}"
            )
            reason = f"Only{len(needs) - len(unmet)}Of{len(needs)}Met"
            item["conditions"] = set_condition(None, "DependenciesMissing", True, reason, message)
        else:
            item["conditions"] = set_condition(
                None,
                "DependenciesMissing",
                False,
                "AllCanBeMet",
                "each dependency has a candidate; the conflict is elsewhere (see the explanation)",
            )
        instances.append(item)
    return instances
