"""Pushing an image to a registry over the distribution API, through one
:class:`~deppy.oci.session.RegistrySession` (the exchanges, login and error words pulls use too).

Blobs go first and the manifest, which names them, last: a failed push leaves at most blobs
nobody points at, never a tag for a half-pushed image. The registry's ``Docker-Content-Digest``
for the manifest must be deppy's digest.
"""

from __future__ import annotations

from deppy.oci.auth import RegistryAuth
from deppy.oci.destination import RegistryDestination
from deppy.oci.image import MANIFEST_MEDIA_TYPE, CatalogImage
from deppy.oci.session import TIMEOUT_S, RegistryError, RegistrySession


def push_image(
    image: CatalogImage,
    destination: RegistryDestination,
    tag: str,
    *,
    tls_verify: bool,
    auth: RegistryAuth | None,
    timeout: float = TIMEOUT_S,
) -> None:
    """Push ``image`` to the destination's repository and tag it ``tag``; each request within
    ``timeout`` seconds."""
    session = RegistrySession(destination, auth, tls_verify=tls_verify, timeout=timeout)
    session.connect()
    repository = f"{session.base}/v2/{destination.repository}"
    for blob in image.blobs:
        found = session.send("HEAD", f"{repository}/blobs/{blob.digest}")
        if found.status == 200:
            continue
        started = session.send("POST", f"{repository}/blobs/uploads/")
        if started.status != 202:
            raise session.answered(started, "POST")
        headers = {"Content-Type": "application/octet-stream"}
        target = session.upload_url(started, blob.digest)
        stored = session.send("PUT", target, headers, blob.data)
        if not 200 <= stored.status < 300:
            raise session.answered(stored, "PUT")
    headers = {"Content-Type": MANIFEST_MEDIA_TYPE}
    stored = session.send("PUT", f"{repository}/manifests/{tag}", headers, image.manifest)
    if not 200 <= stored.status < 300:
        raise session.answered(stored, "PUT")
    reported = stored.header("Docker-Content-Digest")
    if reported is not None and reported.strip() != image.digest:
        theirs = session.quote(reported.strip())[1:-1]
        raise session.error(
            f"stored the manifest under digest {theirs}, not deppy's {image.digest}",
            "check what rewrites manifests between deppy and the registry",
            retriable=False,
        )


__all__ = ["RegistryError", "push_image"]
