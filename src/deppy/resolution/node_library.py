"""The OLM node library: the resolver's nodes registered by type name for pipeline files.

Importing this module registers the ``olm`` domain (node types and trace codec) with the
generic engine, which never imports OLM code itself. The default pipeline is a file shipped
with the package (``deppy/data/pipelines/default.yaml``), built once per process.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from deppy.data import data_path
from deppy.pipeline.config import load_pipeline_file
from deppy.pipeline.domain import Domain, register_domain
from deppy.pipeline.engine import Pipeline
from deppy.pipeline.events import Batch
from deppy.pipeline.library import Node, NodeConfig, NodeLibrary, NodeType, Run
from deppy.pipeline.solver_node import SolverNode
from deppy.pipeline.states import NodeKind
from deppy.resolution.answer import Resolution
from deppy.resolution.collector import (
    resolution_of,
    resolution_of_core,
    resolution_of_selection,
)
from deppy.resolution.context import ResolutionContext
from deppy.resolution.declarative_nodes import FilterProcessor, StaticVariableProducer
from deppy.resolution.minimal_version import PreferLowestDependencies
from deppy.resolution.nodes import (
    BundlesAndDependencies,
    GlobalConstraints,
    InstalledPackageProducer,
    RequiredPackageProducer,
    RuntimeConstraints,
)
from deppy.resolution.request import ResolutionRequest
from deppy.resolution.trace_codec import OLMDecoder, OLMEncoder
from deppy.resolution.variables import OLMVariable
from deppy.solver import SolveTimeout

DOMAIN_NAME = "olm"


class _Produce:
    """A variable source that reads only the resolution context."""

    def __init__(self, source: RequiredPackageProducer | InstalledPackageProducer) -> None:
        self.source = source

    def produce(self, run: Run) -> list[OLMVariable]:
        return self.source.produce(run.context)


class _Process:
    """A variable source that reads the variables of its inputs."""

    def __init__(
        self,
        source: BundlesAndDependencies
        | RuntimeConstraints
        | GlobalConstraints
        | PreferLowestDependencies,
    ) -> None:
        self.source = source

    def process(self, run: Run, batch: Batch[Any]) -> list[OLMVariable]:
        return self.source.process(run.context, batch.variables)


class OutputCollector:
    """Turns the solver's selection, or its minimal core, into a ``Resolution``.

    An unresolvable answer suggests only changes of the request seen to resolve: each changed
    request runs through this same pipeline (the one the user ran, ``--pipeline`` included),
    asking the catalogs through this node's context, so a trace records those answers too and
    a replay gives the same suggestions. Those inner runs suggest nothing themselves.
    """

    def consume(self, run: Run, batch: Batch[Any]) -> Resolution:
        context: ResolutionContext = run.context

        def resolve(request: ResolutionRequest) -> Resolution | None:
            known = context.known or context.catalogs  # a changed request may add a source
            inner = ResolutionContext.create(known, request, suggest=False)
            try:
                return resolution_of(run.pipeline.run(inner, deadline=run.deadline))
            except SolveTimeout:
                return None

        checking = resolve if context.suggest else None
        if batch.core is None:
            return resolution_of_selection(batch.variables, context, checking)
        return resolution_of_core(batch.core, batch.variables, context, checking)


def _plain(make: Callable[[], Node]) -> Callable[[NodeConfig], Node]:
    """A factory for node types that take no configuration."""

    def factory(config: NodeConfig) -> Node:
        config.unknown_fields(())
        return make()

    return factory


def _library() -> NodeLibrary:
    library = NodeLibrary()
    producer, processor, consumer = NodeKind.PRODUCER, NodeKind.PROCESSOR, NodeKind.CONSUMER
    for name, kind, make, summary in (
        (
            "required-package-producer",
            producer,
            lambda: _Produce(RequiredPackageProducer()),
            "one mandatory variable per required package, depending on its candidates",
        ),
        (
            "installed-package-producer",
            producer,
            lambda: _Produce(InstalledPackageProducer()),
            "one mandatory variable per installed bundle: stay, or upgrade along the channel",
        ),
        (
            "bundles-and-dependencies",
            processor,
            lambda: _Process(BundlesAndDependencies()),
            "a variable per candidate bundle and, transitively, per dependency candidate",
        ),
        (
            "runtime-constraints",
            processor,
            lambda: _Process(RuntimeConstraints()),
            "cluster versions and exclusions: bundles that cannot or may not be installed",
        ),
        (
            "global-constraints",
            processor,
            lambda: _Process(GlobalConstraints()),
            "at most one bundle per package and one package per provided API",
        ),
        (
            "prefer-lowest-dependencies",
            processor,
            lambda: _Process(PreferLowestDependencies()),
            "dependencies and installed bundles prefer their lowest versions (minimal-version)",
        ),
        (
            "output-collector",
            consumer,
            OutputCollector,
            "the resolution: selected bundles in install order, or the explanation",
        ),
    ):
        library.register(NodeType(name, kind, _plain(make), summary))
    library.register(
        NodeType(
            "solver",
            processor,
            _plain(lambda: SolverNode("resolution")),
            "solves everything it receives: the selection, or a minimal core",
            replay_root=True,
        )
    )
    library.register(
        NodeType(
            "static-variable-producer",
            producer,
            StaticVariableProducer,
            "declared variables: prohibit bundles, require packages, declare conflicts",
        )
    )
    library.register(
        NodeType(
            "filter-processor",
            processor,
            FilterProcessor,
            "drops bundle variables by catalog, package, version, channel, label or property",
        )
    )
    return library


LIBRARY = _library()
DOMAIN = Domain(DOMAIN_NAME, LIBRARY, OLMEncoder, OLMDecoder)
register_domain(DOMAIN)


def default_pipeline_path() -> str:
    """The default pipeline as people read and copy it."""
    return str(data_path("pipelines", "default.yaml"))


@functools.cache
def default_pipeline() -> Pipeline:
    """Read from ``default.json``, the YAML file's twin (a test holds them equal): resolving
    with the default pipeline then needs no YAML parser, which is most of a start-up's cost."""
    return Pipeline(load_pipeline_file(str(data_path("pipelines", "default.json"))), LIBRARY)


@functools.cache
def minimal_version_pipeline() -> Pipeline:
    """The minimal-version preference (``data/pipelines/minimal-version.yaml``)."""
    return Pipeline(
        load_pipeline_file(str(data_path("pipelines", "minimal-version.yaml"))), LIBRARY
    )


def load_pipeline(path: str) -> Pipeline:
    """A pipeline file checked against the OLM library (errors name the file and node)."""
    return Pipeline(load_pipeline_file(path), LIBRARY)
