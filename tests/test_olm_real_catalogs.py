"""Resolution against the real catalogs in ../shared/catalogs (see their README for the facts).

Each catalog is loaded once per module; every resolution here takes milliseconds.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.catalog.model import Bundle, Catalog
from deppy.catalog.semver import Version
from deppy.catalog.upgrade_edges import upgrade_graph
from deppy.explain import explanation_as_text
from deppy.resolution.answer import Resolution
from deppy.resolution.request import ClusterFacts, RequiredPackage, ResolutionRequest
from deppy.resolution.resolver import resolve
from tests.conftest import shared_path
from tests.olm_builders import item, picked, run, selection, why_not

COMMUNITY = "community"
UPSTREAM = "upstream"
ODF = "odf"


@pytest.fixture(scope="module")
def community_catalog() -> Catalog:
    path = shared_path("catalogs", "community-operators-prod-v4.18")
    return load_catalog(path, name=COMMUNITY)


@pytest.fixture(scope="module")
def upstream_catalog() -> Catalog:
    path = shared_path("catalogs", "operatorhubio-upstream-2021")
    return load_catalog(path, name=UPSTREAM)


@pytest.fixture(scope="module")
def community(community_catalog: Catalog) -> CatalogSet:
    return CatalogSet([community_catalog])


@pytest.fixture(scope="module")
def upstream(upstream_catalog: Catalog) -> CatalogSet:
    return CatalogSet([upstream_catalog])


@pytest.fixture(scope="module")
def both(community_catalog: Catalog, upstream_catalog: Catalog) -> CatalogSet:
    return CatalogSet([community_catalog, upstream_catalog])


@pytest.fixture(scope="module")
def odf() -> CatalogSet:
    return CatalogSet([load_catalog(shared_path("catalogs", "odf-operator-dev-catalog"), name=ODF)])


def alone(catalogs: CatalogSet, package: str, cluster: ClusterFacts | None = None) -> Resolution:
    request = ResolutionRequest(
        required=(RequiredPackage(package),), cluster=cluster or ClusterFacts()
    )
    return resolve(catalogs, request)


def no_solver_ids(text: str, catalogs: CatalogSet) -> None:
    """Bundle variables are named catalog/package/bundle; people never see those names."""
    for name in catalogs.names():
        assert not re.search(rf"{re.escape(name)}/[\w.-]+/", text), text


def check_answer(resolution: Resolution) -> None:
    """Every selected bundle is there for a reason, after the bundles it depends on."""
    chosen = selection(resolution)
    assert len({s.package for s in chosen}) == len(chosen)  # one bundle per package
    provided: dict[object, str] = {}
    for s in chosen:
        assert s.reasons, s
        assert s.bundle and s.catalog and s.channel
        for gvk in s.source.provided_gvks if s.source else ():
            assert provided.setdefault(gvk, s.package) == s.package, f"{gvk} twice"
    position = {s.package: n for n, s in enumerate(chosen)}
    for n, s in enumerate(chosen):
        for reason in s.reasons:
            found = re.match(r"dependency of (\S+) ", reason)
            if found:
                assert position[found.group(1)] > n, f"{s.package} must come before its dependent"


def check_explanation(resolution: Resolution, catalogs: CatalogSet) -> str:
    explanation = resolution.explanation
    assert explanation is not None
    text = explanation_as_text(explanation)
    no_solver_ids(text, catalogs)
    assert explanation.roots and explanation.causes and explanation.suggestions
    return text


# --- every package of community-operators-prod-v4.18 ----------------------------------------


def outcome(resolution: Resolution) -> str:
    """ "resolved", or what rules a package out: the cause kinds other than plain "needs"."""
    if resolution.resolved:
        return "resolved"
    assert resolution.explanation is not None
    kinds = {c.kind for c in resolution.explanation.causes} - {"needs"}
    return "+".join(sorted(kinds))


def test_every_community_package_resolves_alone_or_is_explained(community: CatalogSet) -> None:
    outcomes: dict[str, str] = {}
    for package in community.package_names():
        resolution = alone(community, package)
        outcomes[package] = outcome(resolution)
        if resolution.resolved:
            check_answer(resolution)
            assert package in picked(resolution)
        else:
            text = check_explanation(resolution, community)
            assert resolution.explanation is not None
            assert resolution.explanation.roots == (f"required package {package}",)
            # the only requirement: dropping it would leave nothing to resolve
            assert f"drop the requirement {package}" not in text
    # The counts of this catalog (312 packages). A change means resolution changed: check the
    # failures below still fail for their real reason before updating these numbers.
    assert Counter(outcomes.values()) == {"resolved": 307, "missing": 5}
    failures = {p: o for p, o in outcomes.items() if o != "resolved"}
    assert sorted(failures) == [
        "awss3-operator-registry",  # API ObjectBucket (objectbucket.io/v1alpha1)
        "l5-operator",  # package crunchy-postgres-operator
        "lib-bucket-provisioner",  # API ObjectBucket (objectbucket.io/v1alpha1)
        "shipwright-operator",  # API TektonConfig (operator.tekton.dev/v1alpha1)
        "special-resource-operator",  # API NodeFeatureDiscovery (nfd.openshift.io/v1)
    ]


def test_every_community_package_on_an_old_kubernetes(community: CatalogSet) -> None:
    cluster = ClusterFacts(Version.parse_tolerant("4.19"), Version.parse("1.25.0"))
    outcomes = Counter(outcome(alone(community, p, cluster)) for p in community.package_names())
    # 23 packages have no bundle that runs on Kubernetes 1.25 (2 of them also miss a
    # dependency); the 5 packages with missing dependencies fail as without a cluster.
    assert outcomes == {"resolved": 284, "kubernetes": 21, "kubernetes+missing": 2, "missing": 5}


def test_missing_dependencies_found_in_the_catalog_are_named(community: CatalogSet) -> None:
    text = check_explanation(alone(community, "l5-operator"), community)
    assert "needs package crunchy-postgres-operator" in text
    assert "no catalog (community) contains package crunchy-postgres-operator" in text
    assert "find a catalog offering crunchy-postgres-operator >=5.1.0 (not in community)" in text
    text = check_explanation(alone(community, "shipwright-operator"), community)
    assert "no bundle in any catalog provides the API TektonConfig (operator.tekton.dev/v1alpha1)"
    assert "find a catalog offering API TektonConfig (operator.tekton.dev/v1alpha1)" in text


# --- the real failures of the catalog's README ------------------------------------------------


def test_eclipse_che_needs_devworkspace_operator(community: CatalogSet) -> None:
    resolution = run(community, ["eclipse-che@>=7.42.0"])
    text = check_explanation(resolution, community)
    assert resolution.explanation is not None
    assert resolution.explanation.roots == ("required package eclipse-che >=7.42.0",)
    missing = [c for c in resolution.explanation.causes if c.kind == "missing"]
    assert missing and all("devworkspace-operator" in c.text for c in missing)
    assert "no catalog (community) contains package devworkspace-operator" in text
    assert "all need package devworkspace-operator >=0.11.0: no catalog" in text
    assert "7.42.0 needs package devworkspace-operator >=0.8.0: no catalog" in text
    suggestions = resolution.explanation.suggestions
    assert "find a catalog offering devworkspace-operator >=0.11.0 (not in community)" in [
        s.text for s in suggestions
    ]
    # the suggested version works: the newest eclipse-che without the dependency
    assert suggestions[0].text.startswith("require 'eclipse-che@7.41.2' instead")
    assert picked(run(community, ["eclipse-che@7.41.2"])) == {"eclipse-che": "7.41.2"}
    # asked for without a range, eclipse-che falls back to that version
    assert picked(run(community, ["eclipse-che"])) == {"eclipse-che": "7.41.2"}


@pytest.mark.parametrize("version", ["0.7.1", "0.7.2"])
def test_kuadrant_pins_versions_the_catalog_lacks(community: CatalogSet, version: str) -> None:
    resolution = run(community, [f"kuadrant-operator@{version}"])
    text = check_explanation(resolution, community)
    assert resolution.explanation is not None
    missing = [c for c in resolution.explanation.causes if c.kind == "missing"]
    assert len(missing) == 1
    pin = re.search(r"needs package (dns-operator 0\.2\.0|limitador-operator 0\.8\.0): ", text)
    assert pin, text
    dependency, pinned = pin.group(1).split()
    assert f"no version of {dependency} is in range {pinned}; available: " in text
    assert pinned not in {str(b.version) for b in community.bundles_of(dependency)}
    suggestion = resolution.explanation.suggestions[0]
    assert suggestion.text.startswith("require 'kuadrant-operator@0.11.1' instead")
    works = run(community, ["kuadrant-operator@0.11.1"])
    assert picked(works)["dns-operator"] == "0.6.0"


def test_node_healthcheck_needs_an_api_nothing_provides(
    community: CatalogSet, both: CatalogSet
) -> None:
    resolution = run(community, ["node-healthcheck-operator@0.1.1"])
    text = check_explanation(resolution, community)
    assert resolution.explanation is not None
    [missing] = [c for c in resolution.explanation.causes if c.kind == "missing"]
    assert missing.text == (
        "node-healthcheck-operator 0.1.1 needs API PoisonPillRemediation "
        "(poison-pill.medik8s.io/v1alpha1): no bundle in any catalog provides the API "
        "PoisonPillRemediation (poison-pill.medik8s.io/v1alpha1)"
    )
    assert (
        "find a catalog offering API PoisonPillRemediation (poison-pill.medik8s.io/v1alpha1)"
        in (text)
    )
    assert resolution.explanation.suggestions[0].text.endswith(
        "— node-healthcheck-operator 0.10.0 resolves (channel stable, catalog community)"
    )
    assert picked(run(community, ["node-healthcheck-operator@0.10.0"])) == {
        "node-healthcheck-operator": "0.10.0"
    }
    # the 2021 upstream catalog provides that API: with it, the dependency crosses catalogs
    crossed = run(both, ["node-healthcheck-operator@0.1.1"])
    check_answer(crossed)
    provider = item(crossed, "poison-pill-operator")
    assert provider.catalog == UPSTREAM
    assert item(crossed, "node-healthcheck-operator").catalog == COMMUNITY
    assert provider.reasons == (
        "dependency of node-healthcheck-operator 0.1.1 "
        "(API PoisonPillRemediation (poison-pill.medik8s.io/v1alpha1))",
    )
    # restricted to the community catalog by the request's sources, it fails again
    assert why_not(run(both, ["node-healthcheck-operator@0.1.1"], sources=[COMMUNITY]))


# --- rules on real data ------------------------------------------------------------------------


def test_exact_pins_are_followed(community: CatalogSet) -> None:
    resolution = run(community, ["kuadrant-operator"])
    check_answer(resolution)
    assert picked(resolution) == {
        "authorino-operator": "0.13.0",
        "dns-operator": "0.6.0",
        "limitador-operator": "0.11.0",
        "kuadrant-operator": "0.11.1",
    }
    assert selection(resolution)[-1].package == "kuadrant-operator"


def test_two_packages_providing_one_api_cannot_both_be_installed(community: CatalogSet) -> None:
    resolution = run(community, ["apicurio-api-controller", "apicurio-registry-3"])
    text = check_explanation(resolution, community)
    assert "only one operator may provide the API ApicurioRegistry3 (registry.apicur.io/v1)" in text
    assert "apicurio-api-controller, apicurio-registry-3" in text
    # global-load-balancer-operator provides DNSEndpoint from 1.0.5 on, as k8gb does: with k8gb
    # an older global-load-balancer-operator is chosen
    resolution = run(community, ["k8gb", "global-load-balancer-operator"])
    check_answer(resolution)
    assert Version.parse(item(resolution, "global-load-balancer-operator").version) < (
        Version.parse("1.0.5")
    )
    assert item(run(community, ["global-load-balancer-operator"]), "global-load-balancer-operator")


def edges_of(
    catalogs: CatalogSet, catalog: str, package: str, channel: str
) -> set[tuple[str, str]]:
    [found] = [c for c in catalogs.channels(catalog, package) if c.name == channel]
    versions = {b.name: b.version for b in catalogs.bundles_of(package) if b.catalog == catalog}
    graph = upgrade_graph(found, versions)
    return {(source, target) for source, targets in graph.edges.items() for target in targets}


@pytest.mark.parametrize(
    ("installed", "channel", "expected"),
    [
        # a replaces chain: one step per release
        (
            "project-quay@3.17.0",
            "stable-3.17",
            ["3.17.0", "3.17.1", "3.17.2", "3.17.3", "3.17.4"],
        ),
        # skipRange "<0.8.4" lets 0.8.0 go straight to the head
        ("datadog-operator@0.8.0", "alpha", ["0.8.0", "0.8.4"]),
        ("fence-agents-remediation@0.2.0", "stable", ["0.2.0", "0.6.0"]),
    ],
)
def test_installed_bundles_upgrade_along_real_channels(
    community: CatalogSet, installed: str, channel: str, expected: list[str]
) -> None:
    package = installed.split("@")[0]
    answer = item(run(community, installed=[f"{installed},channel={channel}"]), package)
    assert (answer.action, answer.channel, answer.version) == ("upgrade", channel, expected[-1])
    versions = {b.name: str(b.version) for b in community.bundles_of(package)}
    assert [versions[name] for name in answer.path] == expected
    edges = edges_of(community, COMMUNITY, package, channel)
    assert all(step in edges for step in zip(answer.path, answer.path[1:], strict=False))


def test_head_of_channel_is_kept(community: CatalogSet) -> None:
    answer = item(
        run(community, installed=["project-quay@3.17.4,channel=stable-3.17"]), "project-quay"
    )
    assert (answer.action, answer.version, answer.path) == ("keep", "3.17.4", ())


def test_max_openshift_version_on_real_bundles(community: CatalogSet) -> None:
    def limit(bundle: Bundle) -> tuple[int, int]:
        assert bundle.max_openshift_version is not None
        return (bundle.max_openshift_version.major, bundle.max_openshift_version.minor)

    package = "gitlab-operator-kubernetes"
    for ocp in ("4.18", "4.20", "4.22"):
        answer = item(run(community, [package], ocp=ocp), package)
        assert answer.source is not None
        assert limit(answer.source) >= tuple(int(p) for p in ocp.split("."))
    resolution = run(community, [package], ocp="4.23")
    text = check_explanation(resolution, community)
    assert "gitlab-operator-kubernetes 3.3.0" in text
    assert "support OpenShift up to 4.22 (olm.maxOpenShiftVersion); the cluster runs 4.23" in text
    assert "gitlab-operator-kubernetes 3.3.0 would install on OpenShift 4.22 or older" in text


# --- operatorhubio-upstream-2021 ----------------------------------------------------------------


def test_every_upstream_2021_package_resolves_alone(upstream: CatalogSet) -> None:
    outcomes = Counter(outcome(alone(upstream, p)) for p in upstream.package_names())
    assert outcomes == {"resolved": 193}


def test_api_dependencies_in_the_upstream_catalog(upstream: CatalogSet) -> None:
    resolution = run(upstream, ["kogito-operator@<0.15.0"])  # later ones need no other operator
    check_answer(resolution)
    kogito = item(resolution, "kogito-operator")
    assert kogito.source is not None
    required = set(kogito.source.required_gvks)
    provided = {
        gvk
        for s in selection(resolution)
        if s.package != "kogito-operator" and s.source
        for gvk in s.source.provided_gvks
    }
    assert required and required <= provided
    assert {"infinispan", "keycloak-operator", "strimzi-kafka-operator"} <= set(picked(resolution))


# --- odf-operator-dev-catalog: 16 packages pinned to each other -----------------------------


ODF_PINS = {
    "cephcsi-operator": "4.22.0",
    "csi-addons": "0.14.0",
    "noobaa-operator": "5.22.0",
    "ocs-client-operator": "4.22.0",
    "ocs-operator": "4.22.0",
    "ocs-tls-profiles": "4.22.0",
    "odf-external-snapshotter-operator": "4.22.0",
    "odf-prometheus-operator": "4.22.0",
    "recipe": "0.0.1",
    "rook-ceph-operator": "4.22.0",
}


def test_odf_dependencies_pulls_its_exact_pins(odf: CatalogSet) -> None:
    resolution = run(odf, ["odf-dependencies"], ocp="4.18", kube="1.31.0")
    check_answer(resolution)
    assert picked(resolution) == {**ODF_PINS, "odf-dependencies": "4.22.0"}
    order = [s.package for s in selection(resolution)]
    assert order[-1] == "odf-dependencies"
    for dependency in ("cephcsi-operator", "csi-addons", "recipe"):
        assert order.index(dependency) < order.index("ocs-client-operator")
    for package in ODF_PINS:
        assert f"dependency of odf-dependencies 4.22.0 (package {package} {ODF_PINS[package]})" in (
            item(resolution, package).reasons
        )


def test_odf_operator_explains_its_missing_bundle(odf: CatalogSet) -> None:
    resolution = run(odf, ["odf-operator"])
    text = check_explanation(resolution, odf)
    assert "catalog odf lists package odf-operator but has no installable bundle of it" in text, (
        text
    )


def test_odf_on_a_too_new_openshift(odf: CatalogSet) -> None:
    text = check_explanation(run(odf, ["odf-dependencies"], ocp="4.24"), odf)
    assert "odf-dependencies 4.22.0 supports OpenShift up to 4.23" in text
    assert "the cluster runs 4.24" in text


def test_min_kube_version_from_an_embedded_csv(odf: CatalogSet) -> None:
    # ibm-block-csi-operator 1.13.2 has no olm.csv.metadata: minKubeVersion 1.27.0 is read
    # from the ClusterServiceVersion embedded as olm.bundle.object
    resolution = run(odf, ["ibm-storage-odf-operator"], kube="1.26.5")
    text = check_explanation(resolution, odf)
    assert "ibm-storage-odf-operator 1.9.0 needs package ibm-block-csi-operator >=1.13.2" in text
    assert "ibm-block-csi-operator 1.13.2 needs Kubernetes 1.27.0 or newer (minKubeVersion)" in text
    assert "the cluster runs 1.26.5" in text
    assert picked(run(odf, ["ibm-storage-odf-operator"], kube="1.27.0"))


def test_other_odf_pins(odf: CatalogSet) -> None:
    assert picked(run(odf, ["cnsa-dependencies"])) == {
        "cnsa-dependencies": "4.22.0",
        "ibm-spectrum-scale-operator": "60.2.0",
    }
    assert picked(run(odf, ["ibm-storage-odf-operator"])) == {
        "ibm-block-csi-operator": "1.13.2",
        "ibm-storage-odf-operator": "1.9.0",
    }


def test_a_passed_over_channel_head_is_reported(community: CatalogSet) -> None:
    """eclipse-che's newer versions all need devworkspace-operator, which the catalog lacks: the
    answer is an older version, and the user is told which newer one could not be used."""
    resolution = alone(community, "eclipse-che")
    assert resolution.selection is not None
    assert [s.version for s in resolution.selection if s.package == "eclipse-che"] == ["7.41.2"]
    warning = next(w for w in resolution.warnings if "not the preferred" in w)
    assert "7.121.0" in warning and "package devworkspace-operator" in warning
    [che] = [s for s in resolution.selection if s.package == "eclipse-che"]
    assert che.reasons[-1].startswith("not the newest 7.121.0: eclipse-che 7.121.0 needs package")
    assert not any("not the preferred" in w for w in alone(community, "etcd").warnings)


def test_every_missing_pin_of_a_blamed_bundle_is_named(community: CatalogSet) -> None:
    """kuadrant-operator 0.7.1 pins dns-operator 0.2.0 and limitador-operator 0.8.0, both absent:
    the minimal conflict needs only one, but the user must learn of both."""
    from deppy.resolution.request import ResolutionRequest
    from deppy.resolution.request_parsing import parse_require
    from deppy.resolution.resolver import resolve

    required: RequiredPackage = parse_require("kuadrant-operator@0.7.1")
    resolution = resolve(community, ResolutionRequest(required=(required,)))
    assert resolution.explanation is not None
    text = " ".join(c.text for c in (*resolution.explanation.causes, *resolution.explanation.also))
    assert "dns-operator 0.2.0" in text and "limitador-operator 0.8.0" in text
    assert len(resolution.explanation.also) == 1, "the core itself stays minimal"
