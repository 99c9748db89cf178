"""``deppy cache``: the parsed-catalog cache beside the store (``$DEPPY_HOME/cache``).

``--catalog DIR`` keeps what it loaded there (a one-catalog SQLite store), so the next run over
an unchanged directory reads only the packages it touches instead of every catalog file (see
``deppy.catalog.fbc.cache`` and ``deppy.store.cache_entries``). The cache is bounded and never
needed for an answer: clearing it only makes the next run slower.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deppy.cli.data_output import say
from deppy.cli.main import cli
from deppy.workflows.catalog_loading import parsed_cache

if TYPE_CHECKING:
    from deppy.catalog.fbc.cache import ParsedCache


@cli.group("cache")
def cache_group() -> None:
    """The parsed-catalog cache that speeds up repeated --catalog runs ($DEPPY_HOME/cache)."""


@cache_group.command("clear")
def clear_cmd() -> None:
    """Remove every cached catalog (the next --catalog run parses its files again)."""
    cache = _cache()
    if cache is not None:
        cleared = cache.clear()
        say(f"cleared {cleared.entries} entries ({_mb(cleared.size)}) from {cache.directory}")


@cache_group.command("info")
def info_cmd() -> None:
    """Where the cache is, how many entries it holds and their size."""
    cache = _cache()
    if cache is not None:
        held = cache.usage()
        say(
            f"{cache.directory}: {held.entries} entries, {_mb(held.size)} "
            f"(at most {_mb(cache.max_bytes)})"
        )


def _cache() -> ParsedCache | None:
    cache = parsed_cache()
    if cache is None:
        say("the cache is off (DEPPY_CACHE=off)")
    return cache


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB"
