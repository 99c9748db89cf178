"""What makes a file in the parsed-catalog cache an entry deppy may read: checked, never trusted.

An entry is written by deppy, but what lies in the directory later is whatever the disk, a copy,
a backup tool or a stray command left there. Two kinds of damage must cost a reparse, never a
wrong answer, an error that sends the user to the wrong fix, a hang or all the memory:

* **not a regular file of a sane size** — a FIFO (opening it blocks until a writer comes), a
  symbolic link (to ``/dev/zero``: a read that never ends), a directory, a file larger than the
  cache may hold: :func:`entry_stat` and :func:`read_entry` look at the file itself (never
  through a link, never blocking on open) and refuse it before reading a byte;
* **changed bytes** — a torn copy, a few flipped bits: every entry carries a CRC-32 of its bytes,
  written with it and checked before anything is taken from it (:func:`sealed` and
  :func:`unsealed` for bytes read whole; :func:`seal_file` and :func:`file_is_whole` for a
  pickle read as a stream; :func:`seal_sqlite` and :func:`sqlite_is_whole` for a one-catalog
  SQLite store, whose header holds the CRC in its application id). Checking a community
  catalog's 30 MB store costs ~12 ms of its ~0.3 s lazy run; a store that answers from damaged
  pages would cost a wrong answer or an error no command fixes.

The cache treats a refused entry as missing: it removes it, parses the catalog again and writes
a new one, and the answer is the one ``DEPPY_CACHE=off`` gives.
"""

from __future__ import annotations

import contextlib
import os
import stat
import zlib
from typing import IO, Final

_TRAILER: Final = b"dpy1"
"""What ends a sealed entry, before its CRC (a version: another layout is simply not whole)."""
_SEAL_SIZE: Final = len(_TRAILER) + 4
_CHUNK: Final = 1 << 20
_SQLITE_ID: Final = slice(68, 72)
"""The application id of a SQLite header (4 bytes, big-endian), where a store entry's CRC is."""
_SQLITE_MAGIC: Final = b"SQLite format 3\x00"


def entry_stat(path: str | os.PathLike[str], limit: int) -> os.stat_result | None:
    """The file at ``path`` itself (a link is not followed) when it is a regular file of at
    most ``limit`` bytes; None for anything else, or nothing."""
    try:
        found = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(found.st_mode) or found.st_size > limit:
        return None
    return found


def read_entry(path: str | os.PathLike[str], limit: int) -> bytes | None:
    """The bytes of a regular file of at most ``limit`` bytes, or None: opened without following
    a link and without blocking (a FIFO), checked after opening, read no further than its size
    (a file that grows meanwhile is cut there, and then fails its CRC)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode) or found.st_size > limit:
            return None
        parts: list[bytes] = []
        left = found.st_size
        while left > 0:
            part = os.read(fd, min(left, _CHUNK))
            if not part:
                break
            parts.append(part)
            left -= len(part)
        return b"".join(parts)
    except OSError:
        return None
    finally:
        os.close(fd)


def sealed(data: bytes) -> bytes:
    """``data`` with its CRC after it, as an entry is written."""
    return data + _seal(zlib.crc32(data))


def unsealed(entry: bytes) -> bytes | None:
    """The data of a sealed entry, or None when its bytes are not the ones written."""
    data, seal = entry[:-_SEAL_SIZE], entry[-_SEAL_SIZE:]
    if len(entry) < _SEAL_SIZE or seal != _seal(zlib.crc32(data)):
        return None
    return data


def seal_file(path: str | os.PathLike[str]) -> None:
    """Append the CRC of a file's bytes to it (a pickle: ``pickle.load`` stops before it)."""
    crc = _file_crc(path)
    with open(path, "ab") as file:
        file.write(_seal(crc))


def file_is_whole(path: str | os.PathLike[str], limit: int) -> bool:
    """Whether a file sealed by :func:`seal_file` holds the bytes written (read once, by
    chunks: a 300 MB pickle is never held whole)."""
    found = entry_stat(path, limit)
    if found is None or found.st_size < _SEAL_SIZE:
        return False
    try:
        with open(path, "rb") as file:
            crc = _crc_of(file, found.st_size - _SEAL_SIZE)
            seal = file.read(_SEAL_SIZE)
    except OSError:
        return False
    return seal == _seal(crc)


