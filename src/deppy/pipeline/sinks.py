"""Debug sinks: whatever receives every event of an execution (a trace file, a list in tests)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from deppy.pipeline.events import Event

if TYPE_CHECKING:
    from deppy.pipeline.engine import Pipeline
    from deppy.pipeline.states import PipelineResult


class Sink(Protocol):
    def begin(self, pipeline: Pipeline, result: PipelineResult) -> None:
        """Before the first node runs; ``result`` has the ids and the nodes (all inactive)."""

    def event(self, event: Event) -> None:
        """Every event, in creation order."""

    def checkpoint(self, context: Any) -> Any:
        """Before the first node that replay re-runs: the context those nodes should use.

        A trace returns a context that records what those nodes ask of it, so a replay can
        answer the same questions without the original sources (catalogs).
        """

    def end(self, result: PipelineResult) -> None:
        """After the last node, or after a failure or an expired deadline."""


class MemorySink:
    """Keeps every event in a list."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.result: PipelineResult | None = None

    def begin(self, pipeline: Pipeline, result: PipelineResult) -> None:
        self.events.clear()

    def event(self, event: Event) -> None:
        self.events.append(event)

    def checkpoint(self, context: Any) -> Any:
        return context

    def end(self, result: PipelineResult) -> None:
        self.result = result
