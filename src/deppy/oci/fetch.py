"""Reading an image's manifest, config and layers from a registry or an OCI layout, every blob
checked against its descriptor (size, then sha256 digest) before anything uses it.

An image index (OCI, or Docker's manifest list) is narrowed to one image: the ``--platform``
asked for, else ``linux/<this machine's architecture>``, else ``linux/amd64``, else its only
image. A registry is spoken to through one :class:`~deppy.oci.session.RegistrySession` (the
push path's: its deadline, body cap, credentials lookup, Bearer login with scope ``pull`` and
error words). Every failure is one InputError naming the reference.
"""

from __future__ import annotations

import hashlib
import os
import platform
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from deppy.errors import InputError, excerpt, json_type
from deppy.input_limits import parse_json
from deppy.input_limits.regular_files import read_regular_file
from deppy.input_limits.streams import MAX_STREAM_BYTES
from deppy.oci.auth import RegistryAuth
from deppy.oci.destination import shown
from deppy.oci.exchange import MAX_ANSWER_BYTES
from deppy.oci.reference import DIGEST, LayoutReference, RegistryReference
from deppy.oci.session import RegistryError, RegistrySession

OCI_INDEX: Final = "application/vnd.oci.image.index.v1+json"
DOCKER_LIST: Final = "application/vnd.docker.distribution.manifest.list.v2+json"
OCI_MANIFEST: Final = "application/vnd.oci.image.manifest.v1+json"
DOCKER_MANIFEST: Final = "application/vnd.docker.distribution.manifest.v2+json"
INDEXES: Final = frozenset({OCI_INDEX, DOCKER_LIST})
MANIFESTS: Final = frozenset({OCI_MANIFEST, DOCKER_MANIFEST})
ACCEPT: Final = ", ".join((OCI_MANIFEST, DOCKER_MANIFEST, OCI_INDEX, DOCKER_LIST))
MAX_MANIFEST_BYTES: Final = MAX_ANSWER_BYTES
"""A manifest, an index or a config: 4 MiB (real ones are a few KB)."""
MAX_LAYER_BYTES: Final = MAX_STREAM_BYTES
"""One layer as stored (compressed): 1 GiB, deppy's limit for one catalog stream."""
_ARCHITECTURES: Final = {"x86_64": "amd64", "aarch64": "arm64", "armv7l": "arm"}


def this_platform() -> str:
    """``linux/ARCH`` of this machine, in the names images use (``amd64``, ``arm64``)."""
    machine = platform.machine().lower()
    return f"linux/{_ARCHITECTURES.get(machine, machine)}"


@dataclass(frozen=True, slots=True)
class Descriptor:
    """What a manifest says of a blob: its media type, digest and size."""

    media_type: str
    digest: str
    size: int


@dataclass(frozen=True, slots=True)
class Manifest:
    """One image's manifest: its digest (what the parse is cached by), config and layers."""

    digest: str
    config: Descriptor
    layers: tuple[Descriptor, ...]


def _where(reference: RegistryReference | LayoutReference) -> str:
    return f"catalog {shown(reference.text)}"


def _bad(reference: RegistryReference | LayoutReference, what: str) -> InputError:
    return InputError(
        _where(reference), what, "check that the reference names a catalog image (opm's layout)"
    )


def _descriptor(
    reference: RegistryReference | LayoutReference, value: Any, field: str
) -> Descriptor:
    if not isinstance(value, dict):
        raise _bad(reference, f"{field} is {json_type(value)}, not a descriptor")
    media_type, digest, size = value.get("mediaType"), value.get("digest"), value.get("size")
    if not isinstance(digest, str) or not DIGEST.fullmatch(digest):
        raise _bad(reference, f"{field}.digest {excerpt(str(digest))} is not a sha256 digest")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise _bad(reference, f"{field}.size {excerpt(str(size))} is not a size")
    return Descriptor(media_type if isinstance(media_type, str) else "", digest, size)


def checked(
    reference: RegistryReference | LayoutReference, data: bytes, wanted: Descriptor
) -> bytes:
    """``data`` when it is the blob ``wanted`` names (size and digest), else the error."""
    if len(data) != wanted.size:
        raise InputError(
            _where(reference),
            f"blob {wanted.digest} is {len(data):,} bytes, not the {wanted.size:,} its "
            "descriptor says",
            "push the image again; nothing was stored",
        )
    found = "sha256:" + hashlib.sha256(data).hexdigest()
    if found != wanted.digest:
        raise InputError(
            _where(reference),
            f"blob {wanted.digest} has the digest {found}",
            "push the image again; nothing was stored",
        )
    return data


def _platform_of(entry: dict[str, Any]) -> str:
    found = entry.get("platform")
    if not isinstance(found, dict):
        return ""
    os_name, arch = found.get("os"), found.get("architecture")
    return f"{os_name}/{arch}" if isinstance(os_name, str) and isinstance(arch, str) else ""


