"""The ``deppy`` entry point: commands that answer at once, else the click group.

Start-up time is most of a quick command's time, and click alone costs more than the whole of
``deppy --version`` may take. So ``main`` first offers the arguments to :mod:`deppy.cli.quick`,
which answers ``--version`` and plain ``deppy solve FILE...`` without click; anything else —
help, an option it does not know, a mistake to report — goes to the click group
(:mod:`deppy.cli.group`), which every command registers with as ``deppy.cli.main.cli``. That
name is loaded on first use (PEP 562), so importing this module loads neither click, the
solver nor YAML.
"""

from __future__ import annotations

import sys

from deppy.cli.exit_codes import EXIT_INPUT_ERROR, EXIT_UNRESOLVABLE, reader_gone, stopped

TYPE_CHECKING = False  # typing's costs ~8 ms of a start-up that imports nothing else from it
if TYPE_CHECKING:
    from typing import Any

    from deppy.cli.group import CommandGroup, DeppyGroup, cli, register_commands

__all__ = [
    "EXIT_INPUT_ERROR",
    "EXIT_UNRESOLVABLE",
    "CommandGroup",
    "DeppyGroup",
    "cli",
    "main",
    "register_commands",
]
_FROM_GROUP = ("CommandGroup", "DeppyGroup", "cli", "register_commands")


def __getattr__(name: str) -> Any:
    if name in _FROM_GROUP:
        from deppy.cli import group

        return getattr(group, name)
    raise AttributeError(f"module 'deppy.cli.main' has no attribute {name!r}")


def main() -> None:
    try:
        try:
            from deppy.cli.quick import answer

            code = answer(sys.argv[1:])
            if code is None:
                from deppy.cli.group import cli

                cli()
            sys.stdout.flush()
        except KeyboardInterrupt as stop:  # Ctrl-C before or after click's part, or in `solve`
            raise SystemExit(stopped(stop)) from None
    except BrokenPipeError:
        reader_gone()
    except SystemExit as done:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            reader_gone()
        _end_at_once(done.code)
        raise
    _end_at_once(code)
    raise SystemExit(code)


def _end_at_once(code: object) -> None:
    """End the process now, without tearing down the catalogs a one-shot command loaded whole
    (see deppy.workflows.catalog_loading.may_end_at_once); otherwise return."""
    loading = sys.modules.get("deppy.workflows.catalog_loading")
    if loading is None or not (code is None or isinstance(code, int)):
        return
    if loading.may_end_at_once():
        import os

        sys.stderr.flush()
        os._exit(code or 0)
