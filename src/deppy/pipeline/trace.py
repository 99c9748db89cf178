"""The trace format: one execution as JSON lines, readable without deppy and replayable with it.

Records, one per line, each with a ``record`` field:

- ``header`` (first line): format name and version, domain, pipeline id and name, execution id,
  creation time, the pipeline configuration, and which nodes a replay re-runs;
- ``event``: every event in creation order, header fields plus a ``payload`` (data) or an
  ``error``; a batch sent to several receivers is written once, later events point to the first
  with ``payload_of``;
- ``context``: what the re-runnable nodes asked of their context (for OLM: the request, the
  warnings so far and every catalog question with its answer), so replay needs no catalog;
- ``result``: the outcome and every node's final state, counts and timings;
- ``notes`` (after the result, only when there are any): the warnings the command added to its
  answer once the pipeline was done — the request's notes, the load problems of the catalogs
  the answer used — as ``-o json`` carries them, so that a replay, which reads no catalog,
  prints the same answer (:func:`append_notes`).

Payload contents belong to the domain's codec; variables are at least ``{"id", ...}`` objects,
or a bare id string when the same variable was written earlier in the trace.
"""

from __future__ import annotations

import datetime
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from deppy.errors import InputError, excerpt
from deppy.input_limits import UnsafeInput, json_value, read_input
from deppy.pipeline.domain import Domain, PayloadEncoder
from deppy.pipeline.engine import Pipeline
from deppy.pipeline.events import Batch, DataEvent, Event
from deppy.pipeline.states import PipelineResult

FORMAT = "deppy-trace"
VERSION = 1


class TraceWriter:
    """A debug sink that writes the trace of one execution to a binary stream."""

    def __init__(self, stream: IO[bytes], domain: Domain) -> None:
        self.stream = stream
        self.domain = domain
        self.encoder: PayloadEncoder = domain.encoder()
        self._first_event: dict[int, str] = {}  # id(batch) -> the event that carried it
        self._batches: list[Batch[Any]] = []  # keeps ids in _first_event from being reused
        self.records = 0

    def _write(self, record: dict[str, Any]) -> None:
        self.stream.write(orjson.dumps(record) + b"\n")
        self.records += 1

    def begin(self, pipeline: Pipeline, result: PipelineResult) -> None:
        created = datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")
        self._write(
            {
                "record": "header",
                "format": FORMAT,
                "version": VERSION,
                "domain": self.domain.name,
                "pipeline_id": pipeline.id,
                "pipeline": pipeline.name,
                "execution_id": result.execution_id,
                "created": created,
                "config": _config(pipeline),
                "replayed_nodes": [s.name for s in pipeline.steps if s.name in pipeline.boundary],
            }
        )

    def event(self, event: Event) -> None:
        if isinstance(event, DataEvent):
            record: dict[str, Any] = {
                "record": "event",
                "type": "data",
                "id": f"{event.metadata['execution']}/{event.seq}",
                "created": event.created,
                "creator": event.creator,
                "sender": event.sender,
                "receiver": event.receiver,
                "metadata": event.metadata,
            }
            batch = event.batch
            first = self._first_event.get(id(batch))
            if first is not None:
                record["payload_of"] = first
            else:
                self._first_event[id(batch)] = record["id"]
                self._batches.append(batch)
                record["payload"] = self.encoder.encode(batch)
        else:
            header = event.header
            record = {
                "record": "event",
                "type": event.type,
                "id": header.id,
                "created": header.created,
                "creator": header.creator,
                "sender": header.sender,
                "receiver": header.receiver,
                "metadata": header.metadata,
                "error": {"type": event.error_type, "message": event.message},
            }
        self._write(record)

    def checkpoint(self, context: Any) -> Any:
        return self.encoder.capture(context)

    def end(self, result: PipelineResult) -> None:
        snapshot = self.encoder.snapshot()
        if snapshot is not None:
            self._write({"record": "context", "data": snapshot})
        outcome = "succeeded" if result.succeeded else "expired" if result.expired else "failed"
        self._write(
            {
                "record": "result",
                "outcome": outcome,
                "failed_node": result.failed_node,
                "message": result.message,
                "nodes": [
                    {
                        "name": r.name,
                        "type": r.type,
                        "kind": r.kind.value,
                        "state": r.state.value,
                        "started": r.started,
                        "finished": r.finished,
                        "received": r.received,
                        "emitted": r.emitted,
                        "error": r.error,
                        "reason": r.reason,
                    }
                    for r in result.nodes.values()
                ],
            }
        )
        self.stream.flush()


_CONFIGS: dict[str, Any] = {}  # pipeline id -> its configuration, serialised once