def _chosen(
    reference: RegistryReference | LayoutReference, index: dict[str, Any], wanted: str | None
) -> Descriptor:
    """The image of an index for ``wanted`` (``--platform``), else this machine's, else
    linux/amd64, else the only one."""
    entries = index.get("manifests")
    if not isinstance(entries, list) or not entries:
        raise _bad(reference, "its image index lists no manifests")
    by_platform = {_platform_of(e): e for e in entries if isinstance(e, dict)}
    if wanted is not None:
        if wanted not in by_platform:
            has = ", ".join(sorted(p for p in by_platform if p)) or "none named"
            raise InputError(
                _where(reference),
                f"its image index has no image for platform {wanted} (it has: {has})",
                "give --platform one of those",
            )
        return _descriptor(reference, by_platform[wanted], f"manifests[{wanted}]")
    for choice in (this_platform(), "linux/amd64"):
        if choice in by_platform:
            return _descriptor(reference, by_platform[choice], f"manifests[{choice}]")
    if len(entries) == 1:
        return _descriptor(reference, entries[0], "manifests[0]")
    has = ", ".join(sorted(p for p in by_platform if p)) or "none named"
    raise InputError(
        _where(reference),
        f"its image index has no image for {this_platform()} or linux/amd64 (it has: {has})",
        "give --platform OS/ARCH",
    )


def _manifest(
    reference: RegistryReference | LayoutReference, data: bytes, digest: str
) -> Manifest | dict[str, Any]:
    """A manifest, or the document of an index (to choose from)."""
    document = parse_json(data, f"{_where(reference)}: manifest {digest}")
    if not isinstance(document, dict):
        raise _bad(reference, f"manifest {digest} is {json_type(document)}, not an object")
    media_type = document.get("mediaType")
    if media_type in INDEXES or (media_type is None and "manifests" in document):
        return document
    if media_type is not None and media_type not in MANIFESTS:
        raise _bad(
            reference,
            f"manifest {digest} has media type {excerpt(str(media_type))}, which is neither an "
            "OCI nor a Docker schema 2 image manifest",
        )
    layers = document.get("layers")
    if not isinstance(layers, list):
        raise _bad(reference, f"manifest {digest} has no layers list")
    return Manifest(
        digest,
        _descriptor(reference, document.get("config"), "config"),
        tuple(_descriptor(reference, layer, f"layers[{n}]") for n, layer in enumerate(layers)),
    )


class RegistryImage:
    """An image in a registry, read over one session."""

    def __init__(
        self,
        reference: RegistryReference,
        *,
        auth: RegistryAuth | None,
        tls_verify: bool,
        timeout: float,
    ) -> None:
        self.reference = reference
        self.session = RegistrySession(
            reference, auth, tls_verify=tls_verify, timeout=timeout, pull=True
        )
        self.connected = False

    def use_base(self, base: str) -> None:
        """Speak to the registry at ``base`` (``https://HOST`` or, when TLS is not verified,
        ``http://HOST``) as a read before did, without asking ``/v2/`` first."""
        endpoint = self.reference.endpoint
        if base == f"https://{endpoint}" or (
            base == f"http://{endpoint}" and not self.session.tls_verify
        ):
            self.session.base = base
            self.connected = True

    def _url(self, kind: str, name: str) -> str:
        if not self.connected:
            self.session.connect()
            self.connected = True
        return f"{self.session.base}/v2/{self.reference.repository}/{kind}/{name}"

    def tag_digest(self) -> str:
        """The digest the tag points at now: one HEAD (a GET when the registry says none)."""
        answer = self.session.send(
            "HEAD", self._url("manifests", self.reference.tag), {"Accept": ACCEPT}
        )
        if answer.status == 200:
            found = (answer.header("Docker-Content-Digest") or "").strip()
            if DIGEST.fullmatch(found):
                return found
        elif answer.status != 404:
            raise self.session.answered(answer, "HEAD")
        return self._manifest_bytes(self.reference.tag)[1]

    def _manifest_bytes(self, name: str) -> tuple[bytes, str]:
        answer = self.session.send(
            "GET", self._url("manifests", name), {"Accept": ACCEPT}, max_body=MAX_MANIFEST_BYTES
        )
        if answer.status == 404:
            raise InputError(
                _where(self.reference),
                f"registry {self.reference.registry} has no manifest "
                f"{excerpt(name)[1:-1]} in {self.reference.repository}",
                "check the repository, the tag or the digest (skopeo inspect shows what it has)",
            )
        if answer.status != 200:
            raise self.session.answered(answer, "GET")
        digest = "sha256:" + hashlib.sha256(answer.body).hexdigest()
        if DIGEST.fullmatch(name) and digest != name:
            raise InputError(
                _where(self.reference),
                f"manifest {name} has the digest {digest}",
                "check what rewrites manifests between deppy and the registry",
            )
        return answer.body, digest

    def manifest(self, start: str, wanted_platform: str | None) -> Manifest:
        """The image's manifest from ``start`` (a tag or digest), through an index."""
        data, digest = self._manifest_bytes(start)
        found = _manifest(self.reference, data, digest)
        if isinstance(found, Manifest):
            return found
        chosen = _chosen(self.reference, found, wanted_platform)
        data, digest = self._manifest_bytes(chosen.digest)
        checked(self.reference, data, chosen)
        found = _manifest(self.reference, data, digest)
        if not isinstance(found, Manifest):
            raise _bad(self.reference, f"index entry {chosen.digest} is itself an index")
        return found

    def blob(self, wanted: Descriptor, limit: int) -> bytes:
        if wanted.size > limit:
            raise _too_big(self.reference, wanted, limit)
        answer = self.session.send("GET", self._url("blobs", wanted.digest), max_body=wanted.size)
        if answer.status != 200:
            raise self.session.answered(answer, "GET")
        return checked(self.reference, answer.body, wanted)


