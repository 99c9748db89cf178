"""The catalogs the controller has loaded: the last good content of each, and its health.

This is the controller's only state besides kopf's, and it is a cache: every replica rebuilds it
from the Catalog objects. A catalog that fails to load keeps serving its last good content: an
outage changes no answer. Resolutions that use it say so (``CatalogStale`` True, naming the
catalog, the error and when its content was loaded). Only a catalog without content — deleted,
or never loaded — is unavailable (``CatalogUnavailable``; the last result stays). The set of
catalogs a resolution sees is built once per combination of contents and reused.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.model import Catalog
from deppy.controller.catalogs.changes import affected_packages

_SETS_KEPT = 8


@dataclass
class CatalogEntry:
    name: str
    catalog: Catalog | None = None
    digest: str = ""
    error: str | None = None  # why it is unavailable now (None: healthy)
    loaded_at: str = ""
    # content this process never had, though the Catalog's status says an earlier controller
    # served it (a restart while the source is down): the answers made from it are kept as they
    # are, neither re-answered nor marked unavailable, until it loads
    served_before: bool = False
    kind: str = "Catalog"  # or ClusterCatalog (OLM v1's): both are named alike in requests
    content: str = ""  # sha256 of the bytes loaded (a ClusterCatalog's digest is its image's)


@dataclass(frozen=True, slots=True)
class CatalogView:
    """What one resolution may use: the catalogs, what it used (name, digest), what is missing."""

    source: CatalogSet | None
    used: tuple[tuple[str, str], ...]
    unavailable: tuple[tuple[str, str], ...]  # (name, why)
    stale: tuple[tuple[str, str, str], ...] = ()  # (name, why, loaded at): last good content
    waiting: tuple[str, ...] = ()  # served before this process, not loaded by it yet

    def waits_for(self, names: Iterable[str | None]) -> bool:
        """An answer using ``names`` (None among them: any catalog) must wait, not change."""
        wanted = set(names)
        return bool(self.waiting) and (None in wanted or bool(wanted & set(self.waiting)))

    def staleness(self, names: Iterable[str | None] | None = None) -> tuple[bool, str, str]:
        """The ``CatalogStale`` condition (status, reason, message) of an answer that used the
        catalogs ``names`` (None: every catalog of the view)."""
        wanted = None if names is None else set(names)
        found = [s for s in self.stale if wanted is None or s[0] in wanted]
        if not found:
            return False, "Fresh", ""
        text = "; ".join(
            f"catalog {name} fails to load ({why}): answered from its content loaded at {when}"
            for name, why, when in found
        )
        return True, "LoadFailed", text


@dataclass
class CatalogCache:
    entries: dict[str, CatalogEntry] = field(default_factory=dict)
    deleted: set[str] = field(default_factory=set)  # for messages only
    _sets: OrderedDict[tuple[tuple[str, str, int], ...], CatalogSet] = field(
        default_factory=OrderedDict
    )
    _lock: threading.Lock = field(default_factory=threading.Lock)
    # per catalog, the packages its latest new content may move answers for (``changes``),
    # until ``take_change``; None: any answer may move
    _changes: dict[str, frozenset[str] | None] = field(default_factory=dict)

    def take_change(self, name: str) -> frozenset[str] | None:
        """The packages the latest change of ``name`` may move answers for, once; None (any
        answer may move) when it is not known: a deletion, a failure, a first load, or a second
        change whose record the first one's handler already took."""
        with self._lock:
            return self._changes.pop(name, None)

    def loaded(
        self,
        name: str,
        catalog: Catalog,
        digest: str,
        when: str,
        kind: str = "Catalog",
        content: str = "",
    ) -> None:
        before = self.entries.get(name)
        affected = affected_packages(before.catalog if before is not None else None, catalog)
        with self._lock:
            self._changes[name] = affected
            self.deleted.discard(name)
            self.entries[name] = CatalogEntry(
                name, catalog, digest, None, when, kind=kind, content=content
            )
            self._forget_sets(name)

    def _forget_sets(self, name: str) -> None:
        """Drop the sets built from an earlier content of ``name``: no view asks for them
        again, and each holds a whole catalog's content (a ClusterCatalog's digest can change
        often, its content with it)."""
        current = self.entries.get(name)
        for key in [k for k in self._sets if any(n == name for n, _, _ in k)]:
            if (
                current is None
                or current.catalog is None
                or (name, current.digest) not in {(n, d) for n, d, _ in key}
            ):
                del self._sets[key]

    def withdrawn(self, name: str, why: str, kind: str) -> None:
        """No content to serve, on purpose (an OLM v1 ClusterCatalog made unavailable, or not
        serving before it ever loaded): answers naming it are ``CatalogUnavailable``, ``why``."""
        with self._lock:
            self.entries[name] = CatalogEntry(name, error=why, kind=kind)
            self._forget_sets(name)

    def kind_of(self, name: str) -> str | None:
        entry = self.entries.get(name)
        return entry.kind if entry is not None else None

    def names_of_kind(self, kind: str) -> list[str]:
        """Names of the catalogs of ``kind`` with content to serve."""
        return sorted(
            n for n, e in self.entries.items() if e.kind == kind and e.catalog is not None
        )

    def reprioritised(self, name: str, priority: int) -> bool:
        """Keep the content, change its priority; False when there is no content."""
        with self._lock:
            entry = self.entries.get(name)
            if entry is None or entry.catalog is None:
                return False
            if entry.catalog.priority != priority:
                entry.catalog = dataclasses.replace(entry.catalog, priority=priority)
            return True

    def failed(
        self, name: str, why: str, *, served_before: bool = False, kind: str = "Catalog"
    ) -> CatalogEntry:
        with self._lock:
            entry = self.entries.setdefault(name, CatalogEntry(name, kind=kind))
            entry.error = why
            entry.served_before = served_before and entry.catalog is None
            return entry

    def removed(self, name: str) -> None:
        with self._lock:
            self.entries.pop(name, None)
            self.deleted.add(name)
            self._forget_sets(name)

    def state(self) -> tuple[tuple[object, ...], ...]:
        """What every answer may depend on, in a form ``==`` compares: each catalog's content
        (digest), priority and health."""
        with self._lock:
            return tuple(
                (n, e.digest, e.error, e.served_before, e.catalog.priority if e.catalog else None)
                for n, e in sorted(self.entries.items())
            )

    def digest(self, name: str) -> str:
        entry = self.entries.get(name)
        return entry.digest if entry is not None else ""

    def names(self) -> list[str]:
        return sorted(n for n, e in self.entries.items() if e.catalog is not None)

    def view(self, sources: Sequence[str]) -> CatalogView:
        """The catalogs named in ``sources`` (all known ones when empty); one that fails to load
        now serves its last good content, and is listed as stale."""
        with self._lock:
            wanted = list(dict.fromkeys(sources)) or sorted(
                n for n, e in self.entries.items() if e.catalog is not None or e.error
            )
            unavailable: list[tuple[str, str]] = []
            waiting: list[str] = []
            usable: list[CatalogEntry] = []
            for name in wanted:
                entry = self.entries.get(name)
                if entry is None:
                    why = (
                        "the Catalog was deleted"
                        if name in self.deleted
                        else "no such Catalog or ClusterCatalog"
                    )
                    unavailable.append((name, why))
                elif entry.catalog is None and entry.served_before:
                    waiting.append(name)
                elif entry.catalog is None:
                    unavailable.append((name, entry.error or "not loaded yet"))
                else:
                    usable.append(entry)
            used = tuple((e.name, e.digest) for e in usable)
            stale = tuple((e.name, e.error, e.loaded_at) for e in usable if e.error is not None)
            if not usable:
                return CatalogView(None, used, tuple(unavailable), stale, tuple(waiting))
            key = tuple((e.name, e.digest, e.catalog.priority) for e in usable if e.catalog)
            found = self._sets.get(key)
            if found is None:
                found = CatalogSet(e.catalog for e in usable if e.catalog is not None)
                self._sets[key] = found
                while len(self._sets) > _SETS_KEPT:
                    self._sets.popitem(last=False)
            else:
                self._sets.move_to_end(key)
            return CatalogView(found, used, tuple(unavailable), stale, tuple(waiting))
