"""Parsed catalogs kept between runs, so a second ``--catalog DIR`` reads only what changed.

Two kinds of entries, each a file of its own in the cache directory (``$DEPPY_HOME/cache``,
beside the store):

* a whole loaded catalog, keyed by the identity of every file under its root — path, size,
  modification and change times, inode — with the name, priority and path it was loaded
  under. What the file holds is the caller's choice (:class:`CatalogFiles`): a pickle here, a
  one-catalog SQLite store for the front doors (``deppy.store.cache_entries``), which a repeat
  reads lazily, only the packages it touches;
* the documents of one YAML file (JSON text), keyed by that file's identity: when a directory
  changed, only its changed YAML files are parsed again (JSON files parse at ~200 MB/s with
  orjson, as fast as their cache entry would read, so they are not kept).

Every key also holds deppy's version and the identity of the loader's own source files, so a
new deppy (or an edited checkout) never reads entries an older one wrote. Entries are written
to a temporary file and renamed into place: a run killed at any moment leaves either the old
entry or the new one, and concurrent runs at worst write the same entry twice. A damaged or
unreadable entry counts as missing: every entry carries a CRC of its bytes, checked before it is
read, and only regular files of a sane size are read at all (:mod:`.entry_checks`). The
directory is bounded (:data:`MAX_BYTES`): after a write, the least recently used entries go
until it holds 80% of that. ``deppy cache clear`` empties it.

Pickle runs code named in the file it reads: entries are read only from the cache directory of
the user's own ``DEPPY_HOME``, which is as trusted as the store beside it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

from deppy.catalog.fbc.entry_checks import (
    CHECKED,
    entry_stat,
    file_is_whole,
    read_entry,
    seal_file,
    sealed,
    touch_checked,
    unsealed,
)
from deppy.catalog.file_values import file_identity
from deppy.catalog.model import Catalog

MAX_BYTES: Final = 1 << 30
"""The cache directory's bound: a community catalog is ~30 MB pickled, a 10x one ~300 MB."""

_KEPT_AFTER_EVICTION: Final = 0.8
_STALE_TEMPORARY_SECONDS: Final = 3600
_CATALOG: Final = "catalog-"
_FILE: Final = "file-"
_TEMPORARY: Final = ".tmp-"
_NOT_ENTRIES: Final = (_TEMPORARY, CHECKED)
_WRITING: Final = "w"
_WAIT_STEP: Final = 0.02
PARSED_BYTES_PER_SECOND: Final = 60e6
"""How fast a first run reads a catalog directory on two cores (community v4.18: 72 MB in
~1.2 s): what waiting for another run's writer is weighed against."""
WRITE_SECONDS_PER_BUNDLE: Final = 0.0001
"""How long the writer takes per bundle (community v4.18: 5,572 bundles in ~0.3 s, their CSV
metadata left in the catalog files, see ``deppy.store.codec``)."""


@dataclass(frozen=True, slots=True)
class ClearedCache:
    entries: int
    size: int


class CatalogFiles(Protocol):
    """How a whole catalog is written to an entry's file and read back from it."""

    def write(self, catalog: Catalog, path: Path) -> None: ...
    def read(self, path: Path) -> Catalog: ...


class Pickled:
    """Entries as pickles (the catalog layer's own format; front doors keep catalogs as SQLite
    stores instead, see ``deppy.store.cache_entries``, which a resolution reads lazily)."""

    def write(self, catalog: Catalog, path: Path) -> None:
        with open(path, "wb") as file:
            pickle.dump(catalog, file, protocol=pickle.HIGHEST_PROTOCOL)
        seal_file(path)  # its CRC after the pickle (entry_checks)

    def read(self, path: Path) -> Catalog:
        """Read as a stream: a 10x catalog's 300 MB entry is never held as bytes beside the
        catalog it becomes; its CRC is checked first (a flipped byte in a pickle may still
        unpickle, to another catalog)."""
        if not file_is_whole(path, MAX_BYTES):
            raise ValueError("a damaged entry")
        with open(path, "rb") as file:
            catalog = pickle.load(file)
        if not isinstance(catalog, Catalog):
            raise ValueError("not a catalog")
        return catalog


