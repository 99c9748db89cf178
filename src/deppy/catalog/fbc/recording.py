"""One file's objects read into model values and recorded in order, to be merged in file order.

Reading an object (its fields checked, its properties interpreted) is most of a load's time and
depends on nothing outside the object, while what counts as a duplicate depends on the files
read before. So each file is *recorded* — its problems and its model values, in the order a
sequential load meets them — by whichever process reads it, and the records are *merged* in
file order (:meth:`deppy.catalog.fbc._Loader.merge`), where duplicates are found. The catalog
is the same whether one process recorded every file or two processes shared them.

A record is plain tuples of model values: a helper process sends it back pickled, which costs
a tenth of reading the objects again, and keeps no raw document it does not need.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from deppy.catalog.fbc.files import Doc
from deppy.catalog.fbc.objects import (
    SCHEMA_BUNDLE,
    SCHEMA_CHANNEL,
    SCHEMA_DEPRECATIONS,
    SCHEMA_PACKAGE,
    ObjectReader,
    describe,
    req_text,
)
from deppy.catalog.file_values import FileOrigin
from deppy.catalog.model import Channel, Deprecation

PROBLEM: Final = 0  # (PROBLEM, object, why)
PACKAGE: Final = 1  # (PACKAGE, package, what)
CHANNEL: Final = 2  # (CHANNEL, channel, where, what)
BUNDLE: Final = 3  # (BUNDLE, bundle, what)
DEPRECATIONS: Final = 4  # (DEPRECATIONS, package, source, what, entries or None, inner events)
OTHER: Final = 5  # (OTHER, schema)

Event = tuple[Any, ...]
FileRecord = tuple[str, list[Event]]
"""The file's name as problems give it, and what it held, in order."""


class Recorder:
    """Records the files of one catalog (``root``, loaded as ``name``); ``file_backed``: CSV
    metadata read from a JSON stream is left in its file (:mod:`deppy.catalog.file_values`),
    for commands that answer and exit."""

    def __init__(self, root: Path, name: str, *, file_backed: bool = False) -> None:
        self.file_backed = file_backed
        self.reader = ObjectReader(root, name, self._report)
        self._events: list[Event] = []
        self._file = ""

    def _report(self, obj: str, why: str) -> None:
        self._events.append((PROBLEM, obj, why))

    def record(
        self,
        file: str,
        file_dir: Path,
        docs: list[Doc],
        problems: list[tuple[str, str]],
        origin: FileOrigin | None = None,
    ) -> FileRecord:
        """The record of one file named ``file`` (refs resolve from ``file_dir``): its
        ``problems`` met while splitting and parsing it, then its documents' objects.
        ``origin``: the file these documents' spans point into, as it was read."""
        events: list[Event] = [(PROBLEM, where, why) for where, why in problems]
        self._events = events
        self._file = file
        self.reader.file_dir = file_dir
        self.reader.origin = origin if self.file_backed else None
        for doc in docs:
            self._add(doc)
        self._events = []
        return file, events

    def _source(self, doc: Doc) -> str:
        return f"{self._file}:{doc.line}" if doc.line is not None else f"{self._file} ({doc.where})"

    def _add(self, doc: Doc) -> None:
        obj = doc.obj
        if obj is None:
            return
        events = self._events
        if not isinstance(obj, dict):
            events.append(
                (
                    PROBLEM,
                    doc.where,
                    f"not an FBC object (a {type(obj).__name__}, not a mapping); FBC files hold "
                    "JSON objects or YAML mappings with a 'schema' field — remove the file or "
                    "add it to .indexignore",
                )
            )
            return
        schema = obj.get("schema")
        if not isinstance(schema, str) or not schema:
            events.append(
                (
                    PROBLEM,
                    doc.where,
                    "object has no 'schema' field; give it one (olm.package, olm.channel, "
                    "olm.bundle ...) or add the file to .indexignore",
                )
            )
            return
        if schema not in _KNOWN:
            events.append((OTHER, schema))
            return
        what = describe(schema, obj, doc)
        try:
            if schema == SCHEMA_BUNDLE:
                bundle = self.reader.bundle(obj, doc, self._source(doc))
                if bundle is not None:
                    events.append((BUNDLE, bundle, what))
            elif schema == SCHEMA_CHANNEL:
                package = req_text(obj, "package", "name the channel's package")
                name = req_text(obj, "name", "name the channel")
                entries = self.reader.channel_entries(obj, what)
                channel = Channel(package, name, entries, self._source(doc))
                events.append((CHANNEL, channel, doc.where, what))
            elif schema == SCHEMA_PACKAGE:
                events.append((PACKAGE, self.reader.package(obj, self._source(doc)), what))
            else:
                self._add_deprecations(obj, doc, what)
        except ValueError as err:
            events.append((PROBLEM, what, f"{err}; the object is skipped"))

    def _add_deprecations(self, obj: dict[str, Any], doc: Doc, what: str) -> None:
        """Its entries' problems are kept apart: a second olm.deprecations of a package is
        refused before its entries are read, and only the merge knows which one is second."""
        package = req_text(obj, "package", "name the package the deprecations are for")
        outer = self._events
        inner: list[Event] = []
        self._events = inner
        found: list[Deprecation] | None = None
        try:
            found = self.reader.deprecations(obj, package, doc)
        except ValueError as err:
            inner.append((PROBLEM, what, f"{err}; the object is skipped"))
        finally:
            self._events = outer
        outer.append((DEPRECATIONS, package, self._source(doc), what, found, inner))


_KNOWN: Final = frozenset((SCHEMA_BUNDLE, SCHEMA_CHANNEL, SCHEMA_PACKAGE, SCHEMA_DEPRECATIONS))
