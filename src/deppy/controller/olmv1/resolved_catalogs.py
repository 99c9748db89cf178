"""Resolved catalogs on a cluster: how the olm-v1 provisioner installs bundles OLM v1 refuses.

OLM v1 refuses a bundle that declares a dependency. When an approved set holds such bundles and
the ProvisionerClass has ``parameters.resolvedCatalog`` (``ref: docker://HOST/REPO``,
``tlsVerify``, ``authSecret``: a ``kubernetes.io/dockerconfigjson`` Secret in deppy's own
namespace, ``registryTimeout``: seconds for each registry request, whole, 60 by default), the
provisioner, in this order: pushes the set's resolved catalog (tagged with the Instance's name),
writes the ClusterCatalog ``deppy-<unit>`` pinned by digest, then writes the ClusterExtensions
that select it. A resolved catalog no ClusterExtension of the unit uses any
more is deleted. Credentials are read from the Secret (through a Role in deppy's namespace) and
never written anywhere: not to logs, Events, status or metrics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from deppy.catalog.catalog_set import BundleSource
from deppy.controller.approval.resolveset import MANAGED_LABEL, MANAGER, UNIT_LABEL, label_value
from deppy.controller.fields import flag, mapping, text
from deppy.controller.kube import Body, Kube
from deppy.controller.olmv1.extensions import NAMESPACE_LABEL, Wanted
from deppy.controller.registry_secrets import own_namespace, registry_auth
from deppy.controller.runtime import Runtime
from deppy.errors import InputError, excerpt
from deppy.oci.auth import RegistryAuth
from deppy.oci.destination import RegistryDestination, parse_destination
from deppy.oci.exchange import DEFAULT_TIMEOUT_S
from deppy.resolution.answer import Resolution, SelectedBundle
from deppy.resolution.request import ResolutionRequest
from deppy.workflows.olmv1 import PublishedCatalog, catalog_name, publish_resolved

PARAMETER = "resolvedCatalog"


@dataclass(frozen=True, slots=True)
class Settings:
    """``parameters.resolvedCatalog`` of a ProvisionerClass."""

    destination: RegistryDestination
    tls_verify: bool
    auth_secret: str | None
    timeout: float = DEFAULT_TIMEOUT_S


def settings_of(provisioner: Body, class_name: str) -> Settings | None:
    """None without the parameter; an InputError naming the field for a bad one."""
    where = f"ProvisionerClass {class_name}: parameters.{PARAMETER}"
    parameters = mapping(provisioner.get("parameters"), "parameters")
    if parameters.get(PARAMETER) is None:
        return None
    found = mapping(parameters.get(PARAMETER), where)
    ref = text(found.get("ref"), f"{where}.ref")
    if not ref:
        raise InputError(f"{where}.ref", "required field", "write ref: docker://HOST/REPO")
    destination = parse_destination(ref, where=f"{where}.ref")
    if not isinstance(destination, RegistryDestination):
        raise InputError(
            f"{where}.ref", "not a registry", "catalogd pulls images: write docker://HOST/REPO"
        )
    verify = found.get("tlsVerify")
    return Settings(
        destination,
        True if verify is None else flag(verify, f"{where}.tlsVerify"),
        text(found.get("authSecret"), f"{where}.authSecret") or None,
        _timeout(found.get("registryTimeout"), f"{where}.registryTimeout"),
    )


def _timeout(value: Any, where: str) -> float:
    """``registryTimeout``: seconds for each registry request, whole (default 60)."""
    if value is None:
        return DEFAULT_TIMEOUT_S
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 3600:
        raise InputError(
            where, f"{excerpt(value)} is not a number of seconds", "write a number from 1 to 3600"
        )
    return float(value)


def _auth(kube: Kube, settings: Settings) -> RegistryAuth | None:
    if settings.auth_secret is None:
        return None
    return registry_auth(kube, settings.auth_secret)


def _set_as_resolution(entries: Sequence[Mapping[str, Any]], source: BundleSource) -> Resolution:
    """The approved set as the resolution it came from (each bundle as its catalog has it)."""
    selection = []
    for entry in entries:
        package, name = str(entry.get("packageName") or ""), str(entry.get("name") or "")
        catalog = str(entry.get("catalog") or "")
        bundle = next(
            (b for b in source.bundles_of(package) if b.name == name and b.catalog == catalog),
            None,
        )
        if bundle is None:
            raise InputError(
                f"bundle {name}", f"not in catalog {catalog} any more", "approve a newer set"
            )
        channels = entry.get("channels") or []
        selection.append(
            SelectedBundle(
                package=package,
                version=str(entry.get("version") or ""),
                bundle=name,
                channel=str(channels[0]) if channels else None,
                catalog=catalog,
                image=bundle.image,
                action="install",
                from_version=None,
                path=(),
                reasons=(),
                source=bundle,
            )
        )
    return Resolution(ResolutionRequest(rules="olmv1"), tuple(selection), None, ())


def publish_set(
    runtime: Runtime,
    settings: Settings,
    unit: str,
    namespace: str,
    instance: str,
    entries: Sequence[Mapping[str, Any]],
) -> PublishedCatalog | None:
    """Push the set's resolved catalog (tagged with the Instance's name) unless the unit's
    ClusterCatalog pins that very image already; None when no bundle of the set declares a
    dependency. An InputError (a RegistryError) when the push fails."""
    catalogs = sorted({str(e.get("catalog") or "") for e in entries})
    view = runtime.cache.view(catalogs)
    if view is None or view.source is None:
        raise InputError(
            f"catalogs {', '.join(catalogs)}", "deppy holds no content of them yet", "wait"
        )
    resolution = _set_as_resolution(entries, view.source)
    destination = settings.destination
    tagged = RegistryDestination(
        destination.registry, destination.repository, destination.tag or instance, destination.text
    )
    name = catalog_name(label_value(unit))
    current = runtime.kube.get("clustercatalogs", name) or {}
    pinned = ((current.get("spec") or {}).get("source") or {}).get("image") or {}
    return publish_resolved(
        resolution,
        view.source,
        tagged,
        name=name,
        tls_verify=settings.tls_verify,
        timeout=settings.timeout,
        auth=_auth(runtime.kube, settings),
        labels={MANAGED_LABEL: MANAGER, UNIT_LABEL: label_value(unit), NAMESPACE_LABEL: namespace},
        published_at=pinned.get("ref"),
    )


def moved(wanted: Sequence[Wanted], published: PublishedCatalog) -> list[Wanted]:
    """The set's ClusterExtensions, those of the published bundles selecting its catalog."""
    result = []
    for item in wanted:
        if item.refusal is not None and item.refusal.bundle in published.bundles:
            item = replace(item, catalog=published.name, refusal=None)
        result.append(item)
    return result


