"""The web UI in a real browser (Debian's chromium, headless, driven by selenium): search →
package page → upgrade graph → resolve a package with dependencies → an unresolvable request →
a suggestion's button → resolved. Screenshots go to test-artifacts/ (git-ignored) for a person
to look at, and those the documentation shows to docs/images/ (``FOR_THE_DOCS``). Skipped, with
a message, where no chromium or chromedriver is installed."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from tests.chromium import ARTIFACTS, DOCS_IMAGES, chromium, needs_chromium
from tests.conftest import free_port
from tests.olmv1_objects import TOPOLOGY
from tests.service_support import store_app

pytestmark = needs_chromium
FOR_THE_DOCS = {  # screenshot -> the name docs/service/index.md shows it under
    "02-search.png": "ui-search.png",
    "03-package-graph.png": "ui-package.png",
    "04-resolved.png": "ui-resolved.png",
    "05-explanation.png": "ui-explanation.png",
    "06-suggestion-resolved.png": "service-resolve.png",
    "07-clusterextension-explained.png": "ui-clusterextension.png",
}


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """``deppy serve`` over the community store, on a free loopback port, in this process."""
    with serving(store_app()) as url:
        yield url


@contextmanager
def serving(app: FastAPI) -> Iterator[str]:
    """``app`` served by uvicorn on a free loopback port, in this process: its URL."""
    import uvicorn

    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    with chromium(tmp_path_factory.mktemp("chromium-profile"), height=800) as driver:
        yield driver


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Screenshots land in a pytest tmp dir, then are copied to test-artifacts/."""
    folder = tmp_path_factory.mktemp("screenshots")
    yield folder
    target = ARTIFACTS / "browser"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(folder, target)
    for taken, shown in FOR_THE_DOCS.items():
        if (folder / taken).exists():  # a test that failed early took fewer
            shutil.copyfile(folder / taken, DOCS_IMAGES / shown)


def wait_for(driver: object, css: str, seconds: float = 30) -> object:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds).until(  # type: ignore[arg-type]
        ec.visibility_of_element_located((By.CSS_SELECTOR, css))
    )


def extension_upgrades(driver: Any, server: str, installed: str, card: str) -> Any:
    """The Upgrades page's OLM v1 mode: ``installed`` (ClusterExtensions) pasted and asked
    about; the first ``card`` of the answer once shown."""
    from selenium.webdriver.common.by import By

    driver.get(f"{server}/#/upgrades")
    wait_for(driver, "#upgrades-button")
    driver.find_element(By.CSS_SELECTOR, "#olmv1-upgrades summary").click()
    wait_for(driver, "#installed-extensions").send_keys(installed)  # type: ignore[attr-defined]
    driver.find_element(By.ID, "extension-upgrades-button").click()
    return wait_for(driver, card)


