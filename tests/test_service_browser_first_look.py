"""What a new user saw first in the web UI (issue 40), in a real browser (chromium): a page
opens at its top with the bar and its search box in view (the heading takes the focus without
scrolling to it), a package whose display name is its name is titled once, and every label of
a resolution graph lies inside the picture."""

from __future__ import annotations

import json
from collections.abc import Iterator
from urllib.parse import quote

import pytest

from tests.chromium import needs_chromium
from tests.conftest import ROOT
from tests.service_support import paths_app
from tests.test_service_browser import browser, server, serving, wait_for

pytestmark = needs_chromium
__all__ = ["browser", "server"]


@pytest.mark.parametrize("route", ["#/", "#/package/etcd", "#/search?q=operator"])
def test_a_page_opens_at_its_top_with_the_heading_focused(
    server: str, browser: object, route: str
) -> None:
    driver = browser
    driver.get("about:blank")  # type: ignore[attr-defined]
    driver.get(f"{server}/{route}")  # type: ignore[attr-defined]
    wait_for(driver, "#view h1")
    state = driver.execute_script(  # type: ignore[attr-defined]
        "return [window.scrollY, document.activeElement.tagName,"
        " document.getElementById('search-box').getBoundingClientRect().top,"
        " document.documentElement.scrollHeight - window.innerHeight];"
    )
    scrolled, focused, search_top, room = state
    assert room > 80, "the page is too short to show a scroll"
    assert (scrolled, focused) == (0, "H1")
    assert search_top >= 0  # the bar's search box is on screen


def test_a_package_whose_display_name_is_its_name_is_titled_once(
    server: str, browser: object
) -> None:
    driver = browser
    driver.get(f"{server}/#/package/etcd")  # type: ignore[attr-defined]
    assert wait_for(driver, "#view h1").text == "etcd"  # type: ignore[attr-defined]
    assert driver.title == "etcd · deppy"  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def example_server() -> Iterator[str]:
    """``deppy serve --catalog src/deppy/data/catalog=example``: the README's catalog."""
    with serving(paths_app(f"{ROOT / 'src' / 'deppy' / 'data' / 'catalog'}=example")) as url:
        yield url


def test_every_label_of_a_resolution_graph_lies_inside_it(
    example_server: str, browser: object
) -> None:
    """Resolving observability-stack, the label of the edge into grafana-operator (the
    rightmost bundle of its layer, "API Grafana (grafana.integreatly.org/v1beta1)") ran past
    the picture's right edge and was cut there."""
    driver = browser
    saved = {"required": [{"name": "observability-stack"}]}
    driver.get(f"{example_server}/#/resolve?r={quote(json.dumps(saved))}")  # type: ignore[attr-defined]
    wait_for(driver, "#result .graph svg")
    texts = driver.execute_script(  # type: ignore[attr-defined]
        "const svg = document.querySelector('#result .graph svg');"
        "const box = svg.viewBox.baseVal;"
        "return [...svg.querySelectorAll('text')].map((t) => { const b = t.getBBox();"
        " return [t.textContent, b.x >= 0 && b.y >= 0 && b.x + b.width <= box.width"
        " && b.y + b.height <= box.height]; });"
    )
    assert "API Grafana (grafana.integreatly.org/v1beta1)" in [text for text, _ in texts]
    assert [text for text, inside in texts if not inside] == []
