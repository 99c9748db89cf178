"""A path the user gives that cannot name a file (a name in it over 255 bytes) is one error line.

Every command that opens or looks at a user's path meets the file system's own limits: a
``--catalog`` directory, ``validate``'s path, a ``--cluster`` export, a request file's
``spec.catalogs[].path``. The kernel answers ENAMETOOLONG wherever the path is first touched
(``Path.exists``, ``os.stat``, ``open``); whatever command it is, the user reads one line
naming the path and exit 2, never a traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from deppy.cli.main import cli

LONG_NAME = "a" * 300


def long_path(tmp_path: Path) -> str:
    return str(tmp_path / LONG_NAME / "catalog")


COMMANDS = {
    "resolve --catalog": lambda p: ["resolve", "--catalog", p, "--require", "etcd"],
    "show --catalog": lambda p: ["show", "--catalog", p, "etcd"],
    "search --catalog": lambda p: ["search", "--catalog", p, "etcd"],
    "validate": lambda p: ["validate", p],
    "resolve --cluster": lambda p: ["resolve", "--cluster", p, "--require", "etcd"],
    "catalog add": lambda p: ["catalog", "add", "mine", p],
    "solve": lambda p: ["solve", p],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_name_over_255_bytes_is_one_error_line(command: str, tmp_path: Path) -> None:
    path = long_path(tmp_path)
    result = CliRunner().invoke(cli, COMMANDS[command](path))
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.output.startswith(f"deppy: error: {path}"), result.output
    assert "too long" in result.output
    assert len(result.output.splitlines()) == 1


def test_a_request_files_catalog_path_over_255_bytes_is_one_error_line(tmp_path: Path) -> None:
    path = long_path(tmp_path)
    request = tmp_path / "request.yaml"
    request.write_text(
        "apiVersion: deppy.io/v1alpha1\nkind: ActiveResolution\nmetadata: {name: x}\n"
        f"spec:\n  catalogs:\n    - {{name: mine, path: {path}}}\n"
        '  constraints:\n    - required("etcd")\n'
    )
    result = CliRunner().invoke(cli, ["resolve", "-f", str(request)])
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.output.startswith(f"deppy: error: {path}"), result.output
    assert len(result.output.splitlines()) == 1


def test_a_loop_of_symbolic_links_is_one_error_line(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    result = CliRunner().invoke(cli, ["show", "--catalog", str(loop / "x"), "etcd"])
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.output.startswith("deppy: error: "), result.output
    assert len(result.output.splitlines()) == 1
