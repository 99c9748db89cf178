"""``deppy show``: a package's facts and each channel's upgrade graph, as a text tree and as DOT
(tests/data/workflows/upgrades: etcd with replaces, skips and skipRange edges)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.workflows.graph import ChannelGraph, channel_graph, graph_as_dot, graph_as_text
from tests.conftest import shared_path
from tests.workflow_helpers import WORKFLOWS, run

DATA = WORKFLOWS / "upgrades"


@pytest.fixture(scope="module")
def catalogs() -> CatalogSet:
    return CatalogSet([load_catalog(DATA, name="upgrades")])


def graph(catalogs: CatalogSet, name: str) -> ChannelGraph:
    (channel,) = [c for c in catalogs.channels("upgrades", "etcd") if c.name == name]
    return channel_graph(catalogs, channel, "upgrades")


def test_text_tree_lists_bundles_newest_first_with_their_ways_in(catalogs: CatalogSet) -> None:
    assert graph_as_text(graph(catalogs, "stable")) == [
        "channel stable (default): 4 bundles, head etcd.v1.3.0",
        "  ● 1.3.0  etcd.v1.3.0  (head)",
        "  │ ├─ replaces 1.2.0",
        "  │ └─ skipRange '>=1.0.0 <1.3.0' covers 1.2.0, 1.1.0, 1.0.0",
        "  ● 1.2.0  etcd.v1.2.0",
        "  │ ├─ replaces 1.1.0",
        "  │ └─ skips etcd.v1.1.1 (not in this channel)",
        "  ● 1.1.0  etcd.v1.1.0",
        "  │ └─ replaces 1.0.0",
        "  ● 1.0.0  etcd.v1.0.0",
    ]
    assert graph_as_text(graph(catalogs, "candidate")) == [
        "channel candidate: 1 bundle, head etcd.v1.1.1",
        "  ● 1.1.1  etcd.v1.1.1  (head)",
        "    └─ replaces etcd.v1.1.0 (not in this channel)",
    ]


def test_heads_follow_operator_registry(catalogs: CatalogSet) -> None:
    # skipRange does not make a bundle "not a head"; replaces and skips do.
    assert graph(catalogs, "stable").heads == ("etcd.v1.3.0",)
    assert graph(catalogs, "fast").heads == ("etcd.v2.1.0",)


EDGE = re.compile(r'^\s+"([^"]+)" -> "([^"]+)" \[label="(\w+)", style=(\w+)\];$')
NODE = re.compile(r'^\s+"([^"]+)" \[label=')


def test_dot_has_every_edge_with_its_kind_and_declares_its_nodes(catalogs: CatalogSet) -> None:
    dot = graph_as_dot([graph(catalogs, "stable"), graph(catalogs, "fast")], "etcd")
    lines = dot.splitlines()
    assert lines[0] == 'digraph "etcd" {' and lines[-1] == "}"
    assert dot.count("{") == dot.count("}") == 3
    edges = [m.groups() for line in lines if (m := EDGE.match(line))]
    nodes = {m.group(1) for line in lines if (m := NODE.match(line))}
    s = "upgrades/stable/etcd.v"
    assert (f"{s}1.0.0", f"{s}1.3.0", "skipRange", "dotted") in edges
    assert (f"{s}1.1.1", f"{s}1.2.0", "skips", "dashed") in edges
    assert (f"{s}1.2.0", f"{s}1.3.0", "replaces", "solid") in edges
    assert ("upgrades/fast/etcd.v2.0.0", "upgrades/fast/etcd.v2.1.0", "replaces", "solid") in edges
    assert len(edges) == 8
    assert {end for edge in edges for end in edge[:2]} <= nodes
    assert f'"{s}1.3.0" [label="etcd.v1.3.0\\n1.3.0", style=bold];' in dot
    assert 'label="stable (catalog upgrades, default channel)";' in dot


def test_cli_show_has_every_section() -> None:
    code, out, _ = run("show", "etcd", "--catalog", f"{DATA}=upgrades")
    assert code == 0
    assert out.startswith("etcd (catalog upgrades)\nDefault channel: stable\n")
    # the default channel first, then by name
    assert (
        "Channels: stable (4 bundles, head etcd.v1.3.0), candidate (1 bundle, head "
        "etcd.v1.1.1), fast (2 bundles, head etcd.v2.1.0)" in out
    )
    assert "Deprecations: none" in out
    assert "  2.1.0    etcd.v2.1.0  fast       OpenShift <= 4.18  -" in out
    assert "Provided APIs (1.3.0):\n  none" in out
    assert "  channel stable (default): 4 bundles, head etcd.v1.3.0\n    ● 1.3.0" in out
    again = run("show", "etcd", "--catalog", f"{DATA}=upgrades")
    assert again[1] == out  # deterministic


def test_cli_dot_is_only_the_graph() -> None:
    code, out, _ = run("show", "etcd", "--catalog", f"{DATA}", "--graph", "dot", "-h")
    assert code == 0 and "--graph [text|dot]" in out
    code, out, _ = run(
        "show", "etcd", "--catalog", f"{DATA}=upgrades", "--graph", "dot", "--channel", "fast"
    )
    assert code == 0
    assert out.startswith('digraph "etcd" {') and out.rstrip().endswith("}")
    assert "stable" not in out and "cluster_0" in out and "cluster_1" not in out


def test_cli_unknown_package_or_channel_is_one_line_and_exit_2() -> None:
    code, _, err = run("show", "etdc", "--catalog", f"{DATA}=upgrades")
    assert code == 2
    assert err == (
        "deppy: error: package 'etdc': no catalog (upgrades) has this package; "
        "did you mean etcd? try deppy search etcd\n"
    )
    code, _, err = run("show", "etcd", "--catalog", f"{DATA}=upgrades", "--channel", "beta")
    assert code == 2
    assert err == (
        "deppy: error: --channel 'beta': package etcd has no such channel; "
        "its channels: candidate, fast, stable\n"
    )


def test_show_lists_deprecations_and_marks_deprecated_bundles(tmp_path: Path) -> None:
    deprecations = """
