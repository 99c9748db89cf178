"""A catalog image read into deppy's cache directory, once per manifest digest.

``pull_catalog(text, cache_dir=, options=)`` gives the directory of the image's File-Based
Catalog (or the file of an older image's SQLite index) under ``cache_dir/images/<digest>``:

* a digest reference whose image was read before asks the registry nothing;
* a tag asks one question (HEAD of its manifest: the digest it points at now) and reuses what
  was unpacked for that digest;
* when the registry cannot be reached (or answers 5xx, or too late), a tag read before is used
  at the digest it had then, with one warning saying how long ago that was;
  ``options.offline`` never asks;
* an OCI layout is on disk: its index is read each time (cheap), its content once per digest.

What is unpacked is written to a fresh directory and renamed into place when whole, so an
interrupted or failed read leaves nothing a later one would take for an image.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import tarfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

import orjson

from deppy.errors import InputError
from deppy.input_limits import UnsafeInput
from deppy.oci.auth import RegistryAuth, auth_from_files
from deppy.oci.destination import shown
from deppy.oci.fetch import (
    MAX_LAYER_BYTES,
    LayoutImage,
    Manifest,
    RegistryImage,
    image_config,
    labels_of,
)
from deppy.oci.image import CONFIGS_LABEL
from deppy.oci.options import PullOptions
from deppy.oci.reference import DIGEST, LayoutReference, RegistryReference, parse_reference
from deppy.oci.session import RegistryError
from deppy.oci.unpack import Unpacked, unpack_file, unpack_layer

DATABASE_LABEL: Final = "operators.operatorframework.io.index.database.v1"
DEFAULT_CONFIGS: Final = "/configs"
DEFAULT_DATABASE: Final = "/database/index.db"
CATALOG_DIR: Final = "catalog"
DATABASE_FILE: Final = "index.db"


@dataclass(frozen=True, slots=True)
class PulledImage:
    """An image's catalog in the cache: ``path`` is the FBC directory (``kind`` ``fbc``) or
    the SQLite index file (``sqlite``); ``warnings`` are lines for the user."""

    reference: str
    name: str
    digest: str
    kind: Literal["fbc", "sqlite"]
    path: Path
    warnings: tuple[str, ...] = ()


def _where(text: str) -> str:
    return f"catalog {shown(text)}"


def _age(seconds: float) -> str:
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'' if count == 1 else 's'}"
    return "less than a minute"


class _Records:
    """What each tag reference last pointed at (``images/tags/<key>.json``)."""

    def __init__(self, images: Path, text: str, platform: str | None) -> None:
        key = hashlib.sha256(f"{text}\n{platform or ''}".encode()).hexdigest()
        self.path = images / "tags" / f"{key}.json"

    def read(self) -> dict[str, Any] | None:
        try:
            with open(self.path, "rb") as file:
                found = orjson.loads(file.read(1 << 16))
        except (OSError, orjson.JSONDecodeError):
            return None
        return found if isinstance(found, dict) else None

    def write(self, record: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_name(f".{self.path.name}.{secrets.token_hex(4)}")
        partial.write_bytes(orjson.dumps(record))
        os.replace(partial, self.path)


def _cached(images: Path, digest: str) -> PulledImage | None:
    if not DIGEST.fullmatch(digest):  # a damaged record names nothing
        return None
    directory = images / digest.removeprefix("sha256:")
    if (directory / CATALOG_DIR).is_dir():
        return PulledImage("", "", digest, "fbc", directory / CATALOG_DIR)
    if (directory / DATABASE_FILE).is_file():
        return PulledImage("", "", digest, "sqlite", directory / DATABASE_FILE)
    return None


def _with(found: PulledImage, text: str, name: str, *warnings: str) -> PulledImage:
    return PulledImage(text, name, found.digest, found.kind, found.path, warnings)


def pull_catalog(
    text: str,
    *,
    cache_dir: Path,
    options: PullOptions,
    where: str = "--catalog",
    auth: RegistryAuth | None = None,
) -> PulledImage:
    """The catalog of the image ``text`` names, read into ``cache_dir`` when not there yet."""
    reference = parse_reference(text, where=where)
    images = cache_dir / "images"
    if isinstance(reference, LayoutReference):
        layout = LayoutImage(reference)
        manifest = layout.manifest(options.platform)
        found = _cached(images, manifest.digest) or _unpacked(layout, manifest, images)
        return _with(found, text, reference.name, *found.warnings)
    return _from_registry(reference, images, options, auth)


def _from_registry(
    reference: RegistryReference,
    images: Path,
    options: PullOptions,
    auth: RegistryAuth | None,
) -> PulledImage:
    text, name = reference.text, reference.name
    records = _Records(images, text, options.platform)
    record = records.read()
    before = _cached(images, str(record.get("digest"))) if record else None
    if before is not None and record is not None:
        if options.offline or reference.digest is not None:
            return _with(before, text, name)
    elif options.offline:
        raise InputError(
            _where(text),
            "was never read, and --offline asks no registry",
            "read it once without --offline",
        )
    image = RegistryImage(
        reference,
        auth=auth if auth is not None else auth_from_files(),
        tls_verify=options.tls_verify,
        timeout=options.timeout,
    )
    if record is not None and isinstance(record.get("base"), str):
        image.use_base(record["base"])  # the scheme it spoke last time: no /v2/ ping
    try:
        start = reference.digest or image.tag_digest()
    except RegistryError as error:
        if before is None or record is None or not error.retriable:
            raise
        if not options.last_read_when_unreachable:
            raise
        read = record.get("read")
        age = _age(max(0.0, time.time() - (read if isinstance(read, (int, float)) else 0)))
        warning = (
            f"deppy: warning: catalog {shown(text)}: {error.what}; using the image read "
            f"{age} ago ({before.digest})"
        )
        return _with(before, text, name, warning)
    now = time.time()
    if before is not None and record is not None and record.get("start") == start:
        records.write({**record, "read": now})
        return _with(before, text, name)
    manifest = image.manifest(start, options.platform)
    found = _cached(images, manifest.digest) or _unpacked(image, manifest, images)
    records.write(
        {
            "reference": text,
            "start": start,
            "digest": manifest.digest,
            "read": now,
            "base": image.session.base,
        }
    )
    return _with(found, text, name, *found.warnings)


def _unpacked(image: RegistryImage | LayoutImage, manifest: Manifest, images: Path) -> PulledImage:
    """The image's catalog unpacked into ``images/<digest>`` (renamed into place whole)."""
    text = image.reference.text
    labels = labels_of(image_config(image, manifest))
    images.mkdir(parents=True, exist_ok=True)
    partial = images / f".partial-{secrets.token_hex(8)}"
    partial.mkdir(mode=0o700)
    try:
        if CONFIGS_LABEL not in labels and DATABASE_LABEL in labels:
            kind: Literal["fbc", "sqlite"] = "sqlite"
            content = _database(image, manifest, labels[DATABASE_LABEL] or DEFAULT_DATABASE)
            (partial / DATABASE_FILE).write_bytes(content)
            warnings: tuple[str, ...] = ()
        else:
            kind = "fbc"
            root = labels.get(CONFIGS_LABEL) or DEFAULT_CONFIGS
            warnings = _configs(image, manifest, root, partial / CATALOG_DIR)
        final = images / manifest.digest.removeprefix("sha256:")
        try:
            os.rename(partial, final)
        except OSError:  # another deppy unpacked it meanwhile: theirs is as good
            if _cached(images, manifest.digest) is None:
                raise
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    path = final / (CATALOG_DIR if kind == "fbc" else DATABASE_FILE)
    return PulledImage(text, "", manifest.digest, kind, path, warnings)


