"""The built documentation site in a real browser (chromium, 1280 pixels wide, as the browser
tests of the web UI): what the home page shows is whole. Skipped, with a message, where no
chromium or chromedriver is installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.chromium import ARTIFACTS, chromium, needs_chromium
from tests.test_docs import site

pytestmark = needs_chromium
__all__ = ["site"]


def test_the_home_page_diagram_is_whole_at_1280_pixels(
    site: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The diagram of "Where it sits" (85 columns) was cut behind a scroll bar between the
    navigation and the table of contents; a screenshot goes to test-artifacts/docs/ for a
    person to look at."""
    with chromium(tmp_path_factory.mktemp("chromium-profile"), height=900) as driver:
        driver.get((site / "index.html").as_uri() + "#where-it-sits")  # type: ignore[attr-defined]
        found = driver.execute_script(  # type: ignore[attr-defined]
            "const heading = document.getElementById('where-it-sits');"
            "let block = heading.nextElementSibling;"
            "while (block && !block.querySelector('pre code')) block = block.nextElementSibling;"
            "const code = block.querySelector('pre code');"
            "return [code.textContent.includes('deppy fleet plan'), code.scrollWidth,"
            " code.clientWidth];"
        )
        (ARTIFACTS / "docs").mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / "docs" / "home-diagram.png"))  # type: ignore[attr-defined]
    diagram, needed, shown = found
    assert diagram
    assert needed <= shown


def test_the_install_page_s_commands_are_whole_at_1280_pixels(
    site: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A shell block's long line wraps (issue 45: the install page showed
    `…deppy@sha256:… | kubec`, its end behind a scroll bar few noticed); the diagram keeps its
    lines."""
    with chromium(tmp_path_factory.mktemp("chromium-profile"), height=900) as driver:
        driver.get((site / "controller" / "install.html").as_uri())  # type: ignore[attr-defined]
        blocks = driver.execute_script(  # type: ignore[attr-defined]
            "return [...document.querySelectorAll('.language-sh pre code')].map("
            "c => [c.textContent, c.scrollWidth, c.clientWidth,"
            " getComputedStyle(c).whiteSpace]);"
        )
        (ARTIFACTS / "docs").mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(ARTIFACTS / "docs" / "install-commands.png"))  # type: ignore[attr-defined]
        driver.get((site / "index.html").as_uri())  # type: ignore[attr-defined]
        diagram = driver.execute_script(  # type: ignore[attr-defined]
            "return getComputedStyle(document.querySelector('.diagram pre code')).whiteSpace;"
        )
    assert any("--only objects --image" in text for text, *_ in blocks)
    for text, needed, shown, white_space in blocks:
        assert white_space == "pre-wrap" and needed <= shown, (text, needed, shown)
    assert diagram == "pre"
