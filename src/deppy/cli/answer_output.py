"""How a resolution is shown on the terminal: a table, the explanation, JSON, YAML or HTML."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from deppy.cli.data_output import SETTINGS, dump, emit, say
from deppy.cli.text_table import cell, columns, short_image
from deppy.explain import explanation_as_short_text, explanation_as_text
from deppy.explain.render import SCREEN_LINES
from deppy.resolution.answer import Resolution, SelectedBundle

MIN_LINES = 4  # the summary, one cause, one way out and the hint

__all__ = ["dump", "render", "resolution_as_html", "selection_lines"]  # dump: for older callers


def render(
    resolution: Resolution,
    output: str,
    *,
    verbose: bool = False,
    facts: Sequence[tuple[str, str]] = (),
    olmv1: Mapping[str, Any] | None = None,
) -> None:
    """``facts`` head the HTML report (request, catalogs, cluster, time, deppy); ``olmv1`` is
    what OLM v1 does with the plan (``workflows.olmv1.plan.OLMv1Plan.summary``)."""
    if output in ("json", "yaml"):
        data = resolution.as_dict()
        if not verbose and "explanation" in data:
            # solver-level texts name variables (catalog/package/bundle); only -v shows them
            data["explanation"].pop("constraints", None)
        if olmv1 is None and resolution.request.rules == "olmv1" and resolution.resolved:
            from deppy.workflows.olmv1 import build_plan

            olmv1 = build_plan(resolution).summary()  # replay and validate say it too
        if olmv1 is not None:
            data["olmv1"] = dict(olmv1)
        dump(data, output)
        return
    if output == "html":
        emit(resolution_as_html(resolution, facts))
        return
    line = rules_line(resolution.request.rules)
    if resolution.explanation is not None:
        if verbose:
            say(explanation_as_text(resolution.explanation, verbose=True))
        else:  # one screen with the warnings above it (at least four lines of its own)
            room = max(SCREEN_LINES - SETTINGS.warned, MIN_LINES)
            said = rules_words(resolution)
            text = explanation_as_short_text(
                resolution.explanation, lines=room - bool(line) - len(said)
            )
            say(text)
            for words in said:
                if " ".join(words.split()) not in " ".join(text.split()):
                    say(words)
    elif not resolution.selection:  # a request (OLM v0's namespace) with nothing in it
        say("Resolution: nothing to install or upgrade.")
    else:
        say("\n".join(selection_lines(resolution.selection)))
    if line:
        say(line)


def rules_words(resolution: Resolution) -> list[str]:
    """OLM v0's own words in an explanation's causes (``OLM v0: ...``), for the short text,
    which shortens each cause's reason and would leave them out."""
    if resolution.request.rules != "olm-v0" or resolution.explanation is None:
        return []
    found = []
    for cause in resolution.explanation.causes:
        for words in re.findall(r"OLM v0: (.*?)(?:\)$|$)", cause.text):
            found.append(f"OLM v0: {words}")
    return list(dict.fromkeys(found))


def rules_line(rules: str) -> str:
    """The text answer's last line when rules other than deppy's own produced it (deppy's own
    say nothing, as before there was a choice; JSON and HTML always name them)."""
    if rules == "olm-v0":
        return "rules: olm-v0 (OLM v0's resolver, as OLM v0 would answer; --rules deppy: deppy's)"
    return ""


def selection_lines(selection: Sequence[SelectedBundle]) -> list[str]:
    """The answer as a plain table (install order, one row per bundle: long upgrade paths and
    digests shortened, no image ``—``), each row followed by why the bundle is there."""
    header = ("#", "package", "version", "channel", "catalog", "action", "bundle image")
    rows = [
        (
            str(n),
            item.package,
            item.version,
            cell(item.channel),
            item.catalog,
            item.action_text(),
            short_image(item.image),
        )
        for n, item in enumerate(selection, start=1)
    ]
    table = columns(header, rows)
    lines = ["Resolution (install in this order):", table[0]]
    indent = " " * (len(rows[-1][0]) + 2) if rows else ""
    for line, item in zip(table[1:], selection, strict=True):
        lines.append(line)
        lines += [f"{indent}why: {reason}" for reason in item.reasons]
    return lines


def resolution_as_html(resolution: Resolution, facts: Sequence[tuple[str, str]] = ()) -> str:
    """The answer as a standalone page (``-o html``)."""
    from deppy.explain.html_page import html_page

    rows = None
    if resolution.selection is not None:
        rows = [
            (
                str(n),
                item.package,
                item.version,
                item.channel or "-",
                item.catalog,
                item.action_text(),
                "; ".join(item.reasons),
                item.image,
            )
            for n, item in enumerate(resolution.selection, start=1)
        ]
    if not any(label == "rules" for label, _ in facts):
        facts = [("rules", resolution.request.rules), *facts]
    return html_page(
        "deppy resolution",
        table_title="Resolution (install in this order)",
        header=("#", "package", "version", "channel", "catalog", "action", "why", "image"),
        rows=rows,
        explanation=resolution.explanation,
        warnings=resolution.warnings,
        facts=facts,
    )
