"""The catalogs the service answers from: loaded once, kept warm, swapped when they change.

One :class:`Loaded` generation serves every request until a newer one replaces it. A reload is
noticed by a fingerprint — the store's generation (bumped by each command that changes it, never
by one that reads it), or every file under the ``--catalog`` paths by size and modification
time — looked at every few seconds and on ``POST
/api/v1/catalogs/reload``; the new generation is loaded aside while the old one keeps answering.
A stored source holds a read transaction, so a generation is closed only once the last request
using it has finished (``lease``).

Two promises hold for the server's whole life. ``--catalog NAME@N`` serves exactly those
earlier contents: they are read once (answering as NAME, as the store's own source has them)
and kept, since a later refresh renames them ``NAME@N+1`` and a prune drops them. And a server
that has answered from the store never falls back to the embedded example: once the last
stored catalog is removed it answers that no catalog is stored until one is added again.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deppy.catalog.catalog_set import BundleSource, CatalogSet
from deppy.catalog.model import Catalog
from deppy.errors import DeppyError
from deppy.resolution.request_parsing import CatalogSpec
from deppy.service.problems import Problem
from deppy.store.schema import base_name, is_history_name
from deppy.workflows.catalog_loading import EMBEDDED, Report, load_catalogs

Fingerprint = tuple[object, ...]
ANSWERS_KEPT = 512
log = logging.getLogger("deppy.service")


@dataclass(slots=True, eq=False)
class Loaded:
    """One generation of catalogs, with what was computed from it (catalog checks)."""

    source: BundleSource
    generation: int
    origin: str  # store | paths | embedded
    fingerprint: Fingerprint
    loaded_at: float
    catalogs: tuple[dict[str, Any], ...]
    no_catalog_stored: bool = False  # the store was emptied under a server that answered from it
    users: int = 0
    retired: bool = False
    closed: bool = False
    answers: dict[tuple[str, ...], bytes] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def remember(self, key: tuple[str, ...], compute: Callable[[], bytes]) -> bytes:
        """An answer computed once per generation (catalogs never change within one): the
        pages people browse — search, package, graph, catalog check — stay cheap under load."""
        with self.lock:
            found = self.answers.get(key)
        if found is not None:
            return found
        answer = compute()
        with self.lock:
            if len(self.answers) >= ANSWERS_KEPT:
                self.answers.pop(next(iter(self.answers)))
            self.answers[key] = answer
        return answer

    def close(self) -> None:
        self.closed = True
        close = getattr(self.source, "close", None)
        if close is not None:
            close()


def _store_state(home: Path) -> Fingerprint:
    """The store's generation (see :meth:`deppy.store.Store.generation`): bumped by the
    commands that change it, untouched by the ones that read it. Its files are no guide — a
    reading ``deppy search`` makes the -wal and -shm files come and go."""
    from deppy.store import Store

    try:
        return ("store", Store(home).generation())
    except DeppyError as error:  # damaged or busy: tried again, and said, by the reload
        return ("unreadable", str(error))


def fingerprint(specs: tuple[CatalogSpec, ...], home: Path) -> Fingerprint:
    """What says the catalogs changed: the store's generation (for the stored catalogs, or
    the ones named), and the size and modification time of every file under the
    ``--catalog`` paths."""
    if not specs:
        return _store_state(home)
    found: list[object] = []
    for spec in specs:
        if earlier_contents(spec):  # never change: read once and kept (CatalogState)
            continue
        if not os.path.exists(spec.path):  # a stored catalog's name (or a URL)
            if not found or found[0] != "named":
                found[:0] = ["named", _store_state(home)]
            continue
        for root, dirs, files in os.walk(spec.path):
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(root, name)
                try:
                    stat = os.stat(path)
                except OSError:
                    continue
                found.append((path, stat.st_size, stat.st_mtime_ns))
        if os.path.isfile(spec.path):
            stat = os.stat(spec.path)
            found.append((spec.path, stat.st_size, stat.st_mtime_ns))
    return tuple(found)


def earlier_contents(spec: CatalogSpec) -> bool:
    """Whether ``spec`` names a stored catalog's earlier contents (``NAME@N``)."""
    return is_history_name(spec.path) and not os.path.exists(spec.path)


def warm(source: BundleSource, home: Path) -> CatalogSet:
    """The stored catalogs read whole into memory, once: a stored source reads each package
    when first asked, and re-reads every bundle for a search; a server asked many questions
    is better off paying once (the store gives back exactly what was added)."""
    if isinstance(source, CatalogSet):
        return source
    from deppy.store import Store, StoreSource

    store = Store(home)
    assert isinstance(source, StoreSource)
    try:  # each as the source has it: NAME@1, when named, answering as NAME
        return CatalogSet(
            [
                store.load_catalog(source.stored_name(name), answering_as=name)
                for name in source.names()
            ]
        )
    finally:
        close = getattr(source, "close", None)
        if close is not None:
            close()


def describe_catalogs(
    source: CatalogSet, from_store: bool
) -> tuple[str, tuple[dict[str, Any], ...]]:
    """Where the catalogs came from, and one summary per catalog, most preferred first."""
    rows = []
    for name in source.names():
        catalog = source.catalog(name)
        rows.append(
            {
                "name": name,
                "priority": catalog.priority,
                "packages": len(catalog.packages),
                "bundles": len(catalog.bundles),
                "problems": len(catalog.problems),
                "path": str(catalog.path),
            }
        )
    if from_store:
        return "store", tuple(rows)
    return ("embedded" if source.names() == [EMBEDDED] else "paths"), tuple(rows)


