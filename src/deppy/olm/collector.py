"""The output collector's work: a solver outcome becomes a ``Resolution`` in OLM words."""

from __future__ import annotations

from collections.abc import Sequence

from deppy.olm.answer import Resolution, assemble
from deppy.olm.context import ResolutionContext
from deppy.olm.explanation import explain
from deppy.olm.variables import OLMVariable
from deppy.solver import AppliedConstraint


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
    return Resolution(context.request, selection, None, tuple(context.warnings))


def resolution_of_core(
    core: Sequence[AppliedConstraint],
    variables: Sequence[OLMVariable],
    context: ResolutionContext,
) -> Resolution:
    """``variables`` must include every variable the core cites (their facts explain it)."""
    explanation = explain(core, {v.id: v for v in variables}, context)
    return Resolution(context.request, None, explanation, tuple(context.warnings))
