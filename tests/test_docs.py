"""The documentation site: it builds with ``mkdocs build --strict`` (a broken link, a page
missing from the nav or a reference page that cannot be generated fails), loads nothing from
the network, documents every CLI command and option, keeps the README a front door whose links
lead into the site, and puts what a new user looks for first within two clicks of its home."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

from deppy.cli.group import cli, register_commands
from tests.docs_pages import ROOT

MKDOCS = Path(sys.executable).parent / "mkdocs"
ASSET = re.compile(
    r"""<(?:script|img|source|iframe)\b[^>]*\bsrc=["']?(https?:)?//|"""
    r"""<link\b[^>]*\bhref=["']?(https?:)?//|url\(\s*["']?(https?:)?//""",
    re.I,
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("site")
    built = subprocess.run(
        [str(MKDOCS), "build", "--strict", "--site-dir", str(target)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-4000:]
    return target


def text_of(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_the_built_pages_load_nothing_from_the_network(site: Path) -> None:
    """No font, script, stylesheet or image is fetched from elsewhere: the site opens offline
    (links a reader may follow are fine; things the browser loads by itself are not)."""
    offending = [
        f"{path.relative_to(site)}: {found.group(0)}"
        for path in sorted(site.rglob("*"))
        if path.suffix in (".html", ".css")
        for found in ASSET.finditer(text_of(path))
    ]
    assert offending == []


def all_commands() -> list[tuple[str, click.Command]]:
    """Every ``deppy`` command and subcommand, by its full name."""
    register_commands()
    found = []

    def walk(prefix: str, group: click.Group) -> None:
        context = click.Context(group)
        for name in group.list_commands(context):
            command = group.get_command(context, name)
            assert command is not None
            found.append((f"{prefix} {name}", command))
            if isinstance(command, click.Group):
                walk(f"{prefix} {name}", command)

    walk("deppy", cli)
    return found


def words_of(page: Path) -> str:
    """A built page's text as a reader sees it: tags (code highlighting's spans) removed."""
    return html.unescape(re.sub(r"<[^>]+>", "", text_of(page)))


def test_every_command_and_option_is_in_the_cli_reference(site: Path) -> None:
    page = words_of(site / "reference" / "cli.html")
    commands = all_commands()
    assert len(commands) > 20
    assert "Sentinel" not in page  # click's "no default" is shown as a dash
    missing = []
    for name, command in commands:
        if name not in page:
            missing.append(name)
        for parameter in command.params:
            if isinstance(parameter, click.Option) and not parameter.hidden:
                missing += [f"{name} {o}" for o in parameter.opts if o not in page]
    assert missing == []


def test_the_cli_reference_summarises_commands_whole_and_explains_every_option(
    site: Path,
) -> None:
    """A command's summary in its group's list is a whole sentence (the first line of a
    docstring stopped mid-sentence: "Show a package: channels, default channel,"), and no
    option reads "N/A" for want of a help text."""
    page = text_of(site / "reference" / "cli.html")
    summaries = re.findall(r"<li><em><a [^>]*>([\w-]+)</a></em>: (.*?)</li>", page)
    assert len(summaries) > 20
    cut = [f"{name}: {html.unescape(text)}" for name, text in summaries if not text.endswith(".")]
    assert cut == []
    assert "N/A" not in words_of(site / "reference" / "cli.html")


def test_the_home_page_numbers_the_five_tasks_one_to_five(site: Path) -> None:
    """Each task's command block belongs to its list item (indented four spaces, as
    Python-Markdown wants): with three, every block ended the list and each task read "1."."""
    page = text_of(site / "index.html")
    tasks = page.split('id="the-five-most-common-tasks"', 1)[1].split("<h2", 1)[0]
    assert tasks.count("<ol") == 1
    assert tasks.count("<li>") == 5


def test_no_option_s_help_begins_with_a_word_naming_nothing() -> None:
    """An option's help is read on its own (``--help`` sorts options as click adds them):
    "Read them from…" under ``--cluster`` named nothing for "them"."""
    vague = re.compile(r"^(\w+ ){0,2}(them|it)\b", re.I)
    found = [
        f"{name} {parameter.opts[-1]}: {parameter.help}"
        for name, command in all_commands()
        for parameter in command.params
        if isinstance(parameter, click.Option) and vague.match(parameter.help or "")
    ]
    assert found == []


def test_the_generated_reference_pages_hold_the_code_s_tables(site: Path) -> None:
    from deppy.controller.events import EVENT_REASONS
    from deppy.controller.install.crds import all_crds

    api = text_of(site / "reference" / "http-api.html")
    assert "/api/v1/resolve" in api and "/api/v1/packages/{package}" in api
    crds = text_of(site / "reference" / "crds.html")
    for crd in all_crds():
        assert crd["spec"]["names"]["kind"] in crds
    metrics = text_of(site / "reference" / "metrics-events.html")
    for name in (
        "deppy_http_requests_total",
        "deppy_change_to_answer_seconds",
        "deppy_catalog_stale",
    ):
        assert name in metrics
    for reason in EVENT_REASONS:
        assert f"<code>{reason.reason}</code>" in metrics


def test_the_readme_is_a_front_door_into_the_site() -> None:
    readme = text_of(ROOT / "README.md")
    assert len(readme.splitlines()) <= 250
    nav = text_of(ROOT / "mkdocs.yml")
    links = re.findall(r"\]\((docs/[^)#]+\.md)(?:#[^)]*)?\)", readme)
    assert len(links) > 20
    for link in links:
        assert (ROOT / link).is_file(), link
        assert link.removeprefix("docs/") in nav, link


def links_from(site: Path, page: Path) -> set[Path]:
    found = set()
    for href in re.findall(r'href="([^"#:?]+\.html)(?:#[^"]*)?"', text_of(page)):
        target = (page.parent / href).resolve()
        if target.is_file() and site in target.parents:
            found.add(target)
    return found


@pytest.mark.parametrize(
    ("task", "shown"),
    [
        ("how to resolve a ClusterExtension", "deppy resolve -f observability.yaml"),
        ("how to plan a fleet", "deppy fleet plan exports/"),
        ("the web UI's pages", "#/package/NAME"),
        ("the exit codes", "bad input: one line on stderr"),
        ("how to run the controller", "deppy controller [--kubeconfig F]"),
    ],
)
def test_a_new_user_finds_it_within_two_clicks_of_home(site: Path, task: str, shown: str) -> None:
    home = site / "index.html"
    one = links_from(site, home)
    two = set().union(*(links_from(site, page) for page in one))
    where = [p for p in {home} | one | two if shown in words_of(p)]
    assert where, task