def _config(pipeline: Pipeline) -> Any:
    found = _CONFIGS.get(pipeline.id)
    if found is None:
        fragment = getattr(orjson, "Fragment", None)  # pre-serialised JSON, orjson >= 3.9.10
        found = pipeline.config if fragment is None else fragment(orjson.dumps(pipeline.config))
        _CONFIGS[pipeline.id] = found
    return found


@contextmanager
def trace_file(path: str | Path, domain: Domain) -> Iterator[TraceWriter]:
    """A writer for ``path``; a path that cannot be written is the user's to fix (exit 2).

    When nothing was recorded (the request was refused before the pipeline ran), no empty
    file is left behind; nor half a trace when the command is interrupted (Ctrl-C, SIGTERM). A
    trace of a run that failed is kept: it records the failure.
    """
    try:
        stream = open(path, "wb")  # noqa: SIM115 - closed below
    except OSError as error:
        raise InputError(f"--trace {path}", f"cannot write the trace: {error.strerror}") from None
    writer = TraceWriter(stream, domain)
    interrupted = False
    try:
        with stream:
            yield writer
    except KeyboardInterrupt:  # cut short: half a trace, which no one could replay
        interrupted = True
        raise
    finally:
        if interrupted or writer.records == 0:
            _remove_regular_file(Path(path))


def _remove_regular_file(path: Path) -> None:
    """Remove the trace file, if it is one: ``--trace /dev/stdout`` names no file to remove."""
    with suppress(OSError):
        if stat.S_ISREG(path.lstat().st_mode):
            path.unlink()


@dataclass(slots=True)
class Trace:
    path: str
    header: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    context: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    event_lines: list[int] = field(default_factory=list)
    """The line of each of ``events`` in the file: a damaged record is named by its line."""
    context_line: int = 0

    def damaged(self, what: str, error: Exception, line: int | None = None) -> InputError:
        """The one error of a record that parsed as JSON but holds what no trace holds (at
        ``line``), or of records that do not fit together (the file)."""
        return InputError(
            self.path if line is None else f"{self.path}:{line}",
            f"the trace is damaged: {what} ({type(error).__name__}: {excerpt(str(error))})",
            "record it again with deppy resolve --trace FILE",
        )


def append_notes(path: Path, notes: Sequence[str]) -> None:
    """Add the warnings a command put in its answer after the pipeline (a ``notes`` record)
    to the trace at ``path`` it has just written; nothing when there are none."""
    if not notes:
        return
    try:
        with open(path, "ab") as stream:
            stream.write(orjson.dumps({"record": "notes", "warnings": list(notes)}) + b"\n")
    except OSError as error:
        raise InputError(f"--trace {path}", f"cannot write the trace: {error.strerror}") from None


def read_trace(path: str | Path) -> Trace:
    return parse_trace(read_input(path, "the trace"), str(path))


def parse_trace(data: bytes, where: str) -> Trace:
    records = [
        (n, _record(line, f"{where}:{n}"))
        for n, line in enumerate(data.splitlines(), 1)
        if line.strip()
    ]
    if not records or records[0][1].get("record") != "header":
        raise InputError(where, "not a deppy trace", "write one with deppy resolve --trace FILE")
    header = records[0][1]
    if header.get("format") != FORMAT:
        raise InputError(where, "not a deppy trace", "write one with deppy resolve --trace FILE")
    if header.get("version") != VERSION:
        raise InputError(
            where,
            f"trace format version {excerpt(header.get('version'))} is not one this deppy reads",
            f"this deppy reads version {VERSION}",
        )
    for key in ("domain", "pipeline_id", "execution_id", "config"):
        if key not in header:
            raise InputError(f"{where}:1", f"the header has no {excerpt(key)}")
    trace = Trace(where, header)
    for n, record in records[1:]:
        kind = record.get("record")
        if kind == "event":
            trace.events.append(record)
            trace.event_lines.append(n)
        elif kind == "context":
            trace.context = record.get("data")
            trace.context_line = n
        elif kind == "result":
            trace.result = record
        elif kind == "notes":
            trace.notes = _notes(record, f"{where}:{n}")
        else:
            raise InputError(f"{where}:{n}", f"unknown record type {excerpt(kind)}")
    return trace


def _notes(record: dict[str, Any], where: str) -> list[str]:
    warnings = record.get("warnings")
    if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
        raise InputError(where, "the notes record's warnings are not a list of strings",
                         "the trace is damaged")  # fmt: skip
    return warnings


def _record(line: bytes, where: str) -> dict[str, Any]:
    try:
        record = json_value(line)
    except orjson.JSONDecodeError:
        raise InputError(where, "not a JSON record", "the trace is damaged") from None
    except UnsafeInput as error:
        raise InputError(where, str(error), "the trace is damaged") from None
    if not isinstance(record, dict):
        raise InputError(where, "not a JSON object", "the trace is damaged")
    return record