def _too_big(
    reference: RegistryReference | LayoutReference, wanted: Descriptor, limit: int
) -> InputError:
    return InputError(
        _where(reference),
        f"blob {wanted.digest} is {wanted.size:,} bytes, more than {limit:,} "
        "(deppy's limit for one image blob)",
        "check that the reference names a catalog image",
    )


LAYOUT_FIX = "give the directory of an OCI image layout (skopeo copy ... oci:DIR:TAG writes one)"


class LayoutImage:
    """An image in an OCI image layout on disk."""

    def __init__(self, reference: LayoutReference) -> None:
        self.reference = reference
        self.root = Path(reference.directory)

    def _read(self, path: Path, limit: int) -> bytes:
        try:
            return read_regular_file(str(path), LAYOUT_FIX, limit=limit)
        except InputError as error:
            raise InputError(_where(self.reference), error.what, LAYOUT_FIX) from None

    def _blob_path(self, digest: str) -> Path:
        return self.root / "blobs" / "sha256" / digest.removeprefix("sha256:")

    def manifest(self, wanted_platform: str | None) -> Manifest:
        if not os.path.isfile(self.root / "index.json"):
            raise InputError(_where(self.reference), "has no index.json", LAYOUT_FIX)
        index = parse_json(
            self._read(self.root / "index.json", MAX_MANIFEST_BYTES),
            f"{_where(self.reference)}: index.json",
        )
        entries = index.get("manifests") if isinstance(index, dict) else None
        if not isinstance(entries, list) or not entries:
            raise InputError(_where(self.reference), "index.json lists no images", LAYOUT_FIX)
        tag = self.reference.tag
        if tag is not None:
            named = [
                e
                for e in entries
                if isinstance(e, dict)
                and isinstance(e.get("annotations"), dict)
                and e["annotations"].get("org.opencontainers.image.ref.name") == tag
            ]
            if not named:
                raise InputError(
                    _where(self.reference),
                    f"the layout has no image named {excerpt(tag)}",
                    "give a tag its index.json names (org.opencontainers.image.ref.name)",
                )
            entries = named
        elif len(entries) != 1:
            raise InputError(
                _where(self.reference),
                f"the layout holds {len(entries)} images",
                "name one: oci:DIR:TAG",
            )
        descriptor = _descriptor(self.reference, entries[0], "index.json manifests[0]")
        for _ in range(2):  # an image's manifest, or an index then one of its images
            data = self.blob(descriptor, MAX_MANIFEST_BYTES)
            found = _manifest(self.reference, data, descriptor.digest)
            if isinstance(found, Manifest):
                return found
            descriptor = _chosen(self.reference, found, wanted_platform)
        raise _bad(self.reference, f"index entry {descriptor.digest} is itself an index")

    def blob(self, wanted: Descriptor, limit: int) -> bytes:
        if wanted.size > limit:
            raise _too_big(self.reference, wanted, limit)
        path = self._blob_path(wanted.digest)
        if not path.is_file():
            raise InputError(
                _where(self.reference), f"the layout lacks blob {wanted.digest}", LAYOUT_FIX
            )
        return checked(self.reference, self._read(path, wanted.size), wanted)


def image_config(image: RegistryImage | LayoutImage, manifest: Manifest) -> Mapping[str, Any]:
    """The image's config document (its labels say where the catalog is)."""
    data = image.blob(manifest.config, MAX_MANIFEST_BYTES)
    config = parse_json(data, f"{_where(image.reference)}: config {manifest.config.digest}")
    if not isinstance(config, dict):
        raise _bad(image.reference, f"its config is {json_type(config)}, not an object")
    return config


def labels_of(config: Mapping[str, Any]) -> dict[str, str]:
    inner = config.get("config")
    labels = inner.get("Labels") if isinstance(inner, dict) else None
    if not isinstance(labels, dict):
        return {}
    return {k: v for k, v in labels.items() if isinstance(k, str) and isinstance(v, str)}


__all__ = [
    "MAX_LAYER_BYTES",
    "Descriptor",
    "LayoutImage",
    "Manifest",
    "RegistryError",
    "RegistryImage",
    "checked",
    "image_config",
    "labels_of",
    "this_platform",
]
