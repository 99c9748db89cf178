"""The library of node types a pipeline configuration may name, and the node contracts.

The engine knows three kinds of node and nothing of any domain: a domain (OLM) registers its
node types here by name, with a factory that turns a node's declared ``config`` into a node.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from deppy.errors import unknown_field
from deppy.pipeline.events import Batch
from deppy.pipeline.states import NodeKind, PipelineResult


class Runner(Protocol):
    """A pipeline as its nodes see it: something that runs again on another context."""

    def run(self, context: Any, *, deadline: float | None = None) -> PipelineResult: ...


class Run:
    """What every node of one execution sees: the domain's context, the deadline, and the
    pipeline itself — a node may ask the same pipeline another question (a domain checks its
    suggestions by resolving the changed request with the pipeline the user ran)."""

    __slots__ = ("context", "deadline", "execution_id", "pipeline")

    def __init__(
        self, context: Any, deadline: float | None, execution_id: str, pipeline: Runner
    ) -> None:
        self.context = context
        self.deadline = deadline  # a time.monotonic() instant
        self.execution_id = execution_id
        self.pipeline = pipeline


class Producer(Protocol):
    def produce(self, run: Run) -> Sequence[Any] | Batch[Any]: ...


class Processor(Protocol):
    def process(self, run: Run, batch: Batch[Any]) -> Sequence[Any] | Batch[Any]: ...


class Consumer(Protocol):
    def consume(self, run: Run, batch: Batch[Any]) -> Any: ...


Node = Producer | Processor | Consumer


@dataclass(frozen=True, slots=True)
class NodeConfig:
    """One node as declared: ``where`` names it for messages (file and node)."""

    name: str
    type: str
    inputs: tuple[str, ...]
    config: Mapping[str, Any]
    where: str

    def unknown_fields(self, allowed: Sequence[str]) -> None:
        """Reject config fields the node type does not read (typos would otherwise be silent)."""
        for key in self.config:
            if key not in allowed:
                raise unknown_field(f"{self.where}: config", str(key), allowed)


@dataclass(frozen=True, slots=True)
class NodeType:
    """A named kind of node. ``replay_root`` marks where replay restarts (the solver): replay
    feeds the recorded inputs of such nodes back through them and everything downstream."""

    name: str
    kind: NodeKind
    factory: Callable[[NodeConfig], Node]
    summary: str
    replay_root: bool = False


@dataclass(slots=True)
class NodeLibrary:
    types: dict[str, NodeType] = field(default_factory=dict)

    def register(self, node_type: NodeType) -> None:
        self.types[node_type.name] = node_type

    def get(self, name: str) -> NodeType | None:
        return self.types.get(name)

    def names(self) -> list[str]:
        return sorted(self.types)
