"""An image's catalog directory, unpacked layer by layer into a directory deppy owns, bounded.

Only entries under the directory the configs label names (``/configs`` by default) are
written, as catalogd unpacks a ClusterCatalog; every other entry of the image is passed over
unread. Layers apply in order, as a container runtime stacks them: ``.wh.NAME`` removes NAME
of the layers below, ``.wh..wh..opq`` empties its directory of what the layers below put
there. Nothing is written outside ``into``: names with ``..`` or that are absolute, symbolic
links (never created, never followed), hard links to anything but a regular file unpacked
before under the same tree, devices and FIFOs are skipped and counted (``Unpacked.skipped``).
Files are created new (``O_EXCL | O_NOFOLLOW``) in directories deppy made.

Bounds (docs/everyone/limits.md): the catalog's files together at most
:data:`MAX_TOTAL_BYTES`, one file at most :data:`MAX_FILE_BYTES`, at most :data:`MAX_FILES`
entries, and a layer may inflate to at most :data:`MAX_RATIO` times its stored size (beyond
:data:`RATIO_FLOOR`): a gzip or zstd bomb stops with one line, after at most the bound.
"""

from __future__ import annotations

import io
import os
import posixpath
import shutil
import tarfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Protocol

from deppy.input_limits import UnsafeInput

MAX_TOTAL_BYTES: Final = 1 << 30
MAX_FILE_BYTES: Final = 512 << 20
MAX_FILES: Final = 200_000
MAX_RATIO: Final = 200
RATIO_FLOOR: Final = 64 << 20
WHITEOUT: Final = ".wh."
OPAQUE: Final = ".wh..wh..opq"
_CHUNK: Final = 1 << 20
GZIP_MAGIC: Final = b"\x1f\x8b"
ZSTD_MAGIC: Final = b"\x28\xb5\x2f\xfd"


class _Source(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class _Inflated(io.RawIOBase):
    """A layer's tar stream, inflated as it is read (gzip, zstd or none, by its first bytes),
    refused once it passes ``limit`` bytes."""

    def __init__(self, blob: bytes, limit: int) -> None:
        self._limit = limit
        self.count = 0
        self._stream: _Source
        if blob.startswith(GZIP_MAGIC):
            self._stream = _Gunzip(blob)
        elif blob.startswith(ZSTD_MAGIC):
            import zstandard

            self._stream = zstandard.ZstdDecompressor().stream_reader(
                io.BytesIO(blob), read_across_frames=True
            )
        else:
            self._stream = io.BytesIO(blob)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self._stream.read(min(len(buffer), _CHUNK))
        self.count += len(data)
        if self.count > self._limit:
            raise UnsafeInput(
                f"a layer inflates to more than {self._limit:,} bytes (deppy's limit: "
                f"{MAX_RATIO} times its size, and {MAX_TOTAL_BYTES:,} bytes in all)"
            )
        buffer[: len(data)] = data
        return len(data)


class _Gunzip(io.RawIOBase):
    """gzip inflated a piece at a time, members one after another (as ``gzip`` reads them)."""

    def __init__(self, blob: bytes) -> None:
        self._blob = memoryview(blob)
        self._position = 0
        self._inflater = zlib.decompressobj(wbits=31)

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1, /) -> bytes:
        wanted = max(size, 0)  # 0: as much as one piece gives
        while True:
            if self._inflater.eof:  # a member ended: another may follow (as gzip reads them)
                self._position -= len(self._inflater.unused_data)
                if bytes(self._blob[self._position : self._position + 2]) != GZIP_MAGIC:
                    return b""  # the end, or padding after the last member
                self._inflater = zlib.decompressobj(wbits=31)
            if self._inflater.unconsumed_tail:
                data = self._inflater.decompress(self._inflater.unconsumed_tail, wanted)
            else:
                piece = self._blob[self._position : self._position + _CHUNK]
                if not piece:
                    raise EOFError("the gzip stream ends before its end")
                self._position += len(piece)
                data = self._inflater.decompress(piece, wanted)
            if data:
                return data


@dataclass(slots=True)
class Unpacked:
    """What unpacking did: files written, bytes, and the entries skipped (and why)."""

    files: set[str] = field(default_factory=set)
    total: int = 0
    skipped: dict[str, str] = field(default_factory=dict)
    made: set[Path] = field(default_factory=set)  # directories made (each mkdir once)

    def directory(self, path: Path) -> None:
        """``path`` as a directory, with its parents (made once; forgotten on removals)."""
        if path not in self.made:
            path.mkdir(parents=True, exist_ok=True)
            self.made.add(path)


