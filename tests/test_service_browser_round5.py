"""What a new user tripped on in the web UI (issue 36), in a real browser (chromium): the home
page lists the packages, a hand-made ``#/resolve?r=`` link opens the form instead of a
TypeError, the Upgrades page names a cross-channel update in words, not by its internal code."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.chromium import needs_chromium
from tests.test_service_browser import browser, server, shots, wait_for

pytestmark = needs_chromium
__all__ = ["browser", "server", "shots"]


def test_the_home_page_lists_every_package(server: str, browser: object, shots: Path) -> None:
    from selenium.webdriver.common.by import By

    driver = browser
    driver.get(f"{server}/#/")  # type: ignore[attr-defined]
    wait_for(driver, "#all-packages")
    heading = driver.find_element(By.ID, "all-packages").text  # type: ignore[attr-defined]
    count = int(heading.removeprefix("Packages (").removesuffix(")"))
    assert count > 300  # the community catalog's packages, all of them
    rows = driver.find_elements(By.CSS_SELECTOR, "#view tbody tr")  # type: ignore[attr-defined]
    assert len(rows) == count
    etcd = next(r for r in rows if r.text.startswith("etcd "))
    assert "singlenamespace-alpha" in etcd.text and "CNCF" in etcd.text
    etcd.find_element(By.CSS_SELECTOR, "a").click()
    wait_for(driver, "#resolve-package")
    driver.save_screenshot(str(shots / "r5-01-home-packages.png"))  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "saved",
    [{}, [], 5, None, {"required": 5}, {"required": [None, 3]}, {"cluster": "x", "sources": "y"}],
)
def test_a_resolve_link_without_the_usual_lists_opens_the_form(
    server: str, browser: object, saved: object
) -> None:
    from selenium.webdriver.common.by import By

    driver = browser
    driver.get(f"{server}/#/resolve?r={quote(json.dumps(saved))}")  # type: ignore[attr-defined]
    wait_for(driver, "#resolve-form")
    text = driver.find_element(By.ID, "view").text  # type: ignore[attr-defined]
    assert "Something went wrong" not in text and "TypeError" not in text
    assert driver.find_element(By.ID, "required-0-name").get_attribute("value") == ""  # type: ignore[attr-defined]


def test_a_resolve_link_with_some_lists_resolves(server: str, browser: object) -> None:
    driver = browser
    saved = {"required": [{"name": "etcd"}]}
    driver.get(f"{server}/#/resolve?r={quote(json.dumps(saved))}")  # type: ignore[attr-defined]
    assert "Resolved" in wait_for(driver, "#result .ok").text  # type: ignore[attr-defined]


def test_the_upgrades_page_says_a_cross_channel_update_in_words(
    server: str, browser: object, shots: Path
) -> None:
    from selenium.webdriver.common.by import By

    driver = browser
    driver.get(f"{server}/#/upgrades?installed=strimzi-kafka-operator@0.30.0")  # type: ignore[attr-defined]
    wait_for(driver, "#view h3")
    headings = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#view h3")]  # type: ignore[attr-defined]
    assert "Only by switching channel" in headings
    assert "CrossChannelUpdateFound" not in driver.find_element(By.ID, "view").text  # type: ignore[attr-defined]
    driver.save_screenshot(str(shots / "r5-02-upgrades.png"))  # type: ignore[attr-defined]


def test_the_resolve_page_says_which_newer_dependency_was_passed_over(
    server: str, browser: object
) -> None:
    driver = browser
    saved = {
        "required": [{"name": "rabbitmq-messaging-topology-operator"}],
        "cluster": {"kubernetesVersion": "1.20.2"},
    }
    driver.get(f"{server}/#/resolve?r={quote(json.dumps(saved))}")  # type: ignore[attr-defined]
    wait_for(driver, "#result .ok")
    text = wait_for(driver, "#selection").text  # type: ignore[attr-defined]
    assert (
        "not the newest 2.22.3: rabbitmq-cluster-operator 2.22.3 needs Kubernetes 1.26.0 or newer"
    ) in text
