"""The OLM resolver: the default pipeline (data/pipelines/default.yaml) run by the engine.

Producers (required and installed packages) feed the bundles-and-dependencies processor; its
bundle variables feed the runtime and global constraints; the solver sees everything in that
order (so anchors keep the request's order) and the output collector turns the selection, or
the minimal core, into a ``Resolution`` — with the suggestions it has seen resolve
(``suggestions.py``). ``generate_variables`` and ``solve_variables`` are the same steps without
the engine and without suggestions (benchmarks/pipeline_cost.py compares the two).
"""

from __future__ import annotations

import time

from deppy.catalog.catalog_set import BundleSource
from deppy.pipeline.engine import Pipeline, Sink
from deppy.resolution.answer import Resolution
from deppy.resolution.collector import (
    resolution_of,
    resolution_of_core,
    resolution_of_selection,
)
from deppy.resolution.context import ResolutionContext
from deppy.resolution.node_library import default_pipeline
from deppy.resolution.nodes import (
    BundlesAndDependencies,
    GlobalConstraints,
    InstalledPackageProducer,
    RequiredPackageProducer,
    RuntimeConstraints,
)
from deppy.resolution.request import ResolutionRequest
from deppy.resolution.variables import OLMVariable
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
    """The solver node and the output collector, without the engine."""
    try:
        selected = solve([v.variable for v in variables], deadline=deadline, where="resolution")
    except NotSatisfiable as unsat:
        return resolution_of_core(unsat.constraints, variables, context)
    index = {v.id: v for v in variables}
    return resolution_of_selection([index[v.id] for v in selected], context)


def resolve(
    catalogs: BundleSource, request: ResolutionRequest, *, timeout: float | None = None
) -> Resolution:
    return resolve_in_pipeline(catalogs, request, timeout=timeout)


def resolve_in_pipeline(
    catalogs: BundleSource,
    request: ResolutionRequest,
    *,
    timeout: float | None = None,
    pipeline: Pipeline | None = None,
    sink: Sink | None = None,
) -> Resolution:
    """Run ``pipeline`` (default: the shipped OLM pipeline) once; ``sink`` sees every event.

    A node's error is raised as it was raised; an expired deadline raises ``SolveTimeout``.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    context = ResolutionContext.create(catalogs, request)
    result = (pipeline or default_pipeline()).run(context, deadline=deadline, sink=sink)
    return resolution_of(result)


__all__ = [
    "generate_variables",
    "resolution_of",
    "resolve",
    "resolve_in_pipeline",
    "solve_variables",
]
