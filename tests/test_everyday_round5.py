"""What a new user tripped on in round 5 (issue 36, "Everyday use"): an answer says which newer
version of every package it passed over and why, dependencies included; ``-v`` names an empty
candidate list of a request in the request's words."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import shared_path
from tests.workflow_helpers import run

COMMUNITY = shared_path("catalogs", "community-operators-prod-v4.18")

CATALOG = """\
schema: olm.package
name: top
defaultChannel: stable
---
schema: olm.channel
package: top
name: stable
entries: [{name: top.v1.0.0}]
---
schema: olm.bundle
name: top.v1.0.0
package: top
image: example.com/top:1.0.0
properties:
  - {type: olm.package, value: {packageName: top, version: 1.0.0}}
  - {type: olm.package.required, value: {packageName: base, versionRange: '>=1.0.0'}}
---
schema: olm.package
name: base
defaultChannel: stable
---
schema: olm.channel
package: base
name: stable
entries:
  - {name: base.v1.0.0}
  - {name: base.v2.0.0, replaces: base.v1.0.0}
---
schema: olm.bundle
name: base.v1.0.0
package: base
image: example.com/base:1.0.0
properties:
  - {type: olm.package, value: {packageName: base, version: 1.0.0}}
---
schema: olm.bundle
name: base.v2.0.0
package: base
image: example.com/base:2.0.0
properties:
  - {type: olm.package, value: {packageName: base, version: 2.0.0}}
  - {type: olm.csv.metadata, value: {minKubeVersion: 1.26.0}}
"""


def catalog(tmp_path: Path) -> str:
    (tmp_path / "hub").mkdir()
    (tmp_path / "hub" / "catalog.yaml").write_text(CATALOG)
    return f"{tmp_path / 'hub'}=hub"


def test_a_dependency_passed_over_for_a_platform_limit_says_so(tmp_path: Path) -> None:
    where = ("--catalog", catalog(tmp_path), "--require", "top", "--kube-version", "1.20.2")
    code, out, err = run("resolve", *where, "-o", "json")
    assert code == 0, err
    base = next(s for s in json.loads(out)["selection"] if s["package"] == "base")
    assert base["version"] == "1.0.0"
    assert base["reasons"][-1] == (
        "not the newest 2.0.0: base 2.0.0 needs Kubernetes 1.26.0 or newer (minKubeVersion); "
        "the cluster runs 1.20.2"
    )
    code, out, _ = run("resolve", *where)
    assert code == 0 and "why: not the newest 2.0.0: base 2.0.0 needs Kubernetes 1.26.0" in out
    # nothing passed over, nothing said
    code, out, _ = run("resolve", *where[:4], "--kube-version", "1.30.0", "-o", "json")
    assert code == 0 and "not the newest" not in out


def test_the_community_rabbitmq_dependency_names_its_kubernetes_limit() -> None:
    code, out, err = run(
        "resolve",
        "--catalog",
        str(COMMUNITY),
        "--require",
        "rabbitmq-messaging-topology-operator",
        "--kube-version",
        "1.20.2",
        "-q",
    )
    assert code == 0, err
    assert (
        "why: not the newest 2.22.3: rabbitmq-cluster-operator 2.22.3 needs Kubernetes 1.26.0 "
        "or newer (minKubeVersion); the cluster runs 1.20.2"
    ) in out


def test_the_same_for_a_cluster_extension(tmp_path: Path) -> None:
    request = tmp_path / "topo.yaml"
    request.write_text(
        "apiVersion: olm.operatorframework.io/v1\n"
        "kind: ClusterExtension\n"
        "metadata: {name: topo}\n"
        "spec:\n"
        "  namespace: topo\n"
        "  serviceAccount: {name: installer}\n"
        "  source: {sourceType: Catalog, catalog: {packageName: top}}\n"
    )
    where = ("--catalog", catalog(tmp_path), "-f", str(request), "--kube-version", "1.20.2")
    code, out, err = run("resolve", *where, "-o", "json")
    assert code == 3, err  # resolved; OLM v1 refuses the bundle that declares a dependency
    base = next(s for s in json.loads(out)["selection"] if s["package"] == "base")
    assert base["reasons"][-1].startswith("not the newest 2.0.0: base 2.0.0 needs Kubernetes")


def test_verbose_names_an_empty_request_as_no_candidates_not_a_dependency() -> None:
    code, out, _ = run("resolve", "--require", "prometheus-operator@99.0.0", "-v", "-q")
    assert code == 1
    assert "dependency" not in out
    assert (
        "  - required package prometheus-operator has no candidate bundle for "
        "prometheus-operator 99.0.0"
    ) in out


def test_the_resolution_graph_keeps_versions_whole_and_labels_apart() -> None:
    """Two edges into one bundle (a package and an API it provides) had their labels drawn on
    each other; a long package name cut the version off its node."""
    from xml.etree import ElementTree

    from deppy.service.svg import resolution_graph_svg

    name = "a-rather-long-operator-name-for-a-package"
    graph = {
        "nodes": [
            {"id": "required/0", "kind": "required", "label": "top"},
            {"id": "t", "kind": "bundle", "order": 2, "label": "top 1.0.0", "catalog": "c",
             "package": "top", "bundle": "top.v1.0.0", "action": "install"},
            {"id": "b", "kind": "bundle", "order": 1, "label": f"{name} 12.34.56-rc.1",
             "catalog": "c", "package": name, "bundle": "b.v12",
             "action": "upgrade 1.0.0 → 12.34.56-rc.1"},
        ],
        "edges": [
            {"from": "required/0", "to": "t", "kind": "required", "need": "top"},
            {"from": "t", "to": "b", "kind": "dependency", "need": f"package {name} >=1.0.0"},
            {"from": "t", "to": "b", "kind": "dependency", "need": "API Thing (example.com/v1)"},
        ],
    }  # fmt: skip
    svg = ElementTree.fromstring(resolution_graph_svg(graph))
    ns = "{http://www.w3.org/2000/svg}"
    texts = [t.text or "" for t in svg.iter(f"{ns}text")]
    assert f"#1 {name} 12.34.56-rc.1" in texts
    labels = [t for t in svg.iter(f"{ns}text") if t.get("class") == "lbl"]
    into_b = [t for t in labels if (t.text or "").startswith(("package", "API"))]
    assert len(into_b) == 2
    assert into_b[0].get("y") != into_b[1].get("y")
    assert abs(float(into_b[0].get("y", 0)) - float(into_b[1].get("y", 0))) >= 12
