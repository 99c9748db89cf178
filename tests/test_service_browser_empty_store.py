"""The web UI of a service whose store was emptied under it (issue 45): its catalog list is
empty and says that no catalog is stored and what to do, in a real browser (chromium); it
showed the embedded example's catalogs."""

from __future__ import annotations

import shutil
import urllib.request
from collections.abc import Iterator

import pytest

from tests.chromium import needs_chromium
from tests.conftest import shared_path
from tests.test_service_browser import browser, serving, wait_for

pytestmark = needs_chromium
__all__ = ["browser"]


@pytest.fixture(scope="module")
def emptied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The service over a store holding one catalog, that catalog then removed."""
    from deppy.catalog.fbc import load_catalog
    from deppy.service.app import create_app
    from deppy.service.config import ServiceConfig
    from deppy.store import Store

    root = tmp_path_factory.mktemp("emptied")
    shutil.copytree(shared_path("catalogs", "community-operators-prod-v4.18", "etcd"), root / "c")
    Store(root / "home").add(load_catalog(root / "c", name="hub"))
    with serving(create_app(ServiceConfig(store=root / "home", reload_interval=0))) as url:
        Store(root / "home").remove("hub")
        reload = urllib.request.Request(f"{url}/api/v1/catalogs/reload", method="POST")
        with urllib.request.urlopen(reload, timeout=60) as answer:
            assert b'"reloaded": true' in answer.read()
        yield url


@pytest.mark.parametrize("route", ["#/", "#/catalogs"])
def test_the_catalog_list_says_no_catalog_is_stored(
    emptied: str, browser: object, route: str
) -> None:
    driver = browser
    driver.get(f"{emptied}/{route}")  # type: ignore[attr-defined]
    said = wait_for(driver, "#view p[role=status]").text  # type: ignore[attr-defined]
    assert said.startswith("no catalog is stored"), said
    assert "deppy catalog add NAME PATH" in said, said
    assert "embedded" not in driver.find_element("id", "view").text  # type: ignore[attr-defined]
