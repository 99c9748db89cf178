"""The output collector's work: a solver outcome becomes a ``Resolution`` in OLM words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from deppy.catalog.model import Bundle
from deppy.catalog.semver import VersionRange
from deppy.catalog.semver.extension_constraint import ExtensionConstraint
from deppy.errors import InputError
from deppy.pipeline.states import PipelineResult
from deppy.resolution.answer import Resolution, assemble
from deppy.resolution.context import ResolutionContext
from deppy.resolution.explanation import explain
from deppy.resolution.request import ExtensionTerms, RequiredPackage
from deppy.resolution.suggestions import Resolve
from deppy.resolution.variables import Needs, OLMVariable, bundle_id
from deppy.solver import AppliedConstraint, SolveTimeout


def resolution_of_selection(
    selected: Sequence[OLMVariable], context: ResolutionContext, resolve: Resolve | None = None
) -> Resolution:
    """The answer for a selection; ``resolve`` (the pipeline the user ran, on a changed
    request) finds why a requirement got an older version than its newest."""
    index = {v.id: v for v in selected}
    selection = assemble([v.id for v in selected], index, context)
    for item in selection:
        bundle = item.source
        deprecation = context.catalogs.deprecation_of(bundle, item.channel) if bundle else None
        if deprecation is not None:
            what = {
                "olm.bundle": f"bundle {item.bundle}",
                "olm.channel": f"channel {item.channel}",
                "olm.package": f"package {item.package}",
            }[deprecation.schema]
            context.warn(f"{what} is deprecated in catalog {item.catalog}: {deprecation.message}")
    notes = _passed_over(selected, context, resolve)
    selection = tuple(
        replace(item, reasons=(*item.reasons, notes[item.bundle])) if item.bundle in notes else item
        for item in selection
    )
    return Resolution(context.request, selection, None, tuple(context.warnings))


def _passed_over(
    selected: Sequence[OLMVariable], context: ResolutionContext, resolve: Resolve | None
) -> dict[str, str]:
    """Say when a requirement did not get its most preferred candidate: a warning, and — for
    a requirement without a version range — a reason on the chosen bundle naming what ruled
    out the newer one, found by resolving the request with that version required.

    A user asking for "etcd" expects the channel head; when the head cannot be installed (a
    dependency is missing, a cluster limit, a clash with another requirement) the answer is
    still right, but older, and must not surprise.
    """
    chosen = {v.id for v in selected}
    notes: dict[str, str] = {}
    for variable in selected:
        if variable.kind == "bundle":
            _dependencies_passed_over(variable, chosen, notes, context, resolve)
        if variable.kind != "required":
            continue
        for fact in variable.facts:
            if not isinstance(fact, Needs) or not isinstance(fact.dependent, RequiredPackage):
                continue
            ids = [bundle_id(b) for b in fact.candidates]
            picked = next((n for n, i in enumerate(ids) if i in chosen), None)
            if not picked:
                continue
            best, got = fact.candidates[0], fact.candidates[picked]
            why = _why_not(fact.dependent, best, context, resolve)
            if why is not None and not fact.dependent.versions_text:
                notes[got.name] = f"not the newest {best.version}: {why}"
            context.warn(
                f"{fact.dependent.describe()}: selected {got.package} {got.version}, not the "
                f"preferred {best.version}, which cannot be installed with this request"
                + (f": {why}" if why else f"; require '{best.package}@{best.version}' to see why")
            )
    return notes


def _dependencies_passed_over(
    variable: OLMVariable,
    chosen: set[str],
    notes: dict[str, str],
    context: ResolutionContext,
    resolve: Resolve | None,
) -> None:
    """The same for a selected bundle's dependencies: where a dependency got an older version
    of its package than the newest it prefers (a platform limit, a clash), the chosen bundle
    says which newer one was passed over and why — found by resolving the request with that
    version required as well. Once per chosen bundle, however many bundles depend on it."""
    for fact in variable.facts:
        if not isinstance(fact, Needs) or not isinstance(fact.dependent, Bundle):
            continue
        got = next((b for b in fact.candidates if bundle_id(b) in chosen), None)
        if got is None or got.name in notes:
            continue
        best = next(b for b in fact.candidates if b.package == got.package)
        if best.version <= got.version or resolve is None:
            continue
        request = context.request
        extra = RequiredPackage(
            best.package,
            versions=VersionRange.exactly(best.version),
            versions_text=str(best.version),
            catalog=best.catalog,
            extension=_extension_for(request.required, best),
        )
        why = _first_cause(resolve(replace(request, required=(*request.required, extra))))
        if why is not None:
            notes[got.name] = f"not the newest {best.version}: {why}"


def _extension_for(required: Sequence[RequiredPackage], best: Bundle) -> ExtensionTerms | None:
    """Under OLM v1's rules a requirement is a ClusterExtension's: ``best`` asked for as one
    more, not yet installed, in the catalogs the request's first extension selects."""
    terms = next((r.extension for r in required if r.extension is not None), None)
    if terms is None:
        return None
    pinned = _pinned_terms(terms, best)
    return replace(pinned, name=f"{terms.name}-{best.package}", channels=(), installed=None)


