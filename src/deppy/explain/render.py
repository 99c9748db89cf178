"""Reporters: the same explanation as text for people and as a dict for JSON/YAML."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from html import escape
from typing import Any

from deppy.explain.model import Cause, Explanation, Suggestion
from deppy.terminal_text import terminal_text


def explanation_as_text(explanation: Explanation, *, verbose: bool = False) -> str:
    """The explanation for people, every line printable (a name's control characters escaped;
    :func:`explanation_as_dict` keeps them exact)."""
    lines = [explanation.summary]
    if explanation.roots:
        lines.append("")
        lines.append("Requested:")
        lines += [f"  - {root}" for root in explanation.roots]
    if explanation.causes:
        lines.append("")
        lines.append("Why it cannot be done (each of these is part of the reason):")
        lines += [f"  - {cause.text}" for cause in explanation.causes]
    if explanation.also:
        lines.append("")
        lines.append("Also in the way once that is fixed:")
        lines += [f"  - {cause.text}" for cause in explanation.also]
    if explanation.suggestions:
        lines.append("")
        lines.append("What would make it work:")
        lines += [f"  - {suggestion.text}" for suggestion in text_order(explanation.suggestions)]
    if verbose and explanation.constraints:
        lines.append("")
        lines.append("Solver constraints in the minimal conflict:")
        lines += [f"  - {text}" for text in explanation.constraints]
    return terminal_text("\n".join(lines))  # names from the input, shown, never obeyed


SCREEN_LINES = 10
SCREEN_WIDTH = 100
PLURAL = {"reason": "reasons", "way out": "ways out"}


def explanation_as_short_text(
    explanation: Explanation,
    *,
    more: str = "-v",
    lines: int = SCREEN_LINES,
    width: int = SCREEN_WIDTH,
) -> str:
    """The explanation on one screen: at most ``lines`` lines of at most ``width`` characters.

    It fits by saying less, never by cutting a line short: each cause in its short form (the
    fact first) and each way out in its full form when they fit the width, else in the other
    form, else wrapped; a cause that only restates the summary is left off; then, while the
    screen is full, fewer ways out (down to one), fewer causes (down to one; the lowest ranked
    leave first), and the closing hint counts what the long form (``more``) adds. A single
    cause or way out shares its heading's line.
    """
    head = _fitted("", [explanation.summary, explanation.short_summary], width)
    causes = [c for c in explanation.causes if not c.restates] or list(explanation.causes[:1])
    # the order causes leave a full screen in: lowest rank first, the last of equals first
    leaving = sorted(range(len(causes)), key=lambda n: (causes[n].rank, -n))
    ways = text_order(explanation.suggestions)

    def screen(shown: list[Cause], nways: int) -> list[str]:
        out = list(head)
        out += _block("Why:", shown, width)
        out += _block("Try:", ways[:nways], width)
        left = [(len(causes) - len(shown), "reason"), (len(ways) - nways, "way out")]
        extra = "".join(f"; {n} more {word if n == 1 else PLURAL[word]}" for n, word in left if n)
        out.append(f"({more} for the long form{extra})")
        return out

    dropped: set[int] = set()
    nways = len(ways)
    shown = screen(causes, nways)
    while len(shown) > lines:
        if nways > 1:
            nways -= 1
        elif len(dropped) < len(causes) - 1:
            dropped.add(leaving[len(dropped)])
        elif nways:
            nways -= 1
        else:
            break
        shown = screen([c for n, c in enumerate(causes) if n not in dropped], nways)
    return terminal_text("\n".join(shown))  # names from the input, shown, never obeyed


def text_order(suggestions: Sequence[Suggestion]) -> list[Suggestion]:
    """The ways out as people read them: those that keep what was asked first (a screen shows
    the first few; advice about a change that cannot work, or a change of the version asked,
    must not push them off it), each group in the domain's order, which JSON keeps."""
    return [s for s in suggestions if s.keeps_asked] + [s for s in suggestions if not s.keeps_asked]


def _block(title: str, items: Sequence[Cause | Suggestion], width: int) -> list[str]:
    """A heading and its items (a cause in its short form first, a way out in its full form
    first); a single item on the heading's line when it fits there."""
    if not items:
        return []
    forms = [[i.short, i.text] if isinstance(i, Cause) else [i.text, i.short] for i in items]
    if len(items) == 1:
        inline = _fitted(f"{title} ", forms[0], width)
        if len(inline) == 1:
            return inline
    return [title, *(line for one in forms for line in _fitted("  - ", one, width))]


def _fitted(prefix: str, forms: Sequence[str], width: int) -> list[str]:
    """``prefix`` and the first of ``forms`` that fits ``width`` on one line; else the
    shortest form wrapped at spaces (a word is never cut) under an indent."""
    candidates = [form for form in forms if form]
    for form in candidates:
        if len(prefix) + len(form) <= width:
            return [prefix + form]
    shortest = min(candidates, key=len)
    indent = "    " if prefix.startswith("  - ") else "  "
    return textwrap.wrap(
        shortest,
        width,
        initial_indent=prefix,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    )


def _cause_as_dict(cause: Cause) -> dict[str, Any]:
    return {"kind": cause.kind, "text": cause.text, **({"data": cause.data} if cause.data else {})}


def explanation_as_dict(explanation: Explanation) -> dict[str, Any]:
    return {
        "summary": explanation.summary,
        "roots": list(explanation.roots),
        "causes": [_cause_as_dict(cause) for cause in explanation.causes],
        "also": [_cause_as_dict(cause) for cause in explanation.also],
        "suggestions": [
            {"text": suggestion.text, "change": suggestion.change}
            for suggestion in explanation.suggestions
        ],
        "constraints": list(explanation.constraints),
    }


def explanation_as_html(explanation: Explanation) -> str:
    """An HTML fragment (a ``section``) with the same parts as the text reporter."""
    parts = [f'<section class="explanation">\n<h2>{escape(explanation.summary)}</h2>']
    for title, items in (
        ("Requested", list(explanation.roots)),
        ("Why it cannot be done", [cause.text for cause in explanation.causes]),
        ("Also in the way once that is fixed", [cause.text for cause in explanation.also]),
        ("What would make it work", [s.text for s in explanation.suggestions]),
    ):
        if items:
            parts.append(f"<h3>{escape(title)}</h3>\n<ul>")
            parts += [f"  <li>{escape(item)}</li>" for item in items]
            parts.append("</ul>")
    parts.append("</section>")
    return "\n".join(parts)
