"""Events: the only way nodes hand each other work, so one sink can watch a whole execution.

A data event carries a batch of variables (a node's whole output for one receiver); an error
event says a node failed or the deadline passed. Headers hold what is needed to rebuild the
execution afterwards: who created the event, who sent it to whom, when, and the pipeline and
execution ids (shared by every event of an execution, so no per-event copy is made).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar

from deppy.solver import AppliedConstraint

V = TypeVar("V")

BROADCAST = "*"


class Header:
    """``creator`` made the event; ``sender`` passed it to ``receiver`` (they differ on replay).

    The id is ``<execution id>/<n>``, n counting the execution's events from 1; it is spelled
    out only when asked for. A plain slotted class rather than a frozen dataclass: every edge
    of every execution makes one, and a frozen dataclass costs several times more to build.
    """

    __slots__ = ("created", "creator", "metadata", "receiver", "sender", "seq")

    def __init__(
        self,
        seq: int,
        created: float,
        creator: str,
        sender: str,
        receiver: str,
        metadata: Mapping[str, str],
    ) -> None:
        self.seq = seq
        self.created = created  # seconds since the epoch (time.time())
        self.creator = creator
        self.sender = sender
        self.receiver = receiver
        self.metadata = metadata  # pipeline and execution ids, shared by the execution's events

    @property
    def id(self) -> str:
        return f"{self.metadata['execution']}/{self.seq}"

    def __repr__(self) -> str:
        return f"Header({self.id!r}, {self.creator!r}: {self.sender!r} -> {self.receiver!r})"


class Batch(Generic[V]):
    """What a data event carries: variables in order and, from a solver, the unsat core.

    ``core`` is None for ordinary batches and for a satisfied solve (then ``variables`` are the
    selection); for an unsatisfiable problem it is the minimal core, and ``variables`` are the
    variables it cites. Shared by every event that carries it, never copied or changed.
    """

    __slots__ = ("core", "variables")

    def __init__(
        self, variables: tuple[V, ...], core: tuple[AppliedConstraint, ...] | None = None
    ) -> None:
        self.variables = variables
        self.core = core

    def __repr__(self) -> str:
        core = "" if self.core is None else f", core of {len(self.core)}"
        return f"Batch({len(self.variables)} variables{core})"


class DataEvent(NamedTuple):
    """A batch sent from one node to another.

    A tuple, with the header's fields kept on the event and the ``Header`` made when asked
    for: an execution makes one per edge, and without a sink nothing ever asks.
    """

    seq: int
    created: float
    creator: str
    sender: str
    receiver: str
    metadata: Mapping[str, str]
    batch: Batch[Any]

    @property
    def type(self) -> str:
        return "data"

    @property
    def header(self) -> Header:
        return Header(
            self.seq, self.created, self.creator, self.sender, self.receiver, self.metadata
        )


class ErrorEvent:
    """A failure, sent from the failed node (or ``pipeline`` for a deadline) to every node."""

    __slots__ = ("error_type", "header", "message")
    type: ClassVar[str] = "error"

    def __init__(self, header: Header, message: str, error_type: str) -> None:
        self.header = header
        self.message = message
        self.error_type = error_type


Event = DataEvent | ErrorEvent


class EventFactory:
    """Numbers the events of one execution; ``metadata`` must hold its ``execution`` id."""

    __slots__ = ("_counter", "metadata")

    def __init__(self, metadata: Mapping[str, str], first: int = 1) -> None:
        self.metadata = metadata
        self._counter = itertools.count(first)

    def next_seq(self) -> int:
        return next(self._counter)

    def error(self, creator: str, receiver: str, message: str, error_type: str) -> ErrorEvent:
        header = Header(next(self._counter), time.time(), creator, creator, receiver, self.metadata)
        return ErrorEvent(header, message, error_type)
