"""What the workflow tests (test_workflows_*.py) share: their hand-written catalogs and a way
to run the CLI as a user would."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from deppy.cli.main import cli, register_commands

WORKFLOWS = Path(__file__).parent / "data" / "workflows"


def run(*args: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``deppy ARGS``."""
    register_commands()
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr
