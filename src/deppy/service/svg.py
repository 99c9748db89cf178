"""Graphs drawn as SVG by the service itself (no Graphviz): a channel's upgrade graph and a
resolution's "who brought in whom".

The upgrade graph is a column of bundles, newest on top, as ``deppy show`` lists them: replaces
edges arc on the left, skips edges on the right, and each skipRange is a bracket beside the
versions it covers with an arrow to the bundle that declares it — a range covering fifty
versions stays one mark instead of fifty lines. Heads, deprecated and unreachable bundles are
marked in words as well as in colour. The resolution graph is drawn in layers: the request on
top, then each bundle below whoever needed it, with what was needed on the edge.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import quote
from xml.sax.saxutils import escape

ROW = 34
BOX_W = 300
BOX_H = 24
CHAR_W = 7.0  # average width of a 12px sans-serif character, for fitting labels

STYLE = """
.n rect{fill:#fff;stroke:#4a5568;stroke-width:1}
.n text{font:12px sans-serif;fill:#1a202c}
.n .tag{font:bold 10px sans-serif;fill:#2b6cb0}
.n.head rect{stroke:#2b6cb0;stroke-width:3}
.n.deprecated rect{fill:#edf2f7;stroke:#a0aec0}
.n.deprecated text{fill:#718096}
.n.deprecated .tag{fill:#c05621}
.n.unreachable rect{stroke:#c53030;stroke-dasharray:4 3;stroke-width:2}
.n.unreachable .tag{fill:#c53030}
.n.outside rect{stroke-dasharray:2 3;fill:#f7fafc}
.n.required rect,.n.installed rect{fill:#ebf8ff;stroke:#2b6cb0}
a:focus rect,a:hover rect{stroke:#d69e2e;stroke-width:3}
.e{fill:none;stroke-width:1.4}
.e.replaces{stroke:#2d3748}
.e.skips{stroke:#805ad5;stroke-dasharray:6 4}
.e.skipRange{stroke:#2f855a;stroke-dasharray:2 3}
.e.dependency{stroke:#4a5568}
.e.required,.e.installed{stroke:#2b6cb0}
.lbl{font:10px sans-serif;fill:#4a5568}
.legend text{font:11px sans-serif;fill:#1a202c}
"""

MARKERS = "".join(
    f'<marker id="arrow-{kind}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
    f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="{color}"/>'
    "</marker>"
    for kind, color in (
        ("replaces", "#2d3748"),
        ("skips", "#805ad5"),
        ("skipRange", "#2f855a"),
        ("dependency", "#4a5568"),
        ("required", "#2b6cb0"),
        ("installed", "#2b6cb0"),
    )
)


def _fit(text: str, width: float, char_w: float = CHAR_W) -> str:
    most = max(4, int(width / char_w))
    return text if len(text) <= most else text[: most - 1] + "…"


def _fit_keeping_last(text: str, width: float) -> str:
    """``text`` cut to ``width`` in its middle: its last word (a node's version) stays whole."""
    most = max(4, int(width / CHAR_W))
    if len(text) <= most:
        return text
    head, _, last = text.rpartition(" ")
    if not head or len(last) + 2 > most:
        return _fit(text, width)
    return text[: most - len(last) - 2] + "… " + last


LABEL_PITCH = 13.0
"""The height of one edge label (10px text) where several edges arrive at one bundle."""
LABEL_CHAR_W = 5.8
"""The average width of a 10px label character."""
TAG_CHAR_W = 5.6
"""The average width of a bold 10px tag character."""
MAX_BOX_W = 720.0


def _node_text(node: Mapping[str, Any]) -> tuple[str, list[str], str]:
    """A resolution graph node's label, tags and link."""
    kind = str(node["kind"])
    if kind == "bundle":
        label = f"#{node['order']} {node['label']}"
        href = bundle_href(str(node["catalog"]), str(node["package"]), str(node["bundle"]))
        return label, [str(node.get("action", ""))], href
    return str(node["label"]), [kind], ""


def _box_width(labels: Iterable[tuple[str, list[str], str]]) -> float:
    """Boxes wide enough for the longest label beside its tags (the version last in it is what
    a reader looks for; a cut took it first), up to a bound past which a label is cut."""
    widest = max(
        (
            len(label) * CHAR_W + len(" · ".join(tags)) * TAG_CHAR_W + 26
            for label, tags, _ in labels
        ),
        default=0.0,
    )
    return min(max(290.0, widest), MAX_BOX_W)


def _svg(width: float, height: float, title: str, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-labelledby="graph-title">'
        f'<title id="graph-title">{escape(title)}</title>'
        f"<style>{STYLE}</style><defs>{MARKERS}</defs>" + "".join(body) + "</svg>"
    )


def _node(
    x: float, y: float, width: float, label: str, classes: str, tags: Sequence[str], href: str
) -> str:
    tag_text = " · ".join(tags)
    room = width - 12 - (len(tag_text) * TAG_CHAR_W + 6 if tag_text else 0)
    parts = [
        f'<g class="n {classes}">',
        f'<a href="{escape(href)}">' if href else "",
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.0f}" height="{BOX_H}" rx="4"/>',
        f'<text x="{x + 8:.1f}" y="{y + 16:.1f}">{escape(_fit_keeping_last(label, room))}</text>',
    ]
    if tag_text:
        parts.append(
            f'<text class="tag" x="{x + width - 8:.1f}" y="{y + 16:.1f}" '
            f'text-anchor="end">{escape(tag_text)}</text>'
        )
    parts.append("</a></g>" if href else "</g>")
    return "".join(parts)


def _legend(y: float, items: Sequence[tuple[str, str]]) -> str:
    parts = ['<g class="legend">']
    x = 10.0
    for kind, text in items:
        parts.append(
            f'<path class="e {kind}" d="M{x:.0f},{y:.0f}h28" marker-end="url(#arrow-{kind})"/>'
            f'<text x="{x + 34:.0f}" y="{y + 4:.0f}">{escape(text)}</text>'
        )
        x += 34 + len(text) * 6.5 + 18
    parts.append("</g>")
    return "".join(parts)


def bundle_href(catalog: str, package: str, bundle: str) -> str:
    """Where the web UI shows a bundle."""
    return f"/#/bundle/{quote(catalog)}/{quote(package)}/{quote(bundle)}"


def _arc_room(edges: Sequence[Mapping[str, Any]], rows: Mapping[str, int], kind: str) -> float:
    spans = [abs(rows[e["from"]] - rows[e["to"]]) for e in edges if e["kind"] == kind]
    return 20 + min(200, 14 * max(spans, default=0))


def _arc(kind: str, x: float, outward: float, y1: float, y2: float) -> str:
    """An edge leaving the box side at ``x``, bulging ``outward`` (negative: to the left)."""
    bend = x + outward
    return (
        f'<path class="e {kind}" d="M{x:.1f},{y1:.1f}C{bend:.1f},{y1:.1f} {bend:.1f},{y2:.1f} '
        f'{x:.1f},{y2:.1f}" marker-end="url(#arrow-{kind})"/>'
    )


def upgrade_graph_svg(graph: Mapping[str, Any]) -> str:
    """One channel (``workflows.graph.graph_as_dict``) as an SVG picture."""
    bundles: list[Mapping[str, Any]] = list(graph["bundles"])
    edges: list[Mapping[str, Any]] = list(graph["edges"])
    known = {b["name"] for b in bundles}
    outside = sorted({e["from"] for e in edges} - known)
    rows = {b["name"]: n for n, b in enumerate(bundles)}
    rows.update({name: len(bundles) + n for n, name in enumerate(outside)})
    ranged = [e["to"] for e in edges if e["kind"] == "skipRange"]
    ranged = list(dict.fromkeys(ranged))
    top = 56.0
    x = _arc_room(edges, rows, "replaces")
    right = x + BOX_W
    lanes = right + _arc_room(edges, rows, "skips")
    width = max(lanes + 16 * len(ranged) + 30, 560)
    height = top + ROW * (len(rows) or 1) + 20
    title = (
        f"Upgrade graph of {graph['package']}, channel {graph['channel']} "
        f"(catalog {graph['catalog']})"
    )
    heading = escape(_fit(title, width - 20))
    body = [
        f'<text x="10" y="18" style="font:bold 13px sans-serif">{heading}</text>',
        _legend(36, (("replaces", "replaces"), ("skips", "skips"), ("skipRange", "skipRange"))),
    ]

    def mid(name: str) -> float:
        return top + rows[name] * ROW + BOX_H / 2

    for edge in edges:
        span = 14 + min(200, 14 * abs(rows[edge["from"]] - rows[edge["to"]]))
        if edge["kind"] == "replaces":
            body.append(_arc("replaces", x, -span, mid(edge["from"]), mid(edge["to"])))
        elif edge["kind"] == "skips":
            body.append(_arc("skips", right, span, mid(edge["from"]), mid(edge["to"])))
    skip_ranges = {b["name"]: b.get("skipRange") or "" for b in bundles}
    for lane, target in enumerate(ranged):
        covered = [mid(e["from"]) for e in edges if e["to"] == target and e["kind"] == "skipRange"]
        lane_x = lanes + 16 * lane
        low, high = min(covered) - BOX_H / 2 + 3, max(covered) + BOX_H / 2 - 3
        ticks = "".join(f"M{lane_x - 6:.1f},{y:.1f}h6" for y in covered)
        note = f"skipRange {skip_ranges.get(target, '')} of {target}"
        body.append(
            f"<g><title>{escape(note)}</title>"
            f'<path class="e skipRange" d="M{lane_x:.1f},{low:.1f}V{high:.1f}{ticks}"/>'
            f'<path class="e skipRange" d="M{lane_x:.1f},{min(low, mid(target)):.1f}'
            f'V{mid(target):.1f}H{right + 2:.1f}" marker-end="url(#arrow-skipRange)"/></g>'
        )
    catalog, package = str(graph["catalog"]), str(graph["package"])
    for bundle in bundles:
        marks = [m for m in ("head", "deprecated", "unreachable") if bundle.get(m)]
        label = f"{bundle['version']}  {bundle['name']}"
        href = bundle_href(catalog, package, str(bundle["name"]))
        y = top + rows[bundle["name"]] * ROW
        body.append(_node(x, y, BOX_W, label, " ".join(marks), marks, href))
    for name in outside:
        y = top + rows[name] * ROW
        body.append(_node(x, y, BOX_W, name, "outside", ["not in this channel"], ""))
    return _svg(width, height, title, body)


def resolution_graph_svg(graph: Mapping[str, Any], title: str = "Resolution graph") -> str:
    """``workflows.resolution_graph`` as layers: the request on top, each bundle below whoever
    brought it in."""
    nodes = {n["id"]: n for n in graph["nodes"]}
    edges = [e for e in graph["edges"] if e["from"] in nodes and e["to"] in nodes]
    layer = {i: 0 for i in nodes}
    for _ in range(len(nodes)):  # longest path from the request; a cycle stops at len(nodes)
        changed = False
        for edge in edges:
            if layer[edge["to"]] < layer[edge["from"]] + 1 and layer[edge["from"]] < len(nodes):
                layer[edge["to"]] = layer[edge["from"]] + 1
                changed = True
        if not changed:
            break
    layers: dict[int, list[str]] = {}
    for node_id in nodes:  # node order: request first, then install order
        layers.setdefault(layer[node_id], []).append(node_id)
    labels = {node_id: _node_text(node) for node_id, node in nodes.items()}
    box_w = _box_width(labels.values())
    into: dict[str, list[Mapping[str, Any]]] = {}
    for edge in edges:
        into.setdefault(edge["to"], []).append(edge)
    stacked = max((len(v) for v in into.values()), default=1)
    gap_x, pitch = 30.0, max(90.0, BOX_H + 40 + LABEL_PITCH * stacked)
    widest = max((len(v) for v in layers.values()), default=1)
    width = 20 + widest * (box_w + gap_x)
    height = 50 + pitch * (max(layers, default=0) + 1)
    place: dict[str, tuple[float, float]] = {}
    for depth, ids in sorted(layers.items()):
        offset = (width - len(ids) * (box_w + gap_x) + gap_x) / 2
        for n, node_id in enumerate(ids):
            place[node_id] = (offset + n * (box_w + gap_x), 40 + depth * pitch)
    body = [f'<text x="10" y="20" style="font:bold 13px sans-serif">{escape(title)}</text>']
    reach = width  # the picture widens to the right end of the longest label
    for target, arriving in into.items():
        # the labels of the edges into one bundle stand one above the other, never on each other
        for k, edge in enumerate(reversed(arriving)):
            (x1, y1), (x2, y2) = place[edge["from"]], place[target]
            sx, sy, tx, ty = x1 + box_w / 2, y1 + BOX_H, x2 + box_w / 2, y2
            kind = edge["kind"] if edge["kind"] in ("required", "installed") else "dependency"
            my = (sy + ty) / 2
            need = _fit(str(edge.get("need", "")), box_w - 12, LABEL_CHAR_W)
            reach = max(reach, tx + 6 + len(need) * LABEL_CHAR_W + 10)
            body.append(
                f"<g><title>{escape(str(edge.get('need', '')))}</title>"
                f'<path class="e {kind}" d="M{sx:.1f},{sy:.1f}C{sx:.1f},{my:.1f} {tx:.1f},{my:.1f} '
                f'{tx:.1f},{ty - 2:.1f}" marker-end="url(#arrow-{kind})"/>'
                f'<text class="lbl" x="{tx + 6:.1f}" y="{ty - 8 - LABEL_PITCH * k:.1f}">'
                f"{escape(need)}</text></g>"
            )
    for node_id, node in nodes.items():
        x, y = place[node_id]
        label, tags, href = labels[node_id]
        body.append(_node(x, y, box_w, label, str(node["kind"]), tags, href))
    return _svg(reach, height, title, body)
