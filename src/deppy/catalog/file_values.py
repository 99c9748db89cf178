"""CSV metadata left in the catalog file it was read from, read again only when asked.

A bundle's ``olm.csv.metadata`` (descriptions, CRD descriptions, alm-examples) is three
quarters of a catalog's bytes, and a resolution reads almost none of it: the loader takes what
resolving needs from it (minKubeVersion, the olm.properties annotation) while the object is
parsed. A command that answers and exits therefore need not hold the rest: for a bundle read
from a JSON stream it keeps a :class:`FileValue` — the file, where the object's text lies in it,
which property — and reads that text again when something asks (``show``, search rows, the
cache entry written after the answer). Holding every metadata value took a 10x community
catalog's first ``resolve --catalog`` to ~480 MB, sharing equal parts of them cost ~1.5 s of
hashing, and sending them from the parsing worker cost another second.

A catalog file changed after it was read is noticed (its size, times and inode are checked when
it is opened again) and reading stops with an :class:`~deppy.errors.InputError` saying so:
values are never taken from a file other than the one the catalog was loaded from. That is why
only one-shot commands load catalogs this way; a server keeps its catalogs' values in memory.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any, Final

import orjson

from deppy.errors import InputError

FileOrigin = tuple[str, int, int, int, int, int]
"""A file as it was read: its path and :func:`file_identity`."""

_OPEN_LIMIT: Final = 16


def file_identity(stat: os.stat_result) -> tuple[int, int, int, int, int]:
    """What tells a file's content apart without reading it: size, modification and change
    times (ns), inode, device (the parsed-catalog cache keys its entries by it too)."""
    return (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, stat.st_dev)


def file_origin(path: str, stat: os.stat_result) -> FileOrigin:
    return (path, *file_identity(stat))


class FileValue(Mapping[str, Any]):
    """The value of property ``index`` of the JSON object at ``start:end`` of a file, read on
    first use and kept (:meth:`load` reads a fresh copy without keeping it: a writer that walks
    every bundle once holds one value at a time)."""

    __slots__ = ("_value", "end", "index", "origin", "start")

    def __init__(self, origin: FileOrigin, start: int, end: int, index: int) -> None:
        self.origin = origin
        self.start = start
        self.end = end
        self.index = index
        self._value: dict[str, Any] | None = None

    def __reduce__(self) -> tuple[Any, ...]:  # where it lies, never what it holds
        return (FileValue, (self.origin, self.start, self.end, self.index))

    def load(self) -> dict[str, Any]:
        """The value: the one kept when read before, else read from the file now and not kept."""
        if self._value is not None:
            return self._value
        path = self.origin[0]
        data = os.pread(_opened(self.origin), self.end - self.start, self.start)
        try:
            value = orjson.loads(data)["properties"][self.index]
            if value.get("type") != "olm.csv.metadata" or type(value["value"]) is not dict:
                raise ValueError(value.get("type"))
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            raise _changed(path) from None
        result: dict[str, Any] = value["value"]
        return result

    def _loaded(self) -> dict[str, Any]:
        if self._value is None:
            self._value = self.load()
        return self._value

    def __getitem__(self, key: str) -> Any:
        return self._loaded()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())

    def __repr__(self) -> str:  # as the dict it stands for prints (catalog digests use it)
        return repr(self._loaded())


def plain(value: Any) -> Any:
    """``value`` as the parser gave it: a :class:`FileValue` read, anything else as it is —
    for whatever serialises property values (JSON output, the store, gRPC, CEL)."""
    return value.load() if type(value) is FileValue else value


_OPEN: dict[FileOrigin, int] = {}
"""Descriptors of files opened again (pread needs no shared offset, so a forked writer may use
them too)."""


def _opened(origin: FileOrigin) -> int:
    """A descriptor of the file, checked to be the file as it was read (on every use: a file
    rewritten in place keeps its descriptor but not its times)."""
    path = origin[0]
    fd = _OPEN.get(origin)
    if fd is not None:
        if file_origin(path, os.fstat(fd)) == origin:
            return fd
        os.close(_OPEN.pop(origin))
        raise _changed(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        raise InputError(
            path, f"cannot be read again: {err.strerror}", "run the command again"
        ) from None
    if file_origin(path, os.fstat(fd)) != origin:
        os.close(fd)
        raise _changed(path)
    if len(_OPEN) >= _OPEN_LIMIT:
        oldest = next(iter(_OPEN))
        os.close(_OPEN.pop(oldest))
    _OPEN[origin] = fd
    return fd


def _changed(path: str) -> InputError:
    return InputError(
        path, "the catalog file changed while deppy was reading it", "run the command again"
    )
