"""One ClusterExtension per package of an approved set, pinned to what was approved.

``version`` is the approved version exactly, ``channels`` the channel it was resolved in,
``upgradeConstraintPolicy: CatalogProvided`` (OLM v1 still checks the catalog's upgrade
edges), and the catalog is selected by name (catalogd labels every ClusterCatalog with
``olm.operatorframework.io/metadata.name``), so OLM v1 installs the very bundle deppy resolved.

A ClusterExtension is cluster-scoped and named after its package (OLM v1 installs a package
once per cluster). deppy writes only ClusterExtensions it labelled as its own for the same unit
(``deppy.io/unit`` and ``deppy.io/namespace``): one a person wrote, or deppy wrote for another
namespace's unit, is never touched.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from deppy.catalog.olmv1 import Refusal
from deppy.controller.approval.resolveset import (
    MANAGED_LABEL,
    MANAGER,
    SET_LABEL,
    UNIT_LABEL,
    label_value,
)
from deppy.controller.kube import OLM_V1_GROUP, OLM_V1_VERSION

PROVISIONER = "deppy.io/olm-v1"
NAMESPACE_LABEL = "deppy.io/namespace"
INSTANCE_ANNOTATION = "deppy.io/instance"
CATALOG_NAME_LABEL = "olm.operatorframework.io/metadata.name"
POLICY = "CatalogProvided"
_NOT_DNS = re.compile(r"[^a-z0-9-]+")


@dataclass(frozen=True, slots=True)
class Wanted:
    """One package of the approved set, and where OLM v1 installs it."""

    package: str
    version: str
    channel: str
    catalog: str
    namespace: str  # the operator's install namespace (ClusterExtension spec.namespace)
    service_account: str | None  # deprecated and ignored by OLM v1: written only when named
    refusal: Refusal | None = None  # OLM v1 refuses the bundle as it is in ``catalog``

    @property
    def name(self) -> str:
        return extension_name(self.package)


def extension_name(package: str) -> str:
    """The ClusterExtension's name: the package's, as a DNS label (at most 63 characters)."""
    clean = _NOT_DNS.sub("-", package.lower()).strip("-") or "package"
    return label_value(clean).lower().strip("-._")


def spec_of(wanted: Wanted) -> dict[str, Any]:
    catalog: dict[str, Any] = {
        "packageName": wanted.package,
        "version": wanted.version,
        "channels": [wanted.channel] if wanted.channel else [],
        "upgradeConstraintPolicy": POLICY,
        "selector": {"matchLabels": {CATALOG_NAME_LABEL: wanted.catalog}},
    }
    spec: dict[str, Any] = {"namespace": wanted.namespace}
    if wanted.service_account:
        spec["serviceAccount"] = {"name": wanted.service_account}
    spec["source"] = {"sourceType": "Catalog", "catalog": catalog}
    return spec


def ownership(namespace: str, unit: str, instance: str) -> dict[str, Any]:
    """The labels and annotation that make a ClusterExtension this unit's."""
    return {
        "labels": {
            MANAGED_LABEL: MANAGER,
            UNIT_LABEL: label_value(unit),
            NAMESPACE_LABEL: namespace,
            SET_LABEL: instance,
        },
        "annotations": {INSTANCE_ANNOTATION: f"{namespace}/{instance}"},
    }


def extension_body(wanted: Wanted, namespace: str, unit: str, instance: str) -> dict[str, Any]:
    return {
        "apiVersion": f"{OLM_V1_GROUP}/{OLM_V1_VERSION}",
        "kind": "ClusterExtension",
        "metadata": {"name": wanted.name, **ownership(namespace, unit, instance)},
        "spec": spec_of(wanted),
    }


def owner_of(body: Mapping[str, Any]) -> tuple[str, str] | None:
    """(namespace, unit label) of the deppy unit that wrote it; None: not deppy's."""
    labels = (body.get("metadata") or {}).get("labels") or {}
    if labels.get(MANAGED_LABEL) != MANAGER or UNIT_LABEL not in labels:
        return None
    return str(labels.get(NAMESPACE_LABEL) or ""), str(labels[UNIT_LABEL])


def package_of(body: Mapping[str, Any]) -> str:
    catalog = ((body.get("spec") or {}).get("source") or {}).get("catalog") or {}
    return str(catalog.get("packageName") or "")


def _subset(wanted: Any, found: Any) -> bool:
    """Every field of ``wanted`` is in ``found`` with the same value (the API server adds
    defaults; lists compare whole)."""
    if isinstance(wanted, Mapping):
        return isinstance(found, Mapping) and all(
            _subset(v, found.get(k)) for k, v in wanted.items()
        )
    return bool(wanted == found)


def up_to_date(
    current: Mapping[str, Any], wanted: Wanted, namespace: str, unit: str, instance: str
) -> bool:
    meta = current.get("metadata") or {}
    mine = ownership(namespace, unit, instance)
    return (
        _subset(spec_of(wanted), current.get("spec"))
        and _subset(mine["labels"], meta.get("labels") or {})
        and _subset(mine["annotations"], meta.get("annotations") or {})
    )


def conditions_of(body: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    found = (body.get("status") or {}).get("conditions") or ()
    return {str(c.get("type")): c for c in found if isinstance(c, Mapping)}


def installed_version(body: Mapping[str, Any]) -> str:
    bundle = ((body.get("status") or {}).get("install") or {}).get("bundle") or {}
    return str(bundle.get("version") or "")
