"""Where a catalog image is read from, in skopeo's transport syntax: ``docker://HOST[:PORT]/
REPO[:TAG|@sha256:DIGEST]`` (a registry) or ``oci:DIR[:TAG]`` (an OCI image layout).

The names are those of a push destination (:mod:`deppy.oci.destination`: the same grammar,
the same words for a bad one), with a digest allowed: a digest reference names content, so it
is read once and never asked about again. A tag left out is ``latest``, as for skopeo.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deppy.errors import InputError, excerpt
from deppy.oci.destination import (
    LayoutDestination,
    RegistryDestination,
    endpoint_of,
    parse_destination,
    shown,
)

DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
FORMS = "docker://HOST[:PORT]/REPO[:TAG|@sha256:DIGEST] or oci:DIR[:TAG]"
DEFAULT_TAG = "latest"


@dataclass(frozen=True, slots=True)
class RegistryReference:
    """An image in a registry: by ``digest`` when given, else by ``tag``."""

    registry: str
    repository: str
    tag: str
    digest: str | None
    text: str

    def __str__(self) -> str:
        return self.text

    @property
    def endpoint(self) -> str:
        return endpoint_of(self.registry)

    @property
    def name(self) -> str:
        """A catalog's default name: the repository's last part (``community``)."""
        return self.repository.rpartition("/")[2]


@dataclass(frozen=True, slots=True)
class LayoutReference:
    """An image in an OCI layout directory: the one named ``tag``, or its only image."""

    directory: str
    tag: str | None
    text: str

    def __str__(self) -> str:
        return self.text

    @property
    def name(self) -> str:
        return self.directory.rstrip("/").rpartition("/")[2] or "layout"


ImageReference = RegistryReference | LayoutReference


def is_image_reference(text: str) -> bool:
    """Whether ``text`` is written as an image reference (parsed or not)."""
    return text.startswith(("docker://", "oci:"))


def parse_reference(text: str, *, where: str = "--catalog") -> ImageReference:
    """``text`` as an image reference; an InputError naming ``where`` and the reference for a
    bad one (the transport, the host, the repository, the tag or the digest)."""
    body, at, digest = text.rpartition("@") if text.startswith("docker://") else ("", "", "")
    if at and "/" in body.removeprefix("docker://") and "/" not in digest:
        if not DIGEST.fullmatch(digest):
            raise InputError(
                f"{where} {shown(text)}",
                f"digest {excerpt(digest)} is not a sha256 digest",
                "write @sha256: and the 64 lowercase hexadecimal digits of the manifest's digest",
            )
        parsed = parse_destination(body, where=where)
    else:
        digest = ""
        parsed = parse_destination(text, where=where)
    if isinstance(parsed, LayoutDestination):
        return LayoutReference(parsed.directory, parsed.tag, text)
    assert isinstance(parsed, RegistryDestination)
    return RegistryReference(
        parsed.registry, parsed.repository, parsed.tag or DEFAULT_TAG, digest or None, text
    )


__all__ = [
    "DEFAULT_TAG",
    "DIGEST",
    "ImageReference",
    "LayoutReference",
    "RegistryReference",
    "is_image_reference",
    "parse_reference",
]
