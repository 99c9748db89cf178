"""Where a front door's catalogs come from: given paths, else the store, else the embedded example.

Imports are deferred to the branch that needs them: resolving against the store must not pay for
the file loader (and YAML), and loading files must not pay for SQLite.
"""

from __future__ import annotations

import gc
import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from deppy.errors import InputError
from deppy.explain.render import SCREEN_WIDTH
from deppy.oci.reference import is_image_reference
from deppy.resolution.request_parsing import CatalogSpec

if TYPE_CHECKING:
    from deppy.catalog.catalog_set import BundleSource
    from deppy.catalog.fbc.cache import ParsedCache
    from deppy.catalog.model import Catalog, LoadProblem
    from deppy.oci.pull import PulledImage
    from deppy.resolution.answer import Resolution
    from deppy.resolution.request import ResolutionRequest
    from deppy.store import Store

EMBEDDED = "embedded"
_EMPTY = "deppy: warning: catalog {}: no packages (loaded as empty)"
SHOWN_PROBLEMS = 5


def embedded_catalog_path() -> Path:
    from deppy.data import data_path

    return data_path("catalog")


def embedded_request_path() -> Path:
    from deppy.data import data_path

    return data_path("request.yaml")


Report = Callable[[str], None]


def load_catalogs(
    specs: list[CatalogSpec],
    *,
    report: Report | None = None,
    store: Path | None = None,
    sources: Sequence[str] = (),
    one_shot: bool = True,
    problems_later: bool = False,
    example: bool = True,
) -> BundleSource:
    """The catalogs to resolve against; ``report`` hears (never hides) objects skipped as invalid
    — of the catalogs the command reads: with ``sources`` (``--source``), only of those named.

    A spec's path may be a URL (``grpc://HOST:PORT``, ``http(s)://…/api/v1/all``), read live,
    or the name of a stored catalog (a word that is no path on disk). With no spec, the stored
    catalogs (``deppy catalog add``; the store in ``store``, default ``$DEPPY_HOME`` or the
    user's) with their priorities; only when the store is empty, the embedded example catalog —
    and ``report`` hears that too.

    ``one_shot``: the caller is a command that answers and exits. Then one catalog directory
    unchanged since a run kept it in the parsed-catalog cache is read from there lazily, and
    what is loaded is left out of the cyclic collector's walks (``gc.freeze``): a loaded
    catalog is millions of acyclic objects that live until the process ends, and walking them
    cost a community catalog ~0.25 s and a 10x one ~1.6 s. A server (False) holds its
    catalogs whole and collects as usual.

    ``problems_later``: ``report`` hears no catalog's load problems; the command says them
    after its answer, for the catalogs the answer used (:func:`problem_notes`).

    ``example``: False, an empty store gives no catalog at all rather than the example (a
    server that has answered from the store must not switch to a demo catalog).
    """

    if not one_shot:
        return _load_catalogs(
            specs, report, store, sources, lazy=False, later=problems_later, example=example
        )
    collecting = gc.isenabled()
    gc.disable()
    try:
        source = _load_catalogs(specs, report, store, sources, lazy=True, later=problems_later)
    finally:
        if collecting:
            gc.freeze()
            gc.enable()
    _HELD.append(source)
    return source


_HELD: list[BundleSource] = []
"""What one-shot commands loaded, held until the process ends: freeing a catalog's millions
of objects one by one costs a 10x catalog ~0.4 s that the ``deppy`` process skips by ending
without tearing them down (:func:`may_end_at_once`)."""


def may_end_at_once() -> bool:
    """Whether a ``deppy`` process that has answered may end without freeing what it holds:
    it loaded catalogs whole for a one-shot command (nothing else of it needs tearing down:
    its files are closed, its background cache writer is a process of its own)."""
    from deppy.catalog.catalog_set import CatalogSet

    return any(isinstance(source, CatalogSet) for source in _HELD)


def release_held() -> None:
    """Let go of what one-shot commands loaded (a test process runs many)."""
    _HELD.clear()


