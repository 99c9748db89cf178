"""The engine: runs a validated pipeline once per call, in topological order, in one thread.

Every node's output travels as one data event per receiver (the event's batch is shared, not
copied), so a sink sees the whole execution while an execution without a sink pays only for a
few small objects per edge, never per variable. That matters: an OLM resolution takes well
under a millisecond, and the engine must stay within a few percent of calling the nodes by
hand (benchmarks/pipeline_cost.py), hence two loops: one watched by a sink (live node reports
and timings) and a lean one for everyone else. The first failure aborts the execution: the
failed node's error is broadcast and every other node ends aborted; so does an expired deadline.
"""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from deppy.pipeline.config import PipelineSpec, validate
from deppy.pipeline.events import Batch, DataEvent, Event, EventFactory
from deppy.pipeline.library import NodeLibrary, Run
from deppy.pipeline.states import NodeKind, NodeReport, NodeState, PipelineResult
from deppy.solver import AppliedConstraint, SolveTimeout

DEADLINE = "pipeline"  # the creator of the error events an expired deadline sends
_EMPTY: Batch[Any] = Batch(())
# Execution ids: random per process, counted within it (unique without a uuid4 per run).
_PROCESS = uuid.uuid4().hex[:16]
_EXECUTIONS = itertools.count(1)
PRODUCER, CONSUMER = NodeKind.PRODUCER, NodeKind.CONSUMER
ACTIVE, SUCCESSFUL = NodeState.ACTIVE, NodeState.SUCCESSFUL
_METHOD = {
    NodeKind.PRODUCER: "produce",
    NodeKind.PROCESSOR: "process",
    NodeKind.CONSUMER: "consume",
}


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


@dataclass(frozen=True, slots=True)
class _Step:
    name: str
    type: str
    kind: NodeKind
    call: Callable[..., Any]  # the node's produce, process or consume
    inputs: tuple[str, ...]
    in_slots: tuple[int, ...]  # the events it reads, in its declared input order
    out_slots: tuple[tuple[int, str], ...]  # (slot, receiver) of the events it sends