def _relative(name: str, root: str) -> str | None:
    """``name`` (an entry of a layer) relative to ``root`` (the configs directory, no
    slashes around), "" for ``root`` itself; None when outside it or unsafe."""
    cleaned = name.removeprefix("./")
    if cleaned.startswith("/") or "\x00" in cleaned:
        return None
    parts = [p for p in cleaned.split("/") if p not in ("", ".")]
    if ".." in parts:
        return None
    roots = [p for p in root.split("/") if p]
    if parts[: len(roots)] != roots:
        return None
    return "/".join(parts[len(roots) :])


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _clear_lower(directory: Path, keep: set[str], into: Path) -> None:
    """Everything under ``directory`` not written by the current layer (``keep``)."""
    if not directory.is_dir():
        return
    for entry in sorted(directory.rglob("*"), reverse=True):
        relative = entry.relative_to(into).as_posix()
        if entry.is_file() and relative not in keep:
            entry.unlink()
        elif entry.is_dir() and not any(entry.iterdir()):
            entry.rmdir()


def _members(tar: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    while (member := tar.next()) is not None:
        yield member


def unpack_layer(blob: bytes, root: str, into: Path, done: Unpacked) -> None:
    """The entries under ``root`` of one layer (its stored bytes, checked already) applied to
    ``into``; UnsafeInput past a bound, tarfile.TarError or zlib/zstd errors when the layer
    is no tar."""
    stream = _Inflated(blob, min(max(RATIO_FLOOR, len(blob) * MAX_RATIO), MAX_TOTAL_BYTES))
    written: set[str] = set()
    count = 0
    with tarfile.open(fileobj=io.BufferedReader(stream, _CHUNK), mode="r|") as tar:
        for member in _members(tar):
            count += 1
            if count > MAX_FILES:
                raise UnsafeInput(f"a layer has more than {MAX_FILES:,} entries (deppy's limit)")
            relative = _relative(member.name, root)
            if relative is None:
                if ".." in member.name.split("/") or member.name.startswith("/"):
                    done.skipped[member.name] = "a name leading outside the image"
                continue
            directory, _, base = relative.rpartition("/")
            if base == OPAQUE:
                _clear_lower(into / directory, written, into)
                done.made.clear()
                continue
            if base.startswith(WHITEOUT):
                hidden = posixpath.join(directory, base.removeprefix(WHITEOUT))
                if hidden not in written:
                    _remove(into / hidden)
                    done.files.discard(hidden)
                    done.made.clear()
                continue
            if not relative:
                continue
            target = into / relative
            if member.isdir():
                if target not in done.made and target.exists() and not target.is_dir():
                    _remove(target)
                done.directory(target)
            elif member.isfile():
                _write(tar, member, target, relative, done)
                written.add(relative)
                done.files.add(relative)
            elif member.islnk():
                source = _relative(member.linkname, root)
                if source is None or source not in done.files or not (into / source).is_file():
                    done.skipped[member.name] = "a hard link to a file outside the catalog"
                    continue
                _remove(target)
                done.directory(target.parent)
                shutil.copyfile(into / source, target, follow_symlinks=False)
                written.add(relative)
                done.files.add(relative)
            elif member.issym():
                done.skipped[member.name] = "a symbolic link (never followed)"
            else:
                done.skipped[member.name] = "a device, FIFO or other special file"
            if len(done.files) > MAX_FILES:
                raise UnsafeInput(f"the catalog has more than {MAX_FILES:,} files (deppy's limit)")


def _write(
    tar: tarfile.TarFile, member: tarfile.TarInfo, target: Path, relative: str, done: Unpacked
) -> None:
    if member.size > MAX_FILE_BYTES:
        raise UnsafeInput(
            f"{member.name} is {member.size:,} bytes, more than {MAX_FILE_BYTES:,} "
            "(deppy's limit for one catalog file)"
        )
    done.total += member.size
    if done.total > MAX_TOTAL_BYTES:
        raise UnsafeInput(
            f"the catalog's files come to more than {MAX_TOTAL_BYTES:,} bytes (deppy's limit)"
        )
    if relative in done.files or target in done.made:  # a file again, or a directory
        _remove(target)
        done.made.clear()
    done.directory(target.parent)
    source = tar.extractfile(member)
    assert source is not None  # a regular file
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    with os.fdopen(os.open(target, flags, 0o644), "wb") as out:
        shutil.copyfileobj(source, out, _CHUNK)


def unpack_file(blob: bytes, path: str) -> bytes | None:
    """One regular file of a layer (``path``, absolute in the image), or None when the layer
    has none; bounded as :func:`unpack_layer`. A later layer's whiteout is the caller's."""
    wanted = "/".join(p for p in path.split("/") if p not in ("", "."))
    stream = _Inflated(blob, min(max(RATIO_FLOOR, len(blob) * MAX_RATIO), MAX_TOTAL_BYTES))
    with tarfile.open(fileobj=io.BufferedReader(stream, _CHUNK), mode="r|") as tar:
        for member in _members(tar):
            if _relative(member.name, "") == wanted and member.isfile():
                if member.size > MAX_TOTAL_BYTES:
                    raise UnsafeInput(f"{path} is more than {MAX_TOTAL_BYTES:,} bytes")
                source = tar.extractfile(member)
                assert source is not None
                return source.read()
    return None


__all__ = [
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "MAX_TOTAL_BYTES",
    "Unpacked",
    "unpack_file",
    "unpack_layer",
]
