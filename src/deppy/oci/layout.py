"""An image written as an OCI image layout (``oci-layout``, ``index.json``, ``blobs/sha256/``),
the directory ``skopeo copy oci:DIR:TAG ...`` reads.

Nothing half-written: a new directory is filled under a temporary name beside it and renamed
into place; into an existing layout, or an existing empty directory (``oci:.``, a link to a
directory: as skopeo, which makes a layout of an empty directory), the blobs go first (each
renamed into place), then ``oci-layout``, and the index that names the image last, replacing an
entry of the same name. A layout with no ``index.json`` yet (a run stopped before it) is an
empty one, as containers/image takes it. ``index.json`` and ``oci-layout`` are read only when
they are regular files of bounded size: a FIFO there would block the read, a link to
``/dev/zero`` never end it.
"""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path
from typing import Any

from deppy.errors import InputError
from deppy.input_limits import parse_json
from deppy.input_limits.regular_files import read_regular_file
from deppy.oci.destination import LayoutDestination
from deppy.oci.image import CatalogImage, canonical_json

REF_NAME = "org.opencontainers.image.ref.name"
INDEX_MEDIA_TYPE = "application/vnd.oci.image.index.v1+json"
LAYOUT_FILE = b'{"imageLayoutVersion":"1.0.0"}'
MAX_INDEX_BYTES = 64 << 20
"""The largest index.json read: 64 MiB (an entry is ~300 bytes: some 200,000 images)."""
LAYOUT_FIX = "give a new or empty directory, or an OCI layout"


def _write_atomically(path: Path, data: bytes) -> None:
    """``path`` holds ``data`` or what it held before, never a part."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        temporary.write_bytes(data)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _blobs(image: CatalogImage, root: Path) -> None:
    directory = root / "blobs" / "sha256"
    directory.mkdir(parents=True, exist_ok=True)
    contents = [(blob.digest, blob.data) for blob in image.blobs]
    contents.append((image.digest, image.manifest))
    for digest, data in contents:
        target = directory / digest.removeprefix("sha256:")
        if not target.is_file() or target.stat().st_size != len(data):
            _write_atomically(target, data)


def _index(image: CatalogImage, tag: str, existing: list[Any]) -> bytes:
    entry = image.manifest_descriptor()
    entry["annotations"] = {REF_NAME: tag}
    kept = [
        m
        for m in existing
        if not (isinstance(m, dict) and (m.get("annotations") or {}).get(REF_NAME) == tag)
    ]
    index = {"schemaVersion": 2, "mediaType": INDEX_MEDIA_TYPE, "manifests": [*kept, entry]}
    return canonical_json(index)


def _existing_manifests(root: Path, where: str) -> list[Any]:
    """The manifests an existing layout's index lists; an error for a directory that is
    neither empty nor a layout (deppy does not write into someone else's files)."""
    try:
        read_regular_file(str(root / "oci-layout"), LAYOUT_FIX, limit=4096)
    except FileNotFoundError:
        raise InputError(
            where, "the directory exists and is not an OCI image layout", LAYOUT_FIX
        ) from None
    try:
        data = read_regular_file(str(root / "index.json"), LAYOUT_FIX, limit=MAX_INDEX_BYTES)
    except FileNotFoundError:
        return []  # a layout whose first image was never named
    index = parse_json(data, f"{where}: index.json")
    manifests = index.get("manifests") if isinstance(index, dict) else None
    if not isinstance(manifests, list):
        raise InputError(f"{where}: index.json", "has no manifests list", "give another directory")
    return manifests


def _not_a_directory(root: Path) -> Path | None:
    """The path itself, or the first of its parents that exists, when it is no directory."""
    for path in (root, *root.absolute().parents):
        if path.exists():
            return None if path.is_dir() else path
    return None


def write_layout(image: CatalogImage, destination: LayoutDestination, tag: str) -> None:
    """Write ``image`` into the layout, named ``tag``; an OSError becomes an InputError naming
    the destination."""
    root = Path(destination.directory)
    where = str(destination)
    temporary: Path | None = None
    blocking = _not_a_directory(root)
    if blocking is not None:
        raise InputError(where, f"{blocking} is a file, not a directory", "give a directory")
    try:
        if root.is_dir():  # a layout, or an empty directory (".", a link to one) made one
            manifests = _existing_manifests(root, where) if any(root.iterdir()) else []
            _blobs(image, root)
            if not (root / "oci-layout").is_file():
                _write_atomically(root / "oci-layout", LAYOUT_FILE)
            _write_atomically(root / "index.json", _index(image, tag, manifests))
            return
        root.parent.mkdir(parents=True, exist_ok=True)
        temporary = root.with_name(f".{root.name}.{secrets.token_hex(4)}.tmp")
        temporary.mkdir()
        _blobs(image, temporary)
        (temporary / "oci-layout").write_bytes(LAYOUT_FILE)
        (temporary / "index.json").write_bytes(_index(image, tag, []))
        os.rename(temporary, root)  # replaces an empty directory, never a full one
        temporary = None
    except OSError as error:
        raise InputError(
            where,
            f"cannot write the OCI layout ({error.strerror or error})",
            "give a directory that can be written",
        ) from None
    finally:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)


__all__ = ["REF_NAME", "write_layout"]