class Pipeline:
    """A configuration checked against a library, with its nodes built, ready to run."""

    def __init__(self, spec: PipelineSpec, library: NodeLibrary) -> None:
        order = validate(spec, library)
        configs = {n.name: n for n in spec.nodes}
        receivers: dict[str, list[str]] = {n.name: [] for n in spec.nodes}
        slot: dict[tuple[str, str], int] = {}  # (sender, receiver) -> index of its event
        for name in order:
            for source in configs[name].inputs:
                receivers[source].append(name)
                slot[(source, name)] = len(slot)
        steps: list[_Step] = []
        roots: list[str] = []
        for name in order:
            config = configs[name]
            node_type = library.types[config.type]
            if node_type.replay_root:
                roots.append(name)
            node = node_type.factory(config)
            steps.append(
                _Step(
                    name,
                    config.type,
                    node_type.kind,
                    getattr(node, _METHOD[node_type.kind]),
                    config.inputs,
                    tuple(slot[(source, name)] for source in config.inputs),
                    tuple((slot[(name, r)], r) for r in receivers[name]),
                )
            )
        self.spec = spec
        self.config = spec.as_data()  # normalised, as hashed into the id and written in traces
        self.id = spec.id
        self.steps: tuple[_Step, ...] = tuple(steps)
        self._names = tuple(s.name for s in steps)
        self._edges = len(slot)
        self.boundary = _replayed(self.steps, roots)

    @property
    def name(self) -> str:
        return self.spec.name

    def run(
        self,
        context: Any,
        *,
        deadline: float | None = None,
        sink: Sink | None = None,
        recorded: Mapping[str, Batch[Any]] | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> PipelineResult:
        """One execution. ``recorded`` gives outputs to send instead of running those nodes
        (replay); ``deadline`` is a time.monotonic() instant.

        Node timings are taken when a sink watches the execution; without one, the engine
        only makes and passes the events, and builds node reports if they are asked for.
        """
        execution_id = f"{_PROCESS}-{next(_EXECUTIONS)}"
        meta = {"pipeline": self.id, "execution": execution_id}
        if metadata:
            meta.update(metadata)
        if sink is None and recorded is None:
            return self._run_unwatched(context, deadline, meta)
        events = EventFactory(meta)
        seq = events.next_seq
        reports = [NodeReport(s.name, s.type, s.kind) for s in self.steps]
        result = PipelineResult(self.id, execution_id, dict(zip(self._names, reports, strict=True)))
        run = Run(context, deadline, execution_id, self)
        sent: list[Any] = [None] * self._edges  # the data events, one slot per edge
        merged: dict[tuple[str, ...], Batch[Any]] = {}
        clock = time.perf_counter
        start = clock()
        epoch = time.time() - start  # event times from the same clock as node times
        new = tuple.__new__
        checkpoint = sink is not None
        if sink is not None:
            sink.begin(self, result)
        for step, report in zip(self.steps, reports, strict=True):
            name = step.name
            if deadline is not None and time.monotonic() > deadline:
                self._expire(result, events, sink, None)
                break
            if checkpoint and name in self.boundary:
                assert sink is not None
                run = Run(sink.checkpoint(context), deadline, execution_id, self)
                checkpoint = False
            report.state = ACTIVE
            report.started = clock() - start
            in_slots = step.in_slots
            if not in_slots:
                batch = _EMPTY
            elif len(in_slots) == 1:
                batch = sent[in_slots[0]].batch
            else:
                shared = merged.get(step.inputs)  # nodes reading the same inputs share it
                if shared is None:
                    shared = merged[step.inputs] = _merge([sent[i].batch for i in in_slots])
                batch = shared
            report.received = len(batch.variables)
            output: Any = None
            try:
                if recorded is not None and name in recorded:
                    report.reason = "output replayed from the trace"
                    output = recorded[name]
                elif step.kind is PRODUCER:
                    output = step.call(run)
                elif step.kind is CONSUMER:
                    result.outputs[name] = step.call(run, batch)
                else:
                    output = step.call(run, batch)
            except SolveTimeout as stopped:
                report.finished = clock() - start
                self._expire(result, events, sink, stopped)
                break
            except Exception as error:
                report.finished = clock() - start
                self._fail(step, error, result, events, sink)
                break
            if output is not None:
                if type(output) is not Batch:
                    output = Batch(tuple(output))
                report.emitted = len(output.variables)
                now = clock()
                created = epoch + now  # one instant for the events of one output
                for index, receiver in step.out_slots:
                    event = new(DataEvent, (seq(), created, name, name, receiver, meta, output))
                    sent[index] = event
                    if sink is not None:
                        sink.event(event)
                report.finished = now - start
            else:
                report.finished = clock() - start
            report.state = SUCCESSFUL
        if sink is not None:
            sink.end(result)
        return result

    def _run_unwatched(
        self, context: Any, deadline: float | None, meta: dict[str, str]
    ) -> PipelineResult:
        """``run`` without a sink: the same events and answers, with nothing spent on timings
        or on reports until someone reads them."""
        execution_id = meta["execution"]
        run = Run(context, deadline, execution_id, self)
        sent: list[Any] = [None] * self._edges
        merged: dict[tuple[str, ...], Batch[Any]] = {}
        received: list[int] = []
        emitted: list[int] = []
        outputs: dict[str, Any] = {}
        new = tuple.__new__
        seq = 0
        for step in self.steps:
            if deadline is not None and time.monotonic() > deadline:
                return self._stopped(step, None, meta, seq, received, emitted, outputs)
            in_slots = step.in_slots
            if not in_slots:
                batch = _EMPTY
            elif len(in_slots) == 1:
                batch = sent[in_slots[0]].batch
            else:
                shared = merged.get(step.inputs)
                if shared is None:
                    shared = merged[step.inputs] = _merge([sent[i].batch for i in in_slots])
                batch = shared
            received.append(len(batch.variables))
            try:
                if step.kind is PRODUCER:
                    output = step.call(run)
                elif step.kind is CONSUMER:
                    outputs[step.name] = step.call(run, batch)
                    emitted.append(0)
                    continue
                else:
                    output = step.call(run, batch)
            except Exception as error:
                return self._stopped(step, error, meta, seq, received, emitted, outputs)
            if type(output) is not Batch:
                output = Batch(tuple(output))
            emitted.append(len(output.variables))
            created = time.time()
            name = step.name
            for index, receiver in step.out_slots:
                seq += 1
                sent[index] = new(DataEvent, (seq, created, name, name, receiver, meta, output))
        return PipelineResult(
            self.id, execution_id, lambda: self._reports(received, emitted), outputs
        )

    def _reports(self, received: list[int], emitted: list[int]) -> dict[str, NodeReport]:
        """Reports of an unwatched run: concluded steps successful, the next one active."""
        reports: dict[str, NodeReport] = {}
        for n, step in enumerate(self.steps):
            report = reports[step.name] = NodeReport(step.name, step.type, step.kind)
            if n < len(emitted):
                report.state = SUCCESSFUL
                report.received, report.emitted = received[n], emitted[n]
            elif n < len(received):
                report.state = ACTIVE
                report.received = received[n]
        return reports

    def _stopped(
        self,
        step: _Step,
        error: Exception | None,
        meta: dict[str, str],
        seq: int,
        received: list[int],
        emitted: list[int],
        outputs: dict[str, Any],
    ) -> PipelineResult:
        """An unwatched run that failed or ran out of time: now reports are worth building."""
        result = PipelineResult(self.id, meta["execution"], self._reports(received, emitted))
        result.outputs = outputs
        events = EventFactory(meta, first=seq + 1)
        if error is None or isinstance(error, SolveTimeout):
            self._expire(result, events, None, error)
        else:
            self._fail(step, error, result, events, None)
        return result

    def _fail(
        self,
        step: _Step,
        error: Exception,
        result: PipelineResult,
        events: EventFactory,
        sink: Sink | None,
    ) -> None:
        report = result.nodes[step.name]
        report.state = NodeState.FAILED
        report.error = str(error) or type(error).__name__
        result.failed_node = step.name
        result.error = error
        for other in self.steps:
            if other.name == step.name:
                continue
            event = events.error(step.name, other.name, report.error, type(error).__name__)
            if sink is not None:
                sink.event(event)
            aborted = result.nodes[other.name]
            aborted.state = NodeState.ABORTED
            aborted.reason = f"node {step.name!r} failed"

    def _expire(
        self,
        result: PipelineResult,
        events: EventFactory,
        sink: Sink | None,
        error: SolveTimeout | None,
    ) -> None:
        result.expired = True
        result.error = error
        for step in self.steps:
            event = events.error(DEADLINE, step.name, "the deadline passed", "DeadlineExpired")
            if sink is not None:
                sink.event(event)
            report = result.nodes[step.name]
            report.state = NodeState.ABORTED
            report.reason = "the deadline passed"


def _merge(batches: list[Batch[Any]]) -> Batch[Any]:
    """Inputs in declared order: the order of the variables is part of the answer."""
    variables: tuple[Any, ...] = ()
    core: tuple[AppliedConstraint, ...] | None = None
    for batch in batches:
        variables += batch.variables
        if batch.core is not None:
            core = batch.core if core is None else core + batch.core
    return Batch(variables, core)


def _replayed(steps: Sequence[_Step], roots: list[str]) -> frozenset[str]:
    """Replay re-runs the replay roots (solvers), everything downstream of them, and every
    consumer; every other node's output comes from the trace."""
    chosen = set(roots) | {s.name for s in steps if s.kind is NodeKind.CONSUMER}
    for step in steps:  # topological order: inputs come first
        if any(i in chosen for i in step.inputs):
            chosen.add(step.name)
    return frozenset(chosen)
