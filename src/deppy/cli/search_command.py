"""``deppy search TERM``: which packages match a name, title, keyword or API."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

import click

from deppy.cli.data_output import say
from deppy.cli.main import cli
from deppy.cli.workflow_options import (
    catalog_options,
    catalog_source,
    columns,
    dump,
    output_option,
    warn_problems,
)
from deppy.errors import InputError
from deppy.workflows.search import PackageListing, SearchHit, list_packages, search

EXIT_NOTHING_FOUND = 1


@cli.command("search")
@click.argument("term", required=False)
@catalog_options
@click.option(
    "--limit",
    type=click.IntRange(min=0),
    default=None,
    help="Show at most this many packages (0: all; default 30 matches, or every package "
    "when no TERM is given).",
)
@output_option("text", "json", "yaml", "name")
def search_cmd(
    term: str | None,
    catalogs: tuple[str, ...],
    sources: tuple[str, ...],
    limit: int | None,
    output: str,
) -> None:
    """Find packages by name, bundle name, display name, keyword, provided API (kind or
    group) or description; with no TERM, list every package.

    Exact names come first, then name prefixes, names containing TERM, titles, keywords and
    APIs, and last descriptions. Exit 0 when something matches, 1 when nothing does. With no
    TERM: every package of every catalog with its channels, default channel and provider.
    """
    source = catalog_source(catalogs, quiet=output != "text", sources=sources, problems_later=True)
    if term is None:
        listing = list_packages(source)
        header = ("PACKAGE", "CATALOG", "CHANNELS", "DEFAULT CHANNEL", "PROVIDER")
        rows = [
            (
                p.package,
                p.catalog,
                _channels_text(p.channels),
                p.default_channel or "-",
                p.provider or "-",
            )
            for p in listing
        ]
        warn_problems(source, (p.catalog for p in listing))
        _show(listing, rows, header, limit or 0, output, "no package in the catalogs")
    if not term.strip():
        raise InputError("search", "TERM is empty", "give a word to look for, or none to list all")
    hits = search(source, term)
    rows = [(h.package, h.catalog, h.latest, h.display_name or "-", h.match_text()) for h in hits]
    header = ("PACKAGE", "CATALOG", "LATEST", "DISPLAY NAME", "MATCH")
    limit = 30 if limit is None else limit
    warn_problems(source, (h.catalog for h in hits[: limit or None]))
    _show(hits, rows, header, limit, output, f"no package matches {term!r}")


def _show(
    found: Sequence[SearchHit | PackageListing],
    rows: Sequence[tuple[str, ...]],
    header: tuple[str, ...],
    limit: int,
    output: str,
    nothing: str,
) -> NoReturn:
    """The first ``limit`` (0: all) of what was found, a row each, as ``output`` asks; exit 1
    when nothing was found."""
    shown = found[:limit] if limit else found
    if output == "name":
        for name in dict.fromkeys(item.package for item in shown):
            say(name)
    elif output != "text":
        dump([item.as_dict() for item in shown], output)
    elif not found:
        say(nothing)
    else:
        for line in columns(header, rows[: len(shown)]):
            say(line)
        if len(shown) < len(found):
            say(f"… and {len(found) - len(shown)} more (--limit 0 shows all)")
    raise SystemExit(0 if found else EXIT_NOTHING_FOUND)


CHANNELS_WIDTH = 40
"""The CHANNELS column's width in text: a package with dozens of channels (one per release)
would push every other column off the screen; -o json and yaml list them all."""


def _channels_text(channels: tuple[str, ...]) -> str:
    """The channels, comma-separated, the first ones only when they do not fit (``+N more``)."""
    text = ",".join(channels)
    if len(text) <= CHANNELS_WIDTH:
        return text or "-"
    for count in range(len(channels) - 1, 0, -1):
        shown = ",".join(channels[:count]) + f" +{len(channels) - count} more"
        if len(shown) <= CHANNELS_WIDTH:
            return shown
    return f"{channels[0]} +{len(channels) - 1} more"
