"""Publishing a catalog image where a destination says: pushed to a registry, or written as an
OCI image layout. One call for the CLI and the controller, so both name tags and report
failures the same way."""

from __future__ import annotations

from dataclasses import dataclass

from deppy.oci.auth import RegistryAuth
from deppy.oci.destination import Destination, LayoutDestination
from deppy.oci.exchange import DEFAULT_TIMEOUT_S
from deppy.oci.image import CatalogImage

TAG_PREFIX = "resolved-"


@dataclass(frozen=True, slots=True)
class Published:
    """Where the image now is: ``reference`` pins it by digest (``HOST[:PORT]/REPO@sha256:…``
    for a registry, what a ClusterCatalog's ``image.ref`` takes; ``oci:DIR@sha256:…`` for a
    layout), ``tag`` the name it was given."""

    reference: str
    digest: str
    tag: str


def default_tag(image: CatalogImage) -> str:
    """The tag of an image whose destination names none: ``resolved-`` and the first 16 hex
    digits of its digest, so the same catalog always lands under the same tag and two
    different catalogs practically never share one."""
    return TAG_PREFIX + image.digest.removeprefix("sha256:")[:16]


def publish(
    image: CatalogImage,
    destination: Destination,
    *,
    tls_verify: bool = True,
    auth: RegistryAuth | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> Published:
    """Push or write ``image``; an InputError (a ``RegistryError`` for a registry) naming the
    destination and what to do when that fails. ``tls_verify`` and ``auth`` apply to
    registries only; ``timeout`` bounds each request to the registry, the whole of it."""
    tag = destination.tag or default_tag(image)
    if isinstance(destination, LayoutDestination):
        from deppy.oci.layout import write_layout

        write_layout(image, destination, tag)
        return Published(f"oci:{destination.directory}@{image.digest}", image.digest, tag)
    from deppy.oci.push import push_image

    push_image(image, destination, tag, tls_verify=tls_verify, auth=auth, timeout=timeout)
    reference = f"{destination.registry}/{destination.repository}@{image.digest}"
    return Published(reference, image.digest, tag)


__all__ = ["Published", "default_tag", "publish"]
