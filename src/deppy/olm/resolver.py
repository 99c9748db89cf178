"""The OLM resolver: the default pipeline of nodes, run in order, then the solver.

Producers (required and installed packages) feed the bundles-and-dependencies processor; its
bundle variables feed the runtime and global constraints; the solver sees everything in that
order (so anchors keep the request's order) and the output collector turns the selection, or
the minimal core, into a ``Resolution``.
"""

from __future__ import annotations

import time

from deppy.olm.answer import Resolution, assemble
from deppy.olm.catalogs import BundleSource
from deppy.olm.context import ResolutionContext
from deppy.olm.explanation import explain
from deppy.olm.nodes import (
    BundlesAndDependencies,
    GlobalConstraints,
    InstalledPackageProducer,
    RequiredPackageProducer,
    RuntimeConstraints,
)
from deppy.olm.request import ResolutionRequest
from deppy.olm.variables import OLMVariable
from deppy.solver import NotSatisfiable, solve


def generate_variables(context: ResolutionContext) -> list[OLMVariable]:
    """Run the variable sources of the default pipeline, in the seed's order."""
    sources = RequiredPackageProducer().produce(context)
    sources += InstalledPackageProducer().produce(context)
    bundles = BundlesAndDependencies().process(context, sources)
    every_bundle = [v for v in sources if v.kind == "bundle"] + bundles
    runtime = RuntimeConstraints().process(context, every_bundle)
    uniqueness = GlobalConstraints().process(context, every_bundle)
    return [*sources, *bundles, *runtime, *uniqueness]


def solve_variables(
    variables: list[OLMVariable], context: ResolutionContext, deadline: float | None = None
) -> Resolution:
    """The solver node and the output collector."""
    index = {v.id: v for v in variables}
    try:
        selected = solve([v.variable for v in variables], deadline=deadline, where="resolution")
    except NotSatisfiable as unsat:
        explanation = explain(unsat.constraints, index, context)
        return Resolution(context.request, None, explanation, tuple(context.warnings))
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


def resolve(
    catalogs: BundleSource, request: ResolutionRequest, *, timeout: float | None = None
) -> Resolution:
    deadline = None if timeout is None else time.monotonic() + timeout
    context = ResolutionContext.create(catalogs, request)
    return solve_variables(generate_variables(context), context, deadline)
