"""Data for programs: JSON (indented, keys in the data's own order) or YAML, one place for
every command's ``-o json|yaml``; and ``-q``, which keeps warnings off stderr."""

from __future__ import annotations

from typing import Any

import click
import orjson


class Settings:
    """What the options of the running command set for the helpers that print (``-q``)."""

    quiet = False


SETTINGS = Settings()


def dump(data: Any, output: str) -> None:
    """JSON (indented) or YAML, keys in the data's own order."""
    if output == "json":
        click.echo(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode())
    else:
        import yaml  # deferred: most commands print no YAML

        click.echo(yaml.safe_dump(data, sort_keys=False, width=100).rstrip())


def warn(message: str) -> None:
    """``deppy: warning: …`` on stderr, unless -q."""
    if not SETTINGS.quiet:
        click.echo(f"deppy: warning: {message}", err=True)
