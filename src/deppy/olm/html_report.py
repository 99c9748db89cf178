"""A resolution as a standalone HTML page, for sharing an answer or a failure with people who
will not run the CLI (a ticket, a review). Deterministic: same resolution, same bytes."""

from __future__ import annotations

from html import escape

from deppy.explain import explanation_as_html
from deppy.olm.answer import Resolution

_STYLE = (
    "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}"
    ".warnings li{color:#8a5300}"
)


def resolution_as_html(resolution: Resolution) -> str:
    body: list[str] = []
    if resolution.selection is not None:
        body.append("<h2>Resolution (install in this order)</h2>")
        body.append(
            "<table>\n<tr><th>#</th><th>package</th><th>version</th><th>channel</th>"
            "<th>catalog</th><th>action</th><th>why</th><th>image</th></tr>"
        )
        for n, item in enumerate(resolution.selection, start=1):
            cells = [
                str(n),
                item.package,
                item.version,
                item.channel or "-",
                item.catalog,
                item.action_text(),
                "; ".join(item.reasons),
                item.image,
            ]
            body.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>")
        body.append("</table>")
    if resolution.explanation is not None:
        body.append(explanation_as_html(resolution.explanation))
    if resolution.warnings:
        body.append('<h3>Warnings</h3>\n<ul class="warnings">')
        body += [f"  <li>{escape(w)}</li>" for w in resolution.warnings]
        body.append("</ul>")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8">'
        f"<title>deppy resolution</title><style>{_STYLE}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>"
    )
