"""The controller's logic without a cluster: CRDs, requests from objects, catalog sources,
resolvesets, permissions and approval, minimal-version — on the real catalogs in ../shared."""

from __future__ import annotations

import base64
import gzip
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog, load_catalog_documents
from deppy.catalog.model import Catalog
from deppy.catalog.permissions import Rule, added_rules, bundle_rules
from deppy.catalog.semver import Version
from deppy.controller.approval.policies import ALLOW_ALL, DENY_ALL, decide
from deppy.controller.approval.resolveset import Resolveset, SetEntry, build
from deppy.controller.catalogs.cache import CatalogCache
from deppy.controller.catalogs.sources import catalog_source, config_map_files, parse_duration
from deppy.controller.install.crds import all_crds
from deppy.controller.install.manifests import all_manifests
from deppy.controller.resolving.active_resolutions import Outcome, answer
from deppy.controller.resolving.requests import (
    active_resolution_request,
    class_parameters,
    input_requirements,
    operator_input_constraints,
)
from deppy.controller.resolving.units import Held, Unit, resolve_unit
from deppy.errors import InputError
from deppy.resolution.node_library import minimal_version_pipeline
from deppy.resolution.request import ClusterFacts, InstalledBundle, ResolutionRequest
from deppy.resolution.request_parsing import parse_require
from deppy.workflows.resolve import resolve_with_options
from tests.conftest import free_port, shared_path
from tests.controller_env import DEPPY
from tests.soak.catalog import SoakBundle, SoakCatalog
from tests.workflow_helpers import run

EXCERPTS = "redhat-operator-index-excerpts"


@pytest.fixture(scope="module")
def community() -> CatalogSet:
    path = shared_path("catalogs", "community-operators-prod-v4.18")
    return CatalogSet([load_catalog(path, name="community")])


def _structural(schema: dict[str, Any], where: str) -> None:
    if not schema.get("x-kubernetes-preserve-unknown-fields"):
        assert "type" in schema, f"{where} has no type"
    for name, child in (schema.get("properties") or {}).items():
        _structural(child, f"{where}.{name}")
    if "items" in schema:
        _structural(schema["items"], f"{where}[]")


def test_every_crd_is_structural_with_status_and_columns() -> None:
    crds = all_crds()
    assert {c["spec"]["names"]["kind"] for c in crds} == {
        "Catalog",
        "ActiveResolution",
        "InputClass",
        "Input",
        "Operator",
        "Bundle",
        "Instance",
        "ProvisionerClass",
    }
    for crd in crds:
        version = crd["spec"]["versions"][0]
        assert crd["spec"]["group"] == "deppy.io" and version["name"] == "v1alpha1"
        assert version["subresources"] == {"status": {}}
        assert version["additionalPrinterColumns"]
        _structural(version["schema"]["openAPIV3Schema"], crd["metadata"]["name"])
        assert "x-kubernetes-validations" not in str(version)  # Kubernetes 1.20 has no CEL


def test_manifests_bring_the_seed_defaults() -> None:
    docs = all_manifests(image="registry.example/deppy:0.1.0")
    classes = {d["metadata"]["name"]: d for d in docs if d["kind"] == "InputClass"}
    seed = {"subscription", "force", "minimal-version", "dry-run", "dry-run-next"}
    assert set(classes) == seed | {"olm-v1"}
    assert classes["dry-run-next"]["parameters"]["nextClusterVersion"] is True
    provisioners = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ProvisionerClass"}
    assert provisioners["deppy.resolveset"]["parameters"]["approval"] == "Android"
    # OLM v1: approved sets become ClusterExtensions; nothing is uninstalled unless asked
    assert provisioners["olm-v1"]["provisioner"] == "deppy.io/olm-v1"
    assert provisioners["olm-v1"]["parameters"] == {"approval": "Android", "prune": False}
    assert classes["olm-v1"]["parameters"]["provisionerClass"] == "olm-v1"
    deployment = next(d for d in docs if d["kind"] == "Deployment")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["args"][0] == "controller" and container["livenessProbe"]


