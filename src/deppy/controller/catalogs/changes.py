"""Which packages a catalog's new content changed, and which answers that can touch.

A catalog change used to wake every namespace with Inputs: on a cluster of hundreds of
namespaces each one resolved again, to find mostly the same answer (OLM v0's CPU storm). The
packages whose content differs are known once, when the new content loads; a namespace is woken
only when what it asks for, was given or holds (its *footprint*, recorded each time it resolves)
meets them, directly or through an API or package one of those bundles needs. A namespace this
process has not resolved yet has no footprint and is always woken: nothing is skipped on a
guess.
"""

from __future__ import annotations

from typing import Any

from deppy.catalog.model import Bundle, Catalog


def _bundle_content(bundle: Bundle) -> tuple[Any, ...]:
    """Everything of a bundle resolution may read (its properties carry its APIs, its
    dependencies and its constraints), in a form ``==`` compares."""
    return (
        bundle.name,
        str(bundle.version),
        bundle.image,
        [(p.type, p.value) for p in bundle.properties],
        bundle.replaces,
        bundle.skips,
        bundle.skip_range,
    )


def _package_content(catalog: Catalog, package: str) -> tuple[Any, ...]:
    found = catalog.packages.get(package)
    return (
        found.default_channel if found is not None else None,
        [(c.name, c.entries) for c in catalog.channels_of(package)],
        [_bundle_content(b) for b in sorted(catalog.bundles_of(package), key=lambda b: b.name)],
        sorted(
            (d.schema, d.name or "", d.message)
            for d in catalog.deprecations
            if d.package == package
        ),
    )


def _names(catalog: Catalog) -> set[str]:
    return set(catalog.packages) | {package for package, _ in catalog.bundles}


def changed_packages(old: Catalog | None, new: Catalog | None) -> frozenset[str] | None:
    """Packages whose content differs between ``old`` and ``new``; None when it cannot be told
    (no earlier content, none now, or another priority: every answer may move)."""
    if old is None or new is None or old.priority != new.priority:
        return None
    return frozenset(
        package
        for package in sorted(_names(old) | _names(new))
        if _package_content(old, package) != _package_content(new, package)
    )


def affected_packages(old: Catalog | None, new: Catalog | None) -> frozenset[str] | None:
    """The packages an answer may move for when ``old`` becomes ``new``: those that changed, and
    those with a bundle (before or now) needing a changed package, or an API a changed package's
    bundle provides (before or now). An answer whose footprint misses them all stays as it is.
    None: every answer may move (see ``changed_packages``)."""
    changed = changed_packages(old, new)
    if not changed:
        return changed
    catalogs = [c for c in (old, new) if c is not None]
    apis = {
        gvk
        for catalog in catalogs
        for package in sorted(changed)
        for bundle in catalog.bundles_of(package)
        for gvk in bundle.provided_gvks
    }
    needing = {
        bundle.package
        for catalog in catalogs
        for bundle in catalog.bundles.values()
        if any(r.package in changed for r in bundle.required_packages)
        or any(gvk in apis for gvk in bundle.required_gvks)
    }
    return changed | needing
