"""Load a File-Based Catalog (FBC) the way operator-registry reads one, but without giving up.

opm stops at the first bad object; a resolver that refuses a whole catalog because one of its
thousands of bundles is broken is of little use, so this loader keeps every valid object and turns
each invalid one into a :class:`LoadProblem` that names the file, the object and the fix. What
counts as a file, an object and a valid value follows operator-registry (``alpha/declcfg``):

* every regular file under the root is read, except ``.indexignore`` files and what they ignore;
* a file whose first non-blank character is ``{`` is a JSON stream, any other a YAML stream;
* ``olm.package``, ``olm.channel``, ``olm.bundle`` and ``olm.deprecations`` are understood, other
  schemas are counted and ignored, objects without a schema are problems.

Speed matters (a full community index is tens of megabytes): files are parsed once with orjson
or libyaml, parsed values are kept as they are, and versions and APIs are parsed once per text.
Here: the loader and its entry points; one object's fields in ``objects``, a file's objects
recorded in order in ``recording`` (merged here, in file order), checks across objects in
``checks``, which files and documents in ``files``, files read on two cores in ``parsing``,
and what is kept between runs in ``cache``.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from deppy.catalog.fbc.cache import ParsedCache
from deppy.catalog.fbc.checks import CatalogObjects, RawChannel
from deppy.catalog.fbc.files import Doc, catalog_files, read_docs
from deppy.catalog.fbc.parsing import file_records
from deppy.catalog.fbc.recording import (
    BUNDLE,
    CHANNEL,
    DEPRECATIONS,
    PACKAGE,
    PROBLEM,
    FileRecord,
    Recorder,
)
from deppy.catalog.model import Catalog, LoadProblem
from deppy.errors import InputError, not_a_file

__all__ = ["load_catalog", "load_catalog_documents"]


class _Loader(CatalogObjects):
    """Merges the records of one catalog's files in file order; :meth:`finish` checks across
    them."""

    def __init__(self, root: Path, name: str, priority: int, *, file_backed: bool = False) -> None:
        super().__init__()
        self.root = root
        self.name = name
        self.priority = priority
        self.others: dict[str, int] = {}
        self.recorder = Recorder(root, name, file_backed=file_backed)

    def load_bytes(self, label: str, data: bytes, suffix: str) -> None:
        """One file's content, named ``label`` in problems; ``suffix`` hints JSON or YAML."""
        file_problems: list[tuple[str, str]] = []
        docs = read_docs(data, suffix, file_problems)
        self.merge(self.recorder.record(label, self.root, docs, file_problems))

    def merge(self, record: FileRecord) -> None:
        """Add one file's record: what a sequential load of the file would have added."""
        file, events = record
        problems = self.problems
        for event in events:
            kind = event[0]
            if kind == PROBLEM:
                problems.append(LoadProblem(file, event[1], event[2]))
            elif kind == BUNDLE:
                bundle = event[1]
                self._first(self.bundles, bundle.key, bundle, file, event[2], "remove one")
            elif kind == CHANNEL:
                raw = RawChannel(event[1], file, Doc(event[2], None, None))
                self._first(
                    self.channels, raw.channel.key, raw, file, event[3], "merge or remove one"
                )
            elif kind == PACKAGE:
                package = event[1]
                self._first(
                    self.packages, package.name, package, file, event[2], "remove one of them"
                )
            elif kind == DEPRECATIONS:
                _, package, source, what, found, inner = event
                if package in self.deprecation_sources:
                    problems.append(
                        LoadProblem(
                            file,
                            what,
                            f"second olm.deprecations for package {package}, the first is at "
                            f"{self.deprecation_sources[package]}; merge them into one; "
                            "the object is skipped",
                        )
                    )
                    continue
                self.deprecation_sources[package] = source
                problems.extend(LoadProblem(file, obj, why) for _, obj, why in inner)
                if found is not None:
                    self.deprecations[package] = found
            else:
                self.others[event[1]] = self.others.get(event[1], 0) + 1

    def _first(
        self, table: dict[Any, Any], key: object, value: object, file: str, what: str, fix: str
    ) -> None:
        """Keep ``value`` under ``key`` unless an object came first: then it is a problem."""
        first = table.setdefault(key, value)
        if first is not value:
            kind, source = (
                ("channel", first.channel.source)
                if isinstance(first, RawChannel)
                else (type(first).__name__.lower(), first.source)
            )
            why = f"duplicate {kind}, first defined at {source}; {fix}; the object is skipped"
            self.problems.append(LoadProblem(file, what, why))

    def finish(self) -> Catalog:
        self.drop_orphans()
        channels = self.check_channels()
        self.check_default_channels(channels)
        deprecations = self.check_deprecations(channels)
        return Catalog(
            name=self.name,
            priority=self.priority,
            path=str(self.root),
            packages={k: self.packages[k] for k in sorted(self.packages)},
            channels={k: channels[k] for k in sorted(channels)},
            bundles={k: self.bundles[k] for k in sorted(self.bundles)},
            deprecations=tuple(deprecations),
            problems=tuple(self.problems),
            others=dict(sorted(self.others.items())),
        )


