"""Reporters: the same explanation as text for people and as a dict for JSON/YAML."""

from __future__ import annotations

from html import escape
from typing import Any

from deppy.explain.model import Cause, Explanation


def explanation_as_text(explanation: Explanation, *, verbose: bool = False) -> str:
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
        lines += [f"  - {suggestion.text}" for suggestion in explanation.suggestions]
    if verbose and explanation.constraints:
        lines.append("")
        lines.append("Solver constraints in the minimal conflict:")
        lines += [f"  - {text}" for text in explanation.constraints]
    return "\n".join(lines)


SCREEN_LINES = 10
SCREEN_WIDTH = 100


def explanation_as_short_text(explanation: Explanation, *, more: str = "-v") -> str:
    """The explanation on one screen: the summary, every cause (each is part of the reason),
    then as many ways out as fit in ten lines, each line at most 100 characters; ``more`` names
    the option that gives the long form."""
    lines = [_clip(explanation.summary), "Why:"]
    lines += [_clip(f"  - {cause.short or cause.text}") for cause in explanation.causes]
    suggestions = [s.text for s in explanation.suggestions]
    room = max(SCREEN_LINES - len(lines) - 2, 1)  # "Try:" and the closing hint
    shown = suggestions[:room]
    if shown:
        lines.append("Try:")
        lines += [_clip(f"  - {text}") for text in shown]
    left = len(suggestions) - len(shown)
    extra = f"; {left} more way{'s' if left > 1 else ''} out" if left else ""
    lines.append(f"({more} for the long form{extra})")
    return "\n".join(lines)


def _clip(line: str) -> str:
    if len(line) <= SCREEN_WIDTH:
        return line
    cut = line[: SCREEN_WIDTH - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > SCREEN_WIDTH // 2 else cut) + "…"


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
