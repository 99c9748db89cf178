"""Data for programs: JSON (indented, keys in the data's own order) or YAML, one place for
every command's ``-o json|yaml``; and ``-q``, which keeps warnings off stderr."""

from __future__ import annotations

from typing import Any

import click
import orjson


class Settings:
    """What the options of the running command set for the helpers that print (``-q``)."""

    quiet = False
    warned = 0  # lines of warnings written to stderr: an explanation fits in what is left


SETTINGS = Settings()


def dump(data: Any, output: str) -> None:
    """JSON (indented) or YAML, keys in the data's own order."""
    if output == "json":
        click.echo(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode())
    else:
        import yaml  # deferred: most commands print no YAML

        click.echo(yaml.safe_dump(data, sort_keys=False, width=100).rstrip())


def warn(message: str) -> None:
    """``deppy: warning: …`` on stderr, unless -q; wrapped at a screen's 100 columns."""
    if not SETTINGS.quiet:
        note(f"deppy: warning: {message}")


def note(text: str) -> None:
    """A line for people on stderr, wrapped at 100 columns (a word is never cut), counted."""
    import textwrap

    from deppy.explain.render import SCREEN_WIDTH

    lines = textwrap.wrap(
        text, SCREEN_WIDTH, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False
    )
    lines = lines or [text]
    if text.startswith(" "):  # an indented line (a continuation) keeps its indent
        lines = [text] if len(text) <= SCREEN_WIDTH else lines
    SETTINGS.warned += len(lines)
    click.echo("\n".join(lines), err=True)
