"""Catalogs for dask workers that share no file system with the command (``--scheduler``).

A worker of a real dask cluster (pods on Kubernetes, machines of their own) sees none of the
command's paths. So the command names each catalog by what any worker can fetch:

* a catalog image in a registry by its manifest digest (``docker://HOST/REPO@sha256:…``): the
  worker pulls it with the command's registry options into its own cache, once per worker
  machine (a later batch, or run, finds it there by digest);
* a catalog directory or file (an ``oci:`` layout's unpacked catalog too) by its content: a
  deterministic tar, gzip-compressed, named by its sha256. The command hands it to dask once
  (``Client.scatter(..., broadcast=True)``: a copy on each worker, a worker that joins later
  fetches it from a peer, never from the command again) and each batch depends on it, so a
  worker has it before it plans; the worker unpacks it once into its cache
  (``shipped/sha256-HEX/``, checked against the name) and plans against that directory.

Live catalogs (``grpc://``, ``http(s)://``) are left as they are: workers reach them as the
command does. A stored catalog's name is refused: the store is this machine's.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import shutil
import tarfile
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from deppy.errors import DeppyError, InputError
from deppy.oci.reference import is_image_reference
from deppy.workflows.fleet.plan import FleetSettings

__all__ = ["SHIPPED", "pack_catalog", "settings_for_workers", "settings_here"]

SHIPPED = "shipped:"
"""A spec's path that names shipped content: ``shipped:sha256-HEX/NAME`` (NAME the catalog
directory's or file's own name, so the catalog is named as on the command's machine)."""


def pack_catalog(path: Path) -> tuple[str, bytes]:
    """The catalog at ``path`` as a gzip-compressed tar of it (under its own name), the same
    bytes for the same content (names in order, no times, owners or modes beyond the execute
    bit), and its name: ``sha256-HEX`` of those bytes."""
    raw = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1, mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w|", format=tarfile.PAX_FORMAT) as tar,
    ):
        for member, name in _members(path):
            info = tarfile.TarInfo(name)
            info.mtime = 0
            if member.is_dir():
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
                continue
            data = member.read_bytes()
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    blob = raw.getvalue()
    return f"sha256-{hashlib.sha256(blob).hexdigest()}", blob


def _members(path: Path) -> list[tuple[Path, str]]:
    """The directory (or file) and what is under it, in name order: links followed as the
    loaders follow them, hidden entries kept (a loader skips them itself)."""
    found = [(path, path.name)]
    if not path.is_dir():
        return found
    for root, dirs, files in os.walk(path, followlinks=True):
        dirs.sort()
        base = Path(root)
        for name in [*dirs, *sorted(files)]:
            member = base / name
            found.append((member, f"{path.name}/{member.relative_to(path).as_posix()}"))
    return found


def settings_for_workers(settings: FleetSettings) -> tuple[FleetSettings, dict[str, bytes]]:
    """The settings with each catalog named as a remote worker can fetch it (the module
    docstring), and the content to ship under each name. Specs are the command's, already
    checked and made absolute (an image already a digest reference)."""
    if not settings.catalogs:
        raise InputError(
            "--scheduler",
            "its workers cannot read this machine's stored catalogs",
            "name the catalogs with --catalog DIR or --catalog docker://…",
        )
    contents: dict[str, bytes] = {}
    packed: dict[str, str] = {}  # a path named twice (--catalog and --since) is packed once

    def fetchable(spec: str, option: str) -> str:
        path, sep, rest = spec.partition("=")
        if is_image_reference(path) or path.lower().startswith(("grpc://", "http://", "https://")):
            return spec
        if not Path(path).exists():
            raise InputError(
                f"{option} {path}",
                "a stored catalog: --scheduler's workers cannot read this machine's store",
                "give the catalog's directory or image instead",
            )
        name = packed.get(path)
        if name is None:
            digest, blob = pack_catalog(Path(path))
            contents[digest] = blob
            name = packed[path] = f"{digest}/{Path(path).name}"
        return f"{SHIPPED}{name}{sep}{rest}"

    shipped = replace(
        settings,
        catalogs=tuple(fetchable(s, "--catalog") for s in settings.catalogs),
        since=tuple(fetchable(s, "--since") for s in settings.since),
    )
    return shipped, contents


_UNPACKED: dict[str, str] = {}  # shipped name -> its directory, once checked in this process


def settings_here(settings: FleetSettings, contents: Mapping[str, bytes]) -> FleetSettings:
    """On a worker: the settings with each shipped catalog named by where it is unpacked in
    this worker's cache (done once per worker machine), and the command's registry options
    in force for the images it pulls."""
    if settings.pull is not None:
        from deppy.catalog.image_catalog import use_pull_options

        use_pull_options(settings.pull)

    def local(spec: str) -> str:
        if not spec.startswith(SHIPPED):
            return spec
        path, sep, rest = spec.partition("=")
        digest, _, name = path[len(SHIPPED) :].partition("/")
        return f"{_unpacked(digest, contents)}/{name}{sep}{rest}"

    return replace(
        settings,
        catalogs=tuple(local(s) for s in settings.catalogs),
        since=tuple(local(s) for s in settings.since),
        pull=None,
    )


def _unpacked(digest: str, contents: Mapping[str, bytes]) -> str:
    found = _UNPACKED.get(digest)
    if found is not None:
        return found
    from deppy.workflows.catalog_loading import images_path

    home = images_path() / "shipped"
    target = home / digest
    if not target.is_dir():
        blob = contents.get(digest)
        if blob is None or f"sha256-{hashlib.sha256(blob).hexdigest()}" != digest:
            raise DeppyError(f"the catalog content {digest} did not reach this dask worker whole")
        home.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=home, prefix=".unpacking-"))
        try:
            with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
                tar.extractall(staging, filter="data")
            os.rename(staging, target)  # whole or not at all; a rival unpacking won: kept
        except OSError as error:
            if not target.is_dir():
                raise DeppyError(
                    f"the catalog content {digest} cannot be unpacked on this dask worker "
                    f"({home}: {error.strerror or error})"
                ) from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    _UNPACKED[digest] = str(target)
    return str(target)
