"""Reporters: the same explanation as text for people and as a dict for JSON/YAML."""

from __future__ import annotations

from typing import Any

from deppy.explain.model import Explanation


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
        lines += [f"  - {suggestion}" for suggestion in explanation.suggestions]
    if verbose and explanation.constraints:
        lines.append("")
        lines.append("Solver constraints in the minimal conflict:")
        lines += [f"  - {text}" for text in explanation.constraints]
    return "\n".join(lines)


def explanation_as_dict(explanation: Explanation) -> dict[str, Any]:
    return {
        "summary": explanation.summary,
        "roots": list(explanation.roots),
        "causes": [
            {"kind": cause.kind, "text": cause.text, **({"data": cause.data} if cause.data else {})}
            for cause in explanation.causes
        ],
        "also": [
            {"kind": cause.kind, "text": cause.text, **({"data": cause.data} if cause.data else {})}
            for cause in explanation.also
        ],
        "suggestions": list(explanation.suggestions),
        "constraints": list(explanation.constraints),
    }