def _load_catalogs(
    specs: list[CatalogSpec],
    report: Report | None,
    store: Path | None,
    sources: Sequence[str],
    *,
    lazy: bool,
    later: bool = False,
    example: bool = True,
) -> BundleSource:
    from deppy.catalog.catalog_set import CatalogSet

    if not specs:
        from deppy.store import Store

        stored_store = Store(store)
        stored = stored_store.source()
        if stored is not None:
            if report is not None and not later:  # listed when added or refreshed
                _report_stored(stored_store, report, sources)
            return stored
        if not example:
            return CatalogSet([])
        specs = [CatalogSpec(str(embedded_catalog_path()), EMBEDDED, 0)]
        if report is not None:
            report(
                "deppy: no --catalog and no stored catalog (deppy catalog add): "
                "using the embedded example catalog"
            )
    images: dict[str, PulledImage] = {}
    if any(is_image_reference(s.path) for s in specs):
        specs, images = _pulled_specs(specs, store, report)
    stored_names = [s.path for s in specs if _stored_name(s, store)]
    for spec in specs:
        if spec.path not in stored_names:
            _no_missing_history(spec, store)
            _no_misspelt_path(spec, spec.path)
    if stored_names and len(stored_names) == len(specs):
        from deppy.store import Store

        named_store = Store(store)
        source = named_store.source(stored_names)  # the store reads only what is asked: fast
        if source is not None:
            if report is not None and not later:
                _report_stored(named_store, report, sources or stored_names)
            return source
    cache = parsed_cache(store)
    if cache is not None and lazy and len(specs) == 1:
        cached = _cached_source(specs[0], cache, report, sources, later)
        if cached is not None:
            return cached
    from deppy.catalog.bundle_tree import load_any_catalog

    catalogs: list[Catalog] = []
    for spec in specs:
        if spec.path in stored_names:  # beside catalog directories: the whole stored catalog
            from deppy.store import Store

            catalogs.append(Store(store).load_catalog(spec.path))
            continue
        if spec.path in images:  # an older image's SQLite index
            from deppy.catalog.image_catalog import load_pulled

            catalog = load_pulled(images[spec.path], name=spec.name, priority=spec.priority)
        elif _is_url(spec.path):
            from deppy.cluster.remote import load_url_catalog

            name = spec.name or spec.path.split("://", 1)[1].split("/", 1)[0]
            catalog = load_url_catalog(spec.path, name=name, priority=spec.priority)
        else:
            catalog = load_any_catalog(
                spec.path, name=spec.name, priority=spec.priority, cache=cache, file_backed=lazy
            )
            catalog.path = shown_path(catalog.path)  # an image's reference, not its unpacking
        if report is not None and (not sources or catalog.name in sources):
            if not later:
                report_problems(catalog, report, listed=False, where=shown_path(spec.path))
            elif not catalog.bundles and not catalog.problems:
                report(_EMPTY.format(catalog.name))
        catalogs.append(catalog)
    return CatalogSet(catalogs)


def _pulled_specs(
    specs: list[CatalogSpec], store: Path | None, report: Report | None
) -> tuple[list[CatalogSpec], dict[str, PulledImage]]:
    """The specs with each image reference read into the cache: a File-Based Catalog image
    becomes the directory it was unpacked to (loaded, and cached, as any directory is); an
    older image's SQLite index stays a reference, its pull returned beside (by reference)."""
    from deppy.catalog.image_catalog import pulled_image

    directory = images_path(store)
    result: list[CatalogSpec] = []
    sqlite: dict[str, PulledImage] = {}
    for spec in specs:
        if not is_image_reference(spec.path):
            result.append(spec)
            continue
        pulled = pulled_image(spec.path, directory, report=report)
        if pulled.kind == "sqlite":
            sqlite[spec.path] = pulled
            result.append(spec)
        else:
            result.append(CatalogSpec(str(pulled.path), spec.name or pulled.name, spec.priority))
            _UNPACKED[str(pulled.path)] = spec.path
    return result, sqlite


_UNPACKED: dict[str, str] = {}
"""The image reference each unpacked catalog directory was read from (the directories are
named by content digest: an entry never goes stale)."""


def shown_path(path: str) -> str:
    """How a catalog's path is shown to the user: an unpacked image as its reference."""
    return _UNPACKED.get(path, path)


