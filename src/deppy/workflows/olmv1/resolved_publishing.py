"""Publishing a plan's resolved catalog, for the CLI (``--resolved-catalog DEST``) and the
olm-v1 provisioner: build the catalog image of the bundles OLM v1 would refuse, push it (or
write an OCI layout), and describe it as the ClusterCatalog the plan's ClusterExtensions select.

The ClusterCatalog is pinned by digest and has the lowest priority there is, so only the plan's
own ClusterExtensions (which select it by name) ever use it; a ClusterExtension someone else
writes keeps getting the original catalogs, which outrank it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from deppy.catalog.catalog_set import BundleSource
from deppy.oci.auth import RegistryAuth, auth_from_files
from deppy.oci.destination import (
    Destination,
    LayoutDestination,
    RegistryDestination,
    parse_destination,
)
from deppy.oci.exchange import DEFAULT_TIMEOUT_S
from deppy.oci.publishing import publish
from deppy.resolution.answer import Resolution
from deppy.workflows.olmv1.plan import PublishedCatalog, Publisher
from deppy.workflows.olmv1.resolved_catalog import cluster_catalog_object, resolved_catalog

PREFIX = "deppy-"
_NOT_DNS = re.compile(r"[^a-z0-9-]+")


def catalog_name(base: str) -> str:
    """``deppy-<base>`` as a DNS label (a ClusterCatalog's name is one)."""
    clean = _NOT_DNS.sub("-", base.lower()).strip("-") or "resolved"
    return (PREFIX + clean)[:63].rstrip("-")


def publish_resolved(
    resolution: Resolution,
    catalogs: BundleSource,
    destination: Destination,
    *,
    name: str,
    tls_verify: bool = True,
    auth: RegistryAuth | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    labels: Mapping[str, str] | None = None,
    published_at: str | None = None,
) -> PublishedCatalog | None:
    """Publish the resolved catalog of ``resolution`` and return its ClusterCatalog ``name``;
    None when no bundle of the plan declares a dependency (nothing is built). ``published_at``:
    the reference by digest a ClusterCatalog already pins; the same image there is not pushed
    again (the controller looks at a set every minute; the registry holds it already)."""
    found = resolved_catalog(resolution, catalogs)
    if found is None:
        return None
    image = found.image()
    if isinstance(destination, RegistryDestination):
        reference = f"{destination.registry}/{destination.repository}@{image.digest}"
        if reference == published_at:
            document = cluster_catalog_object(name, reference, labels=labels)
            return PublishedCatalog(name, reference, frozenset(found.bundles), document)
    published = publish(image, destination, tls_verify=tls_verify, auth=auth, timeout=timeout)
    document = cluster_catalog_object(name, published.reference, labels=labels)
    note = None
    if isinstance(destination, LayoutDestination):
        pushed = f"oci:{destination.directory}:{published.tag}"
        # the tag named: skopeo refuses a layout that holds two images without it
        note = (
            f"{destination} is an OCI layout, which catalogd cannot pull: copy it to a registry "
            f"(skopeo copy {pushed} docker://HOST/REPO:{published.tag}) and set "
            f"ClusterCatalog {name}'s spec.source.image.ref to HOST/REPO@{published.digest}"
        )
    else:
        pushed = f"{destination.registry}/{destination.repository}:{published.tag}"
    bundles = frozenset(found.bundles)
    return PublishedCatalog(name, published.reference, bundles, document, note, pushed)


def cli_publisher(
    dest: str, catalogs: BundleSource, *, tls_verify: bool, timeout: float = DEFAULT_TIMEOUT_S
) -> Publisher:
    """``--resolved-catalog DEST``: DEST is parsed at once (bad input before any work), the
    credentials come from the usual auth files, the ClusterCatalog is named after the first
    ClusterExtension asked for."""
    destination = parse_destination(dest)
    auth = None if isinstance(destination, LayoutDestination) else auth_from_files()

    def publish_plan(resolution: Resolution) -> PublishedCatalog | None:
        asked = [r.extension.name for r in resolution.request.required if r.extension]
        return publish_resolved(
            resolution,
            catalogs,
            destination,
            name=catalog_name(asked[0] if asked else "resolved"),
            tls_verify=tls_verify,
            auth=auth,
            timeout=timeout,
        )

    return publish_plan


__all__ = ["PREFIX", "catalog_name", "cli_publisher", "publish_resolved"]