def test_the_deployment_runs_the_image_locked_down_with_a_digest_reference_as_given() -> None:
    """Non-root (the image's 65532), read-only root, no capabilities, seccomp RuntimeDefault;
    it may write only to its emptyDirs at /tmp and the home; a digest reference is kept."""
    reference = "registry.example:5000/deppy@sha256:" + "ab" * 32
    code, out, err = run("manifests", "--image", reference)
    assert code == 0, err
    (deployment,) = [d for d in yaml.safe_load_all(out) if d["kind"] == "Deployment"]
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["image"] == reference
    assert container["securityContext"] == {
        "runAsNonRoot": True,
        "runAsUser": 65532,
        "runAsGroup": 65532,
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    assert mounts == {"/tmp": "tmp", "/home/deppy": "home"}
    assert {v["name"]: v for v in pod["volumes"]} == {
        "tmp": {"name": "tmp", "emptyDir": {}},
        "home": {"name": "home", "emptyDir": {}},
    }


def _input(*constraints: dict[str, Any], name: str = "i") -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "ns"},
        "spec": {"constraints": list(constraints)},
    }


def test_input_constraints_become_requirements(community: CatalogSet) -> None:
    required = input_requirements(
        _input(
            {
                "type": "olm.catalog",
                "value": {
                    "name": "community",
                    "package": "etcd",
                    "channel": "singlenamespace-alpha",
                },
            },
            {"type": "olm.packageVersion", "value": {"package": "etcd", "version": ">=0.9.0"}},
            {"type": "olm.name", "value": "prometheusoperator.0.47.0"},
        ),
        community,
    )
    etcd, prometheus = required
    assert (etcd.package, etcd.channel, etcd.catalog) == (
        "etcd",
        "singlenamespace-alpha",
        "community",
    )
    assert etcd.versions.contains(Version.parse("0.9.4"))
    assert not etcd.versions.contains(Version.parse("0.6.1"))
    assert prometheus.package == "prometheus"
    assert prometheus.versions.contains(Version.parse("0.47.0"))
    assert not prometheus.versions.contains(Version.parse("0.37.0"))


def test_a_cel_rule_ignores_the_versions_it_rejects(community: CatalogSet) -> None:
    rule = (
        'properties.exists(p, p.type == "olm.package" && '
        'semver_compare(p.value.version, "0.9.2") <= 0)'
    )
    (etcd,) = input_requirements(
        _input(
            {"type": "olm.catalog", "value": {"package": "etcd"}},
            {"type": "olm.cel", "value": rule},
        ),
        community,
    )
    assert Version.parse("0.9.4") in etcd.ignore_versions
    assert Version.parse("0.9.2") not in etcd.ignore_versions


@pytest.mark.parametrize(
    ("constraint", "field"),
    [
        ({"type": "olm.rego", "value": "x"}, "spec.constraints[0].type"),
        (
            {"type": "olm.packageVersion", "value": {"package": "etcd"}},
            "spec.constraints[0].value.version",
        ),
        ({"type": "olm.name", "value": "no-such.v1.0.0"}, "spec.constraints[0].value"),
        ({"type": "olm.cel", "value": "properties.("}, "spec.constraints[0].value"),
    ],
)
def test_bad_input_constraints_name_their_field(
    community: CatalogSet, constraint: dict[str, Any], field: str
) -> None:
    with pytest.raises(InputError) as caught:
        input_requirements(_input(constraint, name="bad"), community)
    assert f"Input ns/bad: {field}" in str(caught.value)


def test_active_resolution_takes_the_cluster_versions_it_does_not_state() -> None:
    body = {
        "metadata": {"name": "a", "namespace": "n"},
        "spec": {
            "constraints": ['required("etcd")'],
            "timeoutSeconds": 3,
            "cluster": {"openshiftVersion": "4.16"},
        },
    }
    request, timeout = active_resolution_request(body, ClusterFacts(None, Version.parse("1.20.2")))
    assert timeout == 3.0
    assert str(request.cluster.openshift_version) == "4.16"
    assert str(request.cluster.kube_version) == "1.20.2"
    with pytest.raises(InputError, match=r"spec.constraints"):
        active_resolution_request({"metadata": {"name": "a"}, "spec": {}}, ClusterFacts())


