"""The controller's work at scale, as behaviour (the figures are benchmarks/controller_scale.py's):
a catalog change wakes only the namespaces whose packages it touches and writes nothing to the
others; a controller restarted over answers that did not change writes no status; the
controller counts its own requests to the API server.

One control plane (tests/kube.py); a small catalog (etcd and prometheus cut from community
v4.18) served over HTTP; ``deppy controller`` as a subprocess.
"""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deppy.controller.kube import Kube, verb_and_resource
from tests.controller_env import (
    Controller,
    catalog_object,
    client,
    condition,
    install,
    run_controller,
    wait_for,
)
from tests.fbc_server import fbc_stream, only_packages, serve_catalog, without_heads
from tests.kube import KubeCluster
from tests.ports import shared_path

PACKAGES = {"etcd", "prometheus"}
CATALOG = "scale-small"


@pytest.fixture(scope="module")
def small() -> bytes:
    return only_packages(
        fbc_stream(shared_path("catalogs", "community-operators-prod-v4.18")), PACKAGES
    )


@pytest.fixture(scope="module")
def env(
    kube: KubeCluster, small: bytes, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, Any]]:
    install(kube)
    api = client(kube)
    with serve_catalog(small) as server:
        api.create("catalogs", catalog_object(CATALOG, {"http": {"url": server.url}}))
        log = tmp_path_factory.mktemp("scale") / "controller.log"
        yield {"api": api, "kube": kube, "server": server, "log": log}


def metrics_of(controller: Controller) -> str:
    url = f"http://127.0.0.1:{controller.health_port}/metrics"
    with urllib.request.urlopen(url, timeout=10) as response:
        return str(response.read().decode())


def ask(api: Kube, kube: KubeCluster, package: str) -> str:
    """A namespace with an Input and an ActiveResolution for ``package``."""
    ns = kube.new_namespace(f"scale-{package}")
    api.create(
        "inputs",
        {
            "apiVersion": "deppy.io/v1alpha1",
            "kind": "Input",
            "metadata": {"name": package, "namespace": ns},
            "spec": {
                "constraints": [
                    {"type": "olm.catalog", "value": {"name": CATALOG, "package": package}}
                ]
            },
        },
        ns,
    )
    api.create(
        "activeresolutions",
        {
            "apiVersion": "deppy.io/v1alpha1",
            "kind": "ActiveResolution",
            "metadata": {"name": package, "namespace": ns},
            "spec": {"sources": [CATALOG], "constraints": [f'required("{package}")']},
        },
        ns,
    )
    return ns


def proposal(api: Kube, ns: str, name: str) -> str | None:
    """The Input's proposal, once it is answered for its generation."""
    found = api.get("inputs", name, ns) or {}
    status = found.get("status") or {}
    if status.get("observedGeneration") != 1 or condition(found, "Resolved") is None:
        return None
    held = (status.get("resolveset") or {}).get("name")
    return str(held) if held else None


def answered(api: Kube, ns: str, name: str) -> bool:
    found = api.get("activeresolutions", name, ns) or {}
    return (found.get("status") or {}).get("observedGeneration") == 1 and condition(
        found, "Resolved"
    ) is not None


def versions(api: Kube, ns: str) -> dict[tuple[str, str], str]:
    """Every deppy object of the namespace, by (plural, name): its resourceVersion."""
    return {
        (plural, body["metadata"]["name"]): body["metadata"]["resourceVersion"]
        for plural in ("inputs", "instances", "bundles", "activeresolutions", "configmaps")
        for body in api.list(plural, ns)
    }


def resolved_units(controller: Controller, ns: str) -> float:
    """The namespace's unit resolutions so far (0 while the health port is not up yet)."""
    try:
        text = metrics_of(controller)
    except OSError:
        return 0.0
    total = 0.0
    for line in text.splitlines():
        if (
            line.startswith("deppy_resolutions_total{")
            and f'namespace="{ns}"' in line
            and 'kind="unit"' in line
        ):
            total += float(line.rsplit(" ", 1)[1])
    return total


