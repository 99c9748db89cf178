"""Catalog images built in the tests as OCI image layouts, byte by byte: several layers, each
gzip, zstd or plain tar, whiteouts and opaque directories, OCI or Docker schema 2 media types,
image indexes with several platforms, and hostile layers (escapes, bombs, devices). Pushed to
Debian's docker-registry with skopeo (tests/registry.py), or read as ``oci:DIR``.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

CONFIGS_LABEL = "operators.operatorframework.io.index.configs.v1"
DATABASE_LABEL = "operators.operatorframework.io.index.database.v1"
OCI = {
    "manifest": "application/vnd.oci.image.manifest.v1+json",
    "config": "application/vnd.oci.image.config.v1+json",
    "index": "application/vnd.oci.image.index.v1+json",
    "gzip": "application/vnd.oci.image.layer.v1.tar+gzip",
    "zstd": "application/vnd.oci.image.layer.v1.tar+zstd",
    "none": "application/vnd.oci.image.layer.v1.tar",
}
DOCKER = {
    "manifest": "application/vnd.docker.distribution.manifest.v2+json",
    "config": "application/vnd.docker.container.image.v1+json",
    "index": "application/vnd.docker.distribution.manifest.list.v2+json",
    "gzip": "application/vnd.docker.image.rootfs.diff.tar.gzip",
    "zstd": "application/vnd.oci.image.layer.v1.tar+zstd",
    "none": "application/vnd.docker.image.rootfs.diff.tar",
}


@dataclass
class Entry:
    """One tar entry: a file (``data``), a directory, or what ``kind`` says (``symlink``,
    ``hardlink``, ``fifo``, ``chardev``), ``link`` its target."""

    name: str
    data: bytes = b""
    kind: str = "file"
    link: str = ""


@dataclass
class Layer:
    entries: list[Entry] = field(default_factory=list)
    compression: str = "gzip"


def tar_bytes(entries: Sequence[Entry]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for entry in entries:
            info = tarfile.TarInfo(entry.name)
            info.mtime = 0
            if entry.kind == "dir":
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            elif entry.kind == "file":
                info.size, info.mode = len(entry.data), 0o644
                tar.addfile(info, io.BytesIO(entry.data))
            else:
                info.type = {
                    "symlink": tarfile.SYMTYPE,
                    "hardlink": tarfile.LNKTYPE,
                    "fifo": tarfile.FIFOTYPE,
                    "chardev": tarfile.CHRTYPE,
                }[entry.kind]
                info.linkname = entry.link
                tar.addfile(info)
    return out.getvalue()


def compressed(data: bytes, how: str) -> bytes:
    if how == "gzip":
        return gzip.compress(data, mtime=0)
    if how == "zstd":
        import zstandard

        return zstandard.ZstdCompressor().compress(data)
    return data


def catalog_entries(directory: Path, root: str = "configs") -> list[Entry]:
    """The files of a catalog directory as entries under ``root``."""
    entries = [Entry(root, kind="dir")]
    for path in sorted(directory.rglob("*")):
        name = f"{root}/{path.relative_to(directory).as_posix()}"
        entries.append(Entry(name, kind="dir") if path.is_dir() else Entry(name, path.read_bytes()))
    return entries


class Layout:
    """An OCI image layout being written: blobs, then index.json naming images by tag."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "blobs" / "sha256").mkdir(parents=True, exist_ok=True)
        (root / "oci-layout").write_text('{"imageLayoutVersion": "1.0.0"}')
        self.named: list[dict[str, object]] = []

    def blob(self, data: bytes, media_type: str) -> dict[str, object]:
        digest = hashlib.sha256(data).hexdigest()
        (self.root / "blobs" / "sha256" / digest).write_bytes(data)
        return {"mediaType": media_type, "digest": f"sha256:{digest}", "size": len(data)}

    def image(
        self,
        layers: Sequence[Layer],
        *,
        labels: dict[str, str] | None = None,
        types: dict[str, str] = OCI,
        platform: tuple[str, str] = ("linux", "amd64"),
    ) -> dict[str, object]:
        """An image's manifest descriptor (its blobs written)."""
        blobs = [
            (tar_bytes(layer.entries), compressed(tar_bytes(layer.entries), layer.compression))
            for layer in layers
        ]
        config = {
            "architecture": platform[1],
            "os": platform[0],
            "config": {"Labels": labels if labels is not None else {CONFIGS_LABEL: "/configs"}},
            "rootfs": {
                "type": "layers",
                "diff_ids": ["sha256:" + hashlib.sha256(raw).hexdigest() for raw, _ in blobs],
            },
        }
        manifest = {
            "schemaVersion": 2,
            "mediaType": types["manifest"],
            "config": self.blob(json.dumps(config).encode(), types["config"]),
            "layers": [
                self.blob(data, types[layer.compression])
                for (_, data), layer in zip(blobs, layers, strict=True)
            ],
        }
        descriptor = self.blob(json.dumps(manifest).encode(), types["manifest"])
        descriptor["platform"] = {"os": platform[0], "architecture": platform[1]}
        return descriptor

    def index(
        self, images: Sequence[dict[str, object]], types: dict[str, str] = OCI
    ) -> dict[str, object]:
        document = {"schemaVersion": 2, "mediaType": types["index"], "manifests": list(images)}
        return self.blob(json.dumps(document).encode(), types["index"])

    def tag(self, descriptor: dict[str, object], tag: str) -> None:
        entry = {k: v for k, v in descriptor.items() if k != "platform"}
        entry["annotations"] = {"org.opencontainers.image.ref.name": tag}
        self.named.append(entry)
        index = {"schemaVersion": 2, "manifests": self.named}
        (self.root / "index.json").write_text(json.dumps(index))


def split_catalog(directory: Path, parts: int = 3) -> list[Layer]:
    """The catalog over ``parts`` layers, and a last one with a whiteout: a file the first
    layer adds (``configs/zz-removed/catalog.json``) is removed again."""
    entries = catalog_entries(directory)
    size = len(entries) // parts + 1
    layers = [Layer(entries[i * size : (i + 1) * size]) for i in range(parts)]
    layers[0].entries += [
        Entry("configs/zz-removed", kind="dir"),
        Entry("configs/zz-removed/catalog.json", b'{"schema":"olm.package","name":"zz-removed"}'),
    ]
    layers.append(Layer([Entry("configs/.wh.zz-removed")]))
    layers.append(Layer([Entry("etc/unrelated", b"not part of the catalog")]))
    return layers
