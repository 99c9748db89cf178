"""Who brought in whom: the resolution graph agrees with the answer's reasons."""

from __future__ import annotations

from deppy.resolution.request_parsing import load_request_file, parse_require
from deppy.workflows.catalog_loading import embedded_request_path, load_catalogs
from deppy.workflows.resolution_graph import resolution_graph
from deppy.workflows.resolve import resolve_with_options


def test_each_selected_bundle_has_an_edge_per_reason_from_who_needed_it() -> None:
    request, catalogs = load_request_file(embedded_request_path())
    source = load_catalogs(catalogs)
    resolution = resolve_with_options(source, request, timeout=None, pipeline=None, trace=None)
    graph = resolution_graph(resolution)
    labels = {n["id"]: n["label"] for n in graph["nodes"]}
    assert labels["required/0"] == "observability-stack >=1.0.0 in channel stable"
    assert labels["installed/0"] == "prometheus-operator 0.56.3 (channel stable)"
    edges = {(labels[e["from"]], labels[e["to"]], e["kind"]) for e in graph["edges"]}
    assert edges == {
        ("prometheus-operator 0.56.3 (channel stable)", "prometheus-operator 0.70.0", "installed"),
        ("observability-stack 1.1.0", "prometheus-operator 0.70.0", "dependency"),
        ("observability-stack 1.1.0", "grafana-operator 5.6.0", "dependency"),
        (
            "observability-stack >=1.0.0 in channel stable",
            "observability-stack 1.1.0",
            "required",
        ),
    }
    assert resolution.selection is not None
    reasons = sum(len(item.reasons) for item in resolution.selection)
    assert len(graph["edges"]) == reasons
    order = [n["order"] for n in graph["nodes"] if n["kind"] == "bundle"]
    assert order == [1, 2, 3]


def test_an_unresolvable_request_has_no_bundle_nodes() -> None:
    source = load_catalogs([])
    request = load_request_file(embedded_request_path())[0]
    from dataclasses import replace

    bad = replace(request, required=(parse_require("observability-stack@>=9.0.0"),), installed=())
    resolution = resolve_with_options(source, bad, timeout=None, pipeline=None, trace=None)
    assert not resolution.resolved
    graph = resolution_graph(resolution)
    assert graph == {
        "nodes": [{"id": "required/0", "kind": "required", "label": "observability-stack >=9.0.0"}],
        "edges": [],
    }
