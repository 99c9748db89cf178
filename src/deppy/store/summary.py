"""What the store says about a stored catalog without reading its bundles."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StoredCatalog:
    """A stored catalog as ``deppy catalog list`` shows it; ``updated`` is UTC, ISO 8601."""

    name: str
    priority: int
    path: str
    packages: int
    channels: int
    bundles: int
    problems: int
    updated: str
