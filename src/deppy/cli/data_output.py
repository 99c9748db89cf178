"""Everything the CLI writes goes through here. Data for programs — JSON (indented, keys in the
data's own order) or YAML, one place for every command's ``-o json|yaml``, and the other data
formats (HTML, DOT, manifests) — is written exactly (:func:`dump`, :func:`emit`, or
:func:`write_file` for a file named by an option); text for
people (tables, explanations, warnings, notes) through :func:`say`, which makes every line
printable (:mod:`deppy.terminal_text`: a name holding terminal control sequences is shown
escaped, never obeyed). ``-q`` keeps warnings off stderr."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
import orjson

from deppy.terminal_text import terminal_text


class Settings:
    """What the options of the running command set for the helpers that print (``-q``)."""

    quiet = False
    warned = 0  # lines of warnings written to stderr: an explanation fits in what is left


SETTINGS = Settings()


def say(text: str, *, err: bool = False, nl: bool = True) -> None:
    """Text for people, on stdout (or stderr), every line printable."""
    click.echo(terminal_text(text), err=err, nl=nl)


def emit(text: str, *, nl: bool = True) -> None:
    """Data for a program (HTML, DOT, YAML manifests, an export) on stdout, exactly."""
    click.echo(text, nl=nl)


def write_file(path: Path, data: bytes) -> None:
    """Write ``path`` whole or not at all: into a temporary file beside it, renamed over it once
    complete, so Ctrl-C, SIGTERM or a full disk never leaves half a file (nor the temporary
    one), and a file that was there stays as it was. The file gets the mode the old one had
    (else the umask's). A path that is no regular file (``/dev/stdout``, a FIFO) is written
    directly: there is nothing to rename over."""
    import stat
    import tempfile

    target = Path(os.path.realpath(path))  # a link is followed, not replaced by a file
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = stat.S_IFREG | (0o666 & ~_umask())
    if not stat.S_ISREG(mode):
        target.write_bytes(data)
        return
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            os.fchmod(file.fileno(), stat.S_IMODE(mode))
            file.write(data)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def dump(data: Any, output: str) -> None:
    """JSON (indented) or YAML, keys in the data's own order."""
    if output == "json":
        click.echo(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode())
    else:
        from deppy.input_limits.yaml_writer import yaml_text

        click.echo(yaml_text(data).rstrip())


def warn(message: str) -> None:
    """``deppy: warning: …`` on stderr, unless -q; wrapped at a screen's 100 columns."""
    if not SETTINGS.quiet:
        note(f"deppy: warning: {message}")


def warn_within(messages: Sequence[str], lines: int) -> None:
    """The warnings that fit in ``lines`` lines, then how many more ``-v`` shows (the screen
    an explanation shares with them is ten lines)."""
    if SETTINGS.quiet:
        return
    wrapped = [_wrapped(f"deppy: warning: {message}") for message in messages]
    if sum(map(len, wrapped)) <= lines:
        for one in wrapped:
            _echo(one)
        return
    used = 0
    for n, one in enumerate(wrapped):
        if used + len(one) > max(lines, 1) - 1:
            left = len(wrapped) - n
            count = f"{left} more warning" if n else f"{left} warning"
            _echo([f"deppy: warning: {count}{'s' * (left > 1)} (-v shows them)"])
            return
        _echo(one)
        used += len(one)


def note(text: str) -> None:
    """A line for people on stderr, wrapped at 100 columns (a word is never cut), counted."""
    _echo(_wrapped(text))


def _wrapped(text: str) -> list[str]:
    import textwrap

    from deppy.explain.render import SCREEN_WIDTH

    if len(text) <= SCREEN_WIDTH:
        return [text]
    indent = "    " if text.startswith("  ") else "  "  # a continuation keeps its indent
    lines = textwrap.wrap(
        text.strip(),
        SCREEN_WIDTH,
        initial_indent=indent[:-2],
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    )
    return lines or [text]


def _echo(lines: list[str]) -> None:
    SETTINGS.warned += len(lines)
    say("\n".join(lines), err=True)