def test_search_graph_resolve_explain_and_apply_a_suggestion(
    server: str, browser: object, shots: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver = browser
    driver.get(f"{server}/#/")  # type: ignore[attr-defined]
    wait_for(driver, ".card")
    driver.save_screenshot(str(shots / "01-home.png"))  # type: ignore[attr-defined]

    box = driver.find_element(By.ID, "search-box")  # type: ignore[attr-defined]
    box.send_keys("kuadrant", Keys.ENTER)
    wait_for(driver, "table a[href='#/package/kuadrant-operator']")
    driver.save_screenshot(str(shots / "02-search.png"))  # type: ignore[attr-defined]
    driver.find_element(By.CSS_SELECTOR, "a[href='#/package/kuadrant-operator']").click()  # type: ignore[attr-defined]

    graph = wait_for(driver, "#graph .graph svg")
    assert graph.size["height"] > 100 and graph.size["width"] > 200  # type: ignore[attr-defined]
    nodes = driver.find_elements(By.CSS_SELECTOR, "#graph svg g.n")  # type: ignore[attr-defined]
    assert len(nodes) > 5
    assert driver.find_elements(By.CSS_SELECTOR, "#graph svg g.n.head")  # type: ignore[attr-defined]
    driver.save_screenshot(str(shots / "03-package-graph.png"))  # type: ignore[attr-defined]

    driver.find_element(By.ID, "resolve-package").click()  # type: ignore[attr-defined]
    wait_for(driver, "#resolve-form")
    driver.find_element(By.ID, "required-0-versionRange").send_keys(">=0.11.0")  # type: ignore[attr-defined]
    driver.find_element(By.ID, "resolve-button").click()  # type: ignore[attr-defined]
    wait_for(driver, "#selection table")
    rows = driver.find_elements(By.CSS_SELECTOR, "#selection tbody tr")  # type: ignore[attr-defined]
    packages = [r.find_elements(By.TAG_NAME, "td")[1].text for r in rows]
    assert len(packages) >= 3 and packages[-1] == "kuadrant-operator"  # dependencies first
    assert driver.find_elements(By.CSS_SELECTOR, "#result .graph svg g.n.bundle")  # type: ignore[attr-defined]
    driver.save_screenshot(str(shots / "04-resolved.png"))  # type: ignore[attr-defined]

    version = driver.find_element(By.ID, "required-0-versionRange")  # type: ignore[attr-defined]
    version.clear()
    version.send_keys("0.7.1")  # pins dns-operator 0.2.0, which this catalog lacks
    driver.find_element(By.ID, "resolve-button").click()  # type: ignore[attr-defined]
    wait_for(driver, "#explanation")
    text = driver.find_element(By.ID, "explanation").text  # type: ignore[attr-defined]
    assert "dns-operator" in text
    driver.save_screenshot(str(shots / "05-explanation.png"))  # type: ignore[attr-defined]
    buttons = driver.find_elements(By.CSS_SELECTOR, "#explanation button.suggestion")  # type: ignore[attr-defined]
    kinds = [b.get_attribute("data-kind") for b in buttons]
    assert "replace-requirement" in kinds  # add-catalog advice has no button
    buttons[kinds.index("replace-requirement")].click()
    wait_for(driver, "#selection table")
    field = driver.find_element(By.ID, "required-0-versionRange")  # type: ignore[attr-defined]
    assert field.get_attribute("value") == "0.11.1"  # the form shows the changed request
    driver.save_screenshot(str(shots / "06-suggestion-resolved.png"))  # type: ignore[attr-defined]


def test_narrow_window_and_keyboard(server: str, browser: object, shots: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    driver = browser
    driver.set_window_size(420, 900)  # type: ignore[attr-defined]
    try:
        driver.get(f"{server}/#/package/etcd")  # type: ignore[attr-defined]
        wait_for(driver, "#graph .graph svg")
        width = driver.execute_script("return document.documentElement.scrollWidth")  # type: ignore[attr-defined]
        assert width <= 440  # nothing but the graph box scrolls sideways
        driver.save_screenshot(str(shots / "07-narrow-package.png"))  # type: ignore[attr-defined]
        # after a page loads its heading has the focus; the next Tab reaches its first action,
        # and Enter follows it
        heading = driver.switch_to.active_element  # type: ignore[attr-defined]
        assert heading.tag_name == "h1" and heading.text.startswith("etcd")
        heading.send_keys(Keys.TAB)
        focused = driver.switch_to.active_element  # type: ignore[attr-defined]
        assert focused.text == "Resolve etcd"
        focused.send_keys(Keys.ENTER)
        driver.save_screenshot(str(shots / "08-keyboard-resolve.png"))  # type: ignore[attr-defined]
        wait_for(driver, "#resolve-form")
        field = driver.find_element(By.ID, "required-0-name")  # type: ignore[attr-defined]
        assert field.get_attribute("value") == "etcd"
        driver.get(f"{server}/#/check/community")  # type: ignore[attr-defined]
        wait_for(driver, "details.reason")
        driver.save_screenshot(str(shots / "09-narrow-check.png"))  # type: ignore[attr-defined]
    finally:
        driver.set_window_size(1280, 800)  # type: ignore[attr-defined]


def test_a_misnamed_package_offers_the_names_meant_and_one_resolves(
    server: str, browser: object, shots: Path
) -> None:
    """The explanation's "did you mean" ways out are buttons like every suggestion: the one
    clicked replaces the name in the form and the request resolves."""
    from selenium.webdriver.common.by import By

    driver = browser
    driver.get(f"{server}/#/resolve?require=keycloak")  # type: ignore[attr-defined]
    wait_for(driver, "#resolve-form")
    driver.find_element(By.ID, "resolve-button").click()  # type: ignore[attr-defined]
    wait_for(driver, "#explanation")
    items = driver.find_elements(By.CSS_SELECTOR, "#explanation ul.suggestions li")  # type: ignore[attr-defined]
    meant = [i for i in items if i.text.startswith("did you mean keycloak-operator (Keycloak")]
    assert meant, [i.text for i in items]
    assert not any("drop the requirement" in i.text for i in items)  # the only requirement
    driver.save_screenshot(str(shots / "10-did-you-mean.png"))  # type: ignore[attr-defined]
    meant[0].find_element(By.CSS_SELECTOR, "button.suggestion").click()
    wait_for(driver, "#selection table")
    field = driver.find_element(By.ID, "required-0-name")  # type: ignore[attr-defined]
    assert field.get_attribute("value") == "keycloak-operator"


CLUSTER_EXTENSION = """apiVersion: olm.operatorframework.io/v1
kind: ClusterExtension
metadata:
  name: argocd
spec:
  namespace: argocd
  serviceAccount:
    name: argocd-installer
  source:
    sourceType: Catalog
    catalog:
      packageName: argocd-operator
      version: VERSION
"""


def paste_clusterextension(driver: object, server: str, text: str) -> None:
    """On the resolve page, paste ``text`` as ClusterExtension YAML and resolve it."""
    from selenium.webdriver.common.by import By

    driver.get(f"{server}/#/resolve")  # type: ignore[attr-defined]
    wait_for(driver, "#resolve-form")
    driver.find_element(By.CSS_SELECTOR, "#olmv1 summary").click()  # type: ignore[attr-defined]
    wait_for(driver, "#clusterextension").send_keys(text)  # type: ignore[attr-defined]
    driver.find_element(By.ID, "clusterextension-button").click()  # type: ignore[attr-defined]


def test_a_pasted_clusterextension_is_explained_then_resolved(
    server: str, browser: object, shots: Path
) -> None:
    """OLM v1: ClusterExtension YAML pasted on the resolve page gets OLM v1's message with
    ways out in its own fields; with a version that exists, the answer."""
    from selenium.webdriver.common.by import By

    driver = browser
    paste_clusterextension(driver, server, CLUSTER_EXTENSION.replace("VERSION", '"0.6.0"'))
    wait_for(driver, "#explanation")
    text = driver.find_element(By.ID, "explanation").text  # type: ignore[attr-defined]
    assert 'no bundles found for package "argocd-operator" matching version "0.6.0"' in text
    assert "set spec.source.catalog.version" in text
    driver.save_screenshot(str(shots / "07-clusterextension-explained.png"))  # type: ignore[attr-defined]
    area = driver.find_element(By.ID, "clusterextension")  # type: ignore[attr-defined]
    area.clear()
    area.send_keys(CLUSTER_EXTENSION.replace("VERSION", '">=0.13.0, <0.14"'))
    driver.find_element(By.ID, "clusterextension-button").click()  # type: ignore[attr-defined]
    wait_for(driver, "#selection table")
    rows = driver.find_elements(By.CSS_SELECTOR, "#selection tbody tr")  # type: ignore[attr-defined]
    assert [r.find_elements(By.TAG_NAME, "td")[2].text for r in rows] == ["0.13.0"]
    driver.save_screenshot(str(shots / "08-clusterextension-resolved.png"))  # type: ignore[attr-defined]


def test_the_resolve_page_says_what_olm_v1_refuses_and_shows_the_plan(
    server: str, browser: object, shots: Path
) -> None:
    """A ClusterExtension whose bundle declares a dependency: the page says OLM v1 refuses it as
    written (OLM v1's message, the way out) and shows the ClusterExtension plan to apply."""
    from selenium.webdriver.common.by import By

    driver = browser
    driver.get(f"{server}/#/resolve")  # type: ignore[attr-defined]
    wait_for(driver, "#resolve-form")
    driver.find_element(By.CSS_SELECTOR, "#olmv1 summary").click()  # type: ignore[attr-defined]
    area = wait_for(driver, "#clusterextension")
    area.send_keys(TOPOLOGY)  # type: ignore[attr-defined]
    driver.find_element(By.ID, "clusterextension-button").click()  # type: ignore[attr-defined]
    verdict = wait_for(driver, "#olmv1-verdict")
    text = verdict.text  # type: ignore[attr-defined]
    assert "OLM v1 refuses part of this plan as written" in text
    assert "has a dependency declared via property" in text and "--resolved-catalog" in text
    rows = driver.find_elements(By.CSS_SELECTOR, "#olmv1-extensions tbody tr")  # type: ignore[attr-defined]
    cells = [[c.text for c in r.find_elements(By.TAG_NAME, "td")] for r in rows]
    assert [c[0] for c in cells] == ["rabbitmq-cluster-operator", "topology"]
    assert cells[0][4] == "topology" and cells[0][5] == "yes"
    driver.find_element(By.ID, "olmv1-plan-button").click()  # type: ignore[attr-defined]
    plan = wait_for(driver, "#olmv1-plan:not([hidden])")
    assert "kind: ClusterExtension" in plan.text  # type: ignore[attr-defined]
    assert "deppy.io/olm-v1-refusal" in plan.text  # type: ignore[attr-defined]
    driver.save_screenshot(str(shots / "09-clusterextension-olmv1-verdict.png"))  # type: ignore[attr-defined]


def test_a_package_description_reads_as_formatted_text(
    server: str, browser: object, shots: Path
) -> None:
    """Issue 26: the CSV's Markdown rendered (headings, lists, links that open elsewhere), not
    ``# Instana Instana is an [APM solution](https://…`` cut mid-link."""
    from selenium.webdriver.common.by import By

    driver = browser
    driver.get(f"{server}/#/package/etcd")  # type: ignore[attr-defined]
    box = wait_for(driver, ".description")
    driver.save_screenshot(str(shots / "11-package-description.png"))  # type: ignore[attr-defined]
    text = box.text  # type: ignore[attr-defined]
    assert "Supported Features" in text and "###" not in text and "](http" not in text
    links = box.find_elements(By.CSS_SELECTOR, "a")  # type: ignore[attr-defined]
    assert links and all(a.get_attribute("href").startswith("https://") for a in links)
    assert all("noopener" in a.get_attribute("rel") for a in links)
    assert box.find_elements(By.CSS_SELECTOR, "h5, li, code")  # type: ignore[attr-defined]


def test_an_olm_v1_way_out_is_a_button_that_edits_the_objects_and_resolves(
    server: str, browser: object, shots: Path
) -> None:
    """Issue 36: OLM v1 ways out had no "Try this" though deppy's own did; the button edits the
    pasted ClusterExtension as the way out says, and the request resolves."""
    from selenium.webdriver.common.by import By

    driver = browser
    paste_clusterextension(driver, server, CLUSTER_EXTENSION.replace("VERSION", '"0.6.0"'))
    wait_for(driver, "#explanation")
    items = driver.find_elements(By.CSS_SELECTOR, "#explanation ul.suggestions li")  # type: ignore[attr-defined]
    nearest = [i for i in items if 'set spec.source.catalog.version: "0.5.0"' in i.text]
    assert nearest, [i.text for i in items]
    nearest[0].find_element(By.CSS_SELECTOR, "button.suggestion").click()
    wait_for(driver, "#selection table")
    rows = driver.find_elements(By.CSS_SELECTOR, "#selection tbody tr")  # type: ignore[attr-defined]
    assert [r.find_elements(By.TAG_NAME, "td")[2].text for r in rows] == ["0.5.0"]
    edited = driver.find_element(By.ID, "clusterextension").get_attribute("value")  # type: ignore[attr-defined]
    assert "version: 0.5.0" in edited and "packageName: argocd-operator" in edited
    driver.save_screenshot(str(shots / "12-clusterextension-way-out-tried.png"))  # type: ignore[attr-defined]


def test_the_upgrades_page_has_an_olm_v1_mode(server: str, browser: object, shots: Path) -> None:
    """Installed ClusterExtensions pasted on the Upgrades page: where OLM v1 moves each next
    under its policy, and the path over reconciliations."""
    installed = CLUSTER_EXTENSION.replace("      version: VERSION\n", "") + (
        "status:\n  install:\n    bundle: {name: argocd-operator.v0.5.0, version: 0.5.0}\n"
    )
    driver = browser
    card = extension_upgrades(driver, server, installed, ".extension-upgrade")
    text = card.text  # type: ignore[attr-defined]
    assert "ClusterExtension argocd: argocd-operator 0.5.0" in text
    assert "Next: 0.7.0 (argocd-operator.v0.7.0, catalog community)" in text
    assert "Path: 0.5.0 → 0.7.0 → " in text and "(15 reconciliations)" in text
    driver.save_screenshot(str(shots / "13-upgrades-olmv1.png"))  # type: ignore[attr-defined]


def test_the_resolve_form_chooses_olm_v0_rules(server: str, browser: object, shots: Path) -> None:
    """The Rules select (issue 48): the same installed bundle moves to deppy's newest under
    deppy's rules and one InstallPlan's step under OLM v0's, and the answer says which."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver: Any = browser
    answers = {}
    for rules in ("deppy", "olm-v0"):
        driver.get(f"{server}/#/resolve?installed=gitlab-operator-kubernetes@2.4.0")
        wait_for(driver, "#resolve-form")
        driver.find_element(By.ID, "installed-0-channel").send_keys("stable")
        Select(driver.find_element(By.ID, "rules")).select_by_value(rules)
        driver.find_element(By.ID, "resolve-button").click()
        wait_for(driver, "#selection table")
        assert f"(rules: {rules})" in wait_for(driver, "#rules-used").text  # type: ignore[attr-defined]
        answers[rules] = driver.find_element(By.ID, "selection").text
    assert (
        "gitlab-operator-kubernetes 3.3.0 stable community upgrade from 2.4.0" in answers["deppy"]
    )
    assert (
        answers["olm-v0"]
        .splitlines()[1]
        .startswith(
            "1 gitlab-operator-kubernetes 2.4.1 stable community upgrade from 2.4.0 via "
            "gitlab-operator-kubernetes.v2.4.0 → gitlab-operator-kubernetes.v2.4.1 installed"
        )
    )
    driver.save_screenshot(str(shots / "20-olm-v0-rules.png"))
