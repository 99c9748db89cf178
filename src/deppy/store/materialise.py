"""A whole stored catalog decoded back into the catalog model (``deppy catalog`` commands that
show everything, and the schema migration that re-derives the search index)."""

from __future__ import annotations

import sqlite3

from deppy.catalog.model import Bundle, Catalog, Channel, Deprecation, Package
from deppy.store.codec import decode_bundle, decode_others, decode_package, decode_problems
from deppy.store.schema import unknown_catalog


def materialise(conn: sqlite3.Connection, name: str, answering_as: str | None = None) -> Catalog:
    """The stored catalog ``name``, named ``answering_as`` when given (its bundles too)."""
    shown = name if answering_as is None else answering_as
    row = conn.execute(
        "SELECT id, priority, path, problem_list, others FROM catalog WHERE name = ?", (name,)
    ).fetchone()
    if row is None:
        raise unknown_catalog(conn, name)
    catalog_id, priority, path, problems, others = row
    packages: dict[str, Package] = {}
    channels: dict[tuple[str, str], Channel] = {}
    deprecations: list[Deprecation] = []
    for package_name, blob in conn.execute(
        "SELECT name, data FROM package WHERE catalog_id = ? ORDER BY name", (catalog_id,)
    ):
        package, package_channels, package_deprecations = decode_package(blob, package_name)
        packages[package_name] = package
        channels.update((c.key, c) for c in package_channels)
        deprecations.extend(package_deprecations)
    bundles: dict[tuple[str, str], Bundle] = {}
    for package_name, blob in conn.execute(
        "SELECT package, data FROM bundle WHERE catalog_id = ? ORDER BY package, name",
        (catalog_id,),
    ):
        bundle = decode_bundle(blob, shown, package_name)
        bundles[bundle.key] = bundle
    return Catalog(
        name=shown,
        priority=priority,
        path=path,
        packages=packages,
        channels=dict(sorted(channels.items())),
        bundles=bundles,
        deprecations=tuple(deprecations),
        problems=decode_problems(problems),
        others=decode_others(others),
    )
