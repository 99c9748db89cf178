"""An image reference as a pod's ``image:`` takes it, checked before it goes into a manifest.

``[HOST[:PORT]/]PATH[:TAG][@sha256:HEX]``, the distribution reference grammar (the parts of
:mod:`deppy.oci.destination`). A kubelet refuses anything else only when the pod starts
(``InvalidImageName``), long after ``deppy manifests | kubectl apply`` said it was fine; so the
forms people copy from neighbouring commands are named with what to give instead: skopeo's
``docker://`` and ``oci:`` transports, the docs' placeholder ``…@sha256:…``.
"""

from __future__ import annotations

import re

from deppy.errors import InputError, excerpt
from deppy.oci.destination import checked_host, checked_repository, is_host

FORM = "[REGISTRY[:PORT]/]PATH[:TAG][@sha256:DIGEST]"
PUSH_FIRST = (
    "push it first (skopeo copy oci:dist/image:VERSION docker://REGISTRY/deppy:VERSION) and give "
    "REGISTRY/deppy@sha256:DIGEST, the digest skopeo inspect --format '{{.Digest}}' prints"
)
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}|sha512:[0-9a-f]{128}")
# skopeo's and podman's transports: a place on this machine or skopeo's spelling, not a reference
_LOCAL_TRANSPORTS = ("oci", "oci-archive", "docker-archive", "docker-daemon", "containers-storage",
                     "dir")  # fmt: skip
_DNS_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")


def image_reference(text: str, where: str = "--image") -> str:
    """``text`` when it is an image reference a kubelet pulls; an InputError naming ``where``,
    what is wrong and what to give otherwise."""
    place = f"{where} {excerpt(text)}"
    if not text:
        raise InputError(place, "empty", f"give the pushed image's reference, {FORM}")
    if text != text.strip() or any(c.isspace() or not c.isprintable() for c in text):
        raise InputError(place, "has white space or control characters", f"write {FORM}")
    if text.startswith("docker://"):
        raise InputError(
            place,
            "is skopeo's transport syntax, not an image reference",
            f"leave out 'docker://': {excerpt(text.removeprefix('docker://'))}",
        )
    transport, colon, rest = text.partition(":")
    if colon and transport in _LOCAL_TRANSPORTS and not re.match(r"[0-9]+/", rest):
        raise InputError(place, "is an image on this machine, which a cluster cannot pull",
                         PUSH_FIRST)  # fmt: skip
    name, at, digest = text.partition("@")
    if at and not _DIGEST.fullmatch(digest):
        raise InputError(
            place,
            f"digest {excerpt(digest)} is not sha256: and 64 lowercase hex digits",
            "give the digest skopeo inspect --format '{{.Digest}}' printed for the pushed image "
            "(the docs' '…' stands for it)",
        )
    first, slash, remainder = name.partition("/")
    host, path = (first, remainder) if slash and is_host(first) else ("", name)
    if host:
        checked_host(host, place, FORM)
    checked_repository(path, place)
    return text


def dns_label(text: str, where: str) -> str:
    """``text`` when it is a DNS-1123 label (a namespace's name); an InputError otherwise."""
    if not _DNS_LABEL.fullmatch(text):
        raise InputError(
            f"{where} {excerpt(text)}",
            "is not a DNS-1123 label, as a namespace's name must be",
            "use at most 63 lowercase letters, digits and '-', starting and ending with a letter "
            "or digit (deppy-system)",
        )
    return text


__all__ = ["FORM", "dns_label", "image_reference"]
