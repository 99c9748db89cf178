"""The ``deppy`` click group, whose subcommands live in sibling ``*_command`` modules.

User-caused errors (``DeppyError``, and click's usage errors) become one line on stderr and
exit code 2, never a traceback; "no solution" is exit 1 and decided by each subcommand.
Commands import the group as ``deppy.cli.main.cli``; ``deppy.cli.main`` is the entry point,
which loads this module (and click) only for commands that need it.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

from deppy.cli.data_output import SETTINGS, say
from deppy.cli.exit_codes import (
    EXIT_INPUT_ERROR,
    reader_gone,
    restore_sigterm,
    stopped,
    terminate_as_interrupt,
)
from deppy.cli.quick import is_text
from deppy.errors import DeppyError, excerpt, unusable_path


def _empty_value(arg: object) -> bool:
    """An argument that is empty (``''``, ``--catalog=``): no path or value of deppy's is
    empty, and an empty path would quietly mean the current directory (``catalog diff ''
    NEW`` diffed whatever the current directory held)."""
    if not isinstance(arg, str):
        return False
    return arg == "" or (arg.startswith("--") and arg.find("=") == len(arg) - 1)


# Options that are no path, whose own check says what an empty value should have been
_OWN_EMPTY_CHECK = ("--image",)


def _checks_its_own(given: list[Any], number: int) -> bool:
    """Whether argument ``number`` (1-based) is the value of an option in _OWN_EMPTY_CHECK."""
    arg = given[number - 1]
    if isinstance(arg, str) and arg.partition("=")[0] in _OWN_EMPTY_CHECK:
        return True
    return number > 1 and given[number - 2] in _OWN_EMPTY_CHECK


class DeppyGroup(click.Group):
    """Turns a ``DeppyError`` raised anywhere below into its one-line message and exit 2, and
    Ctrl-C (or SIGTERM) into one line and exit 130 (143): see ``deppy.cli.exit_codes``.

    Subcommands are imported when first asked for (``deppy NAME`` imports ``NAME_command``):
    importing every command module on each run would make every command pay for the imports of
    all the others, and start-up time is most of a quick command's time.
    """

    def main(self, args: Any = None, *rest: Any, **options: Any) -> Any:
        """Refuse arguments that are not UTF-8 text (the shell passed raw bytes): they would
        reach answers and files as lone surrogates that no encoder accepts."""
        given = list(args) if args is not None else sys.argv[1:]
        for number, arg in enumerate(given, 1):
            if isinstance(arg, str) and not is_text(arg):
                say(
                    f"deppy: error: argument {number} {excerpt(arg)} is not valid UTF-8; pass text",
                    err=True,
                )
                sys.exit(EXIT_INPUT_ERROR)
            if _empty_value(arg) and not _checks_its_own(given, number):
                before = given[number - 2] if number > 1 and arg == "" else ""
                where = (
                    f"{before} ''" if isinstance(before, str) and before.startswith("-")
                    else f"argument {number} {excerpt(arg)}"
                )  # fmt: skip
                say(
                    f"deppy: error: {where}: empty (an empty path would name the current "
                    "directory); give a path or value, or leave the option out",
                    err=True,
                )
                sys.exit(EXIT_INPUT_ERROR)
        return super().main(args, *rest, **options)

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        """The group's own options (``deppy --bogus``): a mistake there in the same one line."""
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as error:
            if isinstance(error, _HELP_FOR_NO_ARGUMENTS):
                raise
            say(f"deppy: error: {usage_problem(error)}", err=True)
            raise SystemExit(EXIT_INPUT_ERROR) from None

    def invoke(self, ctx: click.Context) -> Any:
        SETTINGS.quiet = False  # each run starts loud (tests run many in one process)
        SETTINGS.warned = 0
        previous = terminate_as_interrupt()
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as stop:  # Ctrl-C or SIGTERM: one line, not click's "Aborted!"
            ctx.exit(stopped(stop))
        except DeppyError as error:
            say(f"deppy: error: {error}", err=True)
            ctx.exit(EXIT_INPUT_ERROR)
        except click.UsageError as error:  # one line, as every other mistake (not click's block)
            if isinstance(error, _HELP_FOR_NO_ARGUMENTS):
                raise
            say(f"deppy: error: {usage_problem(error)}", err=True)
            ctx.exit(EXIT_INPUT_ERROR)
        except BrokenPipeError:  # `deppy … | head`: not a failure (click would exit 1)
            reader_gone()
        except OSError as error:  # a path given that cannot name a file: the user's to fix
            unusable = unusable_path(error)
            if unusable is None:
                raise
            say(f"deppy: error: {unusable}", err=True)
            ctx.exit(EXIT_INPUT_ERROR)
        finally:
            restore_sigterm(previous)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            module = cmd_name.replace("-", "_")
            if module in _command_modules():
                importlib.import_module(f"deppy.cli.{module}_command")
            if cmd_name not in self.commands:
                register_commands()  # a module may name its command differently
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        register_commands()
        return super().list_commands(ctx)


_HELP_FOR_NO_ARGUMENTS: Any = getattr(click.exceptions, "NoArgsIsHelpError", ())
"""``deppy`` or ``deppy catalog`` alone: click 8.2 and later show the help as a usage error."""


def usage_problem(error: click.UsageError) -> str:
    """A mistake in the arguments (a value an option refuses, a missing one, nothing to do) in
    deppy's one line, with where to read more: click's own report is a usage block of four
    lines, unlike every other error deppy gives."""
    where = f"; see '{error.ctx.command_path} --help'" if error.ctx is not None else ""
    return f"{error.format_message().rstrip('.')}{where}"


class CommandGroup(click.Group):
    """A group under ``deppy`` (e.g. ``deppy catalog``): other command modules may add to it,
    so a subcommand it does not know yet makes every command module load before giving up."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            register_commands()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        register_commands()
        return super().list_commands(ctx)


DeppyGroup.group_class = CommandGroup


@click.group(cls=DeppyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="deppy")
def cli() -> None:
    """deppy: a dependency and constraint resolver (first domain: OLM operator catalogs)."""


def _command_modules() -> list[str]:
    """Names of the ``*_command`` modules of this package, without the suffix."""
    import deppy.cli

    suffix = "_command.py"
    found: set[str] = set()
    for directory in deppy.cli.__path__:
        try:
            found.update(n[: -len(suffix)] for n in os.listdir(directory) if n.endswith(suffix))
        except OSError:
            continue
    return sorted(found)


def register_commands() -> None:
    """Import every ``*_command`` module of this package: each registers its subcommand."""
    for module in _command_modules():
        importlib.import_module(f"deppy.cli.{module}_command")
