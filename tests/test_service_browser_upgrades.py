"""The Upgrades page's OLM v1 mode in a real browser (chromium), where OLM v1 finds no bundle
(issue 40: two catalogs at one priority): OLM v1's error and the ways out resolve offers, each
a "Try this" button that edits the pasted ClusterExtension and shows where OLM v1 moves it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.chromium import needs_chromium
from tests.service_support import paths_app
from tests.test_cli_olmv1 import catalog_dir, extension, write
from tests.test_service_browser import browser, extension_upgrades, serving, shots, wait_for

pytestmark = needs_chromium
__all__ = ["browser", "shots"]


@pytest.fixture(scope="module")
def tied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """``deppy serve`` over catalogs a and b, both at priority 0 and both with pkg 1.0.0 and
    1.1.0; and an installed ClusterExtension of pkg 1.0.0 that selects no catalog."""
    folder = tmp_path_factory.mktemp("tied")
    specs = [catalog_dir(folder, name, "1.0.0", "1.1.0") for name in ("a", "b")]
    installed = Path(write(folder, extension(installed="1.0.0"))).read_text(encoding="utf-8")
    with serving(paths_app(*specs)) as url:
        yield url, installed


def test_upgrades_offer_the_ways_out_and_each_one_works(
    tied: tuple[str, str], browser: object, shots: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    server, installed = tied
    driver = browser
    card = extension_upgrades(driver, server, installed, ".extension-upgrade .ways-out")
    text = card.text  # type: ignore[attr-defined]
    assert "What would make it work" in text
    items = card.find_elements(By.CSS_SELECTOR, "ul.suggestions li")  # type: ignore[attr-defined]
    assert len(items) == 2
    assert all("spec.source.catalog.selector" in item.text for item in items)
    driver.save_screenshot(str(shots / "14-upgrades-olmv1-ways-out.png"))  # type: ignore[attr-defined]
    items[1].find_element(By.CSS_SELECTOR, "button.suggestion").click()
    moved = WebDriverWait(driver, 30).until(  # type: ignore[arg-type]
        lambda d: "Next: 1.1.0" in d.find_element(By.ID, "view").text  # type: ignore[attr-defined]
    )
    assert moved
    card = wait_for(driver, ".extension-upgrade")
    assert "Next: 1.1.0 (pkg.v1.1.0, catalog b)" in card.text  # type: ignore[attr-defined]
    edited = driver.find_element(By.ID, "installed-extensions").get_attribute("value")  # type: ignore[attr-defined]
    assert "olm.operatorframework.io/metadata.name: b" in edited
