"""From a minimal unsatisfiable core to an explanation in OLM words.

Every applied constraint of the core carries a fact (``facts.py``); facts of the same shape are
grouped ("these 12 bundles of eclipse-che all need devworkspace-operator, which no catalog
contains") and each kind of fact suggests its own way out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from deppy.catalog.model import Bundle
from deppy.explain import Cause, Explanation
from deppy.explain.render import SCREEN_WIDTH
from deppy.resolution.context import ResolutionContext
from deppy.resolution.olmv1 import extension_ways_out
from deppy.resolution.request import InstalledBundle, RequiredPackage
from deppy.resolution.suggestions import (
    AddSource,
    Advice,
    DropEntry,
    ReplaceRequirement,
    RequestChange,
    Resolve,
    SetCluster,
    checked,
)
from deppy.resolution.variables import (
    INVALID_CONSTRAINT,
    ClusterIncompatible,
    ClusterPolicy,
    Excluded,
    Fact,
    KeptInstalled,
    Needs,
    OLMVariable,
    OnePerAPI,
    OnePerPackage,
    Requested,
    bundle_id,
)
from deppy.solver import AppliedConstraint


def explain(
    core: Sequence[AppliedConstraint],
    variables: dict[str, OLMVariable],
    context: ResolutionContext,
    resolve: Resolve | None = None,
) -> Explanation:
    """The core in OLM words; with ``resolve``, the suggestions that ``resolve`` shows to work
    (without it, none: a suggestion is only shown once seen to work)."""
    facts: list[Fact] = []
    constraints: list[str] = []
    for applied in core:
        owner = variables.get(applied.variable.id)
        fact = owner.fact_of(applied.constraint) if owner else None
        if fact is not None:
            facts.append(fact)
        constraints.append(_constraint_text(applied, fact))
    roots = [f"{_root(f)}" for f in facts if isinstance(f, Requested | KeptInstalled)]
    causes = _causes(facts, context)
    also = _also_blocking(facts, variables)
    summary = (
        "Cannot resolve: " + "; ".join(roots) + " cannot be satisfied together"
        if len(roots) > 1
        else f"Cannot resolve {roots[0]}"
        if roots
        else "Cannot resolve the request"
    )
    short_summary = _short_summary([f for f in facts if isinstance(f, Requested | KeptInstalled)])
    explanation = Explanation(
        summary=summary,
        short_summary=short_summary,
        roots=tuple(roots),
        causes=tuple(causes),
        suggestions=(),
        constraints=tuple(constraints),
        also=tuple(_causes(also, context)),
    )
    if resolve is None:
        return explanation
    return checked(explanation, _changes(facts + also, context), context.request, resolve)


def _constraint_text(applied: AppliedConstraint, fact: Fact | None) -> str:
    """The solver's own words for a constraint of the core, except where they would mislead: an
    empty candidate list of a request or an installed bundle is no *dependency* (the solver's
    generic words for it, kept from the Go reference, are right only for a bundle's)."""
    if isinstance(fact, Needs) and not fact.candidates and not isinstance(fact.dependent, Bundle):
        return f"{applied.variable.id} has no candidate bundle for {fact.need}"
    return applied.text


def _also_blocking(facts: Sequence[Fact], variables: dict[str, OLMVariable]) -> list[Fact]:
    """Other dependencies, of the bundles the core blames, that nothing can satisfy either.

    A minimal core names one reason per bundle; a bundle pinning two missing versions would
    otherwise be "fixed" one pin at a time. Only unsatisfiable needs are added.
    """
    seen = set(map(id, facts))
    extra: list[Fact] = []
    for fact in facts:
        if not (isinstance(fact, Needs) and isinstance(fact.dependent, Bundle)):
            continue
        if fact.candidates:
            continue
        owner = variables.get(bundle_id(fact.dependent))
        for other in owner.facts if owner else ():
            if isinstance(other, Needs) and not other.candidates and id(other) not in seen:
                seen.add(id(other))
                extra.append(other)
    return extra


def _short_summary(roots: Sequence[Requested | KeptInstalled]) -> str:
    """The summary with the requests by name ("a, installed b 1.0 cannot be had together"),
    else counted, for a screen too narrow for the summary."""
    if len(roots) < 2:
        return ""
    names = [
        f.requirement.package if isinstance(f, Requested) else f"installed {f.installed.package}"
        for f in roots
    ]
    return _fitting(
        f"Cannot resolve: {', '.join(names)} cannot be had together",
        f"Cannot resolve these {len(roots)} requests together (see Requested under -v)",
    )


def _root(fact: Requested | KeptInstalled) -> str:
    if isinstance(fact, Requested):
        text = fact.requirement.describe()
        return f"required package {text}"
    held = f", {fact.installed.held}" if fact.installed.held else ""
    return f"installed {fact.installed.describe()}{held}"


def _who(dependent: Bundle | RequiredPackage | InstalledBundle) -> str:
    if isinstance(dependent, Bundle):
        return f"{dependent.package} {dependent.version}"
    if isinstance(dependent, RequiredPackage):
        return f"the requirement {dependent.describe()}"
    return f"installed {dependent.describe()}"


def _versions(bundles: Sequence[Bundle], limit: int = 6) -> str:
    """Versions newest first, the first ``limit`` of them and how many more."""
    ordered = sorted(bundles, key=lambda b: b.version, reverse=True)
    versions = list(dict.fromkeys(str(b.version) for b in ordered))
    shown = ", ".join(versions[:limit])
    return f"{shown} and {len(versions) - limit} more" if len(versions) > limit else shown


def _span(bundles: Sequence[Bundle]) -> str:
    """Versions in a few characters, newest first: ``2.0.0, 1.0.0``, ``7.121.0 … 7.50.0 (73)``."""
    versions = list(dict.fromkeys(b.version for b in bundles))
    versions.sort(reverse=True)
    if len(versions) <= 2:
        return ", ".join(str(v) for v in versions)
    return f"{versions[0]} … {versions[-1]} ({len(versions)})"


_SHORT_REASONS = (
    (r"^no catalog \((.*)\) contains package \S+$", r"in no catalog (\1)"),
    (r"^no bundle in any catalog provides the API .*$", "no catalog here provides it"),
    (r"^only other bundles of (\S+) provide the API .*$", r"only \1 itself provides it"),
    (r"^no bundle in any catalog carries the label .*$", "no catalog has it"),
    (r"^no version of \S+ is in range .*; available: (.*)$", r"catalogs have only \1"),
    # OLM v1 walked no catalog: why matters more than the words of its message
    (
        r'^(.*no bundles found for package "[^"]*").* \((ClusterCatalogs? .*Unavailable):.*\)$',
        r"\2, so \1",
    ),
    (
        r'^(.*no bundles found for package "[^"]*").* \((the selector matches no ClusterCatalog)'
        r".*\)$",
        r"\2, so \1",
    ),
)


def _short_reason(reason: str) -> str:
    """The reason without what the line already says (the package, the API, the range)."""
    for pattern, short in _SHORT_REASONS:
        reason = re.sub(pattern, short, reason)
    return reason


def _fitting(*forms: str) -> str:
    """The first form that fits a screen's bullet line, else the last (the shortest)."""
    return next((form for form in forms if len(form) <= SCREEN_WIDTH - 5), forms[-1])


def _shorter_reason(reason: str) -> str:
    """The short reason without the catalogs it names."""
    return re.sub(r" \(.*\)$", "", _short_reason(reason))


def _candidates(bundles: Sequence[Bundle]) -> str:
    by_package: dict[tuple[str, str], list[Bundle]] = {}
    for bundle in bundles:
        by_package.setdefault((bundle.package, bundle.catalog), []).append(bundle)
    return "; ".join(
        f"{package} {_versions(found)} (catalog {catalog})"
        for (package, catalog), found in by_package.items()
    )


def _limit(fact: ClusterIncompatible) -> str:
    """The bound a cluster fact is about: OpenShift major.minor, or the minimum Kubernetes."""
    bundle = fact.bundle
    if fact.category == "openshift" and bundle.max_openshift_version is not None:
        return f"{bundle.max_openshift_version.major}.{bundle.max_openshift_version.minor}"
    return str(bundle.min_kube_version)


def _cluster_cause(
    category: str, limit: str, bundles: Sequence[Bundle], context: ResolutionContext
) -> Cause:
    """Bundles of one package that the cluster rules out for the same reason, in one line."""
    one = len(bundles) == 1
    who = f"{bundles[0].package} {_versions(bundles)}" + ("" if one else " all")
    cluster = context.request.cluster
    if category == "openshift" and cluster.openshift_version is not None:
        ocp = cluster.openshift_version
        text = (
            f"{who} support{'s' if one else ''} OpenShift up to {limit} "
            f"(olm.maxOpenShiftVersion); the cluster runs {ocp.major}.{ocp.minor}"
        )
    else:
        text = (
            f"{who} need{'s' if one else ''} Kubernetes {limit} or newer (minKubeVersion); "
            f"the cluster runs {cluster.kube_version}"
        )
    data = {"bundle": str(bundles[0])} if one else {"bundles": [str(b) for b in bundles]}
    return Cause(category, text, data)


def _causes(facts: Sequence[Fact], context: ResolutionContext) -> list[Cause]:
    causes: list[Cause] = []
    grouped: dict[tuple[str, str, str | None], list[Bundle]] = {}
    ruled_out: dict[tuple[str, str, str], list[Bundle]] = {}
    for fact in facts:
        if isinstance(fact, Needs) and isinstance(fact.dependent, Bundle):
            key = (fact.dependent.package, fact.need, fact.missing)
            grouped.setdefault(key, []).append(fact.dependent)
        elif isinstance(fact, ClusterIncompatible):
            where = (fact.bundle.package, fact.category, _limit(fact))
            ruled_out.setdefault(where, []).append(fact.bundle)
    emitted: set[tuple[str, str, str | None]] = set()
    for fact in facts:
        if isinstance(fact, ClusterIncompatible):
            where = (fact.bundle.package, fact.category, _limit(fact))
            if where in ruled_out:
                causes.append(_cluster_cause(where[1], where[2], ruled_out.pop(where), context))
            continue
        cause = _cause(fact, grouped, emitted)
        if cause is not None:
            causes.append(cause)
    return causes


def _cause(
    fact: Fact,
    grouped: dict[tuple[str, str, str | None], list[Bundle]],
    emitted: set[tuple[str, str, str | None]],
) -> Cause | None:
    if isinstance(fact, Requested | KeptInstalled | ClusterPolicy):
        return None
    if isinstance(fact, Needs):
        short_who = ""
        if isinstance(fact.dependent, Bundle):
            key = (fact.dependent.package, fact.need, fact.missing)
            if key in emitted:
                return None
            emitted.add(key)
            bundles = grouped[key]
            who = f"{fact.dependent.package} {_versions(bundles)}"
            short_who = f"{fact.dependent.package} {_span(bundles)}"
            verb = "needs" if len(bundles) == 1 else "all need"
        else:
            who = _who(fact.dependent)
            verb = "needs"
        data = {"need": fact.need, "candidates": [str(b) for b in fact.candidates]}
        need = fact.need.removeprefix("package ")
        if fact.candidates:
            if isinstance(fact.dependent, RequiredPackage):
                text = f"{who} matches only {_candidates(fact.candidates)}"
                offered = f"{fact.candidates[0].package} {_span(fact.candidates)}"
                short = f"{who} matches only {offered}"
                versions = {str(b.version) for b in fact.candidates}
                exact = versions == {fact.dependent.versions_text}
                return Cause("needs", text, data, short, restates=exact, rank=-1)
            elif isinstance(fact.dependent, InstalledBundle) and fact.dependent.held:
                text = f"{who} stays as it is, {fact.dependent.held}"
                short = f"{who} stays as it is (held elsewhere)"
                return Cause("needs", text, data, short, rank=-1)
            elif isinstance(fact.dependent, InstalledBundle):
                text = (
                    f"{who} stays or moves forward along its channel, never back: "
                    f"{_candidates(fact.candidates)}"
                )
                short = f"{who} stays or moves forward, never back: {_span(fact.candidates)}"
                return Cause("needs", text, data, short, rank=-1)
            else:
                text = f"{who} {verb} {fact.need}, offered only by {_candidates(fact.candidates)}"
                short = f"{short_who} {verb} {need}, offered only by {_span(fact.candidates)}"
            return Cause("needs", text, data, short)
        if fact.need == INVALID_CONSTRAINT:
            brief = short_who or who
            short = _fitting(
                f"{brief}: invalid olm.constraint ({fact.missing})",
                f"{brief}: invalid olm.constraint (-v says why)",
            )
            return Cause(
                "invalid-constraint",
                f"{who} cannot be installed: its olm.constraint is invalid ({fact.missing})",
                data,
                short,
            )
        reason = fact.missing or "nothing can satisfy it"
        if isinstance(fact.dependent, RequiredPackage):
            short = _fitting(f"{who}: {_short_reason(reason)}", f"{who}: {_shorter_reason(reason)}")
            return Cause("missing", f"{who}: {reason}", data, short)
        short = (
            _fitting(
                f"{short_who} {verb} {need}: {_short_reason(reason)}",
                f"{short_who} {verb} {need}: {_shorter_reason(reason)}",
            )
            if short_who
            else ""
        )
        return Cause("missing", f"{who} {verb} {fact.need}: {reason}", data, short)
    if isinstance(fact, Excluded):
        return Cause(
            "excluded",
            f"{fact.bundle.package} {fact.bundle.version} is excluded by your restriction "
            f"{fact.restriction.describe()}",
        )
    if isinstance(fact, OnePerPackage):
        members = [b for b in fact.bundles if b.package == fact.package]
        if members and len(members) == len(fact.bundles):
            text = (
                f"only one bundle per package: {fact.package} {_span(members)} "
                "cannot be installed together"
            )
            return Cause("one-per-package", text)
        return Cause(
            "one-per-package", f"only one bundle of package {fact.package} can be installed"
        )
    if isinstance(fact, OnePerAPI):
        packages = sorted({b.package for b in fact.bundles})
        return Cause(
            "one-per-api",
            f"only one operator may provide the API {fact.api}; it is provided by "
            + ", ".join(packages),
        )
    return None  # pragma: no cover - every fact kind is handled above


def _changes(facts: Sequence[Fact], context: ResolutionContext) -> list[RequestChange]:
    """The ways out each fact of the conflict proposes, as request changes (checked later)."""
    request = context.request
    changes: list[RequestChange] = []
    one_of: dict[str, str] = {}  # package -> "install only one of a, b: " for API clashes
    for fact in facts:
        if isinstance(fact, Needs) and fact.need == INVALID_CONSTRAINT:
            continue  # no catalog to add: another version, found by re-resolving, is the way
        if isinstance(fact, Needs) and not fact.candidates:
            elsewhere = _elsewhere(fact, context)
            changes += [AddSource(name, wanted=fact.package or "") for name in elsewhere]
            dependent = fact.dependent
            if isinstance(dependent, RequiredPackage) and dependent.extension is not None:
                index = _index(request.required, dependent)
                changes += extension_ways_out(dependent, index, context)
            elif fact.package:
                changes += _missing_package(fact, fact.package, context, advise=not elsewhere)
            elif not elsewhere:
                need = fact.need
                changes.append(Advice("add-catalog", f"find a catalog offering {need}", need=need))
        elif isinstance(fact, ClusterIncompatible):
            changes.append(_cluster_change(fact, facts))
        elif isinstance(fact, Excluded) and fact.restriction in request.exclude:
            changes.append(DropEntry("exclude", request.exclude.index(fact.restriction)))
        elif isinstance(fact, Excluded):  # a restriction the pipeline file imposes
            text = f"lift the restriction {fact.restriction.describe()} (in the pipeline file)"
            changes.append(Advice("edit-pipeline", text))
        elif isinstance(fact, OnePerAPI):
            packages = sorted({b.package for b in fact.bundles})
            one_of.update((p, f"install only one of {', '.join(packages)}: ") for p in packages)
    for fact in facts:
        if isinstance(fact, Requested) and fact.requirement in request.required:
            why = one_of.get(fact.requirement.package, "")
            changes.append(DropEntry("required", _index(request.required, fact.requirement), why))
        elif isinstance(fact, KeptInstalled) and fact.installed.held:
            changes.append(_move_held(fact.installed))
        elif isinstance(fact, KeptInstalled) and fact.installed in request.installed:
            changes.append(DropEntry("installed", _index(request.installed, fact.installed)))
    return _one_advice_per_package(list(dict.fromkeys(changes)))


def _move_held(installed: InstalledBundle) -> Advice:
    """An installed bundle that may not move here cannot be dropped either: it moves where
    it is held, by the proposal that holds it approved."""
    text = (
        f"approve the proposal that moves {installed.package} where it is {installed.held}, "
        f"or ask for what {installed.package} {installed.version} satisfies"
    )
    return Advice("move-held", text, package=installed.package)


def _one_advice_per_package(changes: list[RequestChange]) -> list[RequestChange]:
    """Where several bundles miss one package in different ranges, one "find a catalog
    offering" line: the first, for the most preferred (newest) bundle's range."""
    advised: set[str] = set()
    kept: list[RequestChange] = []
    for change in changes:
        if isinstance(change, Advice) and change.package is not None:
            if change.package in advised:
                continue
            advised.add(change.package)
        kept.append(change)
    return kept


def _index(items: Sequence[object], item: object) -> int:
    """The position of ``item`` itself (equal requirements may be listed twice)."""
    return next((n for n, x in enumerate(items) if x is item), items.index(item))


def _elsewhere(fact: Needs, context: ResolutionContext) -> list[str]:
    """The catalogs deppy knows but the request's ``sources`` leave out that may offer what
    ``fact`` misses (the package, or a provider of the API; for other needs, any of them),
    best ranked first — each becomes a suggestion only once a resolution with it works."""
    known = context.known
    if known is None or not context.request.sources:
        return []
    here = set(context.catalogs.names())
    others = [name for name in known.names() if name not in here]
    if not others:
        return []
    offering = set(others)
    dependent = fact.dependent
    if fact.package:
        offering = set(known.catalogs_with(fact.package))
    elif isinstance(dependent, Bundle) and fact.need.startswith("API "):
        gvk = next((g for g in dependent.required_gvks if f"API {g}" == fact.need), None)
        if gvk is not None:
            offering = {b.catalog for b in known.providers_of(gvk)}
    return sorted((name for name in others if name in offering), key=known.rank)


def _missing_package(
    fact: Needs, package: str, context: ResolutionContext, *, advise: bool = True
) -> list[RequestChange]:
    """Ways out for a package need nothing satisfies: other versions or channels of a
    required package; with ``advise``, what catalog to look for."""
    available = sorted({b.version for b in context.catalogs.bundles_of(package)})
    need = fact.need.removeprefix("package ")
    if not available:
        if not advise:
            return []
        searched = ", ".join(context.catalogs.names())
        advice = f"find a catalog offering {need} (not in {searched})"
        brief = f"find a catalog offering {need}"
        return [Advice("add-catalog", advice, need=fact.need, package=package, brief=brief)]
    dependent = fact.dependent
    if not isinstance(dependent, RequiredPackage):
        if not advise:
            return []
        advice = f"find a catalog offering {need} (here: {package} {_versions_text(available)})"
        brief = f"find a catalog offering {need}"
        return [Advice("add-catalog", advice, need=fact.need, package=package, brief=brief)]
    request = context.request
    index = _index(request.required, dependent) if dependent in request.required else None
    if index is None:
        return []
    low, high = available[0], available[-1]
    changes: list[RequestChange] = [
        ReplaceRequirement(
            index,
            f"{package}@>={low.without_build()} <{high.major + 1}.0.0"
            + (f",channel={dependent.channel}" if dependent.channel else ""),
            f"ask for a version that exists (available: {_versions_text(available)}): ",
        )
    ]
    if dependent.channel:
        channels = sorted(
            {
                c
                for b in context.catalogs.bundles_of(package)
                for c in context.order.channels_containing(b)
            }
        )
        range_part = f"@{dependent.versions_text}" if dependent.versions_text else ""
        changes += [
            ReplaceRequirement(
                index, f"{package}{range_part},channel={c}", f"switch to channel {c}: "
            )
            for c in channels
            if c != dependent.channel
        ]
    return changes


def _cluster_change(fact: ClusterIncompatible, facts: Sequence[Fact]) -> SetCluster:
    """The cluster version on which the bundle of the package most clusters could run would
    install, said as the old suggestion said it."""
    same = [
        f
        for f in facts
        if isinstance(f, ClusterIncompatible)
        and f.category == fact.category
        and f.bundle.package == fact.bundle.package
    ]
    if fact.category == "openshift":
        best = max(same, key=lambda f: (f.bundle.max_openshift_version, f.bundle.version))
        limit = best.bundle.max_openshift_version
        return SetCluster(
            limit,
            None,
            f"{best.bundle.package} {best.bundle.version} would install on OpenShift "
            f"{_limit(best)} or older",
        )
    best = min(same, key=lambda f: (f.bundle.min_kube_version, f.bundle.version))
    return SetCluster(
        None,
        best.bundle.min_kube_version,
        f"{best.bundle.package} {best.bundle.version} would install on Kubernetes "
        f"{_limit(best)} or newer",
    )


def _versions_text(versions: Sequence[object], limit: int = 8) -> str:
    shown = [str(v) for v in versions[-limit:]]
    more = f" and {len(versions) - limit} older" if len(versions) > limit else ""
    return ", ".join(shown) + more
