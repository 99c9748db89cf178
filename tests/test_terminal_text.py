"""Names holding terminal control sequences are shown, never obeyed (issue 26, group 12): every
text output — explanations, tables, warnings, trace text, upgrades, search, the controller's
and the service's log lines — goes through ``deppy.terminal_text``; JSON stays exact."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from tests.workflow_helpers import run

ROOT = Path(__file__).resolve().parents[1]
CATALOG = str(ROOT / "src" / "deppy" / "data" / "catalog")
# OSC window title, BEL, C1 CSI, backspace, right-to-left override and other bidi controls
HOSTILE = "evil\x1b]0;TITLE\x07\u009b31m\u202eX\bY\u2066\u200f"


def shown(text: str) -> bool:
    return all(char.isprintable() or char == "\n" for char in text)


def test_terminal_text_escapes_every_line_and_keeps_the_breaks() -> None:
    from deppy.terminal_text import terminal_line, terminal_text

    text = terminal_text(f"a {HOSTILE}\nb\u009d8;;x\u009c\n")
    assert shown(text) and text.count("\n") == 2
    assert "\\x1b]0;TITLE\\x07\\x9b31m\\u202eX\\x08Y\\u2066\\u200f" in text
    assert terminal_text("plain — text\nok") == "plain — text\nok"
    assert terminal_line("a\nb") == "a\\nb"


def test_an_explanation_and_its_table_show_names_escaped() -> None:
    code, out, err = run("resolve", "--catalog", CATALOG, "--require", HOSTILE)
    assert code == 1 and shown(out) and shown(err), (out, err)
    assert "evil\\x1b]0;TITLE" in out
    code, out, err = run("resolve", "--catalog", CATALOG, "--require", HOSTILE, "-v")
    assert code == 1 and shown(out), out


def test_the_installed_in_no_catalog_warning_and_the_table() -> None:
    args = ["--catalog", CATALOG, "--require", "grafana-operator", "--installed", f"{HOSTILE}@1.0"]
    code, out, err = run("resolve", *args)
    assert code == 0 and shown(out) and shown(err), (out, err)
    assert "installed evil\\x1b]0;TITLE" in err and "evil\\x1b]0;TITLE" in out
    header, row = out.splitlines()[1:3]
    assert header.index("version") == row.index("1.0  "), out  # the columns line up
    code, out, _ = run("resolve", *args, "-o", "json")  # data stays exact
    assert code == 0 and HOSTILE in {row["package"] for row in json.loads(out)["selection"]}


def test_upgrades_and_search_show_names_escaped() -> None:
    code, out, err = run("upgrades", "--catalog", CATALOG, "--installed", f"{HOSTILE}@1.0.0")
    assert code in (0, 1, 2) and shown(out) and shown(err), (out, err)
    code, out, err = run("search", "--catalog", CATALOG, HOSTILE)
    assert shown(out) and shown(err), (out, err)


def test_log_lines_in_text_are_printable() -> None:
    from deppy.observability import formatter

    record = logging.LogRecord("deppy", logging.INFO, __file__, 1, "installed %s", (HOSTILE,), None)
    assert shown(formatter("text").format(record))
    assert HOSTILE in json.loads(formatter("json").format(record))["message"]


def test_every_cli_output_goes_through_one_writer() -> None:
    """``say`` (text for people, made printable) or ``emit``/``dump`` (data, exact): a command
    that wrote with click.echo or print itself would bypass the mechanism."""
    cli = ROOT / "src" / "deppy" / "cli"
    direct = re.compile(r"\bclick\.echo\(|(?<![.\w])print\(|sys\.std(out|err)\.write\(")
    offenders = [
        f"{path.name}:{n}"
        for path in sorted(cli.glob("*.py"))
        # quick: the version line only; exit_codes: the constant line of an interrupted command,
        # written straight to stderr whatever state the writer was stopped in
        if path.name not in ("data_output.py", "quick.py", "exit_codes.py")
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if direct.search(line)
    ]
    assert offenders == []


@pytest.mark.parametrize("verbose", [False, True])
def test_the_explanation_reporters_escape(verbose: bool) -> None:
    from deppy.explain import Explanation, explanation_as_short_text, explanation_as_text
    from deppy.explain.model import Cause

    explanation = Explanation(f"Cannot resolve {HOSTILE}", (HOSTILE,), (Cause("k", HOSTILE),), ())
    assert shown(explanation_as_text(explanation, verbose=verbose))
    assert shown(explanation_as_short_text(explanation))
