"""deppy in front of OLM v1 on a real kube-apiserver: ClusterCatalogs as catalogs, approved sets
written as ClusterExtensions, explanations where OLM v1 finds no bundle.

OLM v1's CRDs (../shared/olm-v1, verbatim from operator-controller) are installed; no OLM v1
controller runs, so the test plays both: catalogd (a local HTTP server serving real community
catalog packages as ``/api/v1/all``, and the ClusterCatalog's status naming it) and
operator-controller (a ClusterExtension's ``Installed`` / ``Progressing`` status). The packages:
node-healthcheck-operator 0.8.0 needs an API only self-node-remediation provides (a package
with a dependency); alvearie-imaging-ingestion stands alone.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from deppy.controller.kube import Kube
from tests.conftest import shared_path
from tests.controller_env import (
    DEPPY,
    OLM_V1_CRDS,
    Controller,
    approval_classes,
    catalog_object,
    client,
    condition,
    install,
    install_olm_v1,
    run_controller,
    serve_as_catalogd,
    wait_for,
    write_status,
)
from tests.fbc_server import CatalogServer, fbc_stream, serve_catalog
from tests.hostile_registry import hostile_registry
from tests.kube import KubeCluster
from tests.olmv1_objects import cluster_catalog, cluster_extension
from tests.registry import (
    MISSING,
    PASSWORD,
    USER,
    Registry,
    registry_missing,
    running_registry,
    unpacked_configs,
)

COMMUNITY = "community-operators-prod-v4.18"
PACKAGES = ("node-healthcheck-operator", "self-node-remediation", "alvearie-imaging-ingestion")
HELD_BACK = "self-node-remediation.v0.7.1"  # published by the second digest
CATALOG = "olmv1-community"


def catalog_body(tmp: Path, *, without: str | None = None) -> bytes:
    """The three packages as one FBC stream; ``without``: that bundle and its channel entries
    left out (the content before it was published)."""
    root = tmp / "catalog"
    if not root.exists():
        for package in PACKAGES:
            target = root / package
            target.mkdir(parents=True)
            source = shared_path("catalogs", COMMUNITY, package, "catalog.json")
            (target / "catalog.json").write_bytes(source.read_bytes())
    lines = []
    for line in fbc_stream(root).splitlines():
        doc = orjson.loads(line)
        if without is not None and doc.get("schema") == "olm.bundle" and doc["name"] == without:
            continue
        if without is not None and doc.get("schema") == "olm.channel":
            doc["entries"] = [e for e in doc["entries"] if e["name"] != without]
        lines.append(orjson.dumps(doc))
    return b"\n".join(lines) + b"\n"


def digest(n: int) -> str:
    return f"quay.io/example/community-catalog@sha256:{n:064x}"


def play_operator_controller(api: Kube, name: str, version: str) -> None:
    """operator-controller installed ``version``: ``Installed`` True, ``Progressing`` done."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    found = api.get("clusterextensions", name)
    assert found is not None
    package = found["spec"]["source"]["catalog"]["packageName"]
    write_status(
        api,
        "clusterextensions",
        name,
        {
            "install": {"bundle": {"name": f"{package}.v{version}", "version": version}},
            "conditions": [
                {
                    "type": "Installed",
                    "status": "True",
                    "reason": "Succeeded",
                    "message": f"Installed bundle {package}.v{version} successfully",
                    "lastTransitionTime": stamp,
                },
                {
                    "type": "Progressing",
                    "status": "True",
                    "reason": "Succeeded",
                    "message": "Desired state reached",
                    "lastTransitionTime": stamp,
                },
            ],
        },
    )


def events_on(api: Kube, namespace: str, name: str) -> list[dict[str, Any]]:
    return [e for e in api.list("events", namespace) if e["involvedObject"]["name"] == name]


def told(api: Kube, namespace: str, name: str, reason: str) -> list[dict[str, Any]]:
    """The Events ``reason`` on ``name`` (an Event follows the status write it tells of)."""
    return [e for e in events_on(api, namespace, name) if e["reason"] == reason]


