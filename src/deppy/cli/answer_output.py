"""How a resolution is shown on the terminal: a table, the explanation, JSON, YAML or HTML."""

from __future__ import annotations

import sys
from typing import Any

import click
import orjson

from deppy.explain import explanation_as_text
from deppy.resolution.answer import Resolution


def render(resolution: Resolution, output: str, *, verbose: bool = False) -> None:
    if output in ("json", "yaml"):
        data = resolution.as_dict()
        if not verbose and "explanation" in data:
            # solver-level texts name variables (catalog/package/bundle); only -v shows them
            data["explanation"].pop("constraints", None)
        dump(data, output)
        return
    if output == "html":
        click.echo(resolution_as_html(resolution))
        return
    if resolution.explanation is not None:
        click.echo(explanation_as_text(resolution.explanation, verbose=verbose))
        return
    assert resolution.selection is not None
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Resolution (install in this order)", title_justify="left")
    for column in ("#", "package", "version", "channel", "catalog", "action", "why"):
        table.add_column(column, overflow="fold")
    for n, item in enumerate(resolution.selection, start=1):
        table.add_row(
            str(n),
            item.package,
            item.version,
            item.channel or "-",
            item.catalog,
            item.action_text(),
            "\n".join(item.reasons),
        )
    console = Console(width=None if _interactive() else 140, highlight=False, soft_wrap=False)
    console.print(table)
    for item in resolution.selection:
        console.print(f"{item.bundle}: {item.image}", highlight=False)


def resolution_as_html(resolution: Resolution) -> str:
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
    return html_page(
        "deppy resolution",
        table_title="Resolution (install in this order)",
        header=("#", "package", "version", "channel", "catalog", "action", "why", "image"),
        rows=rows,
        explanation=resolution.explanation,
        warnings=resolution.warnings,
    )


def dump(data: dict[str, Any], output: str) -> None:
    """JSON (indented) or YAML, keys in the answer's own order."""
    if output == "json":
        click.echo(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode())
    else:
        import yaml

        click.echo(yaml.safe_dump(data, sort_keys=False, width=100).rstrip())


def _interactive() -> bool:
    return sys.stdout.isatty()
