"""How long each type of node took in one execution, for metrics (the solver's time above all).

A sink, so the engine takes node timings only when somebody asks; it passes every call on to
another sink (a trace writer) when given one, so a traced resolution is timed too.
"""

from __future__ import annotations

from typing import Any

from deppy.pipeline.engine import Pipeline, Sink
from deppy.pipeline.events import Event
from deppy.pipeline.states import PipelineResult


class NodeTimes:
    """``seconds[node type]`` once the execution has ended (nodes of one type added up)."""

    def __init__(self, then: Sink | None = None) -> None:
        self.then = then
        self.seconds: dict[str, float] = {}

    def begin(self, pipeline: Pipeline, result: PipelineResult) -> None:
        if self.then is not None:
            self.then.begin(pipeline, result)

    def event(self, event: Event) -> None:
        if self.then is not None:
            self.then.event(event)

    def checkpoint(self, context: Any) -> Any:
        return context if self.then is None else self.then.checkpoint(context)

    def end(self, result: PipelineResult) -> None:
        for report in result.nodes.values():
            seconds = report.seconds
            if seconds is not None:
                self.seconds[report.type] = self.seconds.get(report.type, 0.0) + seconds
        if self.then is not None:
            self.then.end(result)