def test_operator_spec_becomes_input_constraints() -> None:
    constraints = operator_input_constraints(
        {
            "metadata": {"name": "p", "namespace": "n"},
            "spec": {
                "catalog": {"name": "community", "package": "plumbus", "channel": "stable"},
                "version": ">2.0.0 <3.0.0",
                "constraints": [{"type": "olm.cel", "value": "true"}],
            },
        }
    )
    assert [c["type"] for c in constraints] == ["olm.catalog", "olm.packageVersion", "olm.cel"]


def test_class_parameters_raise_the_cluster_to_their_bounds() -> None:
    params = class_parameters(
        {
            "metadata": {"name": "c"},
            "parameters": {
                "constraints": [
                    {"type": "minKubeVersion", "value": ">= 1.22"},
                    {"type": "minOCPVersion", "value": ">= 4.7"},
                ]
            },
        }
    )
    facts = params.cluster(ClusterFacts(None, Version.parse("1.20.2")))
    assert str(facts.kube_version) == "1.22" and facts.openshift_version is None
    on_openshift = params.cluster(ClusterFacts(Version.parse_tolerant("4.12"), None))
    assert str(on_openshift.openshift_version) == "4.12"


def test_catalog_sources() -> None:
    assert parse_duration("1h30m", "x") == 5400.0
    with pytest.raises(InputError, match="pollInterval"):
        catalog_source(
            {
                "metadata": {"name": "c"},
                "spec": {
                    "source": {"http": {"url": "http://x/api/v1/all", "pollInterval": "soon"}}
                },
            }
        )
    with pytest.raises(InputError, match="exactly one of"):
        catalog_source(
            {
                "metadata": {"name": "c"},
                "spec": {"source": {"http": {"url": "http://x"}, "path": {"path": "/c"}}},
            }
        )
    raw = b'{"schema":"olm.package","name":"p"}\n'
    files = config_map_files(
        [
            {
                "metadata": {"name": "cm"},
                "data": {"a.json": raw.decode()},
                "binaryData": {"b.json.gz": base64.b64encode(gzip.compress(raw)).decode()},
            }
        ]
    )
    assert files == {"cm/a.json": raw, "cm/b.json": raw}


def _bundle(folder: str) -> Any:
    path = shared_path("catalogs", EXCERPTS, folder)
    return next(iter(load_catalog(path, name=folder).bundles.values()))


def test_android_lists_the_rules_a_new_version_adds() -> None:
    old = _bundle("node-observability-operator-older")
    new = _bundle("v4.14-node-observability-operator")
    entry = SetEntry(new, "alpha", pivot_from=old.name)
    verdict = decide("Android", [entry], lambda package, name: old if name == old.name else None)
    assert not verdict.approved and verdict.reason == "PermissionsIncreased"
    assert "clusterrolebindings in apiGroups rbac.authorization.k8s.io (cluster-wide)" in (
        verdict.message
    )
    same = decide("Android", [SetEntry(old, "alpha", pivot_from=old.name)], lambda p, n: old)
    assert same.approved and same.reason == "ApprovedByPolicy"
    fresh = decide("Android", [SetEntry(new, "alpha")], lambda p, n: None)
    assert not fresh.approved and "new install" in fresh.message
    assert fresh.reason == "NewInstall"
    assert decide(ALLOW_ALL, [entry], lambda p, n: None).approved
    assert not decide(DENY_ALL, [entry], lambda p, n: None).approved


