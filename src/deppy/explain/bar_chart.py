"""Horizontal bar charts as inline SVG, for pages that must work offline (no script, no
network): one row per label, each bar split into segments (a package's versions, say), each
segment with a tooltip and, where it fits, its own label.

Domain-free and deterministic: the caller passes rows in its own words and order; the same rows
give the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

__all__ = ["OTHER_COLOUR", "PALETTE", "bar_chart_svg"]

LABEL_W = 260
BAR_W = 460
ROW_H = 22
CHAR_W = 6.6  # average width of an 11px sans-serif character
PALETTE = ("#2b6cb0", "#38a169", "#d69e2e", "#805ad5", "#c53030", "#319795", "#dd6b20",
           "#d53f8c", "#4c51bf", "#744210")  # fmt: skip
"""Distinct colours, one per segment of a row, never repeated within a row: a caller with more
segments sums the rest into one segment, drawn in ``OTHER_COLOUR``."""
OTHER_COLOUR = "#a0aec0"
LEGEND_H = 20

Segment = tuple[str, int]


def _fit(text: str, width: float) -> str:
    room = max(int(width / CHAR_W), 1)
    return text if len(text) <= room else text[: max(room - 1, 0)] + "…"


def bar_chart_svg(
    title: str,
    rows: Sequence[tuple[str, Sequence[Segment]]],
    *,
    legend: Sequence[tuple[str, str]] = (),
    scale: int | None = None,
) -> str:
    """A chart titled ``title``; each row a label and its segments (label, value > 0), the
    n-th segment of a row in ``PALETTE[n]`` (past the palette, and any segment after a
    ``legend`` entry for ``OTHER_COLOUR``, in that grey). ``legend``: (colour, meaning) pairs
    drawn under the title. ``scale``: the value a bar of the chart's whole width stands for
    (a whole, such as all the clusters, so that bars read as shares of it); by default the
    largest row's, which draws rows that are all 1 as full bars."""
    largest = max((sum(v for _, v in segments) for _, segments in rows), default=0) or 1
    largest = max(largest, scale or 0)
    top = 30 + (LEGEND_H if legend else 0)
    height = top + ROW_H * max(len(rows), 1)
    width = LABEL_W + BAR_W + 60
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" class="chart" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f'<text x="0" y="16" class="ct">{escape(title)}</text>',
    ]
    parts += _legend(legend, width)
    if not rows:
        parts.append(f'<text x="0" y="{top + 14}" class="cl">none</text>')
    other_label = next((label for colour, label in legend if colour == OTHER_COLOUR), None)
    for n, (label, segments) in enumerate(rows):
        y = top + n * ROW_H
        total = sum(v for _, v in segments)
        parts.append(
            f'<text x="{LABEL_W - 6}" y="{y + 15}" class="cl" text-anchor="end">'
            f"{escape(_fit(label, LABEL_W - 10))}</text>"
        )
        x = float(LABEL_W)
        for m, (name, value) in enumerate(segments):
            w = BAR_W * value / largest
            color = PALETTE[m] if m < len(PALETTE) and name != other_label else OTHER_COLOUR
            tip = f"{label}: {name} — {value}" if name else f"{label}: {value}"
            parts.append(
                f'<rect class="bar" x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{ROW_H - 6}" '
                f'fill="{color}"><title>{escape(tip)}</title></rect>'
            )
            if name and w > len(name) * CHAR_W + 6:
                parts.append(f'<text x="{x + 3:.1f}" y="{y + 15}" class="cs">{escape(name)}</text>')
            x += w
        parts.append(f'<text x="{x + 4:.1f}" y="{y + 15}" class="cl">{total}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _legend(legend: Sequence[tuple[str, str]], width: int) -> list[str]:
    """The legend's swatches and words on one line under the title (cut at the chart's
    width)."""
    parts = []
    x = 0.0
    for colour, meaning in legend:
        room = 14 + len(meaning) * CHAR_W + 12
        if x + room > width:
            break
        parts.append(f'<rect x="{x:.1f}" y="24" width="10" height="10" fill="{colour}"/>')
        parts.append(f'<text x="{x + 14:.1f}" y="33" class="cl">{escape(meaning)}</text>')
        x += room
    return parts
