"""A Catalog of kind ``image``: a catalog image in a registry, polled by its tag's digest.

Each poll asks the registry one question (the tag's digest, ``deppy.oci.pull``); the image is
pulled and loaded only when the digest moved (its content is unpacked once per digest into
deppy's cache directory). The status names the digest served as catalogd does
(``resolvedSource.image.ref``, ``HOST/REPO@sha256:…``). A registry that cannot be reached
fails the load: the last good content keeps serving (``Stale``), as for ``http``. A pull
Secret (``pullSecret``, a ``kubernetes.io/dockerconfigjson`` Secret in deppy's namespace:
``deppy.controller.registry_secrets``) that is missing or of another type is a
``PullSecretInvalid`` condition naming it; the last good content keeps serving too.
"""

from __future__ import annotations

from typing import Any

from deppy.catalog.image_catalog import load_pulled
from deppy.controller.catalogs.sources import CatalogSource
from deppy.controller.conditions import now
from deppy.controller.registry_secrets import registry_auth
from deppy.controller.runtime import Runtime
from deppy.oci.pull import PullOptions, pull_catalog
from deppy.oci.reference import RegistryReference, parse_reference

__all__ = ["load_image", "resolved_ref"]


def resolved_ref(reference: str, digest: str) -> str:
    """The image by digest, as catalogd writes ``resolvedSource.image.ref``."""
    parsed = parse_reference(reference)
    assert isinstance(parsed, RegistryReference)
    return f"{parsed.registry}/{parsed.repository}@{digest}"


def load_image(runtime: Runtime, source: CatalogSource) -> tuple[bool, dict[str, Any]]:
    """Load the image's catalog into the cache when its digest moved; (whether it did, the
    status field naming the digest served). The caller (``loading``) adds the content's
    fields and gives back the load's memory, as for every other kind."""
    from deppy.workflows.catalog_loading import images_path

    auth = (
        registry_auth(runtime.kube, source.pull_secret, source.namespace or None, typed=True)
        if source.pull_secret
        else None
    )
    options = PullOptions(tls_verify=source.tls_verify, last_read_when_unreachable=False)
    pulled = pull_catalog(
        source.url,
        cache_dir=images_path(),
        options=options,
        where=f"Catalog {source.name}: spec.source.image.ref",
        auth=auth,
    )
    resolved = {
        "resolvedSource": {
            "type": "Image",
            "image": {"ref": resolved_ref(source.url, pulled.digest)},
        }
    }
    cache = runtime.cache
    if pulled.digest == cache.digest(source.name) and cache.reprioritised(
        source.name, source.priority
    ):
        cache.entries[source.name].error = None
        return False, resolved
    catalog = load_pulled(pulled, name=source.name, priority=source.priority)
    cache.loaded(source.name, catalog, pulled.digest, now())
    return True, resolved