def test_approval_reasons_say_what_happened(community: CatalogSet) -> None:
    """A bundle whose catalog carries no CSV is PermissionsUnknown, not PermissionsIncreased;
    in a set held back for several reasons, added rules come first, and every reason is listed."""
    etcd = next(iter(community.bundles_of("etcd")))
    unknown = decide("Android", [SetEntry(etcd, "alpha")], lambda p, n: None)
    assert (unknown.approved, unknown.reason) == (False, "PermissionsUnknown")
    assert "carries no CSV" in unknown.message
    old = _bundle("node-observability-operator-older")
    new = _bundle("v4.14-node-observability-operator")
    both = [SetEntry(etcd, "alpha"), SetEntry(new, "alpha", pivot_from=old.name)]
    mixed = decide("Android", both, lambda p, n: old)
    assert mixed.reason == "PermissionsIncreased"
    assert "carries no CSV" in mixed.message and "adds rules" in mixed.message
    kept = decide("Android", [SetEntry(etcd, "alpha", kept=True)], lambda p, n: None)
    assert (kept.approved, kept.reason) == (True, "ApprovedByPolicy")


def test_a_wildcard_covers_and_a_narrower_rule_is_not_new() -> None:
    star = Rule("cluster", ("",), ("*",), ("get", "list"))
    pods = Rule("cluster", ("",), ("pods",), ("get",))
    assert added_rules([pods], [star]) == []
    assert added_rules([star], [pods]) == [star]
    namespaced = Rule("namespace", ("",), ("pods",), ("get",))
    assert added_rules([namespaced], [star]) == [namespaced]  # another scope
    assert bundle_rules(_bundle("aws-load-balancer-operator")) is not None


def test_resolveset_names_follow_the_content(community: CatalogSet) -> None:
    etcd = next(b for b in community.bundles_of("etcd") if str(b.version) == "0.9.4")

    def resolveset(entry: SetEntry) -> Resolveset:
        return build("subscription", [entry], dry_run=False, provisioner_class="deppy.resolveset")

    first = resolveset(SetEntry(etcd, "alpha"))
    again = resolveset(SetEntry(etcd, "alpha"))
    other = resolveset(SetEntry(etcd, "alpha", pivot_from="etcdoperator.v0.9.2"))
    assert first == again and first.name != other.name
    assert first.name.startswith("subscription-")
    assert '"pivotFrom"' in other.data["resolved.bundles.json"]
    # the same bundles in another order (Inputs asked in another order): the same resolveset
    keda = next(iter(community.bundles_of("keda")))
    pair = [SetEntry(etcd, "alpha"), SetEntry(keda, "alpha")]
    forward = build("subscription", pair, dry_run=False, provisioner_class="deppy.resolveset")
    backward = build(
        "subscription", pair[::-1], dry_run=False, provisioner_class="deppy.resolveset"
    )
    assert forward == backward


def test_minimal_version_keeps_a_dependency_at_its_lowest(community: CatalogSet) -> None:
    request = ResolutionRequest(required=(parse_require("rabbitmq-messaging-topology-operator"),))
    newest = resolve_with_options(community, request, timeout=30, pipeline=None, trace=None)
    lowest = resolve_with_options(
        community, request, timeout=30, pipeline=minimal_version_pipeline(), trace=None
    )

    def dependency(resolution: Any) -> Version:
        return next(
            Version.parse(s.version)
            for s in resolution.selection
            if s.package == "rabbitmq-cluster-operator"
        )

    assert dependency(lowest) < dependency(newest)
    topology = [s.version for s in lowest.selection if s.package.endswith("topology-operator")]
    assert topology == [
        s.version for s in newest.selection if s.package.endswith("topology-operator")
    ]


def test_an_answer_computed_while_its_catalog_changed_is_computed_again() -> None:
    """A load finishing on another worker while an ActiveResolution resolves: the load's own
    pass sees the older status as up to date, so the answer is computed again here, from the
    content served now (found by the lifecycle soak, on a replica taking over)."""
    old, new = SoakCatalog(), SoakCatalog()
    new.packages["gamma"].bundles["1.1.0"] = SoakBundle("gamma", "1.1.0", ["stable"], ["Gamma"])
    cache = CatalogCache()

    def content(catalog: SoakCatalog) -> Catalog:
        return load_catalog_documents({"all.json": catalog.render()}, name="soak", where="test")

    cache.loaded("soak", content(old), "old", "t1")
    body: dict[str, Any] = {
        "metadata": {"name": "x", "namespace": "ns", "generation": 1},
        "spec": {"sources": ["soak"], "constraints": ['required("gamma", ">=1.1.0")']},
    }
    written: list[str] = []

    def write(outcome: Outcome) -> dict[str, Any]:
        written.append(outcome.reason)
        if len(written) == 1:  # the newer content finished loading meanwhile
            cache.loaded("soak", content(new), "new", "t2")
        return {**body, "status": outcome.status(body)}

    answer(body, cache, ClusterFacts(), write)
    assert written == ["Unsatisfiable", "Resolved"]