def _first_cause(outcome: Resolution | None) -> str | None:
    """The first cause of a resolution that failed, other than the request itself."""
    if outcome is None or outcome.explanation is None:
        return None
    causes = [
        c.text for c in outcome.explanation.causes if not c.text.startswith("the requirement")
    ]
    return causes[0] if causes else None


def _why_not(
    requirement: RequiredPackage,
    best: Bundle,
    context: ResolutionContext,
    resolve: Resolve | None,
) -> str | None:
    """What rules ``best`` out: the explanation of the request with it required exactly."""
    request = context.request
    # itself, else an equal one (a replay decodes facts and request separately)
    position = next((n for n, r in enumerate(request.required) if r is requirement), None)
    if position is None and requirement in request.required:
        position = request.required.index(requirement)
    if resolve is None or position is None:
        return None
    pinned = replace(
        requirement,
        versions=VersionRange.exactly(best.version),
        versions_text=str(best.version),
        catalog=best.catalog,
        extension=_pinned_extension(requirement, best),
    )
    required = (*request.required[:position], pinned, *request.required[position + 1 :])
    return _first_cause(resolve(replace(request, required=required)))


def _pinned_extension(requirement: RequiredPackage, best: Bundle) -> ExtensionTerms | None:
    """A ClusterExtension's terms asking for exactly ``best`` (its version, its catalog)."""
    terms = requirement.extension
    return None if terms is None else _pinned_terms(terms, best)


def _pinned_terms(terms: ExtensionTerms, best: Bundle) -> ExtensionTerms:
    catalogs = tuple(c for c in terms.catalogs if c.name == best.catalog)
    return replace(
        terms, constraint=ExtensionConstraint.parse(str(best.version)), catalogs=catalogs
    )


def resolution_of_core(
    core: Sequence[AppliedConstraint],
    variables: Sequence[OLMVariable],
    context: ResolutionContext,
    resolve: Resolve | None = None,
) -> Resolution:
    """``variables`` must include every variable the core cites (their facts explain it);
    ``resolve`` checks the suggestions (without it the explanation suggests nothing)."""
    explanation = explain(core, {v.id: v for v in variables}, context, resolve)
    return Resolution(context.request, None, explanation, tuple(context.warnings))


def resolution_of(result: PipelineResult) -> Resolution:
    """The first output collector's answer; a failure raised as the node raised it."""
    if result.error is not None:
        raise result.error
    if result.expired:
        raise SolveTimeout()
    for output in result.outputs.values():
        if isinstance(output, Resolution):
            return output
    raise InputError(
        f"pipeline {result.pipeline_id}",
        "no node produced a resolution",
        "end the pipeline with an output-collector",
    )