def images_path(home: Path | None = None) -> Path:
    """Where catalog images are unpacked: deppy's cache directory beside the store (also
    with ``$DEPPY_CACHE=off``, which turns off only the parsed-catalog cache)."""
    from deppy.store.location import CACHE_DIRECTORY, store_home

    return (home if home is not None else store_home()) / CACHE_DIRECTORY


def parsed_cache(home: Path | None = None) -> ParsedCache | None:
    """The parsed-catalog cache beside the store in ``home`` (default ``$DEPPY_HOME``), or
    None when ``$DEPPY_CACHE=off``; whole catalogs are kept as one-catalog SQLite stores,
    written in the background (a command answers without waiting for it)."""
    from deppy.store.location import cache_path

    directory = cache_path(home)
    if directory is None:
        return None
    from deppy.catalog.fbc.cache import ParsedCache
    from deppy.store.cache_entries import StoredEntries

    return ParsedCache(directory, background=True, files=StoredEntries())


def _cached_source(
    spec: CatalogSpec,
    cache: ParsedCache,
    report: Report | None,
    sources: Sequence[str],
    later: bool = False,
) -> BundleSource | None:
    """The catalog directory of ``spec`` read lazily from its cache entry (only the packages
    the command touches), when the directory is unchanged since the entry was written; its
    load problems are reported as a fresh load reports them. None: load it."""
    if _is_url(spec.path) or not os.path.isdir(spec.path):
        return None
    # Only a File-Based Catalog loaded from exactly these files has an entry under this key
    # (a tree of bundle directories is never kept): no need to look for bundle directories.
    root = Path(spec.path)
    name = spec.name if spec.name is not None else root.name
    key = cache.catalog_key(root, name, spec.priority)
    entry = cache.catalog_file_or_wait(key) if key is not None else None
    if key is None or entry is None:
        return None
    from deppy.store.cache_entries import CachedCatalog

    try:
        cached = CachedCatalog(entry)
        problems = cached.store.problems(cached.summary.name) if cached.summary.problems else ()
        source = cached.source()
    except Exception:  # a damaged entry is a missing one: load the directory
        cache.forget_catalog(key)
        return None
    if report is not None and (not sources or name in sources):
        if not cached.summary.bundles and not problems:
            report(_EMPTY.format(name))
        if problems and not later:
            for line in problems_lines(name, problems, shown_path(spec.path)):
                report(line)
    return source


def _is_url(path: str) -> bool:
    # grpc://HOST:PORT or http(s)://…/api/v1/all (deppy.cluster.remote), checked without it
    return path.lower().startswith(("grpc://", "http://", "https://"))


def only_stored_names(specs: Sequence[CatalogSpec], store: Path | None = None) -> list[str]:
    """The names, when every spec names a stored catalog (``--catalog NAME``…), else []."""
    names = [s.path for s in specs if _stored_name(s, store)]
    return names if specs and len(names) == len(specs) else []


def check_catalog_named(spec: str, option: str = "--catalog", store: Path | None = None) -> None:
    """Fails, naming the option, when ``spec`` is no catalog at all: neither a path on disk, a
    URL nor a stored catalog's name. Cheap (nothing is loaded): for the checks a command makes
    before it starts work elsewhere (``fleet plan``'s workers)."""
    from deppy.resolution.request_parsing import parse_catalog

    parsed = parse_catalog(spec)
    if is_image_reference(parsed.path):
        from deppy.oci.reference import parse_reference

        parse_reference(parsed.path, where=option)
        return
    if _is_url(parsed.path) or Path(parsed.path).exists():
        return
    if parsed.name is None and not parsed.priority and _stored_name(parsed, store):
        return
    _no_missing_history(parsed, store)  # NAME@N not kept: the store's one error for it
    _no_misspelt_path(parsed, f"{option} {spec}")
    raise InputError(
        f"{option} {spec}",
        "no such catalog: not a path, a URL nor a stored catalog's name",
        "give a catalog's directory or a name 'deppy catalog list' shows",
    )


