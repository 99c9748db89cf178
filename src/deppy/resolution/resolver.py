"""The OLM resolver: the default pipeline (data/pipelines/default.yaml) run by the engine.

Producers (required and installed packages) feed the bundles-and-dependencies processor; its
bundle variables feed the runtime and global constraints; the solver sees everything in that
order (so anchors keep the request's order) and the output collector turns the selection, or
the minimal core, into a ``Resolution``. For a failed resolution the output collector also
tries each root requirement relaxed to any version (``with_alternatives``), so the explanation
can suggest a version known to work. ``generate_variables`` and ``solve_variables`` are the
same steps without the engine (benchmarks/pipeline_cost.py compares the two).
"""

from __future__ import annotations

import time
from dataclasses import replace

from deppy.catalog.catalog_set import BundleSource
from deppy.errors import InputError
from deppy.explain import Explanation
from deppy.pipeline.engine import Pipeline, Sink
from deppy.pipeline.states import PipelineResult
from deppy.resolution.answer import Resolution
from deppy.resolution.collector import resolution_of_core, resolution_of_selection
from deppy.resolution.context import ResolutionContext
from deppy.resolution.node_library import default_pipeline
from deppy.resolution.nodes import (
    BundlesAndDependencies,
    GlobalConstraints,
    InstalledPackageProducer,
    RequiredPackageProducer,
    RuntimeConstraints,
)
from deppy.resolution.request import RequiredPackage, ResolutionRequest
from deppy.resolution.variables import OLMVariable
from deppy.solver import NotSatisfiable, SolveTimeout, solve


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


def with_alternatives(
    resolution: Resolution,
    catalogs: BundleSource,
    request: ResolutionRequest,
    deadline: float | None = None,
) -> Resolution:
    """An unresolvable answer, with the ways out that are known to work first among its
    suggestions (the output collector's last step)."""
    if resolution.explanation is None:
        return resolution
    found = alternatives(catalogs, request, resolution.explanation, deadline)
    if not found:
        return resolution
    explanation = replace(
        resolution.explanation,
        suggestions=tuple(dict.fromkeys((*found, *resolution.explanation.suggestions))),
    )
    return replace(resolution, explanation=explanation)


def alternatives(
    catalogs: BundleSource,
    request: ResolutionRequest,
    explanation: Explanation,
    deadline: float | None = None,
) -> list[str]:
    """Ways out that are known to work: for each requirement at the root of the failure, what a
    resolution picks when the requirement keeps only its versions, then when it is any version."""
    found: list[str] = []
    for n, requirement in enumerate(request.required):
        if f"required package {requirement.describe()}" not in explanation.roots:
            continue
        package = requirement.package
        tries = [
            RequiredPackage(package, requirement.versions, requirement.versions_text),
            RequiredPackage(package),
        ]
        for relaxed in tries:
            if relaxed.describe() == requirement.describe():
                continue
            required = list(request.required)
            required[n] = relaxed
            context = ResolutionContext.create(catalogs, replace(request, required=tuple(required)))
            try:
                answer = solve_variables(generate_variables(context), context, deadline)
            except SolveTimeout:
                return found
            chosen = [s for s in answer.selection or () if s.package == package]
            if chosen:
                item = chosen[0]
                found.append(
                    f"{package} {item.version} resolves (channel {item.channel}, catalog "
                    f"{item.catalog}): require '{package}@{item.version}' instead of "
                    f"'{requirement.describe()}'"
                )
                break
    return found