def approve(kube: KubeCluster, name: str, ns: str) -> None:
    subprocess.run(
        [DEPPY, "approve", name, "-n", ns, "--kubeconfig", str(kube.kubeconfig)],
        capture_output=True,
        text=True,
        check=True,
    )


def apply_input(kube: KubeCluster, ns: str, name: str, spec: dict[str, Any]) -> None:
    body = {
        "apiVersion": "deppy.io/v1alpha1",
        "kind": "Input",
        "metadata": {"name": name, "namespace": ns},
        "spec": spec,
    }
    kube.kubectl("apply", "-f", "-", input=json.dumps(body))


def apply_nhc(kube: KubeCluster, ns: str, version: str) -> None:
    """The "done when" Input: node-healthcheck-operator at ``version``, class olm-v1."""
    package = "node-healthcheck-operator"
    apply_input(
        kube,
        ns,
        "nhc",
        {
            "inputClass": "olm-v1",
            "constraints": [
                {"type": "olm.catalog", "value": {"name": CATALOG, "package": package}},
                {"type": "olm.packageVersion", "value": {"package": package, "version": version}},
            ],
        },
    )


def apply_alvearie(kube: KubeCluster, ns: str, catalog: str) -> None:
    """alvearie-imaging-ingestion from ``catalog``, class olm-v1-allow (approved by policy)."""
    package = {"name": catalog, "package": "alvearie-imaging-ingestion"}
    spec = {
        "inputClass": "olm-v1-allow",
        "constraints": [{"type": "olm.catalog", "value": package}],
    }
    apply_input(kube, ns, "alvearie", spec)


def instances(api: Kube, ns: str) -> list[dict[str, Any]]:
    return api.list("instances", ns)


def pending(api: Kube, ns: str) -> list[dict[str, Any]]:
    found = []
    for instance in instances(api, ns):
        approved = condition(instance, "Approved")
        superseded = condition(instance, "Superseded")
        # a proposal once the policy's verdict is written (False: waiting for a person)
        if (
            approved
            and approved["status"] == "False"
            and (superseded or {}).get("status") != "True"
        ):
            found.append(instance)
    return found


