"""A catalog image laid out as opm lays one out, byte for byte the same for the same catalog.

catalogd unpacks a ClusterCatalog's image by the config label
``operators.operatorframework.io.index.configs.v1``: the directory it names holds the File-Based
Catalog. The image here is the smallest such image: an OCI manifest, a config carrying that
label, and one gzip layer holding ``/configs/<package>/catalog.json`` files (opm's layout; no
opm binary or cache, which catalogd never runs).

Same files, same digest: the layer is a tar with every time 0, owner 0, names sorted, and the
gzip header's time 0; the config holds no creation time. (The digest depends on zlib's output
for a level, which is the same wherever the same zlib is; a distribution that ships another
zlib may compress differently.)
"""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

CONFIGS_LABEL = "operators.operatorframework.io.index.configs.v1"
CONFIGS_DIR = "/configs"
MANIFEST_MEDIA_TYPE = "application/vnd.oci.image.manifest.v1+json"
CONFIG_MEDIA_TYPE = "application/vnd.oci.image.config.v1+json"
LAYER_MEDIA_TYPE = "application/vnd.oci.image.layer.v1.tar+gzip"
# Fast enough for a catalog of a few MB, and the level is part of what makes the digest.
GZIP_LEVEL = 6


def sha256_digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def canonical_json(value: Any) -> bytes:
    """JSON with sorted keys and no spaces: the same value always gives the same bytes."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


@dataclass(frozen=True, slots=True)
class Blob:
    """Content stored by its digest (a config or a layer), with its media type."""

    media_type: str
    data: bytes = field(repr=False)
    digest: str

    @classmethod
    def of(cls, media_type: str, data: bytes) -> Blob:
        return cls(media_type, data, sha256_digest(data))

    @property
    def size(self) -> int:
        return len(self.data)

    def descriptor(self) -> dict[str, Any]:
        """How a manifest or an index points at this content."""
        return {"mediaType": self.media_type, "digest": self.digest, "size": self.size}


@dataclass(frozen=True, slots=True)
class CatalogImage:
    """A catalog image ready to push or write: its config, layers and manifest (the bytes
    whose digest names the image)."""

    config: Blob
    layers: tuple[Blob, ...]
    manifest: bytes = field(repr=False)
    digest: str

    @property
    def blobs(self) -> tuple[Blob, ...]:
        """Everything the manifest points at: pushed before the manifest."""
        return (self.config, *self.layers)

    def manifest_descriptor(self) -> dict[str, Any]:
        return {"mediaType": MANIFEST_MEDIA_TYPE, "digest": self.digest, "size": len(self.manifest)}


def _tar(files: Mapping[str, bytes]) -> bytes:
    """A tar of ``files`` under configs/, with their directories, in name order, timeless."""
    entries: dict[str, bytes | None] = {"configs": None}
    for path, data in files.items():
        parts = path.strip("/").split("/")
        for depth in range(1, len(parts)):
            entries.setdefault("/".join(["configs", *parts[:depth]]), None)
        entries["/".join(["configs", *parts])] = data
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, content in sorted(entries.items()):
            info = tarfile.TarInfo(name)
            info.mtime = 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if content is None:
                info.type = tarfile.DIRTYPE
                info.mode = 0o755
                tar.addfile(info)
            else:
                info.mode = 0o644
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
    return out.getvalue()


def catalog_image(files: Mapping[str, bytes]) -> CatalogImage:
    """The image of a File-Based Catalog: ``files`` maps a path under /configs
    (``<package>/catalog.json``) to its content."""
    tar = _tar(files)
    layer = Blob.of(LAYER_MEDIA_TYPE, gzip.compress(tar, compresslevel=GZIP_LEVEL, mtime=0))
    config = Blob.of(
        CONFIG_MEDIA_TYPE,
        canonical_json(
            {
                # required by the image spec; the layer holds no binaries, so any platform
                # that pulls it can unpack it
                "architecture": "amd64",
                "os": "linux",
                "config": {"Labels": {CONFIGS_LABEL: CONFIGS_DIR}},
                "rootfs": {"type": "layers", "diff_ids": [sha256_digest(tar)]},
            }
        ),
    )
    manifest = canonical_json(
        {
            "schemaVersion": 2,
            "mediaType": MANIFEST_MEDIA_TYPE,
            "config": config.descriptor(),
            "layers": [layer.descriptor()],
        }
    )
    return CatalogImage(config, (layer,), manifest, sha256_digest(manifest))


__all__ = [
    "CONFIGS_DIR",
    "CONFIGS_LABEL",
    "MANIFEST_MEDIA_TYPE",
    "Blob",
    "CatalogImage",
    "canonical_json",
    "catalog_image",
    "sha256_digest",
]
