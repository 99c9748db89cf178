"""A package's description, as the web UI shows it: its CSV's Markdown rendered to safe HTML.

Operator authors write ``spec.description`` in Markdown (OperatorHub renders it), so a
catalog browser shows headings, lists, code and links rather than ``# Instana Instana is an
[APM solution](https://…`` cut mid-link. The text comes from whoever published the catalog,
so the rendering may carry nothing that acts: markdown-it-py (CommonMark) with raw HTML off
(written out as text), links kept only when they are absolute http(s) URLs and opened with
``rel="noopener noreferrer nofollow"``, images shown as links (no request to a third party's
server on opening a page), headings moved below the page's own. Markdown parsing has inputs
that cost quadratic time (a run of ``[``), so only the first :data:`MAX_CHARS` characters are
rendered, cut at a word — more than any real description (community v4.18's longest: ~34,000).
"""

from __future__ import annotations

import functools
from typing import Any, Final

MAX_CHARS: Final = 40_000
_SAFE_SCHEMES: Final = ("http://", "https://")
_HEADING_SHIFT: Final = 2  # the page has its h1 and h2s: a description's "# Title" is an h3


def description_html(text: str) -> str:
    """The HTML fragment of ``text`` (Markdown); empty for an empty description."""
    if not text.strip():
        return ""
    if len(text) > MAX_CHARS:
        cut = text[:MAX_CHARS]
        text = (cut.rsplit(None, 1)[0] if " " in cut or "\n" in cut else cut) + " …"
    renderer = _renderer()
    tokens = renderer.parse(text)
    for token in _all(tokens):
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1]) + _HEADING_SHIFT, 6)}"
        elif token.type == "link_open":
            token.attrSet("rel", "noopener noreferrer nofollow")
            token.attrSet("target", "_blank")
    html: str = renderer.renderer.render(tokens, renderer.options, {})
    return html


def _all(tokens: list[Any]) -> Any:
    for token in tokens:
        yield token
        if token.children:
            yield from _all(token.children)


def _validate_link(url: str) -> bool:
    return url.strip().lower().startswith(_SAFE_SCHEMES)


@functools.cache
def _renderer() -> Any:
    from markdown_it import MarkdownIt

    renderer = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    renderer.disable("image")  # ![alt](url) reads as "!" and a link: nothing loads by itself
    renderer.validateLink = _validate_link  # type: ignore[method-assign]  # its documented hook
    return renderer