@pytest.fixture(scope="module")
def env(kube: KubeCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """deppy installed, OLM v1 not installed yet (the first test installs it), a catalogd
    stand-in serving the content before HELD_BACK was published, and the controller."""
    stack = contextlib.ExitStack()
    registry = None  # without docker-registry and skopeo, the resolved catalog part is skipped
    if registry_missing() is None:
        directory = tmp_path_factory.mktemp("registry")
        registry = stack.enter_context(running_registry(directory, secure=True))
    install(kube)
    kube.kubectl("delete", "crd", *OLM_V1_CRDS, "--ignore-not-found", "--wait=true")
    api = client(kube)
    tmp = tmp_path_factory.mktemp("olmv1")
    with serve_catalog(catalog_body(tmp, without=HELD_BACK)) as server:
        log = tmp / "controller.log"
        with run_controller(kube, log) as controller:
            try:
                yield {
                    "api": api,
                    "kube": kube,
                    "server": server,
                    "controller": controller,
                    "tmp": tmp,
                    "registry": registry,
                }
                assert "Traceback" not in controller.log_text()
            finally:
                # cluster-scoped leftovers whose catalog servers are gone would make the next
                # module's controller wait for content it can never load; deleted while this
                # controller runs (kopf's finalizer on the Catalog is removed by it)
                kube.kubectl("delete", "catalogs", "olmv1-plain", "--ignore-not-found")
                for kind in ("clustercatalogs", "clusterextensions"):
                    kube.kubectl("delete", kind, "--all", "--ignore-not-found", check=False)
                for kind in ("inputclasses", "provisionerclasses"):
                    kube.kubectl("delete", kind, "olm-v1-allow", "--ignore-not-found")
                api.patch("provisionerclasses", "olm-v1", {"parameters": {"resolvedCatalog": None}})
                stack.close()


def test_without_olm_v1_the_instance_says_so_and_applies_once_it_is_installed(
    env: dict[str, Any],
) -> None:
    api, kube, controller = env["api"], env["kube"], env["controller"]
    server: CatalogServer = env["server"]
    # a deppy Catalog on the same content: ClusterCatalogs need the CRDs that are missing
    api.create("catalogs", catalog_object("olmv1-plain", {"http": {"url": server.url}}))
    approval_classes(api, "olm-v1-allow", "AllowAll", "deppy.io/olm-v1", serviceAccount="installer")
    ns = kube.new_namespace("olmv1-missing")
    apply_alvearie(kube, ns, "olmv1-plain")

    def not_installed() -> dict[str, Any] | None:
        found = instances(api, ns)
        applied = condition(found[0], "Applied") if found else None
        return found[0] if applied and applied["reason"] == "OLMv1NotInstalled" else None

    instance = wait_for("Applied False, OLMv1NotInstalled", not_installed, log=controller)
    applied = condition(instance, "Applied")
    assert applied is not None and applied["status"] == "False"
    assert "OLM v1 is not installed" in applied["message"]
    name = instance["metadata"]["name"]
    wait_for("the Event", lambda: told(api, ns, name, "OLMv1NotInstalled"), log=controller)
    # OLM v1 arrives: the next look at the namespace (here: an edit of the Instance's labels,
    # which makes it be looked at now rather than at the minute's recheck) applies the set
    install_olm_v1(kube)
    api.patch("instances", name, {"metadata": {"annotations": {"touched": "1"}}}, ns)
    extension = wait_for(
        "the ClusterExtension",
        lambda: api.get("clusterextensions", "alvearie-imaging-ingestion"),
        log=controller,
    )
    spec = extension["spec"]
    assert spec["namespace"] == ns and spec["serviceAccount"] == {"name": "installer"}
    assert spec["source"]["catalog"]["version"] == "0.0.3"
    assert spec["source"]["catalog"]["selector"] == {
        "matchLabels": {"olm.operatorframework.io/metadata.name": "olmv1-plain"}
    }
    assert "Traceback" not in controller.log_text()


def test_done_when_input_to_pinned_cluster_extensions_updated_in_place_and_explained(
    env: dict[str, Any],
) -> None:
    """The issue's "done when": an Input of class olm-v1 → after ``deppy approve`` two
    ClusterExtensions pinned to the approved versions; a newer catalog digest → one proposal
    whose approval updates them in place; a ClusterExtension asking for a version no catalog has
    → deppy's Event with a way out that works."""
    api, kube, controller = env["api"], env["kube"], env["controller"]
    server: CatalogServer = env["server"]
    install_olm_v1(kube)
    kube.kubectl("apply", "-f", "-", input=json.dumps(cluster_catalog(CATALOG)))
    serve_as_catalogd(api, CATALOG, server.url, digest(1))
    ns = kube.new_namespace("olmv1")
    apply_nhc(kube, ns, "0.8.0")
    first = wait_for("a proposal", lambda: pending(api, ns), log=controller)
    assert len(first) == 1
    assert condition(first[0], "Approved")["reason"] == "PermissionsUnknown"  # type: ignore[index]
    assert api.get("clusterextensions", "node-healthcheck-operator") is None  # not approved yet
    name = first[0]["metadata"]["name"]
    approve(kube, name, ns)

    # NHC 0.8.0 declares olm.gvk.required, which OLM v1 refuses: without a resolved catalog
    # nothing of the set is written, and the Instance says why and what to do
    def refused() -> dict[str, Any] | None:
        found = api.get("instances", name, ns)
        applied = condition(found, "Applied")
        return found if applied and applied["reason"] == "NeedsResolvedCatalog" else None

    applied = condition(wait_for("NeedsResolvedCatalog", refused, log=controller), "Applied")
    assert applied is not None and applied["status"] == "False"
    assert "node-healthcheck-operator 0.8.0 declares olm.gvk.required" in applied["message"]
    assert "parameters.resolvedCatalog" in applied["message"]
    wait_for("its Event", lambda: told(api, ns, name, "NeedsResolvedCatalog"), log=controller)
    assert api.get("clusterextensions", "self-node-remediation") is None

    # with a registry (TLS, a login from a dockerconfigjson Secret in deppy's namespace), the
    # provisioner pushes the resolved catalog, writes its ClusterCatalog, then the extensions
    registry: Registry | None = env["registry"]
    if registry is None:
        pytest.skip(MISSING)
    kube.kubectl(
        "create", "secret", "docker-registry", "regcreds", "-n", "deppy-system",
        f"--docker-server={registry.address}", f"--docker-username={USER}",
        f"--docker-password={PASSWORD}",
    )  # fmt: skip
    # a registry that is down first: Applied False with its answer, nothing written
    down = {"ref": "docker://127.0.0.1:1/deppy/resolved", "tlsVerify": False}
    api.patch("provisionerclasses", "olm-v1", {"parameters": {"resolvedCatalog": down}})
    api.patch("instances", name, {"metadata": {"annotations": {"touched": "0"}}}, ns)

    def not_published() -> dict[str, Any] | None:
        found = api.get("instances", name, ns)
        applied = condition(found, "Applied")
        return found if applied and applied["reason"] == "ResolvedCatalogNotPublished" else None

    applied = condition(wait_for("the registry's answer", not_published, log=controller), "Applied")
    assert applied is not None and "127.0.0.1:1" in applied["message"]
    # a registry that trickles its answer: given up at parameters' registryTimeout, said so
    with hostile_registry("trickle-headers") as slow:
        trickling = {"ref": f"docker://{slow.address}/deppy/resolved", "tlsVerify": False,
                     "registryTimeout": 1}  # fmt: skip
        api.patch("provisionerclasses", "olm-v1", {"parameters": {"resolvedCatalog": trickling}})
        api.patch("instances", name, {"metadata": {"annotations": {"touched": "slow"}}}, ns)

        def timed_out() -> dict[str, Any] | None:
            found = not_published()
            applied = condition(found, "Applied") if found else None
            return found if applied and slow.address in applied["message"] else None

        applied = condition(wait_for("the deadline", timed_out, log=controller), "Applied")
    assert applied is not None and applied["status"] == "False"
    assert "did not finish answering GET /v2/ within 1 s" in applied["message"]
    assert api.get("clusterextensions", "self-node-remediation") is None
    assert api.get("clusterextensions", "self-node-remediation") is None
    resolved = {"ref": f"docker://{registry.address}/deppy/resolved", "tlsVerify": False,
                "authSecret": "regcreds"}  # fmt: skip
    api.patch("provisionerclasses", "olm-v1", {"parameters": {"resolvedCatalog": resolved}})
    api.patch("instances", name, {"metadata": {"annotations": {"touched": "1"}}}, ns)
    unit = first[0]["metadata"]["labels"]["deppy.io/unit"]
    ours = f"deppy-{unit}"

    def pinned(name: str, version: str) -> dict[str, Any] | None:
        found: dict[str, Any] | None = api.get("clusterextensions", name)
        if found is None or found["spec"]["source"]["catalog"]["version"] != version:
            return None
        return found

    nhc = wait_for(
        "NHC pinned", lambda: pinned("node-healthcheck-operator", "0.8.0"), log=controller
    )
    snr = wait_for("SNR pinned", lambda: pinned("self-node-remediation", "0.7.0"), log=controller)
    for found, selected in ((nhc, ours), (snr, CATALOG)):
        catalog = found["spec"]["source"]["catalog"]
        assert catalog["channels"] == ["stable"]
        assert catalog["upgradeConstraintPolicy"] == "CatalogProvided"
        assert catalog["selector"]["matchLabels"] == {
            "olm.operatorframework.io/metadata.name": selected
        }
        assert "serviceAccount" not in found["spec"]  # named by neither the Input nor its class
        assert found["spec"]["namespace"] == ns
        assert found["metadata"]["labels"]["deppy.io/namespace"] == ns
    cluster_catalog_of_unit = api.get("clustercatalogs", ours)
    assert cluster_catalog_of_unit is not None
    assert cluster_catalog_of_unit["metadata"]["labels"]["deppy.io/unit"] == unit
    ref = cluster_catalog_of_unit["spec"]["source"]["image"]["ref"]
    assert ref.startswith(f"{registry.address}/deppy/resolved@sha256:")
    assert cluster_catalog_of_unit["spec"]["priority"] == -(2**31)
    # catalogd's part, played: the pushed image unpacked and served; OLM v1 finds NHC 0.8.0 there
    # with no dependency property (what satisfied it is recorded instead)
    layout = env["tmp"] / "resolved-layout"
    copied = registry.skopeo("copy", f"docker://{ref}", f"oci:{layout}:served")
    assert copied.returncode == 0, copied.stderr
    configs = unpacked_configs(layout, "served", env["tmp"] / "resolved-unpacked")
    stream = fbc_stream(configs)
    (bundle,) = [d for d in map(orjson.loads, stream.splitlines()) if d["schema"] == "olm.bundle"]
    assert bundle["name"] == "node-healthcheck-operator.v0.8.0"
    types = [p["type"] for p in bundle["properties"]]
    assert "olm.gvk.required" not in types and "deppy.io/resolved-dependency" in types
    with serve_catalog(stream) as served:
        serve_as_catalogd(api, ours, served.url, ref)
        time.sleep(2)  # deppy never resolves against it: no new proposal for the unit
        assert pending(api, ns) == []
    # the credentials appear nowhere deppy writes
    shown = json.dumps([api.get("instances", name, ns), api.list("events", ns)])
    for place in (shown, controller.log_text(), _metrics(controller)):
        assert PASSWORD not in place

    # operator-controller installs them: the Instance mirrors it (kubectl get instances shows it)
    play_operator_controller(api, "node-healthcheck-operator", "0.8.0")
    play_operator_controller(api, "self-node-remediation", "0.7.0")

    def installed() -> dict[str, Any] | None:
        found = api.get("instances", first[0]["metadata"]["name"], ns)
        done = condition(found, "Installed")
        return found if done and done["status"] == "True" else None

    instance = wait_for("Installed True on the Instance", installed, log=controller)
    rows = {r["name"]: r for r in instance["status"]["clusterExtensions"]}
    assert rows["self-node-remediation"]["installedVersion"] == "0.7.0"
    assert condition(instance, "Progressing")["reason"] == "Succeeded"  # type: ignore[index]
    table = kube.kubectl("get", "instances", "-n", ns)
    assert "INSTALLED" in table and "PROGRESSING" in table and "Succeeded" in table

    # catalogd serves a newer digest, publishing self-node-remediation 0.7.1
    server.set_body(catalog_body(env["tmp"]))
    serve_as_catalogd(api, CATALOG, server.url, digest(2))
    second = wait_for("the upgrade's proposal", lambda: pending(api, ns), log=controller)
    assert len(second) == 1 and second[0]["metadata"]["name"] != first[0]["metadata"]["name"]
    time.sleep(2)  # the namespace's quiet period: still one proposal
    assert [p["metadata"]["name"] for p in pending(api, ns)] == [second[0]["metadata"]["name"]]
    approve(kube, second[0]["metadata"]["name"], ns)
    upgraded = wait_for(
        "SNR updated in place", lambda: pinned("self-node-remediation", "0.7.1"), log=controller
    )
    assert upgraded["metadata"]["uid"] == snr["metadata"]["uid"]  # the same object, updated
    after = api.get("clusterextensions", "node-healthcheck-operator")
    assert after is not None and after["metadata"]["uid"] == nhc["metadata"]["uid"]
    assert after["spec"]["source"]["catalog"]["version"] == "0.8.0"

    # someone asks OLM v1 for a version no catalog has; operator-controller gives up
    kube.kubectl(
        "apply",
        "-f",
        "-",
        input=json.dumps(
            cluster_extension(
                "alvearie-wanted",
                "alvearie-imaging-ingestion",
                None,
                namespace="default",
                version="9.9.9",
                selector={"matchLabels": {"olm.operatorframework.io/metadata.name": CATALOG}},
            )
        ),
    )
    before = api.get("clusterextensions", "alvearie-wanted")
    assert before is not None
    retrying = {
        "type": "Progressing",
        "status": "True",
        "reason": "Retrying",
        "message": 'no bundles found for package "alvearie-imaging-ingestion" '
        'matching version "9.9.9"',
        "lastTransitionTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    write_status(api, "clusterextensions", "alvearie-wanted", {"conditions": [retrying]})

    def explained() -> list[dict[str, Any]]:
        return [
            e
            for e in events_on(api, "default", "alvearie-wanted")
            if e["reason"] == "NoBundleExplained"
        ]

    event = wait_for("deppy's explanation", explained, log=controller)[0]
    assert event["type"] == "Warning"
    assert "way out: set spec.source.catalog.version to '0.0.3'" in event["message"]
    assert "kubectl patch clusterextension alvearie-wanted" in event["message"]
    # the same answer again (operator-controller retries, rewriting its condition): no new Event
    write_status(
        api,
        "clusterextensions",
        "alvearie-wanted",
        {"conditions": [{**retrying, "message": retrying["message"] + " "}]},
    )
    time.sleep(2)
    again = explained()
    assert [(e["reason"], e["count"]) for e in again] == [("NoBundleExplained", 1)]
    found = api.get("clusterextensions", "alvearie-wanted")
    assert found is not None and found["spec"] == before["spec"]  # never written by deppy
    # the way out works: the ClusterExtension patched as the Event says, resolved with OLM
    # v1's rules (deppy resolve -f) against the same catalog content, installs 0.0.3
    patch = json.loads(event["message"].split(" -p '", 1)[1].split("'", 1)[0])
    patched = {**before, "spec": {**before["spec"]}}
    patched["spec"]["source"] = {
        "sourceType": "Catalog",
        "catalog": {**before["spec"]["source"]["catalog"], **patch["spec"]["source"]["catalog"]},
    }
    patched.pop("status", None)
    patched["metadata"] = {"name": "alvearie-wanted"}
    request = env["tmp"] / "way-out.json"
    request.write_text(json.dumps(patched))
    done = subprocess.run(
        [
            DEPPY,
            "resolve",
            "-f",
            str(request),
            "--catalog",
            f"{env['tmp'] / 'catalog'}={CATALOG}",
            "-o",
            "json",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    picked = [(b["package"], b["version"]) for b in json.loads(done.stdout)["selection"]]
    assert picked == [("alvearie-imaging-ingestion", "0.0.3")]
    metrics = _metrics(controller)
    assert 'deppy_olmv1_explanations_total{outcome="way_out"} 1.0' in metrics
    assert 'deppy_cluster_extensions_written_total{action="updated"}' in metrics


def _metrics(controller: Controller) -> str:
    import urllib.request

    url = f"http://127.0.0.1:{controller.health_port}/metrics"
    with urllib.request.urlopen(url, timeout=10) as answer:
        return str(answer.read().decode())


def test_a_package_leaving_the_set_is_reported_and_deleted_only_with_prune(
    env: dict[str, Any],
) -> None:
    """Continues the "done when" unit: node-healthcheck-operator 0.10.0 needs no
    self-node-remediation, so it leaves the set."""
    api, kube, controller = env["api"], env["kube"], env["controller"]
    ns = next(
        i["metadata"]["namespace"]
        for i in api.list("inputs")
        if i["metadata"]["name"] == "nhc" and i["metadata"]["namespace"].startswith("olmv1-")
    )
    apply_nhc(kube, ns, "0.10.0")
    proposal = wait_for("the proposal", lambda: pending(api, ns), log=controller)[0]
    name = proposal["metadata"]["name"]
    approve(kube, name, ns)

    def left() -> dict[str, Any] | None:
        found = api.get("instances", name, ns)
        report = condition(found, "PackagesLeft")
        return found if report and report["status"] == "True" else None

    instance = wait_for("PackagesLeft True", left, log=controller)
    assert "self-node-remediation" in condition(instance, "PackagesLeft")["message"]  # type: ignore[index]
    assert api.get("clusterextensions", "self-node-remediation") is not None  # prune: false
    nhc = api.get("clusterextensions", "node-healthcheck-operator")
    assert nhc is not None and nhc["spec"]["source"]["catalog"]["version"] == "0.10.0"
    wait_for("the PackageLeft Event", lambda: told(api, ns, name, "PackageLeft"), log=controller)
    api.patch("provisionerclasses", "olm-v1", {"parameters": {"prune": True}})
    try:
        api.patch("instances", name, {"metadata": {"annotations": {"touched": "1"}}}, ns)
        wait_for(
            "SNR pruned",
            lambda: api.get("clusterextensions", "self-node-remediation") is None,
            log=controller,
        )
        wait_for("the Pruned Event", lambda: told(api, ns, name, "Pruned"), log=controller)
    finally:
        api.patch("provisionerclasses", "olm-v1", {"parameters": {"prune": False}})


def test_olm_v1_refusing_a_bundle_with_a_dependency_gets_deppys_answer(
    env: dict[str, Any],
) -> None:
    """A person's ClusterExtension for node-healthcheck-operator 0.8.0: operator-controller
    chose it and refused it (NoDependencyValidation). deppy's Event names the property, what
    deppy installs to satisfy it, and the way out."""
    api, kube, controller = env["api"], env["kube"], env["controller"]
    install_olm_v1(kube)
    kube.kubectl("apply", "-f", "-", input=json.dumps(cluster_catalog(CATALOG)))
    serve_as_catalogd(api, CATALOG, env["server"].url, digest(1))
    name = "nhc-by-hand"
    selector = {"matchLabels": {"olm.operatorframework.io/metadata.name": CATALOG}}
    extension = cluster_extension(
        name, "node-healthcheck-operator", None, namespace="default", version="0.8.0",
        selector=selector,
    )  # fmt: skip
    kube.kubectl("apply", "-f", "-", input=json.dumps(extension))
    bundle = "node-healthcheck-operator.v0.8.0"
    message = (
        f'validating bundle "{bundle}": bundle "{bundle}" has a dependency declared via '
        'property "olm.gvk.required" which is currently not supported'
    )
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    retrying = {"type": "Progressing", "status": "True", "reason": "Retrying",
                "message": message, "lastTransitionTime": stamp}  # fmt: skip
    write_status(api, "clusterextensions", name, {"conditions": [retrying]})
    (event,) = wait_for(
        "DependencyRefused", lambda: told(api, "default", name, "DependencyRefused"),
        log=controller,
    )  # fmt: skip
    assert event["type"] == "Warning"
    text = event["message"]
    assert "it declares olm.gvk.required" in text
    assert "deppy satisfies it with self-node-remediation 0.7" in text
    assert "parameters.resolvedCatalog" in text and "--resolved-catalog" in text
    kube.kubectl("delete", "clusterextension", name)


def test_a_cluster_extension_deppy_did_not_write_is_left_alone(env: dict[str, Any]) -> None:
    api, kube, controller = env["api"], env["kube"], env["controller"]
    install_olm_v1(kube)
    kube.kubectl("delete", "clusterextension", "alvearie-imaging-ingestion", "--ignore-not-found")
    package = "alvearie-imaging-ingestion"
    persons = cluster_extension(
        package, package, None, namespace="default", account="someone", version="0.0.1"
    )
    kube.kubectl("apply", "-f", "-", input=json.dumps(persons))
    before = api.get("clusterextensions", "alvearie-imaging-ingestion")
    assert before is not None
    ns = kube.new_namespace("olmv1-owned")
    apply_alvearie(kube, ns, CATALOG)

    def refused() -> dict[str, Any] | None:
        found = instances(api, ns)
        applied = condition(found[0], "Applied") if found else None
        return found[0] if applied and applied["reason"] == "NotOwned" else None

    instance = wait_for("Applied False, NotOwned", refused, log=controller)
    message = condition(instance, "Applied")["message"]  # type: ignore[index]
    assert "no deppy.io/unit label" in message and "leaves it alone" in message
    name = instance["metadata"]["name"]
    wait_for("the NotOwned Event", lambda: told(api, ns, name, "NotOwned"), log=controller)
    after = api.get("clusterextensions", "alvearie-imaging-ingestion")
    assert after is not None
    assert after["spec"] == before["spec"] and after["metadata"].get("labels") is None


def test_cluster_catalog_faults_keep_the_last_good_content_serving(env: dict[str, Any]) -> None:
    """Unreachable, garbage, a digest changing while the stream is read, made unavailable: an
    Event on the ClusterCatalog, the answers keep the last good content (CatalogStale), and
    the controller keeps serving."""
    api, kube, controller = env["api"], env["kube"], env["controller"]
    install_olm_v1(kube)
    good = catalog_body(env["tmp"])
    with serve_catalog(good) as server:
        kube.kubectl("apply", "-f", "-", input=json.dumps(cluster_catalog("olmv1-flaky")))
        serve_as_catalogd(api, "olmv1-flaky", server.url, digest(10))
        ns = kube.new_namespace("olmv1-faults")
        api.create(
            "activeresolutions",
            {
                "apiVersion": "deppy.io/v1alpha1",
                "kind": "ActiveResolution",
                "metadata": {"name": "ask", "namespace": ns},
                "spec": {
                    "sources": ["olmv1-flaky"],
                    "constraints": ['required("alvearie-imaging-ingestion")'],
                },
            },
            ns,
        )

        def answered(ref: str, stale: str) -> dict[str, Any] | None:
            found = api.get("activeresolutions", "ask", ns)
            status = (found or {}).get("status") or {}
            digests = [c.get("digest") for c in status.get("catalogs") or ()]
            resolved = condition(found, "Resolved")
            staleness = condition(found, "CatalogStale")
            if found is None or resolved is None or staleness is None or digests != [ref]:
                return None
            return found if (resolved["status"], staleness["status"]) == ("True", stale) else None

        wait_for("answered from digest 10", lambda: answered(digest(10), "False"), log=controller)

        def stale_told(text: str) -> list[dict[str, Any]]:
            return [
                e
                for e in events_on(api, "default", "olmv1-flaky")
                if e["reason"] == "CatalogStale" and text in e["message"]
            ]

        server.set_up(False)  # unreachable (503) when the new digest comes
        serve_as_catalogd(api, "olmv1-flaky", server.url, digest(11))
        wait_for("the unreachable Event", lambda: stale_told("HTTP 503"), log=controller)
        found = wait_for("stale", lambda: answered(digest(10), "True"), log=controller)
        assert "olmv1-flaky" in condition(found, "CatalogStale")["message"]  # type: ignore[index]

        server.set_up(True)
        server.set_body(b"<html>not a catalog</html>\n")
        serve_as_catalogd(api, "olmv1-flaky", server.url, digest(12))
        wait_for("the garbage Event", lambda: stale_told("no valid bundle"), log=controller)
        assert answered(digest(10), "True") is not None  # still the last good content

        server.set_body(good)
        moved: list[bool] = []

        def move_digest() -> None:
            if not moved:
                moved.append(True)
                serve_as_catalogd(api, "olmv1-flaky", server.url, digest(14))

        server.on_get(move_digest)
        serve_as_catalogd(api, "olmv1-flaky", server.url, digest(13))
        wait_for("loaded at digest 14", lambda: answered(digest(14), "False"), log=controller)
        server.on_get(None)
        assert "its digest changed while it loaded" in controller.log_text()

        kube.kubectl(
            "patch",
            "clustercatalog",
            "olmv1-flaky",
            "--type",
            "merge",
            "-p",
            '{"spec":{"availabilityMode":"Unavailable"}}',
        )

        def withdrawn() -> dict[str, Any] | None:
            found = api.get("activeresolutions", "ask", ns)
            resolved = condition(found, "Resolved")
            if resolved is None or resolved["reason"] != "CatalogUnavailable":
                return None
            return found if "availabilityMode" in resolved["message"] else None

        wait_for("CatalogUnavailable", withdrawn, log=controller)
        assert "Traceback" not in controller.log_text()
        # it keeps serving everything else
        assert api.get("clusterextensions", "node-healthcheck-operator") is not None
