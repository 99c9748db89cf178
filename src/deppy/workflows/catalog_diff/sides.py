"""The two sides of ``deppy catalog diff OLD NEW``: each a catalog directory or file, or a
stored catalog's name, read as release facts (``deppy.catalog.release_facts``) the cheapest
way there is: from the parsed-catalog cache or the store when they hold it, else by loading the
catalog (which keeps a cache entry for the next run). Apart from ``compare``, which
compares two such values and never reads a file."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from deppy.catalog.release_facts import CatalogFacts, facts_of_catalog
from deppy.errors import InputError
from deppy.oci.reference import is_image_reference

if TYPE_CHECKING:
    from deppy.catalog.fbc.cache import ParsedCache
    from deppy.catalog.model import LoadProblem

__all__ = ["Report", "load_side"]

Report = Callable[[str], None]


def load_side(
    spec: str, *, store: Path | None = None, report: Report | None = None
) -> CatalogFacts:
    """The release facts of ``spec``: a catalog directory or file when that path exists, else
    the name of a stored catalog; neither is an InputError naming it. ``report`` hears that
    the catalog was loaded with problems (a diff of a partly read catalog says so)."""
    path = Path(spec)
    if is_image_reference(spec):  # unpacked into the cache, then read as its directory
        from deppy.catalog.image_catalog import load_pulled, pulled_image
        from deppy.workflows.catalog_loading import images_path

        pulled = pulled_image(spec, images_path(store), where="catalog diff", report=report)
        if pulled.kind == "fbc":
            return _said_if_empty(_path_facts(pulled.path, store, report), report)
        return _said_if_empty(facts_of_catalog(load_pulled(pulled, name=None)), report)
    if path.exists():
        return _said_if_empty(_path_facts(path, store, report), report)
    from deppy.store import Store
    from deppy.store.schema import is_history_name

    stored_store = Store(store)
    stored = stored_store.find(spec)
    if stored is None and is_history_name(spec):
        raise stored_store.missing(spec)
    if stored is None:
        names = sorted(c.name for c in stored_store.list())
        raise InputError(
            f"catalog {spec!r}",
            "no stored catalog has this name and no file or directory has this path",
            f"stored catalogs: {', '.join(names)}"
            if names
            else "the store is empty; "
            "add one with 'deppy catalog add NAME PATH' or give a catalog directory",
        )
    facts = stored_store.release_facts(spec)
    if stored.problems and report is not None:
        _report_lines(spec, stored_store.problems(spec), spec, report)
    return _said_if_empty(facts, report)


def _said_if_empty(facts: CatalogFacts, report: Report | None) -> CatalogFacts:
    """A catalog with no package is most likely the wrong path: the diff says so."""
    if not facts.packages and report is not None:
        report(f"deppy: warning: catalog {facts.name}: no packages (loaded as empty)")
    return facts


def _path_facts(path: Path, store: Path | None, report: Report | None) -> CatalogFacts:
    """A catalog path: read from its parsed-catalog cache entry when it is unchanged since one
    was kept (no parsing), else loaded (which keeps an entry for the next run)."""
    from deppy.workflows.catalog_loading import parsed_cache

    cache = parsed_cache(store)
    if cache is not None and path.is_dir():
        facts = _cached_facts(path, cache, report)
        if facts is not None:
            return facts
    from deppy.catalog.bundle_tree import load_any_catalog

    catalog = load_any_catalog(path, cache=cache)
    if report is not None and catalog.problems:
        _report_lines(catalog.name, catalog.problems, str(path), report)
    return facts_of_catalog(catalog)


def _cached_facts(path: Path, cache: ParsedCache, report: Report | None) -> CatalogFacts | None:
    key = cache.catalog_key(path, path.name, 0)
    entry = cache.catalog_file_or_wait(key) if key is not None else None
    if key is None or entry is None:
        return None
    from deppy.store.cache_entries import CachedCatalog

    try:
        cached = CachedCatalog(entry)
        facts = cached.store.release_facts(cached.summary.name)
        problems = cached.store.problems(cached.summary.name) if cached.summary.problems else ()
    except Exception:  # a damaged entry is a missing one: load the directory
        cache.forget_catalog(key)
        return None
    if problems and report is not None:
        _report_lines(cached.summary.name, problems, str(path), report)
    return facts


def _report_lines(name: str, problems: Sequence[LoadProblem], where: str, report: Report) -> None:
    from deppy.workflows.catalog_loading import problems_lines

    for line in problems_lines(name, problems, where):
        report(line)
