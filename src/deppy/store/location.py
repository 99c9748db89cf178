"""Where the catalog store lives: ``$DEPPY_HOME`` if set, else the user's data directory.

``$DEPPY_HOME`` exists so tests, CI jobs and people with several setups can keep stores apart
without touching the real per-user one. platformdirs is imported only when it is needed: it costs
more start-up time than a whole lookup in the store.
"""

from __future__ import annotations

import os
from pathlib import Path

HOME_VARIABLE = "DEPPY_HOME"
DATABASE_NAME = "catalogs.sqlite3"


def store_home() -> Path:
    """The directory holding the store (it may not exist yet)."""
    configured = os.environ.get(HOME_VARIABLE, "").strip()
    if configured:
        return Path(configured).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("deppy", appauthor=False))


def database_path(home: Path | None = None) -> Path:
    """The store's SQLite file inside ``home`` (default :func:`store_home`)."""
    return (home if home is not None else store_home()) / DATABASE_NAME


CACHE_DIRECTORY = "cache"
CACHE_SWITCH = "DEPPY_CACHE"


def cache_path(home: Path | None = None) -> Path | None:
    """The parsed-catalog cache's directory beside the store, or None when ``$DEPPY_CACHE`` is
    ``off`` (every ``--catalog`` is then read from its files)."""
    if os.environ.get(CACHE_SWITCH, "").strip().lower() == "off":
        return None
    return (home if home is not None else store_home()) / CACHE_DIRECTORY
