"""What a cluster admin sees of the controller on a real kube-apiserver: Kubernetes Events once
per change of an answer (``kubectl describe``), /metrics on the health port before and after
resolutions (read with prometheus-client's parser), and ``--log-format json``.

One controller for the module, run with JSON logs; a small catalog (Red Hat index excerpts) in
a ConfigMap; each test in its own namespace.
"""

from __future__ import annotations

import json
import subprocess
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from deppy.controller.kube import Kube
from tests.conftest import shared_path
from tests.controller_env import (
    DEPPY,
    Controller,
    catalog_object,
    client,
    condition,
    config_map_catalog,
    install,
    run_controller,
    wait_for,
)
from tests.kube import KubeCluster

CATALOG = "observed"
EXCERPTS = "redhat-operator-index-excerpts"
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@pytest.fixture(scope="module")
def env(kube: KubeCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    install(kube)
    api = client(kube)
    home = "deppy-observed"
    kube.kubectl("create", "namespace", home)
    files = {
        "jaeger.json.gz": shared_path("catalogs", EXCERPTS, "jaeger-product", "catalog.json"),
        "aws.json": shared_path("catalogs", EXCERPTS, "aws-load-balancer-operator", "catalog.json"),
    }
    api.create("configmaps", config_map_catalog(CATALOG, home, files), home)
    api.create(
        "catalogs", catalog_object(CATALOG, {"configMap": {"namespace": home, "names": [CATALOG]}})
    )
    log = tmp_path_factory.mktemp("controller") / "controller.log"
    with run_controller(kube, log, "--log-format", "json") as controller:
        wait_for(f"Catalog {CATALOG} Ready", lambda: _ready(api), 180, controller)
        yield {"api": api, "controller": controller, "kube": kube}


def _ready(api: Kube) -> bool:
    found = condition(api.get("catalogs", CATALOG), "Ready")
    return found is not None and found["status"] == "True"


def scrape(controller: Controller) -> Samples:
    url = f"http://127.0.0.1:{controller.health_port}/metrics"
    with urllib.request.urlopen(url, timeout=10) as answer:
        assert answer.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = answer.read().decode()
    found: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def events(api: Kube, namespace: str, name: str) -> list[dict[str, Any]]:
    """The Events about object ``name``, oldest first."""
    found = [e for e in api.list("events", namespace) if e["involvedObject"]["name"] == name]
    return sorted(found, key=lambda e: (e["firstTimestamp"], e["metadata"]["name"]))


def _active(api: Kube, ns: str, name: str, constraint: str) -> None:
    body = {
        "apiVersion": "deppy.io/v1alpha1",
        "kind": "ActiveResolution",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"sources": [CATALOG], "constraints": [constraint]},
    }
    api.create("activeresolutions", body, ns)


def _answered(api: Kube, ns: str, name: str, generation: int, env: dict[str, Any]) -> str:
    def probe() -> str | None:
        found = api.get("activeresolutions", name, ns) or {}
        done = (found.get("status") or {}).get("observedGeneration") == generation
        reason = (condition(found, "Resolved") or {}).get("reason")
        return str(reason) if done and reason else None

    answer: str = wait_for(f"{ns}/{name} generation {generation}", probe, log=env["controller"])
    return answer


def test_events_appear_once_per_change_of_the_answer(env: dict[str, Any]) -> None:
    api, kube = env["api"], env["kube"]
    ns = kube.new_namespace("events")
    _active(api, ns, "jaeger", 'required("jaeger-product", "1.47.1-5")')
    assert _answered(api, ns, "jaeger", 1, env) == "Resolved"
    first = wait_for("the Resolved event", lambda: events(api, ns, "jaeger"))
    assert [(e["reason"], e["type"], e["count"]) for e in first] == [("Resolved", "Normal", 1)]
    assert "jaeger-product 1.47.1-5" in first[0]["message"]
    assert first[0]["involvedObject"]["kind"] == "ActiveResolution"
    assert first[0]["source"]["component"] == "deppy-controller"
    # the Catalog's first load is told once (the startup load, then its handler, see one change)
    loaded = events(api, "default", CATALOG)
    assert [(e["reason"], e["count"]) for e in loaded] == [("Loaded", 1)]

    # resolved again (a new generation) to the same answer: no new Event, no count bump
    api.patch("activeresolutions", "jaeger", {"spec": {"timeoutSeconds": 30}}, ns)
    assert _answered(api, ns, "jaeger", 2, env) == "Resolved"
    assert [(e["reason"], e["count"]) for e in events(api, ns, "jaeger")] == [("Resolved", 1)]

    # a change of answer: one Warning
    broken = {"spec": {"constraints": ['required("jaeger-product", "9.9.9")']}}
    api.patch("activeresolutions", "jaeger", broken, ns)
    assert _answered(api, ns, "jaeger", 3, env) == "Unsatisfiable"
    found = wait_for("the Unsatisfiable event", lambda: len(events(api, ns, "jaeger")) == 2)
    assert found
    after = events(api, ns, "jaeger")
    assert sorted((e["reason"], e["type"]) for e in after) == [
        ("Resolved", "Normal"),
        ("Unsatisfiable", "Warning"),
    ]

    # back to the first answer: the same Event again, counted, not a second object
    fixed = {"spec": {"constraints": ['required("jaeger-product", "1.47.1-5")']}}
    api.patch("activeresolutions", "jaeger", fixed, ns)
    assert _answered(api, ns, "jaeger", 4, env) == "Resolved"

    def resolved_count() -> int:
        return next(e["count"] for e in events(api, ns, "jaeger") if e["reason"] == "Resolved")

    wait_for("the count to grow", lambda: resolved_count() == 2)
    assert len(events(api, ns, "jaeger")) == 2
    described = kube.kubectl("describe", "activeresolution", "jaeger", "-n", ns)
    assert "Unsatisfiable" in described and "(x2 over" in described


