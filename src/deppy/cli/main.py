"""The ``deppy`` command: a click group whose subcommands live in sibling modules.

User-caused errors (``DeppyError``) become one line on stderr and exit code 2, never a
traceback; "no solution" is exit 1 and decided by each subcommand.
"""

from __future__ import annotations

from typing import Any

import click

from deppy.errors import DeppyError

EXIT_INPUT_ERROR = 2


class DeppyGroup(click.Group):
    """Turns a ``DeppyError`` raised anywhere below into its one-line message and exit 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except DeppyError as error:
            click.echo(f"deppy: error: {error}", err=True)
            ctx.exit(EXIT_INPUT_ERROR)


@click.group(cls=DeppyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="deppy")
def cli() -> None:
    """deppy: a dependency and constraint resolver (first domain: OLM operator catalogs)."""


def register_commands() -> None:
    """Import every ``*_command`` module of this package: each registers its subcommand."""
    import importlib
    import pkgutil

    import deppy.cli

    for module in sorted(m.name for m in pkgutil.iter_modules(deppy.cli.__path__)):
        if module.endswith("_command"):
            importlib.import_module(f"deppy.cli.{module}")


def main() -> None:
    register_commands()
    cli()