def test_a_catalog_that_fails_to_reload_serves_its_last_good_content() -> None:
    """Stale, not unavailable: the content stays in every view, and the view says which catalog,
    why and the time of the content; only a deleted or never-loaded catalog is unavailable, and
    one an earlier controller served (a restart during the outage) is waited for."""
    cache = CatalogCache()
    small = load_catalog(shared_path("catalogs", EXCERPTS, "jaeger-product"), name="small")
    cache.loaded("small", small, "sha256:1", "2026-01-01T00:00:00Z")
    assert cache.view(["small"]).staleness() == (False, "Fresh", "")
    cache.failed("small", "HTTP 503: down")
    view = cache.view(["small"])
    assert view.source is not None and not view.unavailable
    stale, reason, message = view.staleness(["small"])
    assert (stale, reason) == (True, "LoadFailed")
    assert "small" in message and "HTTP 503" in message and "2026-01-01T00:00:00Z" in message
    assert view.staleness(["other"])[0] is False  # an answer that did not use it is not stale
    cache.failed("never", "connection refused")
    assert cache.view(["never"]).unavailable == (("never", "connection refused"),)
    cache.failed("restarted", "connection refused", served_before=True)
    waiting = cache.view(["restarted"])
    assert waiting.waiting == ("restarted",) and not waiting.unavailable
    assert waiting.waits_for(["restarted"]) and waiting.waits_for([None])
    assert not cache.view(["small"]).waits_for(["small"])
    cache.removed("small")
    assert cache.view(["small"]).unavailable == (("small", "the Catalog was deleted"),)


# -- an API server that cannot be reached: one line, never urllib3's traceback -------------------


def _unreachable_kubeconfig(tmp_path: Path) -> Path:
    """A kubeconfig naming a port on 127.0.0.1 where nothing listens."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": f"https://127.0.0.1:{free_port()}"}}],
        "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "x",
        "users": [{"name": "u", "user": {"token": "t"}}],
    }
    path = tmp_path / "kubeconfig"
    path.write_text(json.dumps(config))
    return path


def test_a_connection_failure_is_a_connection_error(tmp_path: Path) -> None:
    """What the handlers and the namespace queue retry with one log line (an OSError), not
    urllib3's MaxRetryError or ProtocolError, which kopf would log with a traceback."""
    from deppy.controller.kube import Kube
    from deppy.controller.runner import api_client

    kube = Kube(api_client(str(_unreachable_kubeconfig(tmp_path))))
    with pytest.raises(ConnectionError, match="Connection refused"):
        kube.get("instances", "x", "ns")


