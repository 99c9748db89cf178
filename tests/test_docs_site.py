"""The site as a new user finds it (issue 40): each navigation label is its page's title, what
the fleet page says of the report's legend is what the report draws, and the site can be
served for its search (from file:// the search box does not work)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from deppy.explain.bar_chart import PALETTE
from tests.docs_pages import DOCS, ROOT, page

NUMBERS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
]


def _labelled(items: list[Any]) -> list[tuple[str, str]]:
    """(label, page) for each page of the nav given a label of its own."""
    found = []
    for item in items:
        if isinstance(item, dict):
            for label, value in item.items():
                if isinstance(value, str):
                    found.append((label, value))
                else:
                    found += _labelled(value)
    return found


def _title(path: Path) -> str:
    """The page's title as the site shows it: its first heading, code marks dropped; a page
    included from elsewhere (the changelog) by its file's."""
    text = path.read_text(encoding="utf-8")
    included = re.match(r'--8<-- "([^"]+)"', text)
    if included:
        text = (ROOT / included.group(1)).read_text(encoding="utf-8")
    heading = re.search(r"^# (.+)$", text, re.M)
    assert heading is not None, path
    return heading.group(1).replace("`", "")


def test_each_navigation_label_is_its_pages_title() -> None:
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    labelled = [(label, name) for label, name in _labelled(nav) if name != "index.md"]
    assert len(labelled) > 30
    differ = [(label, _title(DOCS / name)) for label, name in labelled]
    assert [pair for pair in differ if pair[0] != pair[1]] == []


def test_the_fleet_page_counts_the_legends_colours() -> None:
    said = re.search(r"package's (\w+) most installed versions in distinct colours",
                     " ".join(page("fleets/plan.md").split()))  # fmt: skip
    assert said is not None
    assert said.group(1) == NUMBERS[len(PALETTE)]


def test_the_docs_say_how_to_serve_the_site_for_its_search() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^docs-serve:", makefile, re.M)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make docs-serve" in readme and "make docs-serve" in page("contributing/index.md")


def test_the_resolved_catalogs_page_runs_a_whole_example() -> None:
    """It shows the ClusterExtensions it resolves and a command using --resolved-catalog that
    tests/test_readme.py runs (a runnable block), whose plan selects the resolved catalog."""
    from tests.docs_pages import examples

    found = [e for e in examples() if e.where.startswith("docs/olm-v1/resolved-catalogs.md:")]
    assert len(found) == 1
    (step,) = found[0].steps
    files = dict(found[0].files)
    assert (
        "--resolved-catalog" in step.command
        and "kind: ClusterExtension" in files[step.command.split("-f ", 1)[1].split()[0]]
    )
    assert "kind: ClusterCatalog" in step.shown and "deppy-observability" in step.shown
