"""Replay: re-run an execution from its trace alone.

The choice of what to replay: the nodes upstream of the solver are the ones that read sources
(catalogs, the cluster); their recorded outputs are fed back as they were, and the solver, every
node downstream of it and every consumer run again. What those re-run nodes asked of their
context during the recording (the catalog questions the output collector asks to name channels,
upgrade paths and deprecations) is in the trace's context record, so no catalog is needed and
the answer is the same, byte for byte.
"""

from __future__ import annotations

from typing import Any

from deppy.errors import InputError, excerpt
from deppy.pipeline.config import parse_pipeline
from deppy.pipeline.domain import Domain, PayloadDecoder
from deppy.pipeline.engine import Pipeline, Sink
from deppy.pipeline.events import Batch
from deppy.pipeline.states import PipelineResult
from deppy.pipeline.trace import Trace


def replay(
    trace: Trace, domain: Domain, *, deadline: float | None = None, sink: Sink | None = None
) -> PipelineResult:
    where = trace.path
    pipeline = Pipeline(parse_pipeline(trace.header["config"], f"{where}: config"), domain.library)
    if pipeline.id != trace.header["pipeline_id"]:
        raise InputError(
            where,
            f"the recorded pipeline id {trace.header['pipeline_id']} does not match its "
            f"configuration ({pipeline.id})",
            "the trace was edited; record it again",
        )
    decoder = domain.decoder(where)
    outputs = _recorded_outputs(trace, decoder)
    recorded: dict[str, Batch[Any]] = {}
    for step in pipeline.steps:
        if step.name in pipeline.boundary:
            continue
        if step.name not in outputs:
            raise InputError(where, f"node {step.name!r} has no recorded output", _why(trace))
        recorded[step.name] = outputs[step.name]
    if trace.context is None:
        raise InputError(where, "the trace has no context record", _why(trace))
    try:
        context = decoder.restore(trace.context)
    except DAMAGE as error:
        raise trace.damaged("the context record is malformed", error, trace.context_line) from None
    return pipeline.run(
        context,
        deadline=deadline,
        sink=sink,
        recorded=recorded,
        metadata={"replay_of": str(trace.header["execution_id"])},
    )


def _recorded_outputs(trace: Trace, decoder: PayloadDecoder) -> dict[str, Batch[Any]]:
    """Every node's output, decoded in trace order (codecs keep tables across payloads)."""
    by_event: dict[str, Batch[Any]] = {}
    outputs: dict[str, Batch[Any]] = {}
    for record, line in zip(trace.events, trace.event_lines, strict=True):
        if record.get("type") != "data":
            continue
        try:
            if "payload" in record:
                batch = decoder.decode(record["payload"])
                by_event[record["id"]] = batch
            else:
                batch = by_event[record["payload_of"]]
            outputs.setdefault(record["sender"], batch)
        except DAMAGE as error:
            what = f"event {excerpt(record.get('id'))} has a malformed payload"
            raise trace.damaged(what, error, line) from None
    return outputs


DAMAGE = (KeyError, TypeError, ValueError, IndexError, AttributeError)
"""What decoding a record that is JSON but not what deppy wrote raises (a payload that is a
list has no ``.get``, a warning that is an object cannot be hashed)."""


def _why(trace: Trace) -> str:
    message = (trace.result or {}).get("message")
    if message:
        return f"the recorded execution did not reach the solver ({message})"
    return "the recorded execution ended before the solver ran; record it again"
