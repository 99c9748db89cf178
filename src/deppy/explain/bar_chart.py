"""Horizontal bar charts as inline SVG, for pages that must work offline (no script, no
network): one row per label, each bar split into segments (a package's versions, say), each
segment with a tooltip and, where it fits, its own label.

Domain-free and deterministic: the caller passes rows in its own words and order; the same rows
give the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

__all__ = ["bar_chart_svg"]

LABEL_W = 260
BAR_W = 460
ROW_H = 22
CHAR_W = 6.6  # average width of an 11px sans-serif character
PALETTE = ("#2b6cb0", "#38a169", "#d69e2e", "#805ad5", "#c53030", "#319795", "#dd6b20", "#718096")

Segment = tuple[str, int]


def _fit(text: str, width: float) -> str:
    room = max(int(width / CHAR_W), 1)
    return text if len(text) <= room else text[: max(room - 1, 0)] + "…"


def bar_chart_svg(title: str, rows: Sequence[tuple[str, Sequence[Segment]]]) -> str:
    """A chart titled ``title``; each row a label and its segments (label, value > 0)."""
    largest = max((sum(v for _, v in segments) for _, segments in rows), default=0) or 1
    height = 30 + ROW_H * max(len(rows), 1)
    width = LABEL_W + BAR_W + 60
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" class="chart" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f'<text x="0" y="16" class="ct">{escape(title)}</text>',
    ]
    if not rows:
        parts.append('<text x="0" y="44" class="cl">none</text>')
    for n, (label, segments) in enumerate(rows):
        y = 30 + n * ROW_H
        total = sum(v for _, v in segments)
        parts.append(
            f'<text x="{LABEL_W - 6}" y="{y + 15}" class="cl" text-anchor="end">'
            f"{escape(_fit(label, LABEL_W - 10))}</text>"
        )
        x = float(LABEL_W)
        for m, (name, value) in enumerate(segments):
            w = BAR_W * value / largest
            color = PALETTE[m % len(PALETTE)]
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
