"""Reproducible image layers: a tree or a tar turned into one normalised, gzipped tar.

Same input, same bytes: entries sorted by name, every mtime set to one commit's time, owners
numeric (uname/gname empty), no PAX headers carrying times, gzip with mtime 0 and no file
name. Hard links point at the first name of their group in that order, so a link never comes
before its target.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import stat
import tarfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

GZIP_LEVEL = 9

Entry = tuple[tarfile.TarInfo, bytes | None]


@dataclass(frozen=True)
class Blob:
    """A layer as the OCI layout stores it: ``digest`` of the gzip, ``diff_id`` of the tar."""

    path: Path
    digest: str
    diff_id: str
    size: int


def _normalised(member: tarfile.TarInfo, epoch: int) -> tarfile.TarInfo:
    member.mtime = epoch
    member.uname = member.gname = ""
    member.pax_headers = {}
    return member


def _name(raw: str) -> str:
    name = raw[2:] if raw.startswith("./") else raw
    return name.rstrip("/")


def members_of_tar(source: Path) -> list[Entry]:
    """Every entry of ``source`` (mmdebstrap's tar of the base) with its data, renamed
    without the leading ``./``; the root entry itself is dropped."""
    found: list[Entry] = []
    with tarfile.open(source) as tar:
        for member in tar:
            name = _name(member.name)
            if name in ("", "."):
                continue
            data = None
            if member.isreg():
                extracted = tar.extractfile(member)
                assert extracted is not None
                data = extracted.read()
            if member.islnk():
                member.linkname = _name(member.linkname)
            member.name = name
            found.append((member, data))
    return found


def members_of_tree(root: Path, prefix: str) -> list[Entry]:
    """A staged tree (``root``) as entries under ``prefix`` (``opt/deppy``), owned by root,
    with the parents of ``prefix`` as directories; modes kept but for group/other write."""
    found: list[Entry] = []
    parts = prefix.split("/")
    for depth in range(1, len(parts) + 1):
        found.append((_directory("/".join(parts[:depth])), None))
    for path in sorted(root.rglob("*")):
        member = tarfile.TarInfo(f"{prefix}/{path.relative_to(root).as_posix()}")
        info = os.lstat(path)
        member.mode = stat.S_IMODE(info.st_mode) & 0o755
        data = None
        if stat.S_ISLNK(info.st_mode):
            member.type, member.linkname, member.mode = tarfile.SYMTYPE, os.readlink(path), 0o777
        elif stat.S_ISDIR(info.st_mode):
            member.type = tarfile.DIRTYPE
        else:
            data = path.read_bytes()
            member.size = len(data)
        found.append((member, data))
    return found


def _directory(name: str) -> tarfile.TarInfo:
    member = tarfile.TarInfo(name)
    member.type = tarfile.DIRTYPE
    member.mode = 0o755
    return member


def _hard_links_first(entries: list[Entry]) -> Iterator[Entry]:
    """Sorted by name, each hard-link group's first name carrying the data."""
    data_of = {m.name: (m, d) for m, d in entries if not m.islnk()}
    groups: dict[str, list[str]] = {}
    for member, _ in entries:
        if member.islnk():
            groups.setdefault(member.linkname, [member.linkname]).append(member.name)
    leader = {name: min(names) for names in groups.values() for name in names}
    for member, data in sorted(entries, key=lambda entry: entry[0].name):
        if member.name not in leader:
            yield member, data
            continue
        first = leader[member.name]
        target, target_data = data_of[member.linkname if member.islnk() else member.name]
        if member.name == first:
            regular = tarfile.TarInfo(first)
            for field in ("mode", "uid", "gid", "size"):
                setattr(regular, field, getattr(target, field))
            yield regular, target_data
        else:
            link = tarfile.TarInfo(member.name)
            link.type, link.linkname = tarfile.LNKTYPE, first
            link.mode, link.uid, link.gid = target.mode, target.uid, target.gid
            yield link, None


def write_layer(entries: Iterable[Entry], epoch: int, blobs: Path) -> Blob:
    """The normalised tar of ``entries``, gzipped into ``blobs`` under its digest."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for member, data in _hard_links_first(list(entries)):
            tar.addfile(_normalised(member, epoch), io.BytesIO(data) if data is not None else None)
    tar_bytes = raw.getvalue()
    packed = io.BytesIO()
    with gzip.GzipFile(
        filename="", mode="wb", fileobj=packed, mtime=0, compresslevel=GZIP_LEVEL
    ) as compressed:
        compressed.write(tar_bytes)
    return store_blob(blobs, packed.getvalue(), diff_id=sha256(tar_bytes))


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def store_blob(blobs: Path, data: bytes, diff_id: str = "") -> Blob:
    """``data`` written once under ``blobs/sha256/HEX``."""
    digest = sha256(data)
    path = blobs / "sha256" / digest.split(":")[1]
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        temporary = path.with_suffix(".partial")
        temporary.write_bytes(data)
        temporary.replace(path)
    return Blob(path, digest, diff_id or digest, len(data))
