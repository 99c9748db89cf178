"""The ``deppy fleet plan -o html`` report in a real browser (Debian's chromium, headless,
driven by selenium): the page loads from a file with nothing fetched, shows its three charts
with their bars, and its tables. A screenshot goes to test-artifacts/fleet/ for a person to
look at, and to docs/images/fleet-report.png for the documentation site. Skipped, with a
message, where no chromium or chromedriver is installed."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from benchmarks.fleet_exports import write_fleet

from deppy.resolution.request_parsing import parse_catalog
from deppy.workflows.catalog_loading import load_catalogs
from tests.chromium import ARTIFACTS, DOCS_IMAGES, chromium, needs_chromium
from tests.conftest import shared_path
from tests.workflow_helpers import run

COMMUNITY = str(shared_path("catalogs", "community-operators-prod-v4.18"))

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    with chromium(tmp_path_factory.mktemp("chromium-profile"), height=1600) as driver:
        yield driver


def test_the_html_report_shows_its_charts_offline(
    tmp_path: Path, browser: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from selenium.webdriver.common.by import By

    monkeypatch.chdir(tmp_path)  # the report names clusters by "fleet/…": the same every run
    fleet = Path("fleet")
    write_fleet(load_catalogs([parse_catalog(COMMUNITY)]), fleet, 20, low=3, high=8, damaged=True)
    code, page, err = run("fleet", "plan", str(fleet), "--catalog", COMMUNITY, "--workers", "0",
                          "--ocp-version", "4.20", "-o", "html")  # fmt: skip
    assert code == 0, err
    report = tmp_path / "report.html"
    report.write_text(page)
    for outside in ("<script", "<link", " src=", "url("):
        assert outside not in page  # self-contained: nothing to fetch, nothing to run

    driver = browser
    driver.get(report.as_uri())  # type: ignore[attr-defined]
    assert driver.title == "Fleet plan"  # type: ignore[attr-defined]
    fetched = driver.execute_script(  # type: ignore[attr-defined]
        "return performance.getEntriesByType('resource').length"
    )
    assert fetched == 0
    charts = driver.find_elements(By.CSS_SELECTOR, "svg.chart")  # type: ignore[attr-defined]
    titles = [c.get_attribute("aria-label") for c in charts]
    assert titles[1:] == [
        "Blockers per package (OpenShift 4.20)",
        "Versions in use per package (most installed packages)",
    ]
    # 20 clusters planned each their own way are many waves: charted by size, labels whole
    assert str(titles[0]).startswith(("Clusters per wave", "Waves by size"))
    assert driver.find_element(By.TAG_NAME, "h1").text == "Fleet plan"  # type: ignore[attr-defined]
    labels = charts[0].find_elements(By.CSS_SELECTOR, "text.cl")
    assert labels and not any("…" in label.text for label in labels)
    for chart in charts:
        assert chart.is_displayed() and chart.size["width"] > 400
    bars = [c.find_elements(By.CSS_SELECTOR, "rect.bar") for c in charts]
    assert all(bars), "each chart draws bars"
    assert any(b.size["width"] > 100 for b in bars[0])  # the largest wave spans the chart
    headings = [h.text for h in driver.find_elements(By.TAG_NAME, "h2")]  # type: ignore[attr-defined]
    assert "Waves" in headings and "Blockers" in headings and "Errors" in headings
    target = ARTIFACTS / "fleet"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    driver.save_screenshot(str(target / "report.png"))  # type: ignore[attr-defined]
    shutil.copyfile(target / "report.png", DOCS_IMAGES / "fleet-report.png")