class CatalogState:
    """The current generation, and the reloading of it."""

    def __init__(self, specs: tuple[CatalogSpec, ...], store: Path | None = None) -> None:
        from deppy.store.location import store_home

        self.specs = specs
        self.store = store if store is not None else store_home()  # fixed for the process
        self._lock = threading.Lock()
        self._reloading = threading.Lock()
        self._current: Loaded | None = None
        self._generation = 0
        self.last_error: str | None = None
        self.report: Report | None = None  # hears objects skipped as invalid
        self.reloads = 0  # new generations after the first (metrics)
        self.reload_failures = 0
        self._kept: tuple[Catalog, ...] | None = None  # NAME@N specs' contents, read once
        self._answered_from_store = False  # never the embedded example after that

    def load(self) -> Loaded:
        """Load the catalogs now and make them current (the first load raises its error)."""
        with self._reloading:
            return self._load()

    def _load(self) -> Loaded:
        mark = fingerprint(self.specs, self.store)
        source, origin, rows = self._fresh()
        emptied = origin == "store" and not rows
        if origin == "store" and not self.specs:
            self._answered_from_store = True
        with self._lock:
            self._generation += 1
            loaded = Loaded(source, self._generation, origin, mark, time.time(), rows, emptied)
            old, self._current = self._current, loaded
            if old is not None:
                old.retired = True
                if old.users == 0:
                    old.close()
        self.last_error = None
        return loaded

    def _fresh(self) -> tuple[CatalogSet, str, tuple[dict[str, Any], ...]]:
        """The catalogs read now, where they come from, and a row per catalog. After the first
        load, ``NAME@N`` specs are the contents read then, and the rest is read again."""
        kept, current = self._kept, self._current
        if kept is not None and current is not None:
            rest = [spec for spec in self.specs if not earlier_contents(spec)]
            fresh = self._read(rest)[0].catalogs if rest else ()
            source = CatalogSet([*kept, *fresh])
            return source, current.origin, describe_catalogs(source, False)[1]
        source, from_store = self._read(list(self.specs))
        if any(earlier_contents(spec) for spec in self.specs):
            names = set(source.names())
            self._kept = tuple(
                source.catalog(name)
                for spec in self.specs
                if earlier_contents(spec)
                for name in (base_name(spec.path), spec.path)
                if name in names
            )
        return source, *describe_catalogs(source, from_store)

    def _read(self, specs: list[CatalogSpec]) -> tuple[CatalogSet, bool]:
        """``specs``' catalogs whole in memory, and whether the store gave them."""
        found = load_catalogs(
            specs,
            store=self.store,
            report=self.report,
            one_shot=False,
            example=not self._answered_from_store,
        )
        source = warm(found, self.store)
        return source, source is not found or (not specs and not source.names())

    def reload_if_changed(self) -> bool:
        """Load a new generation if the files changed; a failed load keeps the old one."""
        with self._reloading:
            current = self._current
            if current is not None and fingerprint(self.specs, self.store) == current.fingerprint:
                return False
            try:
                loaded = self._load()
            except DeppyError as error:
                self.last_error = str(error)
                self.reload_failures += 1
                log.warning(
                    "catalog reload failed, still serving generation %s: %s",
                    current.generation if current is not None else "none",
                    error,
                    extra={"reason": "ReloadFailed"},
                )
                return False
            self.reloads += 1
            log.info(
                "catalogs reloaded: generation %d (%s)",
                loaded.generation,
                ", ".join(f"{r['name']} {r['bundles']} bundles" for r in loaded.catalogs),
                extra={"reason": "Reloaded"},
            )
            return True

    @property
    def current(self) -> Loaded | None:
        return self._current

    @contextmanager
    def lease(self, listing: bool = False) -> Iterator[Loaded]:
        """The current generation, kept open until the ``with`` block ends; one with no
        catalog stored answers nothing but the catalog list (``listing``)."""
        with self._lock:
            loaded = self._current
            if loaded is None:
                raise Problem(
                    503, "the catalogs are still loading", fix="try again shortly", kind="loading"
                )
            if loaded.no_catalog_stored and not listing:
                raise no_catalog_stored()
            loaded.users += 1
        try:
            yield loaded
        finally:
            with self._lock:
                loaded.users -= 1
                if loaded.retired and loaded.users == 0:
                    loaded.close()

    def close(self) -> None:
        with self._lock:
            if self._current is not None:
                self._current.retired = True
                if self._current.users == 0:
                    self._current.close()


NO_CATALOG_STORED = "no catalog is stored (the last one was removed)"
ADD_ONE = (
    "add one with 'deppy catalog add NAME PATH': this service loads it at its next look "
    "(--reload-interval) or at POST /api/v1/catalogs/reload"
)


def no_catalog_stored() -> Problem:
    """The answer of a server whose store was emptied under it: nothing to answer from."""
    return Problem(503, NO_CATALOG_STORED, fix=ADD_ONE, kind="no-catalog-stored")


class Watcher:
    """Looks at the catalogs' files every ``interval`` seconds until stopped."""

    def __init__(self, state: CatalogState, interval: float) -> None:
        self.state = state
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="deppy-catalog-watch", daemon=True)

    def start(self) -> None:
        if self.interval > 0:
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.state.reload_if_changed()
