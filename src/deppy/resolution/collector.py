"""The output collector's work: a solver outcome becomes a ``Resolution`` in OLM words."""

from __future__ import annotations

from collections.abc import Sequence

from deppy.errors import InputError
from deppy.pipeline.states import PipelineResult
from deppy.resolution.answer import Resolution, assemble
from deppy.resolution.context import ResolutionContext
from deppy.resolution.explanation import explain
from deppy.resolution.request import RequiredPackage
from deppy.resolution.suggestions import Resolve
from deppy.resolution.variables import Needs, OLMVariable, bundle_id
from deppy.solver import AppliedConstraint, SolveTimeout


def resolution_of_selection(
    selected: Sequence[OLMVariable], context: ResolutionContext
) -> Resolution:
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
    _warn_passed_over(selected, context)
    return Resolution(context.request, selection, None, tuple(context.warnings))


def _warn_passed_over(selected: Sequence[OLMVariable], context: ResolutionContext) -> None:
    """Say when a requirement did not get its most preferred candidate.

    A user asking for "etcd" expects the channel head; when the head cannot be installed (a
    dependency is missing, a cluster limit, a clash with another requirement) the answer is
    still right, but silently older. Requiring that exact version shows the reason.
    """
    chosen = {v.id for v in selected}
    for variable in selected:
        if variable.kind != "required":
            continue
        for fact in variable.facts:
            if not isinstance(fact, Needs) or not isinstance(fact.dependent, RequiredPackage):
                continue
            ids = [bundle_id(b) for b in fact.candidates]
            picked = next((n for n, i in enumerate(ids) if i in chosen), None)
            if picked:
                best, got = fact.candidates[0], fact.candidates[picked]
                context.warn(
                    f"{fact.dependent.describe()}: selected {got.package} {got.version}, not the "
                    f"preferred {best.version}, which cannot be installed with this request; "
                    f"require '{best.package}@{best.version}' to see why"
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
