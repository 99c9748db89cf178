"""The OCI client: catalog images built as opm lays them out, pushed to a registry or written as
an OCI layout, and read back from either.

A room of its own, low in the house (below ``catalog``, above ``input_limits``), so that the
catalog loaders read images with the same client the resolved-catalog push uses: one exchange
(``exchange``: one deadline, one body cap), one session (``session``: the credentials lookup,
Basic and Bearer logins, TLS and plain HTTP, one set of error words), for push and pull alike.
May import: ``errors``, ``input_limits``. Never ``catalog`` or anything above it.

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
  sent taken out (``redact``) (``publishing``, ``push``, ``layout``).
* ``deppy.oci.pull.pull_catalog(text, cache_dir=, options=) -> PulledImage`` — a catalog
  image (``docker://HOST[:PORT]/REPO[:TAG|@sha256:DIGEST]``, ``oci:DIR[:TAG]``: ``reference``)
  read into deppy's cache directory once per manifest digest: manifests and indexes
  (``fetch``), every blob checked against its descriptor, only the configs directory unpacked,
  bounded (``unpack``).

Importing this package loads no HTTP or TLS module: a push imports them.
"""

from deppy.lazy_exports import lazy_exports

TYPE_CHECKING = False
if TYPE_CHECKING:
    from deppy.oci.auth import (
        Credential,
        RegistryAuth,
        auth_file_paths,
        auth_from_dockerconfigjson,
        auth_from_files,
    )
    from deppy.oci.destination import (
        Destination,
        LayoutDestination,
        RegistryDestination,
        parse_destination,
    )
    from deppy.oci.image import CONFIGS_LABEL, CatalogImage, catalog_image
    from deppy.oci.publishing import Published, default_tag, publish

# Loaded on first use (deppy.lazy_exports): a command that only parses a reference
# (``deppy.oci.reference``) loads neither tarfile and gzip (``image``) nor the push.
_LATER = {
    "Credential": "auth",
    "RegistryAuth": "auth",
    "auth_file_paths": "auth",
    "auth_from_dockerconfigjson": "auth",
    "auth_from_files": "auth",
    "Destination": "destination",
    "LayoutDestination": "destination",
    "RegistryDestination": "destination",
    "parse_destination": "destination",
    "CONFIGS_LABEL": "image",
    "CatalogImage": "image",
    "catalog_image": "image",
    "Published": "publishing",
    "default_tag": "publishing",
    "publish": "publishing",
}

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

__getattr__ = lazy_exports(__name__, _LATER)