def write_catalog(kube: Kube, published: PublishedCatalog, namespace: str, unit: str) -> str:
    """Create or update the ClusterCatalog (""; created; updated); an InputError when one of
    that name is not this unit's."""
    body = dict(published.document)
    current = kube.get("clustercatalogs", published.name)
    if current is None:
        kube.create("clustercatalogs", body)
        return "created"
    labels = (current.get("metadata") or {}).get("labels") or {}
    if labels.get(UNIT_LABEL) != label_value(unit) or labels.get(NAMESPACE_LABEL) != namespace:
        raise InputError(
            f"ClusterCatalog {published.name}",
            "exists and is not this unit's",
            "delete it, or rename the unit",
        )
    if (current.get("spec") or {}).get("source") == body["spec"]["source"]:
        return ""
    kube.patch("clustercatalogs", published.name, {"spec": body["spec"]})
    return "updated"


def prune_catalogs(kube: Kube, namespace: str, unit: str, used: set[str]) -> list[str]:
    """Delete this unit's resolved catalogs that no ClusterExtension of its set selects."""
    selector = (
        f"{MANAGED_LABEL}={MANAGER},{NAMESPACE_LABEL}={namespace},{UNIT_LABEL}={label_value(unit)}"
    )
    deleted = []
    for body in kube.list("clustercatalogs", labels=selector):
        name = str(body["metadata"]["name"])
        if name not in used:
            kube.delete("clustercatalogs", name)
            deleted.append(name)
    return deleted


__all__ = [
    "PARAMETER",
    "Settings",
    "moved",
    "own_namespace",
    "prune_catalogs",
    "publish_set",
    "settings_of",
    "write_catalog",
]
