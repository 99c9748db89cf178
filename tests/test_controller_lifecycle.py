"""The controller over time, on a real kube-apiserver: what happens in sequence, not once.

One proposal per unit (Inputs applied together are answered together; a newer answer supersedes
the pending proposal, which can then never be approved), catalog outages that change no answer,
API server and etcd stalls the controller rides out, and approval reasons that say what happened.
One controller (``deppy controller`` as a subprocess) for the module, with community v4.18 and a
small catalog that embeds its CSVs, both served over HTTP; each test has its own namespace.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import yaml

from deppy.controller.kube import Kube
from tests.conftest import shared_path
from tests.controller_env import (
    DEPPY,
    Controller,
    approval_classes,
    catalog_object,
    client,
    condition,
    input_class,
    install,
    run_controller,
    wait_for,
)
from tests.fbc_server import CatalogServer, fbc_stream, serve_catalog
from tests.kube import KubeCluster

EXCERPTS = "redhat-operator-index-excerpts"
COMMUNITY = "lc-community"  # names of their own: other modules' Catalogs may still exist
SMALL = "lc-small"
MANAGED = "app.kubernetes.io/managed-by=deppy"


@pytest.fixture(scope="module")
def env(kube: KubeCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    install(kube)
    api = client(kube)
    community = fbc_stream(shared_path("catalogs", "community-operators-prod-v4.18"))
    small = b"".join(
        fbc_stream(shared_path("catalogs", EXCERPTS, name))
        for name in ("jaeger-product", "aws-load-balancer-operator")
    )
    with serve_catalog(community) as community_server, serve_catalog(small) as small_server:
        api.create("catalogs", catalog_object(COMMUNITY, {"http": {"url": community_server.url}}))
        api.create(
            "catalogs",
            catalog_object(SMALL, {"http": {"url": small_server.url, "pollInterval": "2s"}}, 5),
        )
        log = tmp_path_factory.mktemp("lifecycle") / "controller.log"
        with run_controller(kube, log) as controller:
            for name in (COMMUNITY, SMALL):
                wait_for(f"Catalog {name} Ready", lambda n=name: _ready(api, n), 180, controller)
            yield {
                "api": api,
                "controller": controller,
                "kube": kube,
                "small": small_server,
                "community": community_server,
            }
            for name in (COMMUNITY, SMALL):
                api.delete("catalogs", name)


def _ready(api: Kube, name: str) -> bool:
    found = condition(api.get("catalogs", name), "Ready")
    return found is not None and found["status"] == "True"


def _input(
    name: str, ns: str, package: str, catalog: str = COMMUNITY, **more: Any
) -> dict[str, Any]:
    constraints = [{"type": "olm.catalog", "value": {"name": catalog, "package": package}}]
    if "version" in more:
        constraints.append(
            {
                "type": "olm.packageVersion",
                "value": {"package": package, "version": more["version"]},
            }
        )
    spec: dict[str, Any] = {"constraints": constraints}
    if "input_class" in more:
        spec["inputClass"] = more["input_class"]
    return {
        "apiVersion": "deppy.io/v1alpha1",
        "kind": "Input",
        "metadata": {"name": name, "namespace": ns},
        "spec": spec,
    }


def _instances(api: Kube, ns: str, unit: str | None = None) -> list[dict[str, Any]]:
    labels = MANAGED + (f",deppy.io/unit={unit}" if unit else "")
    return api.list("instances", ns, labels=labels)


def _answered(api: Kube, ns: str, names: list[str], generation: int = 1) -> bool:
    for name in names:
        found = api.get("inputs", name, ns) or {}
        status = found.get("status") or {}
        if status.get("observedGeneration") != generation or not condition(found, "Resolved"):
            return False
    return True


def _settled(api: Kube, ns: str, seconds: float = 4.0) -> list[dict[str, Any]]:
    """The namespace's Instances once nothing changed for ``seconds``."""
    last: list[Any] = []
    since = time.monotonic()
    deadline = since + 90
    while time.monotonic() < deadline:
        now = sorted(
            (i["metadata"]["name"], i["metadata"]["resourceVersion"]) for i in _instances(api, ns)
        )
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= seconds:
            return _instances(api, ns)
        time.sleep(0.25)
    pytest.fail(f"the Instances of {ns} never settled: {last}", pytrace=False)


