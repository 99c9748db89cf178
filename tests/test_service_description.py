"""The web UI shows a package's description rendered from its CSV's Markdown, safely (issue
26, "Also"): GET /api/v1/packages/{p}/description.html is an HTML fragment with nothing that
runs — raw HTML written out as text, links only to http(s), no images loading, headings below
the page's own — and bounded work whatever the description's size."""

from __future__ import annotations

import json
import re
from pathlib import Path

from deppy.service.description import MAX_CHARS, description_html
from tests.service_support import client, paths_app, store_app

HOSTILE = (
    "# Evil\n\n<script>alert(1)</script> <img src=x onerror=alert(2)> "
    '<a href="javascript:alert(3)">a</a> [b](javascript:alert(4)) [c](JaVaScRiPt:alert(5)) '
    "[d](data:text/html,<script>alert(6)</script>) [e](vbscript:x) [f](//evil.example/x) "
    "![g](https://tracker.example/pixel.png) <https://ok.example/> [h](https://ok.example/h "
    '"title") <iframe src="https://evil.example"></iframe>\n\n'
    '<div onclick="alert(7)">x</div>\n\n```html\n<script>alert(8)</script>\n```\n'
)
ALLOWED_TAGS = {"h3", "h4", "h5", "h6", "p", "a", "em", "strong", "code", "pre", "ul", "ol"}
ALLOWED_TAGS |= {"li", "blockquote", "hr", "br"}


def is_safe(html: str) -> bool:
    tags = {t.lower() for t in re.findall(r"</?([A-Za-z][A-Za-z0-9]*)", html)}
    hrefs = re.findall(r'<a href="([^"]*)"', html)
    attributes = set(re.findall(r"<[a-z0-9]+((?: [a-z-]+=)*)", html))
    return (
        tags <= ALLOWED_TAGS
        and all(h.startswith(("http://", "https://")) for h in hrefs)
        and html.count("<a ") == len(hrefs)
        and all(not re.search(r" on[a-z]+=", a) for a in attributes)
    )


def catalog_with(tmp_path: Path, description: str) -> Path:
    root = tmp_path / "catalog"
    root.mkdir()
    documents = [
        {"schema": "olm.package", "name": "demo", "defaultChannel": "stable"},
        {"schema": "olm.channel", "package": "demo", "name": "stable", "entries": [{"name": "d1"}]},
        {
            "schema": "olm.bundle",
            "name": "d1",
            "package": "demo",
            "image": "quay.io/demo:1",
            "properties": [
                {"type": "olm.package", "value": {"packageName": "demo", "version": "1.0.0"}},
                {"type": "olm.csv.metadata", "value": {"description": description}},
            ],
        },
    ]
    (root / "catalog.json").write_text("\n".join(json.dumps(d) for d in documents))
    return root


def test_a_real_description_is_rendered_with_its_links() -> None:
    with client(store_app()) as api:
        answer = api.get("/api/v1/packages/etcd/description.html")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/html")
    assert answer.headers["content-security-policy"] == "sandbox"
    html = answer.text
    assert "<h5>Reading and writing to etcd</h5>" in html  # "###" below the page's h1 and h2s
    assert "<ul>" in html and "<strong>High availability</strong>" in html
    assert (
        '<a href="https://github.com/coreos/etcd-operator/blob/master/doc/user/cluster_tls.md" '
        'rel="noopener noreferrer nofollow" target="_blank">static TLS certs</a>'
    ) in html
    assert "[static TLS certs](" not in html and is_safe(html)


def test_a_hostile_description_carries_nothing_that_runs(tmp_path: Path) -> None:
    app = paths_app(f"{catalog_with(tmp_path, HOSTILE)}=hostile")
    with client(app) as api:
        html = api.get("/api/v1/packages/demo/description.html").text
        missing = api.get("/api/v1/packages/demo/description.html", params={"catalog": "x"})
    assert is_safe(html), html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # shown as the text it is
    assert '<a href="https://ok.example/h"' in html and "<h3>Evil</h3>" in html
    assert "tracker.example" in html and "<img" not in html  # a link to it, nothing loaded
    assert missing.status_code == 404


def test_a_huge_description_is_cut_at_a_word() -> None:
    html = description_html("[" * 10 + "word " * 200_000)
    assert html.endswith("word …</p>\n") and len(html) < MAX_CHARS + 100
    assert description_html("") == "" and description_html(" \n") == ""