def test_metrics_move_with_resolutions(env: dict[str, Any]) -> None:
    api, controller, kube = env["api"], env["controller"], env["kube"]
    ns = kube.new_namespace("metrics")
    before = scrape(controller)
    resolved = {"kind": "ActiveResolution", "namespace": ns, "outcome": "resolved"}
    assert value(before, "deppy_resolutions_total", **resolved) == 0
    assert value(before, "deppy_catalog_bundles", catalog=CATALOG) > 0
    assert value(before, "deppy_catalog_stale", catalog=CATALOG) == 0
    assert value(before, "deppy_catalog_content_age_seconds", catalog=CATALOG) >= 0
    _active(api, ns, "one", 'required("jaeger-product")')
    _active(api, ns, "two", 'required("aws-load-balancer-operator")')
    _active(api, ns, "none", 'required("no-such-package")')
    for name in ("one", "two", "none"):
        _answered(api, ns, name, 1, env)
    after = scrape(controller)
    # at least once each (a recheck may answer an object again)
    assert value(after, "deppy_resolutions_total", **resolved) >= 2
    unsatisfiable = {**resolved, "outcome": "unsatisfiable"}
    assert value(after, "deppy_resolutions_total", **unsatisfiable) >= 1
    for outcome in ("invalid", "deadline", "catalog_unavailable"):
        assert value(after, "deppy_resolutions_total", **{**resolved, "outcome": outcome}) == 0
    kind = {"kind": "ActiveResolution"}
    for name in ("deppy_resolution_duration_seconds_count", "deppy_change_to_answer_seconds_count"):
        assert value(after, name, **kind) - value(before, name, **kind) >= 3, name
    assert value(after, "deppy_events_posted_total", reason="Unsatisfiable") >= 1
    assert value(after, "deppy_work_queue_depth") >= 0