def _approve(kube: KubeCluster, name: str, ns: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [DEPPY, "approve", name, "-n", ns, "--kubeconfig", str(kube.kubeconfig)],
        capture_output=True,
        text=True,
    )


# -- One proposal per unit -------------------------------------------------------------------


def _operator(name: str, ns: str, package: str) -> dict[str, Any]:
    return {
        "apiVersion": "deppy.io/v1alpha1",
        "kind": "Operator",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"catalog": {"name": COMMUNITY, "package": package}},
    }


@pytest.mark.parametrize("kind", ["Input", "Operator"])
def test_objects_applied_together_get_one_proposal(env: dict[str, Any], kind: str) -> None:
    """The issue's sequence: three subscription Inputs in one ``kubectl apply`` gave two
    resolvesets (one computed before the third Input arrived), both pending for ever. Three
    Operators (each creating its Input) the same."""
    api, controller, kube = env["api"], env["controller"], env["kube"]
    ns = kube.new_namespace("one")
    names = ["etcd", "kuadrant-operator", "keda"]
    make = _input if kind == "Input" else _operator
    docs = [make(p, ns, p) for p in names]
    kube.kubectl("apply", "-n", ns, "-f", "-", input=yaml.safe_dump_all(docs))
    wait_for("the three Inputs answered", lambda: _answered(api, ns, names), log=controller)
    instances = _settled(api, ns)
    assert [i["metadata"]["labels"]["deppy.io/unit"] for i in instances] == ["subscription"]
    pending = [i for i in instances if (condition(i, "Superseded") or {}).get("status") != "True"]
    assert len(pending) == 1, [i["metadata"]["name"] for i in instances]
    content = api.get("configmaps", pending[0]["metadata"]["name"] + "-content", ns)
    packages = {e["packageName"] for e in yaml.safe_load(content["data"]["resolved.bundles.json"])}
    assert {"etcd", "kuadrant-operator", "keda"} <= packages
    for name in names:
        ref = api.get("inputs", name, ns)["status"]["resolveset"]
        assert ref["name"] == pending[0]["metadata"]["name"]


def test_a_newer_answer_supersedes_the_pending_proposal(env: dict[str, Any]) -> None:
    api, controller, kube = env["api"], env["controller"], env["kube"]
    ns = kube.new_namespace("sup")
    api.create("inputs", _input("etcd", ns, "etcd", version="0.9.2"), ns)
    first = wait_for("a proposal", lambda: _instances(api, ns), log=controller)[0]
    old = first["metadata"]["name"]
    api.patch("inputs", "etcd", {"spec": _input("etcd", ns, "etcd", version="0.9.4")["spec"]}, ns)
    wait_for("the new answer", lambda: _answered(api, ns, ["etcd"], 2), log=controller)
    current = api.get("inputs", "etcd", ns)["status"]["resolveset"]["name"]
    assert current != old
    superseded = wait_for(
        "the old proposal superseded",
        lambda: condition(api.get("instances", old, ns), "Superseded"),
        log=controller,
    )
    assert superseded["status"] == "True" and current in superseded["message"]
    approved = condition(api.get("instances", old, ns), "Approved")
    assert (approved["status"], approved["reason"]) == ("False", "Superseded")
    assert current in approved["message"]
    # deppy approve refuses it, naming the current proposal
    done = _approve(kube, old, ns)
    assert done.returncode == 2, done
    assert "superseded" in done.stderr and current in done.stderr
    assert "Traceback" not in done.stderr
    # an approval written around deppy approve is answered: Approved False, Superseded
    api.call(
        "PATCH",
        f"/apis/deppy.io/v1alpha1/namespaces/{ns}/instances/{old}/status",
        {
            "status": {
                "conditions": [
                    {"type": "Approved", "status": "True", "reason": "ApprovedByUser"},
                    superseded,
                ]
            }
        },
        content_type="application/merge-patch+json",
    )
    wait_for(
        "the approval of a superseded proposal answered",
        lambda: (
            (condition(api.get("instances", old, ns), "Approved") or {}).get("reason")
            == "Superseded"
        ),
        log=controller,
    )
    # nothing was installed from it: the current proposal still resolves from scratch
    assert condition(api.get("instances", current, ns), "Approved")["status"] == "False"
    # the current one is approved; the superseded ones go
    assert _approve(kube, current, ns).returncode == 0
    wait_for(
        "the superseded proposal removed",
        lambda: api.get("instances", old, ns) is None,
        log=controller,
    )
    assert api.get("instances", current, ns) is not None