class ParsedCache:
    """The cache in one directory (created on first write); whole catalogs as ``files`` says."""

    def __init__(
        self,
        directory: Path,
        max_bytes: int = MAX_BYTES,
        *,
        background: bool = False,
        files: CatalogFiles | None = None,
    ) -> None:
        self.directory = directory
        self.max_bytes = max_bytes
        self.background = background
        self.files = files if files is not None else Pickled()
        self._bytes: dict[str, int] = {}  # what the catalog of a key weighs: a parse's cost

    # -- whole catalogs ----------------------------------------------------------------------
    def catalog_key(self, root: Path, name: str, priority: int) -> str | None:
        """The key of the catalog at ``root`` as it is on disk now; None when a file under it
        cannot be looked at (then nothing is cached)."""
        try:
            files = _identities(root)
        except OSError:
            return None
        given = str(root)
        kind = type(self.files).__name__  # a pickle is no SQLite store: each has its own key
        key = _digest(("catalog", kind, given, os.path.abspath(given), name, priority, files))
        self._bytes[key] = sum(identity[0] for _, identity in files)
        return key

    def catalog_file_or_wait(self, key: str) -> Path | None:
        """:meth:`catalog_file`, or — when another run is writing this very entry and should be
        done sooner than this run would parse the catalog — the entry once it is written.

        Two runs back to back (a script calling deppy twice) used to parse the catalog twice:
        the second found no entry while the first one's writer was still at it. The writer
        names when it started and how long it expects to take in its temporary file's name
        (:meth:`_write`); the wait ends when the entry appears, the writer is gone, or parsing
        would have been quicker after all."""
        found = self.catalog_file(key)
        if found is not None:
            return found
        writer = self._writer(key)
        if writer is None:
            return None
        # Both the writer and a parse slow down alike on a busy machine: compare them as they
        # would run on an idle one (the load average per core says how much slower).
        slower = max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))
        parsing = self._bytes.get(key, 0) / PARSED_BYTES_PER_SECOND
        started, duration = writer
        if duration - (time.time() - started) / slower > parsing:
            return None  # parsing is sooner
        deadline = time.monotonic() + parsing * slower
        while time.monotonic() < deadline:
            time.sleep(_WAIT_STEP)
            found = self.catalog_file(key)
            if found is not None or self._writer(key) is None:
                return found
        return None

    def _writer(self, key: str) -> tuple[float, float] | None:
        """When a live writer of entry ``key`` started and how long it expects to take (s, as
        on an idle machine); None when no live process is writing it."""
        found = [
            (started, duration)
            for pid, started, duration in _writers_of(self.directory, _CATALOG + key)
            if _alive(pid)
        ]
        return min(found) if found else None

    def catalog_file(self, key: str) -> Path | None:
        """The file of the catalog kept under ``key``, marked as recently used; None if none."""
        path = self.directory / (_CATALOG + key)
        if not self._is_entry(path):
            return None
        if not _mark_used(path):
            return None
        return path

    def catalog(self, key: str) -> Catalog | None:
        """The catalog kept under ``key`` (waited for while another run writes it, see
        :meth:`catalog_file_or_wait`); None when missing or damaged."""
        path = self.catalog_file_or_wait(key)
        if path is None:
            return None
        try:
            return self.files.read(path)
        except Exception:  # a damaged entry is a missing one
            self.forget_catalog(key)
            return None

    def forget_catalog(self, key: str) -> None:
        """Drop an entry found damaged."""
        self._forget(_CATALOG + key)

    def keep_catalog(self, key: str, catalog: Catalog) -> None:
        """Keep a loaded catalog. With ``background`` (a command's run), a forked copy of this
        process writes it while this one goes on to answer: writing a community catalog costs
        ~1 s that the first run need not wait for (the entry appears by an atomic rename, so
        a run that starts meanwhile just parses again). The writer lets go of the caller's
        descriptors first, so a script reading the command's output through a pipe sees it
        end when the command does, not when the writer is done."""
        _reap()
        if self._writer(key) is not None:
            return  # another run is writing this very entry: one writer per entry
        if self.background and may_fork():
            with stops_held():
                try:
                    pid = os.fork()
                except OSError:
                    pid = -1
                if pid == 0:  # the writer: never returns
                    try:
                        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)
                        detach_from_caller()
                        self._keep_catalog_now(key, catalog)
                    finally:
                        os._exit(0)
                if pid > 0:
                    _WRITERS.append(pid)
                    return
        self._keep_catalog_now(key, catalog)

    def _keep_catalog_now(self, key: str, catalog: Catalog) -> None:
        duration = len(catalog.bundles) * WRITE_SECONDS_PER_BUNDLE
        self._write(_CATALOG + key, lambda path: self.files.write(catalog, path), duration)

    # -- one file's documents ----------------------------------------------------------------
    def file_key(self, path: str, stat: os.stat_result) -> str:
        return _digest(("file", os.path.abspath(path), file_identity(stat)))

    def file(self, key: str) -> bytes | None:
        """The bytes kept under ``key``; None when missing or damaged (then removed)."""
        entry = self._read(_FILE + key)
        if entry is None:
            return None
        data = unsealed(entry)
        if data is None:
            self._forget(_FILE + key)
        return data

    def has_file(self, key: str) -> bool:
        return entry_stat(self.directory / (_FILE + key), self.max_bytes) is not None

    def keep_file(self, key: str, data: bytes) -> None:
        self._write(_FILE + key, lambda path: path.write_bytes(sealed(data)))

    # -- the directory -----------------------------------------------------------------------
    def clear(self) -> ClearedCache:
        """Remove every entry (and leftover temporary file); what was removed."""
        wait_for_writers()
        entries = size = 0
        for entry in self._entries():
            try:
                os.unlink(entry.path)
            except OSError:
                continue
            if not entry.name.startswith(_NOT_ENTRIES):
                entries += 1
                size += entry.size
        return ClearedCache(entries, size)

    def usage(self) -> ClearedCache:
        """The entries held now and their size."""
        found = [e for e in self._entries() if not e.name.startswith(_NOT_ENTRIES)]
        return ClearedCache(len(found), sum(e.size for e in found))

    def _is_entry(self, path: Path) -> bool:
        """Whether ``path`` is a regular file the cache may have written (see entry_checks);
        anything else under an entry's name (a FIFO, a link, a directory, a file past the
        bound) is removed, so the entry is written again."""
        if entry_stat(path, self.max_bytes) is not None:
            return True
        if os.path.lexists(path):
            self._forget(path.name)
        return False

    def _read(self, name: str) -> bytes | None:
        path = self.directory / name
        data = read_entry(path, self.max_bytes)
        if data is None:
            self._is_entry(path)  # removed when it is no entry at all
            return None
        _mark_used(path)
        return data

    def _write(self, name: str, write: Callable[[Path], object], duration: float = 0.0) -> None:
        """An entry written by ``write`` to a temporary file, renamed into place when whole
        and within the bound; nothing when it cannot be written (a full disk, a read-only
        home, a value pickle refuses): the answer never needs the cache. The temporary file's
        name says who writes (``.tmp-PID-``) and, for a whole catalog, when it started and how
        long it expects to take (``wSTART_MS.DURATION_MS-``): runs started meanwhile wait for
        it rather than parse again. Two runs that started writing the same entry at once see
        each other: the lower pid goes on."""
        when = (
            f"{_WRITING}{time.time_ns() // 1_000_000}.{int(duration * 1000)}-" if duration else ""
        )
        temporary = self.directory / f"{_TEMPORARY}{os.getpid()}-{when}{name}"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            temporary.touch()  # at once: a writer at work can be seen (benchmarks wait for it)
            if duration and any(
                pid < os.getpid() and _alive(pid) for pid, _, _ in _writers_of(self.directory, name)
            ):
                raise _Withdrawn
            write(temporary)
            if temporary.stat().st_size > self.max_bytes * _KEPT_AFTER_EVICTION:
                raise OSError("larger than the cache may hold")
            os.replace(temporary, self.directory / name)
        except Exception:  # whatever failed (disk, SQLite, pickle), no answer needs the entry
            for leftover in (temporary, *_companions(temporary)):
                with contextlib.suppress(OSError):
                    os.unlink(leftover)
            return
        self._evict()

    def _forget(self, name: str) -> None:
        for leftover in (name, CHECKED + name):  # the entry and the mark of its last check
            with contextlib.suppress(OSError):
                os.unlink(self.directory / leftover)
        with contextlib.suppress(OSError):
            os.rmdir(self.directory / name)  # a directory under an entry's name

    def _evict(self) -> None:
        entries = self._entries()
        now = time.time()
        kept: list[_Entry] = []
        for entry in entries:
            if entry.name.startswith(_TEMPORARY):
                if now - entry.used > _STALE_TEMPORARY_SECONDS:  # left by a killed run
                    self._forget(entry.name)
            elif not entry.name.startswith(CHECKED):
                kept.append(entry)
        total = sum(e.size for e in kept)
        if total <= self.max_bytes:
            return
        for entry in sorted(kept, key=lambda e: (e.used, e.name)):
            if total <= self.max_bytes * _KEPT_AFTER_EVICTION:
                break
            self._forget(entry.name)
            total -= entry.size

    def _entries(self) -> list[_Entry]:
        found: list[_Entry] = []
        try:
            with os.scandir(self.directory) as it:
                for item in it:
                    if not item.name.startswith((_CATALOG, _FILE, _TEMPORARY, CHECKED)):
                        continue
                    try:
                        stat = item.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    used = max(stat.st_atime, stat.st_mtime)  # see _mark_used
                    found.append(_Entry(item.name, item.path, stat.st_size, used))
        except OSError:
            return []
        return found