def test_approve_without_an_api_server_is_one_error_line(tmp_path: Path) -> None:
    kubeconfig = _unreachable_kubeconfig(tmp_path)
    done = subprocess.run(
        [DEPPY, "approve", "x", "-n", "ns", "--kubeconfig", str(kubeconfig)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("deppy: error: Instance ns/x: cannot reach the API server")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_kopfs_pause_race_is_one_warning_line(caplog: pytest.LogCaptureFixture) -> None:
    """kopf 1.45 cancels a pending watch request from a done-callback and asserts it runs in a
    task, which asyncio's callbacks never do: asyncio logs that AssertionError with a traceback
    (the soak's standby met it at start-up). The controller's log says it in one line."""
    import asyncio
    import logging

    from deppy.controller import runner

    def request_cancel_callback(_: object) -> None:  # kopf's, as asyncio runs it
        task = asyncio.current_task()
        assert task is not None

    async def pause_while_a_request_is_pending() -> None:
        stopper = asyncio.get_running_loop().create_future()
        stopper.add_done_callback(request_cancel_callback)
        stopper.set_result(None)
        await asyncio.sleep(0)

    runner.quiet_known_kopf_noise()
    try:
        with caplog.at_level(logging.WARNING, logger="asyncio"):
            asyncio.run(pause_while_a_request_is_pending())
    finally:
        for noise in (runner._quiet_shutdown, runner._kopf_pause_race):
            logging.getLogger("asyncio").removeFilter(noise)
    told = [r for r in caplog.records if r.name == "asyncio"]
    assert [(r.levelname, r.getMessage(), r.exc_info) for r in told] == [
        ("WARNING", runner.PAUSE_RACE, None)
    ]
    assert "Traceback" not in caplog.text


def test_metric_labels_from_objects_are_bounded() -> None:
    """Issue 26, group 7, the controller's side: a label taken from an object (a namespace, a
    Catalog's name) comes from a bounded set; a deleted Catalog's series go with it."""
    from prometheus_client import generate_latest

    from deppy.controller.catalogs.cache import CatalogCache
    from deppy.controller.metrics import NAMES_KEPT, ControllerMetrics

    metrics = ControllerMetrics(CatalogCache())
    for n in range(NAMES_KEPT + 50):
        metrics.resolved("ActiveResolution", f"ns-{n}", "Resolved", 0.01)
        metrics.proposal(f"ns-{n}", "created")
        metrics.catalog_loaded(f"catalog-{n}", "loaded", 0.01)
    metrics.resolved("SomethingElse", "ns-0", "NotAReason", 0.01)
    text = generate_latest(metrics.registry).decode()
    namespaces = {
        line.split('namespace="')[1].split('"')[0]
        for line in text.splitlines()
        if line.startswith("deppy_resolutions_total")
    }
    assert len(namespaces) == NAMES_KEPT + 1 and "other" in namespaces
    assert 'deppy_resolutions_total{kind="other",namespace="ns-0",outcome="other"} 1.0' in text
    assert text.count("deppy_catalog_loads_total{") == NAMES_KEPT + 1
    metrics.catalog_gone("catalog-0")
    text = generate_latest(metrics.registry).decode()
    assert 'catalog="catalog-0"' not in text
    metrics.catalog_loaded(f"catalog-{NAMES_KEPT + 10}", "failed", 0.01)  # the freed place
    assert (
        f'catalog="catalog-{NAMES_KEPT + 10}",result="failed"'
        in generate_latest(metrics.registry).decode()
    )


def _cluster_catalog(spec: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"name": "operatorhubio"}, "spec": spec, "status": status}


SERVING = {"type": "Serving", "status": "True", "reason": "Available", "message": ""}


def test_a_cluster_catalog_is_loaded_only_from_what_catalogd_says_it_serves() -> None:
    from deppy.controller.catalogs.cluster_catalogs import served

    status = {
        "conditions": [SERVING],
        "urls": {"base": "https://catalogd.example/catalogs/operatorhubio/"},
        "resolvedSource": {"type": "Image", "image": {"ref": "quay.io/x@sha256:1"}},
    }
    offer = served(_cluster_catalog({"priority": 5}, status))
    assert offer.url == "https://catalogd.example/catalogs/operatorhubio/api/v1/all"
    assert (offer.ref, offer.priority, offer.available) == ("quay.io/x@sha256:1", 5, True)
    unpacking = {**status, "conditions": [{**SERVING, "status": "False", "reason": "Unpacking"}]}
    waiting = served(_cluster_catalog({}, unpacking))
    assert waiting.url == "" and "is not serving: Unpacking" in waiting.why_not
    withdrawn = served(_cluster_catalog({"availabilityMode": "Unavailable"}, status))
    assert not withdrawn.available and "availabilityMode Unavailable" in withdrawn.why_not
    with pytest.raises(InputError, match=r"status.urls.base: expected an http"):
        served(_cluster_catalog({}, {**status, "urls": {"base": "file:///etc"}}))
    with pytest.raises(InputError, match=r"spec.priority: expected an integer"):
        served(_cluster_catalog({"priority": "high"}, status))


def test_a_cluster_extension_is_pinned_and_compared_without_the_servers_defaults() -> None:
    from deppy.controller.olmv1.extensions import (
        Wanted,
        extension_body,
        extension_name,
        owner_of,
        up_to_date,
    )

    wanted = Wanted("My_Operator", "1.2.3", "stable", "operatorhubio", "team-a", "installer")
    assert wanted.name == extension_name("My_Operator") == "my-operator"
    body = extension_body(wanted, "team-a", "olm-v1", "olm-v1-abc")
    catalog = body["spec"]["source"]["catalog"]
    assert catalog["version"] == "1.2.3" and catalog["channels"] == ["stable"]
    assert catalog["upgradeConstraintPolicy"] == "CatalogProvided"
    assert owner_of(body) == ("team-a", "olm-v1")
    assert owner_of({"metadata": {"name": "x"}}) is None  # a person's
    # the API server adds defaults and status: still up to date
    served_back = {**body, "spec": {**body["spec"], "install": {}}, "status": {"conditions": []}}
    assert up_to_date(served_back, wanted, "team-a", "olm-v1", "olm-v1-abc")
    newer = Wanted("My_Operator", "1.3.0", "stable", "operatorhubio", "team-a", "installer")
    assert not up_to_date(served_back, newer, "team-a", "olm-v1", "olm-v1-abc")


# -- two units in one namespace: a bundle moves only through the unit whose approved set holds it --


def _two_units_world() -> tuple[CatalogCache, list[Held]]:
    """base 1.1.0 is held by the approved set of unit ``subscription``; base 1.1.1 has been
    published since (the soak's finding: an auto-approved unit upgraded it, so two approved
    sets of one namespace disagreed on base while the owner's proposal awaited a person)."""
    catalog = SoakCatalog()
    catalog.packages["base"].bundles["1.1.1"] = SoakBundle(
        "base", "1.1.1", ["stable"], ["Base"], rules=[]
    )
    cache = CatalogCache()
    content = load_catalog_documents({"all.json": catalog.render()}, name="soak", where="test")
    cache.loaded("soak", content, "sha256:1", "t1")
    base = InstalledBundle(
        "base", Version.parse("1.1.0"), "stable", "soak", "base.v1.1.0", "Instance sub-1"
    )
    return cache, [Held("subscription", base, "subscription-1")]


def _unit(key: str, *constraints: dict[str, Any]) -> Unit:
    params = class_parameters({"metadata": {"name": key}, "parameters": {}})
    return Unit(key, params, (_input(*constraints, name=f"{key}-input"),))


def test_a_unit_does_not_move_a_bundle_another_units_approved_set_holds() -> None:
    cache, held = _two_units_world()
    wants_alpha = {"type": "olm.packageVersion", "value": {"package": "alpha", "version": "*"}}
    outcome = resolve_unit(_unit("soak-auto", wants_alpha), held, cache, ClusterFacts())
    assert outcome.reason == "Resolved", outcome.message
    assert [e.bundle.name for e in outcome.entries] == ["alpha.v1.1.0"]
    # the owner itself still moves it
    owner = resolve_unit(
        _unit(
            "subscription",
            {"type": "olm.packageVersion", "value": {"package": "base", "version": "*"}},
        ),
        held,
        cache,
        ClusterFacts(),
    )
    assert [(e.bundle.name, e.pivot_from) for e in owner.entries] == [
        ("base.v1.1.1", "base.v1.1.0")
    ]


def test_asking_for_what_another_unit_holds_names_that_unit_and_the_way_out() -> None:
    cache, held = _two_units_world()
    newer = {"type": "olm.packageVersion", "value": {"package": "base", "version": ">=1.1.1"}}
    outcome = resolve_unit(_unit("soak-auto", newer), held, cache, ClusterFacts())
    assert outcome.reason == "Unsatisfiable"
    assert outcome.explanation is not None
    text = outcome.explanation["text"]
    assert "subscription-1" in text and "subscription" in text and "approve" in text, text
