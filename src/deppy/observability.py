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
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

F = TypeVar("F", bound=Callable[..., Any])
FORMATS = ("text", "json")
TEXT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# Durations from milliseconds (a small catalog) to minutes (a catalog load, a quiet namespace).
SECONDS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)


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
    return logging.Formatter(TEXT)


def configure(log_format: str, *, level: int = logging.INFO) -> None:
    """Every record of the process to stderr in ``log_format``, from ``level`` up (replacing
    handlers set earlier, so a second call does not double the lines)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(log_format))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