def _stored_name(spec: CatalogSpec, store: Path | None) -> bool:
    """``--catalog NAME``: a word that is no path on disk (nor a URL) names a stored catalog."""
    if (
        spec.name is not None
        or spec.priority
        or _is_url(spec.path)
        or is_image_reference(spec.path)
        or Path(spec.path).exists()
    ):
        return False
    from deppy.store import Store

    return Store(store).find(spec.path) is not None


def _no_missing_history(spec: CatalogSpec, store: Path | None) -> None:
    """A ``--catalog NAME@N`` that is no path and no kept earlier contents is the store's one
    error for it (as ``catalog diff`` and ``--source`` say it), not "catalog not found"."""
    from deppy.store.schema import is_history_name

    if spec.name is not None or not is_history_name(spec.path) or Path(spec.path).exists():
        return
    from deppy.store import Store

    raise Store(store).missing(spec.path)


def _no_misspelt_path(spec: CatalogSpec, where: str) -> None:
    """A catalog path that does not exist, with directories beside it spelt almost as it is
    (``…-v4.81`` beside ``…-v4.18``): "catalog not found", with them offered."""
    if os.sep not in spec.path or _is_url(spec.path) or Path(spec.path).exists():
        return  # a bare word is a stored catalog's name, said elsewhere
    from deppy.workflows.did_you_mean import near_paths

    near = near_paths(spec.path)
    if near:
        raise InputError(
            where,
            "catalog not found",
            f"did you mean {', '.join(near)}? give the directory of a File-Based Catalog",
        )


def catalogs_used(
    resolution: Resolution, request: ResolutionRequest, source: BundleSource
) -> list[str]:
    """The catalogs an answer used: those its selection comes from; with no selection, those
    holding the packages asked about (the explanation is about them)."""
    if resolution.selection is not None:
        return [s.catalog for s in resolution.selection]
    from deppy.store.schema import base_name  # NAME@1 answers as NAME

    asked = {base_name(name) for name in request.sources}
    packages = [r.package for r in request.required] + [i.package for i in request.installed]
    return [
        name
        for package in packages
        for name in source.catalogs_with(package)
        if not asked or name in asked
    ]


def used_problems(
    source: BundleSource, catalogs: Iterable[str], *, stored: bool = False
) -> list[tuple[str, Sequence[LoadProblem], str]]:
    """(name, load problems, where ``deppy catalog problems`` lists them) of each of
    ``catalogs`` — those an answer used — that was loaded with problems, each once. A stored
    catalog's problems are listed when it is added or refreshed; other commands say them only
    for the catalogs their answer used (:func:`problem_notes`, :func:`problem_lines_of`).
    ``stored``: ``source`` holds stored catalogs read whole (a server's), listed by name."""
    from deppy.catalog.catalog_set import CatalogSet

    found = []
    for name in dict.fromkeys(catalogs):
        if isinstance(source, CatalogSet):
            if name not in source.names():
                continue
            catalog = source.catalog(name)
            problems: Sequence[LoadProblem] = catalog.problems
            where = str(catalog.path) if catalog.path and not stored else name
        else:
            problems_of = getattr(source, "problems_of", None)
            if problems_of is None:
                continue
            problems, where = problems_of(name)
        if problems:
            found.append((name, problems, shown_path(where)))
    return found


def problem_notes(
    source: BundleSource, catalogs: Iterable[str], *, stored: bool = False
) -> list[str]:
    """The load problems of the catalogs an answer used, one warning each (no ``deppy:
    warning:``), as machine formats carry them in their ``warnings``."""
    return [
        f"catalog {name}: {problems_what(problems)}: deppy catalog problems {where}"
        for name, problems, where in used_problems(source, catalogs, stored=stored)
    ]


def problem_lines_of(source: BundleSource, catalogs: Iterable[str]) -> list[str]:
    """The same as lines for people on stderr, each within a screen's width."""
    return [
        line
        for name, problems, where in used_problems(source, catalogs)
        for line in problems_lines(name, problems, where)
    ]


def _report_stored(store: Store, report: Report, names: Sequence[str]) -> None:
    """The problem lines of the stored catalogs read (all when ``names`` is empty)."""
    for summary in store.list():
        if summary.problems and (not names or summary.name in names):
            for line in problems_lines(summary.name, store.problems(summary.name), summary.name):
                report(line)