def _mark_used(path: Path) -> bool:
    """Mark an entry recently used (the last to be evicted) by its access time alone: its
    modification and change times are part of the version its integrity check was made for,
    and the check's mark is carried over the touch (``entry_checks.touch_checked``), so a read
    never costs the next run a full check."""
    return touch_checked(path, time.time_ns())


class _Withdrawn(Exception):
    """Another run writes the same entry: this one lets it."""


def _writers_of(directory: Path, name: str) -> list[tuple[int, float, float]]:
    """(pid, start, expected duration) of each temporary file writing entry ``name``, dead
    writers too."""
    found: list[tuple[int, float, float]] = []
    suffix = "-" + name
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    for temporary in names:
        if not (temporary.startswith(_TEMPORARY) and temporary.endswith(suffix)):
            continue
        pid, _, rest = temporary[len(_TEMPORARY) :].partition("-")
        when = rest[len(_WRITING) :].partition("-")[0] if rest.startswith(_WRITING) else ""
        started, _, duration = when.partition(".")
        if pid.isdigit() and started.isdigit() and duration.isdigit():
            found.append((int(pid), int(started) / 1000, int(duration) / 1000))
    return found


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # this process's own leftover, never a writer it waits for
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def may_fork() -> bool:
    """Whether this process may fork a helper (a YAML worker, a cache writer): on a platform
    with fork, from the main thread, when every other thread is one of deppy's own daemons (a
    command's spinner) — not under ``--timeout``, whose watchdog's interrupt could land in
    fork's own handlers and be lost, nor from a service's or controller's worker threads."""
    import threading

    main = threading.main_thread()
    return (
        hasattr(os, "fork")
        and threading.current_thread() is main
        and all(
            t is main or (t.daemon and t.name.startswith("deppy-")) for t in threading.enumerate()
        )
    )


