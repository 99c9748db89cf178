"""The generic engine with small domain-free nodes: states, events, errors, deadlines, ids."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from deppy.pipeline.config import PipelineSpec, parse_pipeline
from deppy.pipeline.engine import Pipeline
from deppy.pipeline.events import Batch, DataEvent, ErrorEvent
from deppy.pipeline.library import NodeConfig, NodeLibrary, NodeType, Run
from deppy.pipeline.sinks import MemorySink
from deppy.pipeline.solver_node import SolverNode
from deppy.pipeline.states import NodeKind, NodeState
from deppy.solver import Conflict, Dependency, Mandatory, SolveTimeout, Variable


@dataclass(frozen=True)
class Item:
    """A pipeline variable of this test domain: just a solver variable."""

    variable: Variable


class Emit:
    """Produces the variables named in its config."""

    def __init__(self, config: NodeConfig) -> None:
        self.ids = list(config.config.get("ids", []))
        self.mandatory = bool(config.config.get("mandatory", False))

    def produce(self, run: Run) -> list[Item]:
        return [Item(Variable(i, [Mandatory()] if self.mandatory else [])) for i in self.ids]


class Requires:
    """For every input variable, one that depends on it (a processor emits new variables)."""

    def __init__(self, config: NodeConfig) -> None:
        pass

    def process(self, run: Run, batch: Batch[Any]) -> list[Item]:
        return [
            Item(Variable(f"needs {i.variable.id}", [Dependency(i.variable.id)]))
            for i in batch.variables
        ]


class Forbid:
    """A mandatory variable in conflict with each input variable."""

    def __init__(self, config: NodeConfig) -> None:
        pass

    def process(self, run: Run, batch: Batch[Any]) -> list[Item]:
        return [
            Item(Variable(f"no {i.variable.id}", [Mandatory(), Conflict(i.variable.id)]))
            for i in batch.variables
        ]


class Fail:
    def __init__(self, config: NodeConfig) -> None:
        pass

    def process(self, run: Run, batch: Batch[Any]) -> list[Item]:
        raise RuntimeError("injected failure")


class Stall:
    def __init__(self, config: NodeConfig) -> None:
        pass

    def process(self, run: Run, batch: Batch[Any]) -> list[Item]:
        raise SolveTimeout()


class Collect:
    def __init__(self, config: NodeConfig) -> None:
        pass

    def consume(self, run: Run, batch: Batch[Any]) -> list[str]:
        return [i.variable.id for i in batch.variables]


def library() -> NodeLibrary:
    lib = NodeLibrary()
    lib.register(NodeType("emit", NodeKind.PRODUCER, Emit, "test"))
    lib.register(NodeType("requires", NodeKind.PROCESSOR, Requires, "test"))
    lib.register(NodeType("forbid", NodeKind.PROCESSOR, Forbid, "test"))
    lib.register(NodeType("fail", NodeKind.PROCESSOR, Fail, "test"))
    lib.register(NodeType("stall", NodeKind.PROCESSOR, Stall, "test"))
    lib.register(
        NodeType("solver", NodeKind.PROCESSOR, lambda c: SolverNode("test"), "", replay_root=True)
    )
    lib.register(NodeType("collect", NodeKind.CONSUMER, Collect, "test"))
    return lib


def spec(*nodes: dict[str, Any], name: str = "test") -> PipelineSpec:
    data = {"kind": "Pipeline", "metadata": {"name": name}, "spec": {"nodes": list(nodes)}}
    return parse_pipeline(data, "test.yaml")


def standard(middle: str = "requires") -> PipelineSpec:
    return spec(
        {"name": "a", "type": "emit", "config": {"ids": ["a1", "a2"], "mandatory": True}},
        {"name": "b", "type": "emit", "config": {"ids": ["b1"]}},
        {"name": "mid", "type": middle, "inputs": ["b"]},
        {"name": "solver", "type": "solver", "inputs": ["a", "b", "mid"]},
        {"name": "out", "type": "collect", "inputs": ["solver"]},
    )


def test_a_run_concludes_every_node_and_sends_one_event_per_edge() -> None:
    pipeline = Pipeline(standard(), library())
    sink = MemorySink()
    result = pipeline.run(None, sink=sink)
    assert result.succeeded and result.message is None
    assert set(result.states.values()) == {NodeState.SUCCESSFUL}
    assert result.outputs["out"] == ["a1", "a2"]
    edges = [(e.header.sender, e.header.receiver) for e in sink.events]
    assert edges == [
        ("a", "solver"),
        ("b", "mid"),
        ("b", "solver"),
        ("mid", "solver"),
        ("solver", "out"),
    ]
    assert all(isinstance(e, DataEvent) for e in sink.events)
    assert len({e.header.id for e in sink.events}) == len(sink.events)
    for event in sink.events:
        assert event.header.creator == event.header.sender
        assert event.header.metadata == {
            "pipeline": pipeline.id,
            "execution": result.execution_id,
        }
    report = result.nodes["solver"]
    assert (report.received, report.emitted) == (4, 2)
    assert report.seconds is not None and report.seconds >= 0


def test_inputs_arrive_in_declared_order() -> None:
    reordered = spec(
        {"name": "a", "type": "emit", "config": {"ids": ["a1"], "mandatory": True}},
        {"name": "b", "type": "emit", "config": {"ids": ["b1"], "mandatory": True}},
        {"name": "solver", "type": "solver", "inputs": ["b", "a"]},
        {"name": "out", "type": "collect", "inputs": ["solver"]},
    )
    assert Pipeline(reordered, library()).run(None).outputs["out"] == ["b1", "a1"]


def test_a_failing_node_fails_and_every_other_node_aborts() -> None:
    pipeline = Pipeline(standard("fail"), library())
    sink = MemorySink()
    result = pipeline.run(None, sink=sink)
    assert not result.succeeded
    assert result.failed_node == "mid"
    assert isinstance(result.error, RuntimeError)
    assert result.message == "node 'mid' (fail) failed: injected failure"
    assert result.states == {
        "a": NodeState.ABORTED,
        "b": NodeState.ABORTED,
        "mid": NodeState.FAILED,
        "solver": NodeState.ABORTED,
        "out": NodeState.ABORTED,
    }
    assert result.nodes["solver"].reason == "node 'mid' failed"
    errors = [e for e in sink.events if isinstance(e, ErrorEvent)]
    assert sorted(e.header.receiver for e in errors) == ["a", "b", "out", "solver"]
    assert {(e.header.creator, e.message, e.error_type) for e in errors} == {
        ("mid", "injected failure", "RuntimeError")
    }


def test_an_expired_deadline_aborts_every_node() -> None:
    pipeline = Pipeline(standard(), library())
    result = pipeline.run(None, deadline=time.monotonic() - 1)
    assert result.expired and not result.succeeded and result.failed_node is None
    assert set(result.states.values()) == {NodeState.ABORTED}
    assert result.message is not None and "deadline" in result.message
    assert result.outputs == {}


def test_a_node_that_runs_out_of_time_aborts_every_node() -> None:
    result = Pipeline(standard("stall"), library()).run(None)
    assert result.expired
    assert set(result.states.values()) == {NodeState.ABORTED}
    assert isinstance(result.error, SolveTimeout)


def test_an_unsatisfiable_problem_is_an_answer_with_its_core() -> None:
    unsat = spec(
        {"name": "a", "type": "emit", "config": {"ids": ["a1"], "mandatory": True}},
        {"name": "forbid", "type": "forbid", "inputs": ["a"]},
        {"name": "solver", "type": "solver", "inputs": ["a", "forbid"]},
        {"name": "out", "type": "collect", "inputs": ["solver"]},
    )
    sink = MemorySink()
    result = Pipeline(unsat, library()).run(None, sink=sink)
    assert result.succeeded
    assert result.outputs["out"] == ["a1", "no a1"]  # the variables the core cites
    last = sink.events[-1]
    assert isinstance(last, DataEvent) and last.batch.core is not None
    assert [a.text for a in last.batch.core] == [
        "a1 is mandatory",
        "no a1 is mandatory",
        "no a1 conflicts with a1",
    ]


def test_pipeline_id_is_stable_and_changes_with_the_configuration() -> None:
    first, second = Pipeline(standard(), library()), Pipeline(standard(), library())
    assert first.id == second.id
    assert (
        Pipeline(standard(), library()).id
        != Pipeline(
            spec(
                {"name": "a", "type": "emit", "config": {"ids": ["a1", "a3"], "mandatory": True}},
                {"name": "b", "type": "emit", "config": {"ids": ["b1"]}},
                {"name": "mid", "type": "requires", "inputs": ["b"]},
                {"name": "solver", "type": "solver", "inputs": ["a", "b", "mid"]},
                {"name": "out", "type": "collect", "inputs": ["solver"]},
            ),
            library(),
        ).id
    )
    one, two = first.run(None), first.run(None)
    assert one.pipeline_id == two.pipeline_id == first.id
    assert one.execution_id != two.execution_id


def test_replay_boundary_is_the_solver_and_what_follows() -> None:
    assert Pipeline(standard(), library()).boundary == {"solver", "out"}


def test_recorded_outputs_replace_nodes() -> None:
    pipeline = Pipeline(standard(), library())
    recorded = {
        "a": Batch((Item(Variable("x", [Mandatory()])),)),
        "b": Batch(()),
        "mid": Batch(()),
    }
    result = pipeline.run(None, recorded=recorded)
    assert result.outputs["out"] == ["x"]
    assert result.nodes["a"].reason == "output replayed from the trace"


def test_a_run_without_a_sink_reports_the_same_states_and_counts() -> None:
    pipeline = Pipeline(standard(), library())
    watched, unwatched = pipeline.run(None, sink=MemorySink()), pipeline.run(None)
    assert unwatched.outputs == watched.outputs
    for name, report in unwatched.nodes.items():
        other = watched.nodes[name]
        assert (report.state, report.received, report.emitted) == (
            other.state,
            other.received,
            other.emitted,
        )
        assert report.seconds is None  # timings are taken when a sink watches


def test_a_failure_without_a_sink_is_reported_the_same_way() -> None:
    result = Pipeline(standard("fail"), library()).run(None)
    assert result.message == "node 'mid' (fail) failed: injected failure"
    assert result.states["mid"] is NodeState.FAILED
    assert {s for n, s in result.states.items() if n != "mid"} == {NodeState.ABORTED}
