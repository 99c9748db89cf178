"""A domain plugs into the generic engine: its node types and its codec for traces.

The engine never imports a domain; a domain (OLM) registers itself here, and a trace names its
domain so ``deppy replay`` can find the node types and the codec it was written with.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from deppy.errors import InputError
from deppy.pipeline.events import Batch
from deppy.pipeline.library import NodeLibrary


class PayloadEncoder(Protocol):
    """Turns batches into JSON for one trace; may keep tables across batches (shared refs)."""

    def encode(self, batch: Batch[Any]) -> dict[str, Any]: ...

    def capture(self, context: Any) -> Any:
        """The context replayed nodes will use, recording what they ask of it."""

    def snapshot(self) -> dict[str, Any] | None:
        """What :meth:`capture` recorded, as JSON (None when nothing was captured)."""


class PayloadDecoder(Protocol):
    """Reads the batches of one trace, in order, and rebuilds the replay context."""

    def decode(self, payload: dict[str, Any]) -> Batch[Any]: ...

    def restore(self, snapshot: dict[str, Any]) -> Any: ...


@dataclass(frozen=True, slots=True)
class Domain:
    name: str
    library: NodeLibrary
    encoder: Callable[[], PayloadEncoder]
    decoder: Callable[[str], PayloadDecoder]  # takes the trace's name, for messages


_DOMAINS: dict[str, Domain] = {}


def register_domain(domain: Domain) -> None:
    _DOMAINS[domain.name] = domain


def find_domain(name: str, where: str) -> Domain:
    found = _DOMAINS.get(name)
    if found is None:
        known = ", ".join(sorted(_DOMAINS)) or "none"
        raise InputError(where, f"unknown domain {name!r}", f"this deppy knows: {known}")
    return found
