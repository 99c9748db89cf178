"""Text for a terminal, whatever the input held: the one mechanism every text output of deppy
goes through (the CLI's writer, the controller's Events and log lines).

A package name is anything a catalog, a request or a cluster says it is, and a terminal obeys
what it is sent: an OSC sequence retitles the window or writes the clipboard, BEL rings, a C1
CSI moves the cursor, a backspace or a right-to-left override (U+202E) shows a name other than
the one there. So every line is made printable as error messages are (:func:`printable`:
control, format and unassigned characters and lone surrogates escaped as ``\\x1b``, ``\\u202e``),
the line breaks of the text kept. JSON and YAML output stay exact (their encoders escape what
they must); only text for people goes through here.
"""

from __future__ import annotations

from deppy.errors import printable

NO_LIMIT = 1 << 62


def terminal_text(text: str) -> str:
    """``text`` with every line printable and its line breaks kept (no line is cut)."""
    if text.isprintable():
        return text
    return "\n".join(printable(line, NO_LIMIT) for line in text.split("\n"))


def terminal_line(text: str) -> str:
    """``text`` as one printable line (an Event's message, a log line)."""
    return printable(text, NO_LIMIT)
