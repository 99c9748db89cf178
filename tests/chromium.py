"""Debian's chromium, headless, driven by selenium: one way to start it for every browser test
(the web UI, the fleet report). Tests using it are skipped, with a message, where no chromium or
chromedriver is installed (CI installs them)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
DRIVER = Path("/usr/bin/chromedriver")
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
DOCS_IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"
"""Where the documentation site's screenshots live: the browser tests write them on each run,
so the pages show the UI and the report as they are."""

needs_chromium = pytest.mark.skipif(
    not (CHROMIUM.exists() and DRIVER.exists()),
    reason="browser tests need /usr/bin/chromium and /usr/bin/chromedriver "
    "(apt-get install chromium chromium-driver)",
)


@contextmanager
def chromium(profile: Path, *, height: int) -> Iterator[object]:
    """A headless chromium that fetches nothing of its own (no sync, updates or QUIC), with a
    throwaway profile and a 1280-pixel-wide window."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--window-size=1280,{height}",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=options)
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()
