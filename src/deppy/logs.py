"""How deppy's long-running commands (``deppy serve``, ``deppy controller``) log.

``text`` (the default) is a line a person reads at a terminal; ``json`` is one JSON object a line
for a log pipeline (Loki, Elasticsearch, Cloud Logging): ``time`` (UTC, ISO 8601), ``level``,
``logger``, ``message`` and the fields a line is about, given as ``extra=`` by the caller —
``kind``, ``object``, ``namespace``, ``reason``, ``duration`` (seconds). The JSON is written by
python-json-logger (kopf's own choice for its JSON logs) through orjson.
"""

from __future__ import annotations

import logging
import sys

FORMATS = ("text", "json")
TEXT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


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