STOPS: Final = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def stops_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM held (blocked) while a helper (a YAML worker, a cache writer) is
    forked and recorded. Python runs its at-fork handlers in both processes, and a
    KeyboardInterrupt raised in one of them is printed and dropped: a Ctrl-C in that moment was
    lost and the command went on to the end. Held, it is taken when this ends, with the helper
    known (and stopped or reaped on the way out). The helper unblocks them itself."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def detach_from_caller() -> None:
    """In a forked helper that outlives its command: stdin, stdout and stderr become
    /dev/null, and every other descriptor the command inherited from its caller is closed
    (those are the inheritable ones: deppy opens its own close-on-exec), so no pipe, ``$(…)``
    or capture the caller reads waits for the helper. deppy's own descriptors (catalog files
    read again lazily, the cache directory's) stay open for the helper's work."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd, inheritable=False)
    os.close(null)
    try:
        open_fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:  # no /proc: the standard three are what a caller passes in practice
        return
    for fd in open_fds:
        if fd > 2:
            with contextlib.suppress(OSError):
                if os.get_inheritable(fd):
                    os.close(fd)


_WRITERS: list[int] = []
"""Background writers this process forked and has not reaped yet."""


def _reap() -> None:
    for pid in list(_WRITERS):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _WRITERS.remove(pid)


def wait_for_writers() -> None:
    """Wait until this process's background writers are done (tests, and before clearing)."""
    for pid in list(_WRITERS):
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        _WRITERS.remove(pid)


@dataclass(frozen=True, slots=True)
class _Entry:
    name: str
    path: str
    size: int
    used: float


def _companions(path: Path) -> tuple[Path, ...]:
    """Files SQLite may leave beside a database it was writing."""
    return tuple(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-journal"))


def _identities(root: Path) -> list[tuple[str, tuple[int, ...]]]:
    """Every file under ``root`` (ignored ones too: a ``ref`` may name one) with its identity;
    ``root`` itself when it is a file."""
    if not root.is_dir():
        return [("", file_identity(os.stat(root)))]
    found: list[tuple[str, tuple[int, ...]]] = []
    for current, dirs, files in os.walk(root, onerror=_raise):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(current, name)
            found.append((os.path.relpath(path, root), file_identity(os.stat(path))))
    return found


def _raise(error: OSError) -> None:
    raise error


def _digest(key: Iterable[Any]) -> str:
    text = repr((_CODE, tuple(key)))
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def _code_identity() -> tuple[Any, ...]:
    """deppy's version and the identity of the sources a loaded catalog depends on."""
    from deppy import __version__

    here = Path(__file__).resolve().parent.parent  # deppy/catalog
    sources: list[tuple[str, int, int]] = []
    for folder in (here, here.parent / "input_limits", here.parent / "store"):
        for current, dirs, files in os.walk(folder):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".py"):
                    stat = os.stat(os.path.join(current, name))
                    sources.append((name, stat.st_size, stat.st_mtime_ns))
    return (__version__, tuple(sources))


_CODE: Final = _code_identity()