---
schema: olm.deprecations
package: etcd
entries:
  - reference: {schema: olm.package}
    message: etcd moves to the etcd-v2 package
  - reference: {schema: olm.channel, name: candidate}
    message: candidate builds are no longer published
  - reference: {schema: olm.bundle, name: etcd.v1.1.0}
    message: 1.1.0 loses data on restart
"""
    text = (DATA / "catalog.yaml").read_text(encoding="utf-8") + deprecations
    (tmp_path / "catalog.yaml").write_text(text, encoding="utf-8")
    code, out, _ = run("show", "etcd", "--catalog", f"{tmp_path}=upgrades")
    assert code == 0
    assert (
        "Deprecations:\n"
        "  package: etcd moves to the etcd-v2 package\n"
        "  channel candidate: candidate builds are no longer published\n"
        "  bundle etcd.v1.1.0: 1.1.0 loses data on restart\n"
    ) in out
    assert "    ● 1.1.0  etcd.v1.1.0  (deprecated)" in out
    assert "channel candidate (deprecated: candidate builds are no longer published)" in out


def test_show_on_a_real_package_with_dependencies_and_limits() -> None:
    catalog = shared_path("catalogs", "odf-operator-dev-catalog")
    code, out, _ = run("show", "odf-dependencies", "--catalog", f"{catalog}=odf")
    assert code == 0
    assert out.startswith("odf-dependencies — Data Foundation Dependencies (catalog odf)\n")
    row = next(line for line in out.splitlines() if line.startswith("  4.22.0 "))
    assert "OpenShift <= 4.23, Kubernetes >= 1.16.0" in row
    assert "package cephcsi-operator 4.22.0; package csi-addons 0.14.0" in row


BROKEN_CHAIN = b"""
schema: olm.package
name: p
defaultChannel: stable
---
schema: olm.channel
package: p
name: stable
entries:
  - {name: p.v1.0.0}
  - {name: p.v1.1.0}
  - {name: p.v1.2.0, replaces: p.v1.0.0, skips: [p.v1.1.0]}
  - {name: p.v1.3.0, replaces: p.v1.2.0}
"""


def _bundle(version: str) -> str:
    return (
        f"---\nschema: olm.bundle\nname: p.v{version}\npackage: p\nimage: example.com/p:{version}\n"
        f"properties:\n  - {{type: olm.package, value: {{packageName: p, version: {version}}}}}\n"
    )


def test_a_bundle_no_upgrade_leads_to_is_marked_unreachable() -> None:
    from deppy.catalog.fbc import load_catalog_documents
    from deppy.workflows.graph import graph_as_dict
    from deppy.workflows.show import package_views

    text = BROKEN_CHAIN + "".join(_bundle(v) for v in ("1.0.0", "1.1.0", "1.2.0", "1.3.0")).encode()
    source = CatalogSet([load_catalog_documents({"c.yaml": text}, name="c", where="test")])
    (view,) = package_views(source, "p")
    (stable,) = view.graphs
    # 1.1.0 is skipped by 1.2.0 and replaces nothing: only the oldest bundle and heads may
    # have no way in
    assert stable.unreachable == frozenset({"p.v1.1.0"})
    data = graph_as_dict(stable)
    assert [(b["version"], b["head"], b["unreachable"]) for b in data["bundles"]] == [
        ("1.3.0", True, False),
        ("1.2.0", False, False),
        ("1.1.0", False, True),
        ("1.0.0", False, False),
    ]
    assert {"from": "p.v1.1.0", "to": "p.v1.2.0", "kind": "skips"} in data["edges"]
    assert view.as_dict()["channels"] == [
        {"name": "stable", "default": True, "deprecated": None, "bundles": 4, "heads": ["p.v1.3.0"]}
    ]