def seal_sqlite(path: str | os.PathLike[str]) -> None:
    """Write the CRC of a closed SQLite file (its application id counted as zero) into its
    application id. Nothing writes the file afterwards: entries are replaced, never updated."""
    crc = _sqlite_crc(path)
    with open(path, "r+b") as file:
        file.seek(_SQLITE_ID.start)
        file.write(crc.to_bytes(4, "big"))


def sqlite_is_whole(path: str | os.PathLike[str], limit: int) -> bool:
    """Whether a SQLite entry sealed by :func:`seal_sqlite` holds the bytes written.

    Its bytes are read once per version of the file: a check that passed leaves a mark beside
    the entry (:func:`check_mark`) naming the file's inode, device, size, modification and
    change times, and a run that finds the file as marked trusts it without reading it again (a
    300 MB entry of a 10x catalog cost every repeated run ~0.15 s). Any write to the file (a
    torn copy, bytes flipped in place) gives it another change time — which, unlike the
    modification time, no one can put back (``touch -d``, ``os.utime``) — or another inode when
    it is replaced, so the next run reads it whole again. The cache's own touch of an entry it
    uses carries the mark over (:func:`touch_checked`)."""
    found = entry_stat(path, limit)
    if found is None:
        return False
    version = _version(found)
    mark = check_mark(path)
    if _marked(mark) == version:
        return True
    try:
        with open(path, "rb") as file:
            header = file.read(100)
    except OSError:
        return False
    if len(header) < 100 or not header.startswith(_SQLITE_MAGIC):
        return False
    try:
        whole = _sqlite_crc(path) == int.from_bytes(header[_SQLITE_ID], "big")
    except OSError:
        return False
    if whole:
        _mark(mark, version)
    return whole


def check_mark(path: str | os.PathLike[str]) -> str:
    """Where the mark of ``path``'s last passed check lies: beside it, named after it."""
    directory, name = os.path.split(os.fspath(path))
    return os.path.join(directory, CHECKED + name)


CHECKED: Final = "checked-"
"""The prefix of a check mark's name (the cache removes an entry's mark with the entry)."""


def _version(found: os.stat_result) -> str:
    return f"{found.st_ino} {found.st_dev} {found.st_size} {found.st_mtime_ns} {found.st_ctime_ns}"


def touch_checked(path: str | os.PathLike[str], atime_ns: int) -> bool:
    """Set the access time of the entry at ``path`` (the cache's "recently used"), keeping its
    modification time; a mark of a passed check that named the file as it was before the touch
    names it as it is after (the touch changes the change time, and would otherwise cost every
    run a full check). Only a write in the microseconds between the look and the touch would be
    carried over with it; a write at any other time leaves the file a version never checked.
    False when the file cannot be touched."""
    try:
        before = os.lstat(path)
        os.utime(path, ns=(atime_ns, before.st_mtime_ns), follow_symlinks=False)
    except (OSError, NotImplementedError):
        return False
    mark = check_mark(path)
    if _marked(mark) == _version(before):
        with contextlib.suppress(OSError):
            _mark(mark, _version(os.lstat(path)))
    return True


def _marked(mark: str) -> str | None:
    data = read_entry(mark, 256)
    return None if data is None else data.decode("ascii", "replace")


def _mark(mark: str, version: str) -> None:
    """Written to a temporary file and renamed: a reader sees a whole mark or none; a mark
    that cannot be written only costs the next run a full check."""
    temporary = f"{mark}.{os.getpid()}"
    try:
        with open(temporary, "w", encoding="ascii") as file:
            file.write(version)
        os.replace(temporary, mark)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def _sqlite_crc(path: str | os.PathLike[str]) -> int:
    with open(path, "rb") as file:
        head = bytearray(file.read(100))
        head[_SQLITE_ID] = bytes(4)
        crc = zlib.crc32(head)
        while chunk := file.read(_CHUNK):
            crc = zlib.crc32(chunk, crc)
    return crc


def _file_crc(path: str | os.PathLike[str]) -> int:
    with open(path, "rb") as file:
        return _crc_of(file, os.fstat(file.fileno()).st_size)


def _crc_of(file: IO[bytes], size: int) -> int:
    read = file.read
    crc = 0
    left = size
    while left > 0:
        chunk = read(min(left, _CHUNK))
        if not chunk:
            break
        crc = zlib.crc32(chunk, crc)
        left -= len(chunk)
    return crc


def _seal(crc: int) -> bytes:
    return _TRAILER + crc.to_bytes(4, "big")
