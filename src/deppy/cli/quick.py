"""Commands answered without the CLI framework, for their start-up time.

``deppy --version`` and a plain ``deppy solve FILE... [-o text|json]`` are over
before click would have finished importing (the Go solver answers a problem in 2 ms; Python
needs ~15 ms just to start). Anything else — help, an option not listed here, a value that is
not valid — returns None and goes to the click group, which parses, documents and reports
mistakes for every command; so this module never has to word an error.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing and pathlib cost milliseconds `deppy --version` need not pay
if TYPE_CHECKING:
    from collections.abc import Sequence


def answer(args: Sequence[str]) -> int | None:
    """The exit code when the arguments were answered here, None to let click handle them."""
    if not all(is_text(arg) for arg in args):
        return None  # click refuses arguments that are not UTF-8 text, with the message
    if list(args) == ["--version"]:
        from deppy import __version__

        sys.stdout.write(f"deppy, version {__version__}\n")
        return 0
    if args and args[0] == "solve":
        return _solve(args[1:])
    return None


def _solve(args: Sequence[str]) -> int | None:
    files: list[str] = []
    output = "text"
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--":
            files += rest
            break
        if not arg.startswith("-") or arg == "-":
            files.append(arg)
            continue
        name, eq, value = arg.partition("=")
        if eq and not name.startswith("--"):
            return None  # "-o=json": click reads the value as "=json"; let it say so
        if not eq and name in ("-o", "--output") and rest:
            value = rest.pop(0)
        elif not eq and name.startswith("-o") and len(name) > 2 and name[1] != "-":
            name, value = "-o", name[2:]
        elif not eq:
            return None  # help, --timeout (the whole-command watchdog), a typo: click's
        if name in ("-o", "--output") and value in ("text", "json"):
            output = value
        else:
            return None
    if not files:
        return None
    from deppy.cli.solve_files import solve_files

    return solve_files(files, output)


def is_text(arg: str) -> bool:
    """Whether ``arg`` is text (not raw bytes the shell passed, held as lone surrogates)."""
    try:
        arg.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
