"""Node states and the result of one execution, kept so a run can be inspected afterwards."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any


class NodeState(Enum):
    INACTIVE = "inactive"  # ready, not started
    ACTIVE = "active"  # its process is under way
    SUCCESSFUL = "successful"  # concluded without error
    FAILED = "failed"  # concluded with an error
    ABORTED = "aborted"  # stopped by another node's error or by the deadline


class NodeKind(Enum):
    PRODUCER = "producer"  # emits variables from nothing, then concludes
    PROCESSOR = "processor"  # reads its inputs' variables, emits others
    CONSUMER = "consumer"  # reads its inputs' variables, emits nothing (a leaf)


class NodeReport:
    """What one node did in one execution; times are seconds from the execution's start.

    A plain slotted class: every execution makes one per node.
    """

    __slots__ = (
        "emitted",
        "error",
        "finished",
        "kind",
        "name",
        "reason",
        "received",
        "started",
        "state",
        "type",
    )

    def __init__(self, name: str, type: str, kind: NodeKind) -> None:
        self.name = name
        self.type = type
        self.kind = kind
        self.state = NodeState.INACTIVE
        self.started: float | None = None
        self.finished: float | None = None
        self.received = 0  # variables in
        self.emitted = 0  # variables out
        self.error: str | None = None
        self.reason: str | None = None  # why it was aborted, or that its output was replayed

    def __repr__(self) -> str:
        return f"NodeReport({self.name!r}, {self.state.value})"

    @property
    def seconds(self) -> float | None:
        if self.started is None or self.finished is None:
            return None
        return self.finished - self.started


class PipelineResult:
    """Final states of every node, consumers' results, and what went wrong if anything did.

    ``error`` is the failed node's exception (or the solver's timeout), kept whole so callers
    can re-raise it unchanged. ``nodes`` may be given as a function that builds the reports:
    a run nobody watched builds them only if someone asks.
    """

    __slots__ = (
        "_build",
        "_nodes",
        "error",
        "execution_id",
        "expired",
        "failed_node",
        "outputs",
        "pipeline_id",
    )

    def __init__(
        self,
        pipeline_id: str,
        execution_id: str,
        nodes: dict[str, NodeReport] | Callable[[], dict[str, NodeReport]],
        outputs: dict[str, Any] | None = None,
    ) -> None:
        self.pipeline_id = pipeline_id
        self.execution_id = execution_id
        self._nodes = nodes if isinstance(nodes, dict) else None
        self._build = None if isinstance(nodes, dict) else nodes
        self.outputs: dict[str, Any] = {} if outputs is None else outputs
        self.failed_node: str | None = None
        self.error: BaseException | None = None
        self.expired = False

    def __repr__(self) -> str:
        outcome = "succeeded" if self.succeeded else self.message
        return f"PipelineResult({self.pipeline_id}, {self.execution_id}: {outcome})"

    @property
    def nodes(self) -> dict[str, NodeReport]:
        if self._nodes is None:
            assert self._build is not None
            self._nodes, self._build = self._build(), None
        return self._nodes

    @property
    def succeeded(self) -> bool:
        return self.failed_node is None and not self.expired

    @property
    def states(self) -> Mapping[str, NodeState]:
        return {name: report.state for name, report in self.nodes.items()}

    @property
    def message(self) -> str | None:
        """One line naming the failed node and its error, or the expired deadline."""
        if self.failed_node is not None:
            report = self.nodes[self.failed_node]
            return f"node {self.failed_node!r} ({report.type}) failed: {report.error}"
        if self.expired:
            return "the deadline passed before the pipeline finished: every node was aborted"
        return None
