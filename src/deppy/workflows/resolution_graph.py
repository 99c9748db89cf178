"""Who brought in whom: a resolution's selection as a graph, for people who would rather look at
it than read the reasons column.

Nodes are the request's requirements and installed bundles, then the selected bundles in install
order; an edge goes from whoever needed a bundle to the bundle, labelled with what it needed.
The edges are the ones the answer's ``reasons`` are written from, so the picture and the table
never disagree.
"""

from __future__ import annotations

from typing import Any

from deppy.resolution.answer import Resolution

__all__ = ["resolution_graph"]


def resolution_graph(resolution: Resolution) -> dict[str, Any]:
    """``{"nodes": [...], "edges": [...]}``; empty lists for an unresolvable request."""
    request = resolution.request
    nodes: list[dict[str, Any]] = []
    ids: dict[tuple[str, str], str] = {}
    for n, required in enumerate(request.required):
        ids.setdefault(("required", required.describe()), f"required/{n}")
        nodes.append({"id": f"required/{n}", "kind": "required", "label": required.describe()})
    for n, installed in enumerate(request.installed):
        ids.setdefault(("installed", installed.describe()), f"installed/{n}")
        nodes.append({"id": f"installed/{n}", "kind": "installed", "label": installed.describe()})
    edges: list[dict[str, Any]] = []
    for item in resolution.selection or ():
        ids[("dependency", item.bundle)] = f"bundle/{item.bundle}"
    for order, item in enumerate(resolution.selection or (), start=1):
        nodes.append(
            {
                "id": f"bundle/{item.bundle}",
                "kind": "bundle",
                "label": f"{item.package} {item.version}",
                "bundle": item.bundle,
                "package": item.package,
                "version": item.version,
                "catalog": item.catalog,
                "action": item.action,
                "order": order,
            }
        )
        for origin in item.origins:
            source = ids.get((origin.kind, origin.who))
            if source is not None:
                edges.append(
                    {
                        "from": source,
                        "to": f"bundle/{item.bundle}",
                        "kind": origin.kind,
                        "need": origin.need,
                    }
                )
    return {"nodes": nodes, "edges": edges}