# -- Outages ---------------------------------------------------------------------------------


def _reason(api: Kube, plural: str, name: str, ns: str, kind: str = "Resolved") -> str | None:
    found = condition(api.get(plural, name, ns), kind)
    return None if found is None else f"{found['status']}/{found['reason']}"


def test_a_catalog_outage_changes_no_answer(env: dict[str, Any]) -> None:
    """The issue's sequence: the HTTP source stopped and the Catalog reloading flipped every
    ActiveResolution to CatalogUnavailable, although the content was still in memory."""
    api, controller, kube = env["api"], env["controller"], env["kube"]
    server: CatalogServer = env["small"]
    ns = kube.new_namespace("out")
    ar = _aws_answered(api, ns, controller)
    selection = api.get("activeresolutions", "aws", ns)["status"]["selection"]
    resolveset = api.get("inputs", "aws", ns)["status"]["resolveset"]["name"]
    server.set_up(False)
    try:
        api.patch("catalogs", SMALL, {"spec": {"priority": 6}})  # reload now, not at the poll
        wait_for(
            "the catalog failing",
            lambda: _reason(api, "catalogs", SMALL, None, "Ready") == "False/LoadFailed",
            log=controller,
        )
        stale = wait_for(
            "CatalogStale on the ActiveResolution",
            lambda: condition(api.get("activeresolutions", "aws", ns), "CatalogStale"),
            log=controller,
        )
        assert stale["status"] == "True"
        assert SMALL in stale["message"] and "503" in stale["message"]
        found = api.get("activeresolutions", "aws", ns)
        assert _reason(api, "activeresolutions", "aws", ns) == "True/Resolved"
        assert found["status"]["selection"] == selection
        wait_for(
            "CatalogStale on the Input",
            lambda: _reason(api, "inputs", "aws", ns, "CatalogStale") == "True/LoadFailed",
            log=controller,
        )
        the_input = api.get("inputs", "aws", ns)
        assert condition(the_input, "Resolved")["status"] == "True"
        assert the_input["status"]["resolveset"]["name"] == resolveset
        # a question asked during the outage is answered from the last good content
        api.create("activeresolutions", {**ar, "metadata": {"name": "new", "namespace": ns}}, ns)
        wait_for(
            "the new question answered",
            lambda: _reason(api, "activeresolutions", "new", ns) == "True/Resolved",
            log=controller,
        )
        assert api.get("activeresolutions", "new", ns)["status"]["selection"] == selection
    finally:
        server.set_up(True)
    wait_for(
        "the catalog back, the answers no longer stale",
        lambda: (
            _reason(api, "activeresolutions", "aws", ns, "CatalogStale") == "False/Fresh"
            and _reason(api, "inputs", "aws", ns, "CatalogStale") == "False/Fresh"
        ),
        log=controller,
    )
    assert api.get("activeresolutions", "aws", ns)["status"]["selection"] == selection
    assert len(_instances(api, ns)) == 1
    assert "Traceback" not in controller.log_text()


