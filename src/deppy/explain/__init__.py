"""Explanations as data, rendered by reporters (as pubgrub-rs separates its derivation tree from
its reporter): domains fill ``Explanation``; front doors pick a renderer."""

from deppy.explain.model import Cause, Explanation, Suggestion
from deppy.explain.render import (
    explanation_as_dict,
    explanation_as_html,
    explanation_as_short_text,
    explanation_as_text,
    text_order,
)

__all__ = [
    "Cause",
    "Explanation",
    "Suggestion",
    "explanation_as_dict",
    "explanation_as_html",
    "explanation_as_short_text",
    "explanation_as_text",
    "text_order",
]