def problems_what(problems: Sequence[LoadProblem]) -> str:
    return ", ".join(_problem_parts(problems))


def _problem_parts(problems: Sequence[LoadProblem]) -> list[str]:
    """What a load did with its problems, in words: "3 invalid objects skipped", "10 channel
    entries kept without their skipRange" (an unreadable skipRange costs the range, not the
    entry), or both."""
    kept: Counter[tuple[str, str, str]] = Counter()
    skipped = 0
    for problem in problems:
        if problem.kept is None:
            skipped += 1
        else:
            kept[problem.kept] += 1
    parts = []
    if skipped:
        parts.append(f"{skipped} invalid object{'' if skipped == 1 else 's'} skipped")
    for (one, many, lost), count in kept.items():
        parts.append(
            f"1 {one} kept without its {lost}"
            if count == 1
            else f"{count} {many} kept without their {lost}"
        )
    return parts


def problems_lines(name: str, problems: Sequence[LoadProblem], where: str) -> list[str]:
    """What a command prints for a catalog loaded with problems: one line, or two when the
    command that lists them does not fit on it (no line longer than a screen's 100 columns
    unless a path is)."""
    listing = f"deppy catalog problems {where}"
    return _fitted(f"deppy: warning: catalog {name}:", _problem_parts(problems), listing)


def _fitted(head: str, parts: list[str], tail: str = "") -> list[str]:
    """``head parts: tail`` on one line if it fits a screen's width, else the tail on a line of
    its own; then, when even that is too wide, the parts on lines of their own (no tail: a
    listing after adding a catalog) or counted in fewer words (a warning before an answer)."""
    what = ", ".join(parts)
    one = f"{head} {what}" + (f": {tail}" if tail else "")
    if len(one) <= SCREEN_WIDTH:
        return [one]
    if not tail:
        return [head, *(f"  {part}" for part in parts)]
    counts = [int(part.split(" ", 1)[0]) for part in parts]
    skipped = counts[0] if "skipped" in parts[0] else 0
    kept = sum(counts) - skipped
    brief = (
        f"{sum(counts)} load problems ("
        + ", ".join(
            text
            for n, text in ((skipped, f"{skipped} skipped"), (kept, f"{kept} kept in part"))
            if n
        )
        + ")"
    )
    for line in (f"{head} {brief}: {tail}", f"{head} {what}", f"{head} {brief}"):
        if len(line) <= SCREEN_WIDTH:
            return [line] if line.endswith(tail) else [line, f"  (see: {tail})"]
    return [f"{head} {brief}", f"  (see: {tail})"]


def report_problems(
    catalog: Catalog, report: Report, *, listed: bool = True, where: str | None = None
) -> None:
    """The objects a load skipped: when a catalog is added or refreshed (``listed``), a count
    and the first few; otherwise one line naming the command that lists them (``where`` is
    the catalog's name or path for that command). An empty catalog is said in one line."""
    if not catalog.bundles and not catalog.problems:
        report(_EMPTY.format(catalog.name))
    if not catalog.problems:
        return
    count = len(catalog.problems)
    if not listed:
        for line in problems_lines(catalog.name, catalog.problems, where or catalog.name):
            report(line)
        return
    for line in _fitted(
        f"deppy: warning: catalog {catalog.name}:", _problem_parts(catalog.problems)
    ):
        report(line)
    for problem in catalog.problems[:SHOWN_PROBLEMS]:
        report(f"  {problem}")
    if count > SHOWN_PROBLEMS:
        more = count - SHOWN_PROBLEMS
        report(f"  … and {more} more: deppy catalog problems {where or catalog.name}")


def unknown_package(source: BundleSource, package: str, where: str) -> InputError:
    """The error for a package no catalog has: which catalogs were searched, the closest names
    and how to look further."""
    from deppy.workflows.did_you_mean import where_to_look

    return InputError(
        where,
        f"no catalog ({', '.join(source.names())}) has this package",
        where_to_look(source, package),
    )
