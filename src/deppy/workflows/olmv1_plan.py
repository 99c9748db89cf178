"""A resolved plan as OLM v1 objects: one ClusterExtension per package, in install order, ready
for ``kubectl apply``; and which packages the plan adds beyond the ClusterExtensions asked for.

OLM v1 refuses a bundle that declares olm.package.required, olm.gvk.required or olm.constraint;
deppy resolves those dependencies, so the plan may need packages nobody asked for: each becomes
its own ClusterExtension, installed before the one that needs it. Every ClusterExtension is
pinned to the chosen version and to the chosen catalog (a selector on the name label), so OLM v1
installs exactly what deppy resolved.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from deppy.errors import InputError
from deppy.resolution.answer import Resolution, SelectedBundle
from deppy.resolution.olmv1_request import API_VERSION, NAME_LABEL
from deppy.resolution.request import ExtensionTerms

DEPENDENCY_PROPERTIES = ("olm.package.required", "olm.gvk.required", "olm.constraint")


@dataclass(frozen=True, slots=True)
class PlannedExtension:
    """One ClusterExtension of the plan; ``requested_by`` names the asked-for extension it
    serves (itself, for one that was asked for)."""

    name: str
    package: str
    version: str
    catalog: str
    namespace: str | None
    service_account: str | None
    policy: str
    requested_by: str
    extra: bool  # a dependency no ClusterExtension asked for

    def as_object(self) -> dict[str, Any]:
        catalog: dict[str, Any] = {
            "packageName": self.package,
            "version": self.version,
            "selector": {"matchLabels": {NAME_LABEL: self.catalog}},
        }
        if self.policy != "CatalogProvided":
            catalog["upgradeConstraintPolicy"] = self.policy
        spec: dict[str, Any] = {
            "namespace": self.namespace,
            "serviceAccount": {"name": self.service_account},
            "source": {"sourceType": "Catalog", "catalog": catalog},
        }
        metadata: dict[str, Any] = {"name": self.name}
        if self.extra:
            metadata["annotations"] = {"deppy.io/required-by": self.requested_by}
        return {
            "apiVersion": API_VERSION,
            "kind": "ClusterExtension",
            "metadata": metadata,
            "spec": spec,
        }


def _requesting(
    item: SelectedBundle,
    by_bundle: dict[str, SelectedBundle],
    extensions: dict[str, ExtensionTerms],
    seen: frozenset[str] = frozenset(),
) -> ExtensionTerms | None:
    """The asked-for ClusterExtension that (transitively) brought ``item`` in."""
    if item.package in extensions:
        return extensions[item.package]
    for origin in item.origins:
        dependent = by_bundle.get(origin.who) if origin.kind == "dependency" else None
        if dependent is not None and dependent.bundle not in seen:
            found = _requesting(dependent, by_bundle, extensions, seen | {item.bundle})
            if found is not None:
                return found
    return None


def plan_extensions(
    resolution: Resolution,
    *,
    namespace: str | None = None,
    service_account: str | None = None,
) -> list[PlannedExtension]:
    """The plan's ClusterExtensions in install order (dependencies first). ``namespace`` and
    ``service_account`` fill what the requesting extension does not say (and name them for
    packages deppy adds); without either, the plan cannot be applied: an error says so."""
    if resolution.selection is None:
        raise InputError("-o clusterextensions", "no plan: the request does not resolve")
    extensions = {
        r.package: r.extension for r in resolution.request.required if r.extension is not None
    }
    by_bundle = {s.bundle: s for s in resolution.selection}
    planned = []
    for item in resolution.selection:
        terms = _requesting(item, by_bundle, extensions)
        own = extensions.get(item.package)
        ns = (terms.namespace if terms else None) or namespace
        sa = (terms.service_account if terms else None) or service_account
        if ns is None or sa is None:
            missing = "--install-namespace" if ns is None else "--service-account"
            raise InputError(
                f"-o clusterextensions: {item.package}",
                "no namespace or service account to install it with",
                f"give {missing} (or set spec.namespace / spec.serviceAccount.name)",
            )
        planned.append(
            PlannedExtension(
                name=own.name if own is not None else item.package,
                package=item.package,
                version=item.version,
                catalog=item.catalog,
                namespace=ns,
                service_account=sa,
                policy=own.policy if own is not None else "CatalogProvided",
                requested_by=terms.name if terms is not None else "",
                extra=own is None,
            )
        )
    return planned


def extra_packages(resolution: Resolution) -> list[str]:
    """Notes on what OLM v1 alone would refuse: each chosen bundle declaring a dependency, and
    the packages the plan adds for them."""
    if resolution.selection is None:
        return []
    asked = {r.package for r in resolution.request.required if r.extension is not None}
    notes = []
    for item in resolution.selection:
        declared = sorted(
            {
                p.type
                for p in (item.source.properties if item.source else ())
                if p.type in DEPENDENCY_PROPERTIES
            }
        )
        if declared and item.package in asked:
            notes.append(
                f"{item.bundle} declares {', '.join(declared)}: OLM v1 refuses it alone; "
                "deppy resolved its dependencies"
            )
    extra = [s.package for s in resolution.selection if s.package not in asked]
    if asked and extra:
        notes.append(
            "the plan needs packages no ClusterExtension asks for: "
            + ", ".join(extra)
            + " (-o clusterextensions writes one ClusterExtension each)"
        )
    return notes


def plan_documents(planned: Sequence[PlannedExtension]) -> list[dict[str, Any]]:
    return [p.as_object() for p in planned]


__all__ = [
    "PlannedExtension",
    "extra_packages",
    "plan_documents",
    "plan_extensions",
]