def load_catalog(
    path: str | os.PathLike[str],
    *,
    name: str | None = None,
    priority: int = 0,
    cache: ParsedCache | None = None,
    file_backed: bool = False,
) -> Catalog:
    """Load every valid object of the File-Based Catalog at ``path`` (a directory or one file).

    Invalid objects are skipped and listed in ``Catalog.problems``. Raises :class:`InputError`
    only when the path cannot be read or when no installable bundle remains. With a ``cache``,
    an unchanged directory is read back whole and a changed one parses only its changed YAML
    files; the catalog is the same either way. ``file_backed`` (commands that answer and
    exit): CSV metadata of JSON streams stays in its files until asked for
    (:mod:`deppy.catalog.file_values`).
    """
    root = Path(path)
    if not root.exists():
        raise InputError(
            str(root), "catalog not found", "give the directory of a File-Based Catalog"
        )
    if not (root.is_dir() or root.is_file()):
        what = not_a_file(root.stat().st_mode, "a catalog directory or file")
        raise InputError(str(root), what, "give a catalog directory")
    if root.is_dir() and not os.access(root, os.R_OK | os.X_OK):
        raise InputError(str(root), "catalog directory cannot be read", "check its permissions")
    catalog_name = name if name is not None else (root.name if root.is_dir() else root.stem)
    key = cache.catalog_key(root, catalog_name, priority) if cache and root.is_dir() else None
    if cache is not None and key is not None:
        kept = _kept(cache, key)
        if kept is not None:
            return kept if file_backed else _in_memory(kept)
    loader = _Loader(root, catalog_name, priority, file_backed=file_backed)
    catalog = _loaded(loader, str(root), lambda: _load_files(loader, root, cache))
    if cache is not None and key is not None:
        cache.keep_catalog(key, catalog)
    return catalog


def _kept(cache: ParsedCache, key: str) -> Catalog | None:
    collecting = gc.isenabled()
    gc.disable()  # millions of acyclic objects: see _loaded
    try:
        return cache.catalog(key)
    finally:
        if collecting:
            gc.enable()


def _in_memory(catalog: Catalog) -> Catalog:
    """A kept catalog whose CSV metadata is still in its files (an entry a one-shot command
    wrote, see ``deppy.store.codec``), with that metadata read now: a caller that did not ask
    for a file-backed catalog holds every value, whatever becomes of the files later."""
    import dataclasses

    from deppy.catalog.file_values import FileValue
    from deppy.catalog.model import Property

    bundles = dict(catalog.bundles)
    for key, bundle in catalog.bundles.items():
        if type(bundle.csv_metadata) is not FileValue:
            continue
        value = bundle.csv_metadata.load()
        properties = tuple(
            Property(p.type, value) if p.value is bundle.csv_metadata else p
            for p in bundle.properties
        )
        bundles[key] = dataclasses.replace(bundle, properties=properties, csv_metadata=value)
    return dataclasses.replace(catalog, bundles=bundles)


def load_catalog_documents(
    files: Mapping[str, bytes], *, name: str, priority: int = 0, where: str
) -> Catalog:
    """An FBC held in memory — an HTTP response (catalogd's ``/api/v1/all``), the keys of a
    ConfigMap — each entry one file's bytes, named by its key. ``where`` names the whole source
    in errors (a URL, a ConfigMap). Same rules and problems as :func:`load_catalog`."""
    loader = _Loader(Path(where), name, priority)

    def load() -> None:
        for key in sorted(files):
            loader.load_bytes(f"{where}: {key}" if key else where, files[key], Path(key).suffix)

    return _loaded(loader, where, load)


def _load_files(loader: _Loader, root: Path, cache: ParsedCache | None) -> None:
    rels = catalog_files(root, loader.problems)
    for record in file_records(root, rels, cache, loader.recorder):
        loader.merge(record)


def _loaded(loader: _Loader, where: str, load: Callable[[], None]) -> Catalog:
    # Loading allocates millions of long-lived, acyclic objects: every cyclic-GC pass would walk
    # all of them again for nothing (it made loading ~40% slower), so the collector rests meanwhile.
    collecting = gc.isenabled()
    gc.disable()
    try:
        load()
        catalog = loader.finish()
    finally:
        if collecting:
            gc.enable()
    if not catalog.bundles and catalog.problems:  # nothing at all is an empty catalog
        first = f" (first problem: {catalog.problems[0]})" if catalog.problems else ""
        raise InputError(
            where,
            f"no valid bundle found in the catalog: {len(catalog.problems)} problems{first}",
            "point at a File-Based Catalog directory (olm.package/olm.channel/olm.bundle objects)",
        )
    return catalog
