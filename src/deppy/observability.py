"""What deppy's long-running commands (``deppy serve``, ``deppy controller``) share to be
observed: how they log, and the plumbing of their Prometheus metrics (the metrics themselves are
each front door's: ``service/metrics.py``, ``controller/metrics.py``).

``text`` (the default) is a line a person reads at a terminal; ``json`` is one JSON object a line
for a log pipeline (Loki, Elasticsearch, Cloud Logging): ``time`` (UTC, ISO 8601), ``level``,
``logger``, ``message`` and the fields a line is about, given as ``extra=`` by the caller —
``kind``, ``object``, ``namespace``, ``reason``, ``duration`` (seconds). The JSON is written by
python-json-logger (kopf's own choice for its JSON logs) through orjson.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

F = TypeVar("F", bound=Callable[..., Any])
FORMATS = ("text", "json")
TEXT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# Durations from milliseconds (a small catalog) to minutes (a catalog load, a quiet namespace).
SECONDS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)


OTHER = "other"
"""The label value every value past a label's bound folds into."""


class LabelValues:
    """The values one metric label may take: a series per value costs memory for the life of
    the process and a line at every scrape, so a value that comes from outside (an HTTP
    method, an object's name or namespace) must come from a bounded set. ``known`` values are
    always kept; others are kept until ``cap`` distinct ones were seen, then fold into
    :data:`OTHER`. ``forget`` frees the place of a value that is gone (a deleted object)."""

    def __init__(self, known: Iterable[str] = (), cap: int = 0) -> None:
        self.known = frozenset(known)
        self.cap = cap
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, value: str) -> str:
        if value in self.known:
            return value
        with self._lock:
            if value in self._seen:
                return value
            if len(self._seen) < self.cap:
                self._seen.add(value)
                return value
        return OTHER

    def forget(self, value: str) -> bool:
        """Whether ``value`` had a place of its own (its series may now be removed)."""
        with self._lock:
            if value in self._seen:
                self._seen.discard(value)
                return True
        return False


def registry() -> CollectorRegistry:
    """A registry of one's own (two apps in one process never share counts), with the process's
    memory, CPU and open files, and without ``*_created`` series (noise to a scraper)."""
    from prometheus_client import CollectorRegistry, ProcessCollector, disable_created_metrics

    disable_created_metrics()  # type: ignore[no-untyped-call]
    found = CollectorRegistry()
    ProcessCollector(registry=found)
    return found


def log_format_option(fields: str) -> Callable[[F], F]:
    """``--log-format text|json`` for a command whose JSON lines carry ``fields``."""
    import click

    return click.option(
        "--log-format",
        type=click.Choice(FORMATS),
        default="text",
        show_default=True,
        help=f"json: one JSON object a line ({fields}).",
    )


def formatter(log_format: str) -> logging.Formatter:
    if log_format == "json":
        from pythonjsonlogger.orjson import OrjsonFormatter

        return OrjsonFormatter(
            "{levelname}{name}{message}",
            style="{",
            rename_fields={"levelname": "level", "name": "logger"},
            timestamp="time",
        )
    return _PrintableFormatter(TEXT)


class _PrintableFormatter(logging.Formatter):
    """Text lines for a terminal: a name from a spec or a catalog is shown, never obeyed."""

    def format(self, record: logging.LogRecord) -> str:
        from deppy.terminal_text import terminal_text

        return terminal_text(super().format(record))


def configure(log_format: str, *, level: int = logging.INFO) -> None:
    """Every record of the process to stderr in ``log_format``, from ``level`` up (replacing
    handlers set earlier, so a second call does not double the lines)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(log_format))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