def _aws_answered(api: Kube, ns: str, controller: Controller) -> dict[str, Any]:
    """An ActiveResolution and an Input ``aws`` over the small catalog, answered."""
    ar = {
        "apiVersion": "deppy.io/v1alpha1",
        "kind": "ActiveResolution",
        "metadata": {"name": "aws", "namespace": ns},
        "spec": {"sources": [SMALL], "constraints": ['required("aws-load-balancer-operator")']},
    }
    api.create("activeresolutions", ar, ns)
    api.create("inputs", _input("aws", ns, "aws-load-balancer-operator", SMALL), ns)
    wait_for(
        "answered",
        lambda: (
            _reason(api, "activeresolutions", "aws", ns) == "True/Resolved"
            and _answered(api, ns, ["aws"])
        ),
        log=controller,
    )
    return ar


@contextmanager
def _frozen(kube: KubeCluster, process: str) -> Iterator[None]:
    """``process`` (etcd or kube-apiserver) stopped with SIGSTOP, continued on leaving."""
    assert kube.run_dir is not None
    pid = int((kube.run_dir / f"{process}.pid").read_text())
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


@pytest.mark.parametrize("process", ["etcd", "kube-apiserver"])
def test_a_stalled_control_plane_loses_no_answer(env: dict[str, Any], process: str) -> None:
    api, controller, kube = env["api"], env["controller"], env["kube"]
    if kube.run_dir is None:
        pytest.skip("the stall test needs the ../shared/k8s control plane (its pids)")
    ns = kube.new_namespace("stall")
    api.create("inputs", _input("etcd", ns, "etcd", version="0.9.2"), ns)
    wait_for("answered", lambda: _answered(api, ns, ["etcd"]), log=controller)
    spec = _input("etcd", ns, "etcd", version="0.9.4")["spec"]
    ar = {
        "apiVersion": "deppy.io/v1alpha1",
        "kind": "ActiveResolution",
        "metadata": {"name": "etcd", "namespace": ns},
        "spec": {"sources": [COMMUNITY], "constraints": ['required("etcd", "0.9.4")']},
    }
    with _frozen(kube, process):
        # writes issued while it is frozen land when it continues
        writers = [
            threading.Thread(
                target=lambda: _retrying(lambda: api.patch("inputs", "etcd", {"spec": spec}, ns))
            ),
            threading.Thread(
                target=lambda: _retrying(lambda: api.create("activeresolutions", ar, ns))
            ),
        ]
        for writer in writers:
            writer.start()
        time.sleep(20)
    for writer in writers:
        writer.join(120)
    wait_for(
        "the Input answered for its new spec",
        lambda: _answered(api, ns, ["etcd"], 2),
        120,
        controller,
    )
    wait_for(
        "the ActiveResolution answered",
        lambda: _reason(api, "activeresolutions", "etcd", ns) == "True/Resolved",
        120,
        controller,
    )
    assert controller.process.poll() is None, "the controller stopped"
    assert "Traceback" not in controller.log_text()


def _retrying(write: Any) -> None:
    for _ in range(20):
        try:
            write()
            return
        except Exception:
            time.sleep(1)


# -- Approval reasons ------------------------------------------------------------------------


