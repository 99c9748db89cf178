"""A sink that keeps every event in memory (tests, tools); the ``Sink`` protocol itself is the
engine's (``deppy.pipeline.engine.Sink``), since the engine is what calls it."""

from __future__ import annotations

from typing import Any

from deppy.pipeline.engine import Pipeline
from deppy.pipeline.events import Event
from deppy.pipeline.states import PipelineResult


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
