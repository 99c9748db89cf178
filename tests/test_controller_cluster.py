"""deppy's controller against a real kube-apiserver: every kind, driven as a cluster admin would.

One controller (``deppy controller`` as a subprocess) for the module; community v4.18 served over
HTTP by a local server; a small catalog (Red Hat index excerpts that embed their CSVs, one of
them gzip-compressed in binaryData) in a ConfigMap. Each test works in its own namespace.
"""

from __future__ import annotations

import base64
import gzip
import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deppy.controller.kube import Kube
from tests.conftest import shared_path
from tests.controller_env import (
    Controller,
    approval_classes,
    catalog_object,
    client,
    condition,
    config_map_catalog,
    install,
    run_controller,
    wait_for,
)
from tests.fbc_server import fbc_stream, serve_catalog
from tests.kube import KubeCluster

EXCERPTS = "redhat-operator-index-excerpts"


@pytest.fixture(scope="module")
def env(kube: KubeCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    install(kube)
    api = client(kube)
    body = fbc_stream(shared_path("catalogs", "community-operators-prod-v4.18"))
    with serve_catalog(body) as server:
        kube.kubectl("create", "namespace", "deppy-catalogs")
        files = {
            "jaeger.json.gz": shared_path("catalogs", EXCERPTS, "jaeger-product", "catalog.json"),
            "aws.json": shared_path(
                "catalogs", EXCERPTS, "aws-load-balancer-operator", "catalog.json"
            ),
        }
        api.create(
            "configmaps", config_map_catalog("small", "deppy-catalogs", files), "deppy-catalogs"
        )
        api.create(
            "catalogs",
            catalog_object(
                "small",
                {"configMap": {"namespace": "deppy-catalogs", "names": ["small"]}},
                priority=5,
            ),
        )
        api.create("catalogs", catalog_object("community", {"http": {"url": server.url}}))
        log = tmp_path_factory.mktemp("controller") / "controller.log"
        with run_controller(kube, log) as controller:
            for name in ("small", "community"):
                wait_for(f"Catalog {name} Ready", lambda n=name: _ready(api, n), 180, controller)
            yield {"api": api, "controller": controller, "server": server, "kube": kube}


def _ready(api: Kube, name: str) -> bool:
    found = condition(api.get("catalogs", name), "Ready")
    return found is not None and found["status"] == "True"


def _create(
    api: Kube, namespace: str, kind: str, name: str, spec: dict[str, Any]
) -> dict[str, Any]:
    body = {
        "apiVersion": "deppy.io/v1alpha1",
        "kind": kind,
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }
    plural = {"ActiveResolution": "activeresolutions", "Input": "inputs", "Operator": "operators"}[
        kind
    ]
    return api.create(plural, body, namespace)


def _active(
    api: Kube, ns: str, name: str, *constraints: Any, sources: tuple[str, ...] = ("community",)
) -> dict[str, Any]:
    """An ActiveResolution over ``sources`` (none: every catalog)."""
    spec = {"sources": list(sources)} if sources else {}
    return _create(api, ns, "ActiveResolution", name, {**spec, "constraints": list(constraints)})


def _input(
    api: Kube, ns: str, name: str, *constraints: Any, input_class: str | None = None
) -> dict[str, Any]:
    spec = {"inputClass": input_class} if input_class else {}
    return _create(api, ns, "Input", name, {**spec, "constraints": list(constraints)})


def _package(package: str, catalog: str | None = "community", **value: str) -> dict[str, Any]:
    """An ``olm.catalog`` constraint: ``package`` from ``catalog`` (None: from any catalog)."""
    named = {"name": catalog} if catalog else {}
    return {"type": "olm.catalog", "value": {**named, "package": package, **value}}


def _version(package: str, version: str) -> dict[str, Any]:
    return {"type": "olm.packageVersion", "value": {"package": package, "version": version}}


def _resolved(
    api: Kube, plural: str, namespace: str, name: str, controller: Controller, generation: int = 1
) -> dict[str, Any]:
    def probe() -> dict[str, Any] | None:
        found = api.get(plural, name, namespace)
        status = (found or {}).get("status") or {}
        done = status.get("observedGeneration") == generation and condition(found, "Resolved")
        return found if done else None

    result: dict[str, Any] = wait_for(
        f"{plural} {namespace}/{name} resolved", probe, log=controller
    )
    return result


# -- Catalogs and health ---------------------------------------------------------------------


def test_catalogs_report_their_content_and_the_controller_answers_health(
    env: dict[str, Any],
) -> None:
    api: Kube = env["api"]
    community = api.get("catalogs", "community")
    assert community is not None
    assert community["status"]["packages"] == 312
    assert community["status"]["bundles"] == 5572
    assert community["status"]["digest"].startswith("sha256:")
    small = api.get("catalogs", "small")
    assert small is not None and small["status"]["packages"] == 2  # gzip binaryData read
    port = env["controller"].health_port
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as answer:
        assert answer.status == 200


# -- ActiveResolution ------------------------------------------------------------------------


def test_active_resolution_resolved_unsatisfiable_and_invalid(env: dict[str, Any]) -> None:
    api, controller, kube = env["api"], env["controller"], env["kube"]
    ns = kube.new_namespace("ar")
    _active(api, ns, "ok", 'required("etcd", ">=0.9.0", "singlenamespace-alpha")')
    _active(api, ns, "che", {"required": {"name": "eclipse-che", "versionRange": ">=7.50.0"}})
    _active(api, ns, "typo", {"required": {"nmae": "etcd"}}, sources=())
    ok = _resolved(api, "activeresolutions", ns, "ok", controller)
    assert condition(ok, "Resolved")["reason"] == "Resolved"
    selection = ok["status"]["selection"]
    assert any(s.startswith("community:etcd:0.9.4:") for s in selection), selection
    che = _resolved(api, "activeresolutions", ns, "che", controller)
    assert condition(che, "Resolved")["reason"] == "Unsatisfiable"
    text = che["status"]["explanation"]["text"]
    assert "devworkspace-operator" in text
    assert che["status"]["explanation"]["structured"]["roots"]
    typo = _resolved(api, "activeresolutions", ns, "typo", controller)
    found = condition(typo, "Resolved")
    assert found["reason"] == "InvalidSpec"
    assert "spec.constraints[0].required.nmae" in found["message"]
    assert "Traceback" not in controller.log_text()


def test_a_spec_change_is_resolved_again(env: dict[str, Any]) -> None:
    api, controller, kube = env["api"], env["controller"], env["kube"]
    ns = kube.new_namespace("ar")
    _active(api, ns, "etcd", 'required("etcd", "0.9.2")')
    first = _resolved(api, "activeresolutions", ns, "etcd", controller)
    assert any(":etcd:0.9.2:" in s for s in first["status"]["selection"])
    api.patch(
        "activeresolutions", "etcd", {"spec": {"constraints": ['required("etcd", "0.9.4")']}}, ns
    )
    second = _resolved(api, "activeresolutions", ns, "etcd", controller, generation=2)
    assert any(":etcd:0.9.4:" in s for s in second["status"]["selection"])


# -- Operator, Input, resolveset, approval ---------------------------------------------------


def _instances(api: Kube, ns: str) -> list[dict[str, Any]]:
    return api.list("instances", ns, labels="app.kubernetes.io/managed-by=deppy")


def _set_entries(api: Kube, ns: str, name: str) -> list[dict[str, Any]]:
    found = api.get("configmaps", f"{name}-content", ns)
    assert found is not None
    entries: list[dict[str, Any]] = json.loads(found["data"]["resolved.bundles.json"])
    return entries


def test_operator_installs_then_upgrades_with_android_approval(env: dict[str, Any]) -> None:
    api, controller, kube = env["api"], env["controller"], env["kube"]
    ns = kube.new_namespace("op")
    _create(
        api,
        ns,
        "Operator",
        "jaeger",
        {
            "catalog": {"name": "small", "package": "jaeger-product", "channel": "stable"},
            "version": "1.47.1-5",
        },
    )
    instance = wait_for("an Instance", lambda: _instances(api, ns), log=controller)[0]
    name = instance["metadata"]["name"]
    approved = wait_for(
        "an Approved condition",
        lambda: condition(api.get("instances", name, ns), "Approved"),
        log=controller,
    )
    assert approved["status"] == "False" and "new install" in approved["message"]
    the_input = api.get("inputs", "jaeger", ns)
    assert the_input is not None
    assert the_input["metadata"]["ownerReferences"][0]["kind"] == "Operator"
    entries = _set_entries(api, ns, name)
    assert [(e["packageName"], e["version"], e["schema"]) for e in entries] == [
        ("jaeger-product", "1.47.1-5", "bundle.v1")
    ]
    assert {p["type"] for p in entries[0]["properties"]} <= {"olm.package", "olm.gvk"}
    bundle = api.get("bundles", name, ns)
    assert bundle is not None and bundle["spec"]["class"] == "deppy.resolveset"
    done = subprocess_approve(kube, name, ns)
    assert "approved" in done
    operator = wait_for(
        "UpdateAvailable",
        lambda: (
            condition(api.get("operators", "jaeger", ns), "UpdateAvailable")
            if (api.get("operators", "jaeger", ns) or {}).get("status", {}).get("installed")
            else None
        ),
        log=controller,
    )
    assert operator["reason"] == "UpdateFound"
    status = api.get("operators", "jaeger", ns)["status"]
    assert status["installed"] == "jaeger-operator.v1.47.1-5"
    assert status["updates"][0]["options"][0] == "jaeger-operator.v1.51.0-1"
    assert {r["kind"] for r in status["components"]["refs"]} == {"Input", "Bundle", "Instance"}
    # let it move forward: the new set replaces 1.47.1-5 and asks for no new rules
    api.patch("operators", "jaeger", {"spec": {"version": ">=1.47.0"}}, ns)

    def upgraded() -> dict[str, Any] | None:
        for found in _instances(api, ns):
            if found["metadata"]["name"] != name and condition(found, "Approved"):
                return found
        return None

    newer = wait_for("the upgrade's Instance", upgraded, log=controller)
    assert condition(newer, "Approved")["reason"] == "ApprovedByPolicy"
    entries = _set_entries(api, ns, newer["metadata"]["name"])
    assert entries[0]["version"] == "1.51.0-1"
    assert entries[0]["properties"][0] == {
        "type": "pivotFrom",
        "value": "jaeger-operator.v1.47.1-5",
    }
    # the approved new set retires the old one
    wait_for(
        "the old Instance removed", lambda: api.get("instances", name, ns) is None, log=controller
    )
    # deleting the Operator removes what was created for it (kube-controller-manager's GC)
    api.delete("operators", "jaeger", ns)
    wait_for(
        "garbage collection",
        lambda: not _instances(api, ns) and api.get("inputs", "jaeger", ns) is None,
        120,
        controller,
    )


def subprocess_approve(kube: KubeCluster, name: str, ns: str) -> str:
    import subprocess

    from tests.controller_env import DEPPY

    done = subprocess.run(
        [DEPPY, "approve", name, "-n", ns, "--kubeconfig", str(kube.kubeconfig)],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_unsatisfiable_input_carries_the_explanation_and_missing_dependencies(
    env: dict[str, Any],
) -> None:
    api, controller, kube = env["api"], env["controller"], env["kube"]
    ns = kube.new_namespace("in")
    _input(api, ns, "che", _package("eclipse-che"), _version("eclipse-che", ">=7.50.0"))
    found = _resolved(api, "inputs", ns, "che", controller)
    failed = condition(found, "ResolutionFailed")
    assert failed["status"] == "True" and "devworkspace-operator" in failed["message"]
    instance = found["status"]["instances"][0]
    missing = condition({"status": instance}, "DependenciesMissing")
    assert missing["status"] == "True" and "devworkspace-operator" in missing["message"]
    assert not _instances(api, ns)


def test_invalid_input_names_the_field(env: dict[str, Any]) -> None:
    api, controller, kube = env["api"], env["controller"], env["kube"]
    ns = kube.new_namespace("in")
    _input(api, ns, "bad", _version("etcd", ">=banana"))
    cel = {"type": "olm.cel", "value": "properties.exists(p, p.type =="}
    _input(api, ns, "cel", _package("etcd"), cel)
    _input(api, ns, "noclass", _package("etcd"), input_class="nope")
    _invalid_specs(
        api,
        ns,
        controller,
        bad="spec.constraints[0].value",
        cel="spec.constraints[1].value",
        noclass="spec.inputClass",
    )


def _invalid_specs(api: Kube, ns: str, controller: Controller, **field_of: str) -> None:
    """Wait until each named Input's Resolved condition is InvalidSpec naming its field."""
    for name, field in field_of.items():
        found = wait_for(
            f"InvalidSpec on {name}",
            lambda n=name: condition(api.get("inputs", n, ns), "Resolved"),
            log=controller,
        )
        assert found["reason"] == "InvalidSpec", found
        assert field in found["message"], found["message"]


def test_a_spec_the_schema_no_longer_checks_is_invalid_spec_naming_the_field(
    env: dict[str, Any],
) -> None:
    """A cluster whose CRDs accept any spec (relaxed, or objects older than the schema): the
    controller still answers InvalidSpec naming the field, and never retries an exception."""
    api, controller, kube = env["api"], env["controller"], env["kube"]
    relaxed = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    crds = ("inputs.deppy.io", "operators.deppy.io")

    for crd in crds:
        found = json.loads(kube.kubectl("get", "crd", crd, "-o", "json"))
        root = found["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
        root["properties"]["spec"] = relaxed
        root.pop("required", None)
        # without kubectl's annotation, so that `kubectl apply` (install) can restore it after
        found["metadata"].get("annotations", {}).pop(
            "kubectl.kubernetes.io/last-applied-configuration", None
        )
        kube.kubectl("replace", "-f", "-", input=json.dumps(found))
    ns = kube.new_namespace("loose")
    try:
        _create(api, ns, "Input", "text", {"constraints": "x"})
        _create(api, ns, "Input", "klass", {"inputClass": 7, "constraints": [_package("etcd")]})
        many = [_package("etcd")] + [{"type": "olm.cel", "value": "true"}] * 80
        _create(api, ns, "Input", "many", {"constraints": many})
        _create(api, ns, "Operator", "op", {"catalog": {"package": "etcd"}, "constraints": "x"})
        _invalid_specs(
            api,
            ns,
            controller,
            text="spec.constraints: expected a list, found a string",
            klass="spec.inputClass: expected a string, found a number",
            many="81 constraints; at most 64",
        )
        valid = wait_for(
            "InvalidSpec on the Operator",
            lambda: condition(api.get("operators", "op", ns), "Valid"),
            log=controller,
        )
        assert (
            valid["reason"] == "InvalidSpec"
            and "spec.constraints: expected a list" in (valid["message"])
        )
        assert "Traceback" not in controller.log_text()
    finally:
        # gone before the schema is back: an object the schema refuses cannot be patched, not
        # even by kopf removing its finalizer
        kube.kubectl("delete", "inputs,operators", "--all", "-n", ns, "--timeout=60s")
        install(kube)  # the CRDs as deppy writes them


def test_classes_dry_run_force_trace_and_dependencies(env: dict[str, Any]) -> None:
    api, controller, kube = env["api"], env["controller"], env["kube"]
    ns = kube.new_namespace("cls")
    api.create(
        "inputclasses",
        {
            "apiVersion": "deppy.io/v1alpha1",
            "kind": "InputClass",
            "metadata": {"name": f"traced-{ns}"},
            "parameters": {"trace": True, "dryRun": True},
        },
    )
    etcd = _package("etcd", channel="singlenamespace-alpha")
    _input(api, ns, "plan", etcd, input_class="dry-run")
    _input(api, ns, "every", etcd, _version("etcd", "<0.9.4"), input_class="force")
    _input(api, ns, "traced", etcd, input_class=f"traced-{ns}")
    _input(api, ns, "topology", _package("rabbitmq-messaging-topology-operator"))
    for name in ("plan", "every", "traced", "topology"):
        _resolved(api, "inputs", ns, name, controller)
    bundles = {b["metadata"]["labels"]["deppy.io/unit"]: b for b in api.list("bundles", ns)}
    instances = {i["metadata"]["labels"]["deppy.io/unit"] for i in _instances(api, ns)}
    assert "dry-run.plan" in bundles and "dry-run.plan" not in instances
    every = _set_entries(api, ns, bundles["force.every"]["metadata"]["name"])
    assert len(every) > 1 and all(e["packageName"] == "etcd" for e in every)
    assert all(e["version"] < "0.9.4" for e in every)
    traced = api.get(
        "configmaps", bundles[f"traced-{ns}.traced"]["metadata"]["name"] + "-content", ns
    )
    trace = gzip.decompress(base64.b64decode(traced["binaryData"]["trace.jsonl.gz"]))
    assert b'"type"' in trace and len(trace.splitlines()) > 3
    # generateInputsForDependencies (subscription): the topology operator brings the cluster one
    generated = wait_for(
        "an Input for the dependency",
        lambda: api.get("inputs", "rabbitmq-cluster-operator", ns),
        log=controller,
    )
    assert generated["metadata"]["labels"]["deppy.io/generated-for"] == "topology"
    assert "ownerReferences" not in generated["metadata"]  # it stays when its dependent goes


def test_minimal_version_keeps_dependencies_low(env: dict[str, Any]) -> None:
    api, controller, kube = env["api"], env["controller"], env["kube"]
    versions = {}
    for klass in ("subscription", "minimal-version"):
        ns = kube.new_namespace("min")
        topology = _package("rabbitmq-messaging-topology-operator")
        _input(api, ns, "topology", topology, input_class=klass)
        found = _resolved(api, "inputs", ns, "topology", controller)
        dependency = found["status"]["instances"][0]["dependencies"][0]["name"]
        versions[klass] = dependency
    assert versions["subscription"] == "rabbitmq-cluster-operator.v2.10.0"
    assert versions["minimal-version"] < versions["subscription"]


def test_dry_run_next_carries_the_what_if_report(env: dict[str, Any]) -> None:
    api, controller, kube = env["api"], env["controller"], env["kube"]
    ns = kube.new_namespace("next")
    _input(api, ns, "etcd", _package("etcd"), input_class="dry-run-next")
    _resolved(api, "inputs", ns, "etcd", controller)
    bundle = wait_for("a Bundle", lambda: api.list("bundles", ns), log=controller)[0]
    content = api.get("configmaps", bundle["metadata"]["name"] + "-content", ns)
    report = json.loads(content["data"]["whatif.json"])
    assert report["next"].startswith("Kubernetes 1.21")
    assert not _instances(api, ns)


def test_deny_all_waits_for_a_person_allow_all_approves(env: dict[str, Any]) -> None:
    api, controller, kube = env["api"], env["controller"], env["kube"]
    ns = kube.new_namespace("appr")
    for policy in ("DenyAll", "AllowAll"):
        klass = f"{policy.lower()}-{ns}"
        approval_classes(api, klass, policy)
        aws = _package("aws-load-balancer-operator", catalog="small")
        _input(api, ns, policy.lower(), aws, input_class=klass)

    def verdicts() -> dict[str, dict[str, Any]] | None:
        found = {
            i["metadata"]["labels"]["deppy.io/unit"]: condition(i, "Approved")
            for i in _instances(api, ns)
        }
        return found if len(found) == 2 and all(found.values()) else None

    found = wait_for("two verdicts", verdicts, log=controller)
    deny = found[f"denyall-{ns}"]
    allow = found[f"allowall-{ns}"]
    assert (deny["status"], deny["reason"]) == ("False", "ApprovalRequired")
    assert (allow["status"], allow["reason"]) == ("True", "ApprovedByPolicy")
    # a person approves the current proposal; the controller never takes it back
    current = wait_for(
        "the Input's current proposal",
        lambda: (
            (
                condition(api.get("instances", _current_set(api, ns, "denyall"), ns), "Approved")
                or {}
            ).get("reason")
            == "ApprovalRequired"
        ),
        log=controller,
    )
    assert current
    denied = api.get("instances", _current_set(api, ns, "denyall"), ns)
    subprocess_approve(kube, denied["metadata"]["name"], ns)
    constraints = [
        _package("aws-load-balancer-operator", catalog="small"),
        _version("aws-load-balancer-operator", ">=0.0.1"),
    ]
    api.patch("inputs", "denyall", {"spec": {"constraints": constraints}}, ns)
    _resolved(api, "inputs", ns, "denyall", controller, generation=2)
    later = api.get("instances", denied["metadata"]["name"], ns)
    assert condition(later, "Approved")["reason"] == "ApprovedByUser"


def _current_set(api: Kube, ns: str, name: str) -> str:
    found = api.get("inputs", name, ns) or {}
    return str(((found.get("status") or {}).get("resolveset") or {}).get("name") or "none")


# -- Faults ----------------------------------------------------------------------------------


def test_an_unavailable_catalog_keeps_the_last_good_result(env: dict[str, Any]) -> None:
    api, controller, kube = env["api"], env["controller"], env["kube"]
    ns = kube.new_namespace("cat")
    body = fbc_stream(shared_path("catalogs", EXCERPTS, "aws-load-balancer-operator"))
    with serve_catalog(body) as flaky:
        name = f"flaky-{ns}"
        api.create(
            "catalogs", catalog_object(name, {"http": {"url": flaky.url, "pollInterval": "2s"}})
        )
        wait_for("the flaky catalog", lambda: _ready(api, name), log=controller)
        _active(api, ns, "aws", 'required("aws-load-balancer-operator")', sources=(name,))
        first = _resolved(api, "activeresolutions", ns, "aws", controller)
        selection = first["status"]["selection"]
        assert selection
        flaky.set_up(False)

        def marked() -> dict[str, Any] | None:
            found = api.get("activeresolutions", "aws", ns)
            reason = (condition(found, "Resolved") or {}).get("reason")
            return found if reason == "CatalogUnavailable" else None

        def stale() -> dict[str, Any] | None:
            found = api.get("activeresolutions", "aws", ns)
            return (
                found if (condition(found, "CatalogStale") or {}).get("status") == "True" else None
            )

        down = wait_for("CatalogStale", stale, log=controller)
        assert condition(down, "Resolved")["reason"] == "Resolved"  # an outage changes no answer
        assert down["status"]["selection"] == selection
        catalog = api.get("catalogs", name)
        assert condition(catalog, "Ready")["status"] == "False"
        assert condition(catalog, "Stale")["status"] == "True"
        assert condition(catalog, "Unavailable")["status"] == "False"
        assert catalog["status"]["bundles"] == 1  # still serving its last good content
        flaky.set_up(True)
        before = down["status"]["catalogs"][0]["digest"]
        flaky.server.body = (
            fbc_stream(  # type: ignore[attr-defined]
                shared_path("catalogs", EXCERPTS, "v4.14-node-observability-operator")
            )
            + body
        )  # new content: the resolution is answered again against it
        wait_for(
            "the new content used",
            lambda: (
                (
                    (api.get("activeresolutions", "aws", ns) or {})
                    .get("status", {})
                    .get("catalogs")
                    or [{}]
                )[0].get("digest")
                not in (None, before)
            ),
            log=controller,
        )
        again = wait_for(
            "resolved again",
            lambda: (
                (condition(api.get("activeresolutions", "aws", ns), "Resolved") or {}).get("reason")
                == "Resolved"
            ),
            log=controller,
        )
        assert again
        api.delete("catalogs", name)
        down = wait_for("CatalogUnavailable after deletion", marked, log=controller)
        assert down["status"]["selection"] == selection


def test_status_writes_never_lose_a_concurrent_update(env: dict[str, Any]) -> None:
    """The controller's guarded write: a write that lands between its read and its patch makes
    the patch fail (409), and the status is computed again from the newer object. (A Bundle the
    controller does not manage, so only this test writes its status.)"""
    api, kube = env["api"], env["kube"]
    ns = kube.new_namespace("rv")
    api.create(
        "bundles",
        {
            "apiVersion": "deppy.io/v1alpha1",
            "kind": "Bundle",
            "metadata": {"name": "x", "namespace": ns},
            "spec": {"class": "elsewhere"},
        },
        ns,
    )
    calls: list[int] = []

    def compute(current: dict[str, Any]) -> dict[str, Any]:
        calls.append(1)
        if len(calls) == 1:  # someone else writes meanwhile
            api.call(
                "PATCH",
                f"/apis/deppy.io/v1alpha1/namespaces/{ns}/bundles/x/status",
                {"status": {"objects": ["written by someone else"]}},
                content_type="application/merge-patch+json",
            )
        seen = (current.get("status") or {}).get("objects") or []
        return {"objects": [*seen, "ours"]}

    api.update_status("bundles", "x", ns, compute)
    final = api.get("bundles", "x", ns)
    assert len(calls) == 2
    assert final["status"]["objects"] == ["written by someone else", "ours"]


def test_many_resolutions_at_once_are_all_answered(env: dict[str, Any]) -> None:
    api, controller, kube = env["api"], env["controller"], env["kube"]
    ns = kube.new_namespace("many")
    packages = [
        "etcd",
        "prometheus",
        "grafana-operator",
        "argocd-operator",
        "strimzi-kafka-operator",
    ]
    for n in range(20):
        _active(api, ns, f"r{n}", f'required("{packages[n % 5]}")')

    def all_done() -> bool:
        found = api.list("activeresolutions", ns)
        return len(found) == 20 and all(condition(f, "Resolved") for f in found)

    wait_for("20 resolutions", all_done, log=controller)
    reasons = {condition(f, "Resolved")["reason"] for f in api.list("activeresolutions", ns)}
    assert reasons == {"Resolved"}


def test_manifests_are_least_privilege(env: dict[str, Any]) -> None:
    api = env["api"]
    role = api.call("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/deppy-controller")
    for rule in role["rules"]:
        assert "*" not in rule["verbs"] and "*" not in rule["resources"]
        assert "*" not in rule.get("apiGroups", [])
    writable = {r for rule in role["rules"] if "delete" in rule["verbs"] for r in rule["resources"]}
    # what it owns; and OLM v1's ClusterExtensions and resolved catalogs (ClusterCatalogs), only
    # those labelled its own (its check)
    assert writable == {
        "inputs", "bundles", "instances", "configmaps", "clusterextensions", "clustercatalogs"
    }  # fmt: skip
    assert not [r for rule in role["rules"] for r in rule["resources"] if r == "secrets"]
    # registry Secrets are read in deppy's own namespace only
    secrets = api.call(
        "GET",
        "/apis/rbac.authorization.k8s.io/v1/namespaces/deppy-system/roles/deppy-controller-secrets",
    )
    assert secrets["rules"] == [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}]
    assert {c["metadata"]["name"] for c in api.list("inputclasses")} >= {
        "subscription",
        "force",
        "minimal-version",
        "dry-run",
        "dry-run-next",
    }
    assert Path  # the module's imports stay used


def test_an_operator_installed_by_hand_stays_and_is_not_installed_twice(
    env: dict[str, Any],
) -> None:
    """A CSV without a Subscription: its projected properties enter the resolution (cluster/),
    so the Input for the same package keeps it, and the resolveset installs nothing again."""
    api, controller, kube = env["api"], env["controller"], env["kube"]
    crds = Path(__file__).parent / "data" / "olm-crds"
    for name in ("clusterserviceversions", "subscriptions"):
        kube.kubectl("apply", "-f", str(crds / f"{name}.operators.coreos.com.yaml"))
        kube.kubectl(
            "wait",
            "--for",
            "condition=established",
            "--timeout=60s",
            f"crd/{name}.operators.coreos.com",
        )
    ns = kube.new_namespace("csv")
    api.call(
        "POST",
        f"/apis/operators.coreos.com/v1alpha1/namespaces/{ns}/clusterserviceversions",
        {
            "apiVersion": "operators.coreos.com/v1alpha1",
            "kind": "ClusterServiceVersion",
            "metadata": {
                "name": "etcdoperator.v0.9.2",
                "namespace": ns,
                "labels": {f"operators.coreos.com/etcd.{ns}": ""},
            },
            "spec": {
                "version": "0.9.2",
                "displayName": "etcd",
                "customresourcedefinitions": {
                    "owned": [
                        {
                            "name": "etcdclusters.etcd.database.coreos.com",
                            "version": "v1beta2",
                            "kind": "EtcdCluster",
                        }
                    ]
                },
            },
        },
    )
    _input(api, ns, "etcd", _package("etcd", catalog=None))
    found = _resolved(api, "inputs", ns, "etcd", controller)
    assert condition(found, "Resolved")["reason"] == "Resolved", found["status"]
    instance = found["status"]["instances"][0]
    assert (instance["name"], instance["catalog"]) == ("etcdoperator.v0.9.2", "(cluster)")
    bundle = wait_for("a Bundle", lambda: api.list("bundles", ns), log=controller)[0]
    assert _set_entries(api, ns, bundle["metadata"]["name"]) == []
