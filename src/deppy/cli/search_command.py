"""``deppy search TERM``: which packages match a name, title, keyword or API."""

from __future__ import annotations

import click

from deppy.cli.data_output import say
from deppy.cli.main import cli
from deppy.cli.workflow_options import (
    catalog_options,
    catalog_source,
    columns,
    dump,
    output_option,
)
from deppy.errors import InputError
from deppy.workflows.search import search

EXIT_NOTHING_FOUND = 1


@cli.command("search")
@click.argument("term")
@catalog_options
@click.option(
    "--limit",
    type=click.IntRange(min=0),
    default=30,
    show_default=True,
    help="Show at most this many packages (0: all).",
)
@output_option("text", "json", "yaml", "name")
def search_cmd(
    term: str, catalogs: tuple[str, ...], sources: tuple[str, ...], limit: int, output: str
) -> None:
    """Find packages by name, bundle name, display name, keyword, provided API (kind or
    group) or description.

    Exact names come first, then name prefixes, names containing TERM, titles, keywords and
    APIs, and last descriptions. Exit 0 when something matches, 1 when nothing does.
    """
    if not term.strip():
        raise InputError("search", "TERM is empty", "give a word to look for")
    hits = search(catalog_source(catalogs, quiet=output != "text", sources=sources), term)
    shown = hits[:limit] if limit else hits
    if output == "name":
        for name in dict.fromkeys(h.package for h in shown):
            say(name)
    elif output != "text":
        dump([h.as_dict() for h in shown], output)
    elif not hits:
        say(f"no package matches {term!r}")
    else:
        rows = [
            (h.package, h.catalog, h.latest, h.display_name or "-", h.match_text()) for h in shown
        ]
        for line in columns(("PACKAGE", "CATALOG", "LATEST", "DISPLAY NAME", "MATCH"), rows):
            say(line)
        if len(shown) < len(hits):
            say(f"… and {len(hits) - len(shown)} more (--limit 0 shows all)")
    raise SystemExit(0 if hits else EXIT_NOTHING_FOUND)