def test_approval_reasons_say_what_happened(env: dict[str, Any]) -> None:
    api, controller, kube = env["api"], env["controller"], env["kube"]
    ns = kube.new_namespace("why")
    classes = {}
    for policy in ("AllowAll", "Android"):
        classes[policy] = f"{policy.lower()}-{ns}"
        approval_classes(api, classes[policy], policy)
    jaeger = "jaeger-product"
    api.create(
        "inputs",
        _input("fresh", ns, jaeger, SMALL, version="1.47.1-5", input_class=classes["Android"]),
        ns,
    )
    api.create("inputs", _input("policy", ns, "etcd", input_class=classes["AllowAll"]), ns)
    android_unknown = f"unknown-{ns}"
    input_class(api, android_unknown, {"provisionerClass": classes["Android"]})
    api.create("inputs", _input("nocsv", ns, "keda", input_class=android_unknown), ns)

    def verdicts() -> dict[str, dict[str, Any]] | None:
        found = {
            i["metadata"]["labels"]["deppy.io/unit"]: condition(i, "Approved")
            for i in _instances(api, ns)
        }
        return found if len(found) == 3 and all(found.values()) else None

    found = wait_for("three verdicts", verdicts, log=controller)
    fresh = found[classes["Android"]]
    assert (fresh["status"], fresh["reason"]) == ("False", "NewInstall")
    assert "new install" in fresh["message"]
    unknown = found[android_unknown]
    assert (unknown["status"], unknown["reason"]) == ("False", "PermissionsUnknown")
    policy = found[classes["AllowAll"]]
    assert (policy["status"], policy["reason"]) == ("True", "ApprovedByPolicy")
    # an upgrade that asks for no new rules is approved by the Android policy
    name = next(
        i["metadata"]["name"]
        for i in _instances(api, ns)
        if i["metadata"]["labels"]["deppy.io/unit"] == classes["Android"]
    )
    assert _approve(kube, name, ns).returncode == 0
    assert condition(api.get("instances", name, ns), "Approved")["reason"] == "ApprovedByUser"
    spec = _input("fresh", ns, jaeger, SMALL, version=">=1.47.0", input_class=classes["Android"])
    api.patch("inputs", "fresh", {"spec": spec["spec"]}, ns)

    def upgraded() -> dict[str, Any] | None:
        for instance in _instances(api, ns, classes["Android"]):
            if instance["metadata"]["name"] != name and condition(instance, "Approved"):
                return condition(instance, "Approved")
        return None

    upgrade = wait_for("the upgrade's verdict", upgraded, log=controller)
    assert (upgrade["status"], upgrade["reason"]) == ("True", "ApprovedByPolicy")
    assert "no bundle asks for more" in upgrade["message"]


# -- A restart while a catalog's source is down (last: it replaces the module's controller) -------


def test_a_restart_during_an_outage_changes_no_answer(
    env: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A controller that starts while a catalog's source is down has never had its content; the
    answers an earlier controller made from it stay as they are until it loads."""
    api, controller, kube = env["api"], env["controller"], env["kube"]
    server: CatalogServer = env["small"]
    ns = kube.new_namespace("restart")
    _aws_answered(api, ns, controller)
    before = {
        "ar": api.get("activeresolutions", "aws", ns)["status"],
        "input": api.get("inputs", "aws", ns)["status"],
    }
    server.set_up(False)
    controller.process.kill()  # kill -9
    controller.process.wait()
    log = tmp_path_factory.mktemp("restart") / "controller.log"
    try:
        with run_controller(kube, log, priority=2_000_000) as second:
            wait_for(
                "the catalog failing in the new controller",
                lambda: (
                    "LoadFailed" in str(api.get("catalogs", SMALL)["status"]["conditions"])
                    and "catalog lc-small" in second.log_text()
                ),
                log=second,
            )
            time.sleep(5)  # the resume handlers and the namespace's quiet period have run
            assert _reason(api, "activeresolutions", "aws", ns) == "True/Resolved"
            assert api.get("activeresolutions", "aws", ns)["status"] == before["ar"]
            assert _reason(api, "inputs", "aws", ns) == "True/Resolved"
            assert (
                api.get("inputs", "aws", ns)["status"]["resolveset"]
                == before["input"]["resolveset"]
            )
            server.set_up(True)
            wait_for("the catalog loaded", lambda: _ready(api, SMALL), log=second)
            wait_for(
                "the answers fresh",
                lambda: (
                    _reason(api, "activeresolutions", "aws", ns, "CatalogStale") == "False/Fresh"
                ),
                log=second,
            )
            assert "Traceback" not in second.log_text()
    finally:
        server.set_up(True)