def test_a_catalog_change_writes_nothing_where_it_touches_no_package(
    env: dict[str, Any], small: bytes
) -> None:
    """etcd's newest bundle withdrawn: the etcd namespace gets a new proposal; the prometheus
    namespace is not resolved again, and none of its objects is written."""
    api, kube, server = env["api"], env["kube"], env["server"]
    with run_controller(kube, env["log"]) as controller:
        etcd, prometheus = ask(api, kube, "etcd"), ask(api, kube, "prometheus")
        first = wait_for("etcd's proposal", lambda: proposal(api, etcd, "etcd"), log=controller)
        wait_for(
            "prometheus's proposal", lambda: proposal(api, prometheus, "prometheus"), log=controller
        )
        wait_for("etcd's answer", lambda: answered(api, etcd, "etcd"), log=controller)
        wait_for("its answer", lambda: answered(api, prometheus, "prometheus"), log=controller)
        time.sleep(3)  # the namespaces' own events settle
        before = versions(api, prometheus)
        resolved = resolved_units(controller, prometheus)
        server.set_body(without_heads(small, {"etcd"}))
        api.patch("catalogs", CATALOG, {"spec": {"source": {"http": {"url": server.url + "?v=2"}}}})
        wait_for(
            "etcd's new proposal",
            lambda: proposal(api, etcd, "etcd") not in (None, first),
            log=controller,
        )
        time.sleep(5)  # a namespace woken by the change would resolve within its quiet period
        after = versions(api, prometheus)
        moved = {k: v for k, v in after.items() if before.get(k) != v}
        # the prometheus ActiveResolution names the catalog's new digest (its answer's source)
        assert set(moved) <= {("activeresolutions", "prometheus")}, moved
        assert set(after) == set(before)
        assert resolved_units(controller, prometheus) == resolved


def test_a_restart_over_unchanged_answers_writes_no_status(env: dict[str, Any]) -> None:
    """kill -9, a new controller: every unit is resolved again, and nothing is written."""
    api, kube = env["api"], env["kube"]
    with run_controller(kube, env["log"]) as controller:
        ns = ask(api, kube, "prometheus")
        wait_for("the proposal", lambda: proposal(api, ns, "prometheus"), log=controller)
        wait_for("the answer", lambda: answered(api, ns, "prometheus"), log=controller)
        time.sleep(3)
        before = versions(api, ns)
        controller.process.kill()
        controller.process.wait()
    log: Path = env["log"].with_name("again.log")
    with run_controller(kube, log) as again:
        wait_for("the unit resolved again", lambda: resolved_units(again, ns) >= 1, log=again)
        time.sleep(3)
        assert versions(api, ns) == before
        text = metrics_of(again)
    # the request counter counts what the controller asked: the namespace's Inputs read back
    assert 'deppy_kube_requests_total{resource="inputs",verb="list"}' in text
    assert 'deppy_kube_requests_total{resource="catalogs",verb="list"}' in text


def test_requests_are_named_as_the_api_server_names_them() -> None:
    assert verb_and_resource("GET", "/apis/deppy.io/v1alpha1/namespaces/a/inputs") == (
        "list",
        "inputs",
    )
    assert verb_and_resource("GET", "/apis/deppy.io/v1alpha1/namespaces/a/inputs/x") == (
        "get",
        "inputs",
    )
    assert verb_and_resource("PATCH", "/apis/deppy.io/v1alpha1/namespaces/a/inputs/x/status") == (
        "patch",
        "inputs/status",
    )
    assert verb_and_resource("GET", "/apis/deppy.io/v1alpha1/catalogs") == ("list", "catalogs")
    assert verb_and_resource("POST", "/api/v1/namespaces/a/events") == ("create", "events")
    assert verb_and_resource("GET", "/api/v1/namespaces/a") == ("get", "namespaces")
    assert verb_and_resource("DELETE", "/api/v1/namespaces/a/configmaps/c") == (
        "delete",
        "configmaps",
    )
    assert verb_and_resource("GET", "/version") == ("get", "nonresource")
