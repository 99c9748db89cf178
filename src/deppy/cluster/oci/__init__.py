"""Catalog images: built as opm lays them out, and published to a registry or an OCI layout.

* ``catalog_image(files) -> CatalogImage`` — the image of a File-Based Catalog (``files``: paths
  under /configs to bytes); same files, same digest (``image``).
* ``parse_destination(text, where=) -> Destination`` — ``docker://HOST[:PORT]/REPO[:TAG]`` or
  ``oci:DIR[:TAG]`` (``destination``).
* ``auth_from_files()`` / ``auth_from_dockerconfigjson(data)`` -> ``RegistryAuth`` — credentials
  from podman's, skopeo's and docker's auth files, or a dockerconfigjson Secret (``auth``).
* ``publish(image, destination, tls_verify=, auth=, timeout=) -> Published`` — pushes (the
  distribution API over http.client, each request within ``timeout`` and every answer read
  with a cap: ``exchange``, ``login``) or writes the image; failures are one-line InputErrors
  (``RegistryError``: ``retriable`` says whether trying later may help) with every credential
  sent taken out (``redact``) (``publish``, ``push``, ``layout``).

Importing this package loads no HTTP or TLS module: a push imports them.
"""

from deppy.cluster.oci.auth import (
    Credential,
    RegistryAuth,
    auth_file_paths,
    auth_from_dockerconfigjson,
    auth_from_files,
)
from deppy.cluster.oci.destination import (
    Destination,
    LayoutDestination,
    RegistryDestination,
    parse_destination,
)
from deppy.cluster.oci.image import CONFIGS_LABEL, CatalogImage, catalog_image
from deppy.cluster.oci.publish import Published, default_tag, publish

__all__ = [
    "CONFIGS_LABEL",
    "CatalogImage",
    "Credential",
    "Destination",
    "LayoutDestination",
    "Published",
    "RegistryAuth",
    "RegistryDestination",
    "auth_file_paths",
    "auth_from_dockerconfigjson",
    "auth_from_files",
    "catalog_image",
    "default_tag",
    "parse_destination",
    "publish",
]