def test_an_input_proposal_and_a_missing_catalog_are_told(env: dict[str, Any]) -> None:
    api, controller, kube = env["api"], env["controller"], env["kube"]
    ns = kube.new_namespace("proposal")
    before = scrape(controller)
    body = {
        "apiVersion": "deppy.io/v1alpha1",
        "kind": "Input",
        "metadata": {"name": "aws", "namespace": ns},
        "spec": {
            "constraints": [
                {
                    "type": "olm.catalog",
                    "value": {"name": CATALOG, "package": "aws-load-balancer-operator"},
                }
            ]
        },
    }
    api.create("inputs", body, ns)

    def instance_events() -> list[dict[str, Any]]:
        found = [e for e in api.list("events", ns) if e["involvedObject"]["kind"] == "Instance"]
        return found if len(found) >= 2 else []

    told = {e["reason"]: e for e in wait_for("proposal events", instance_events, log=controller)}
    assert set(told) == {"ProposalCreated", "ApprovalRequired"}  # Android: a new install waits
    assert "install aws-load-balancer-operator" in told["ProposalCreated"]["message"]
    assert "new install" in told["ApprovalRequired"]["message"]
    input_events = wait_for("the Input's event", lambda: events(api, ns, "aws"))
    assert [e["reason"] for e in input_events] == ["Resolved"]
    after = scrape(controller)
    assert value(after, "deppy_proposals_total", namespace=ns, event="created") == 1
    assert value(after, "deppy_proposals_total", namespace=ns, event="approved") == 0
    # a person approves: deppy approve tells it on the Instance too
    instance = told["ProposalCreated"]["involvedObject"]["name"]
    subprocess.run(
        [DEPPY, "approve", instance, "-n", ns, "--kubeconfig", str(kube.kubeconfig)],
        check=True,
        capture_output=True,
    )
    approved = [e for e in events(api, ns, instance) if e["reason"] == "Approved"]
    assert len(approved) == 1 and "ApprovedByUser" in approved[0]["message"]
    unit = {"kind": "unit", "namespace": ns, "outcome": "resolved"}
    assert value(after, "deppy_resolutions_total", **unit) >= 1
    assert value(after, "deppy_change_to_answer_seconds_count", kind="unit") > value(
        before, "deppy_change_to_answer_seconds_count", kind="unit"
    )

    # a Catalog whose ConfigMap does not exist: one Warning on it, and the metrics say so
    api.create(
        "catalogs",
        catalog_object("observed-missing", {"configMap": {"namespace": ns, "names": ["nothing"]}}),
    )
    missing = wait_for(
        "CatalogUnavailable", lambda: events(api, "default", "observed-missing"), log=controller
    )
    assert [(e["reason"], e["type"]) for e in missing] == [("CatalogUnavailable", "Warning")]
    assert "does not exist" in missing[0]["message"]
    scraped = scrape(controller)
    assert [e["count"] for e in events(api, "default", "observed-missing")] == [1]
    assert value(scraped, "deppy_catalog_unavailable", catalog="observed-missing") == 1
    assert value(scraped, "deppy_catalog_loads_total", catalog="observed-missing", result="failed")
    api.delete("catalogs", "observed-missing")


def _input(api: Kube, ns: str, name: str, package: str) -> None:
    value = {"name": CATALOG, "package": package}
    body = {
        "apiVersion": "deppy.io/v1alpha1",
        "kind": "Input",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"constraints": [{"type": "olm.catalog", "value": value}]},
    }
    api.create("inputs", body, ns)


def test_a_superseded_proposal_is_told(env: dict[str, Any]) -> None:
    api, controller, kube = env["api"], env["controller"], env["kube"]
    ns = kube.new_namespace("supersede")
    _input(api, ns, "op", "aws-load-balancer-operator")

    def proposals() -> list[dict[str, Any]]:
        return [e for e in api.list("events", ns) if e["reason"] == "ProposalCreated"]

    first = wait_for("the first proposal", proposals, log=controller)[0]["involvedObject"]["name"]
    change = {
        "spec": {
            "constraints": [
                {"type": "olm.catalog", "value": {"name": CATALOG, "package": "jaeger-product"}}
            ]
        }
    }
    api.patch("inputs", "op", change, ns)
    told = wait_for(
        "the Superseded event",
        lambda: [e for e in events(api, ns, first) if e["reason"] == "Superseded"],
        log=controller,
    )
    assert len(told) == 1 and told[0]["type"] == "Normal" and "deppy approve" in told[0]["message"]
    assert len(wait_for("the second proposal", lambda: len(proposals()) == 2 and proposals())) == 2
    scraped = scrape(controller)
    assert value(scraped, "deppy_proposals_total", namespace=ns, event="superseded") == 1
    assert value(scraped, "deppy_proposals_total", namespace=ns, event="created") == 2


def test_json_logs_one_object_a_line(env: dict[str, Any]) -> None:
    lines = env["controller"].log_text().splitlines()
    parsed = [json.loads(line) for line in lines]  # every line is JSON
    assert all({"time", "level", "logger", "message"} <= set(p) for p in parsed)
    answers = [p for p in parsed if p.get("reason") == "Resolved" and p.get("object") == "jaeger"]
    assert answers and answers[0]["kind"] == "ActiveResolution" and answers[0]["namespace"]
    assert answers[0]["duration"] > 0
    inputs = [p for p in parsed if p.get("kind") == "Input" and p.get("reason") == "Resolved"]
    assert inputs and all(p["duration"] > 0 for p in inputs)  # the unit's resolution time


def test_the_service_account_may_post_and_count_events(env: dict[str, Any]) -> None:
    """In a cluster the controller posts Events as its ServiceAccount, not as an admin."""
    account = "system:serviceaccount:deppy-system:deppy-controller"
    for verb in ("create", "get", "patch"):
        answer = env["kube"].kubectl(
            "auth", "can-i", verb, "events", "--as", account, "-n", "default", check=False
        )
        assert answer.strip() == "yes", verb
