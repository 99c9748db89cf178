"""A standalone HTML page: a table of results and/or an explanation, for sharing an answer or a
failure with people who will not run the CLI (a ticket, a review).

Domain-free: the caller passes the rows and labels in its own words. Deterministic: the same
arguments give the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from deppy.explain.model import Explanation
from deppy.explain.render import explanation_as_html

_STYLE = (
    "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}"
    ".warnings li{color:#8a5300}.facts{display:grid;grid-template-columns:max-content auto;"
    "gap:.2em 1em}.facts dt{font-weight:bold}.facts dd{margin:0;font-family:monospace}"
    ".chart{display:block;margin:1em 0}.chart .ct{font:bold 13px sans-serif}"
    ".chart .cl{font:11px sans-serif;fill:#1a202c}.chart .cs{font:10px sans-serif;fill:#fff}"
)

Table = tuple[str, Sequence[str], Sequence[Sequence[str]]]  # title, header, rows


def html_page(
    title: str,
    *,
    table_title: str = "",
    header: Sequence[str] = (),
    rows: Sequence[Sequence[str]] | None = None,
    explanation: Explanation | None = None,
    warnings: Sequence[str] = (),
    facts: Sequence[tuple[str, str]] = (),
    figures: Sequence[str] = (),
    tables: Sequence[Table] = (),
) -> str:
    """``facts`` are (label, value) pairs stated first: what was asked, from which sources,
    when and by what, so a reader can reproduce the page. ``figures`` are inline SVG charts
    (``deppy.explain.bar_chart``; markup, not text) shown next, and ``tables`` more tables
    after the first."""
    body: list[str] = [f"<h1>{escape(title)}</h1>"]  # the tab's title, seen on the page too
    if facts:
        body.append('<dl class="facts">')
        body += [f"  <dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in facts]
        body.append("</dl>")
    body += figures
    for one_title, one_header, one_rows in ((table_title, header, rows), *tables):
        if one_rows is None:
            continue
        body.append(f"<h2>{escape(one_title)}</h2>")
        cells = "".join(f"<th>{escape(h)}</th>" for h in one_header)
        body.append(f"<table>\n<tr>{cells}</tr>")
        for row in one_rows:
            body.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>")
        body.append("</table>")
    if explanation is not None:
        body.append(explanation_as_html(explanation))
    if warnings:
        body.append('<h3>Warnings</h3>\n<ul class="warnings">')
        body += [f"  <li>{escape(w)}</li>" for w in warnings]
        body.append("</ul>")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>"
    )