def _layer_failed(text: str, digest: str, error: Exception) -> InputError:
    if isinstance(error, UnsafeInput):
        what = str(error)
    elif isinstance(error, OSError) and error.strerror:  # the disk: full, or not writable
        what = f"cannot be unpacked into deppy's cache ({error.strerror})"
    else:
        what = f"is no readable tar ({error})"
    return InputError(
        _where(text), f"layer {digest}: {what}", "check the image; nothing was stored"
    )


def _configs(
    image: RegistryImage | LayoutImage, manifest: Manifest, root: str, into: Path
) -> tuple[str, ...]:
    text = image.reference.text
    into.mkdir()
    done = Unpacked()
    for layer in manifest.layers:
        blob = image.blob(layer, MAX_LAYER_BYTES)
        try:
            unpack_layer(blob, root.strip("/"), into, done)
        except (UnsafeInput, tarfile.TarError, zlib.error, EOFError, OSError) as error:
            raise _layer_failed(text, layer.digest, error) from None
        except Exception as error:  # zstandard.ZstdError: loaded only for zstd layers
            if type(error).__name__ != "ZstdError":
                raise
            raise _layer_failed(text, layer.digest, error) from None
    if not done.files:
        raise InputError(
            _where(text),
            f"the image has no catalog: no files under {root} (its label "
            f"{CONFIGS_LABEL} names the catalog's directory; /configs when it has none)",
            "check that the reference names a File-Based Catalog image",
        )
    if not done.skipped:
        return ()
    first, why = next(iter(sorted(done.skipped.items())))
    count = len(done.skipped)
    return (
        f"deppy: warning: catalog {shown(text)}: {count} entr{'y' if count == 1 else 'ies'} "
        f"skipped, never written (first: {shown(first)}: {why})",
    )


def _database(image: RegistryImage | LayoutImage, manifest: Manifest, path: str) -> bytes:
    text = image.reference.text
    found: bytes | None = None
    for layer in manifest.layers:
        blob = image.blob(layer, MAX_LAYER_BYTES)
        try:
            content = unpack_file(blob, path)
        except (UnsafeInput, tarfile.TarError, zlib.error, EOFError) as error:
            raise _layer_failed(text, layer.digest, error) from None
        found = content if content is not None else found
    if found is None:
        raise InputError(
            _where(text),
            f"the image has no {path} (its label {DATABASE_LABEL} names it)",
            "check that the reference names a catalog image",
        )
    return found


__all__ = ["DATABASE_LABEL", "PullOptions", "PulledImage", "pull_catalog"]
