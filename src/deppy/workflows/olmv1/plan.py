"""A resolved plan as OLM v1 objects: one ClusterExtension per package, in install order, ready
for ``kubectl apply``; and, for each, whether OLM v1 installs it as written.

A ClusterExtension that was asked for keeps every field its request wrote (labels, annotations,
``install``, ``namespace``, ``serviceAccount``, channels, ``upgradeConstraintPolicy``): deppy
changes only what it decides, the version pin and the catalog selector, and adds its own
annotations. A package that only a dependency needs gets a ClusterExtension with defaults,
annotated with the extension that needed it. ``spec.serviceAccount`` is deprecated and ignored by
OLM v1: a plan carries one only where a request had one.

OLM v1 refuses a chosen bundle that declares a dependency (``catalog.olmv1.validation``). Such
bundles install only from a resolved catalog (``workflows.olmv1.resolved_catalog``): the plan's
extensions for them then select that catalog by name, and OLM v1 installs the whole plan.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from deppy.catalog.olmv1 import DEPENDENCY_PROPERTIES, Refusal, refusal_of
from deppy.errors import InputError
from deppy.resolution.answer import Resolution, SelectedBundle
from deppy.resolution.installed import CLUSTER_CATALOG
from deppy.resolution.olmv1 import API_VERSION, NAME_LABEL
from deppy.resolution.request import ExtensionTerms

REQUIRED_BY = "deppy.io/required-by"
INSTALLS_AS_WRITTEN = "deppy.io/installs-as-written"
REFUSAL = "deppy.io/olm-v1-refusal"
RESOLVED_CATALOG_WAY_OUT = (
    "publish a resolved catalog for the bundles that declare dependencies: deppy resolve -f "
    "FILE -o clusterextensions --resolved-catalog docker://HOST/REPO (or parameters."
    "resolvedCatalog on the olm-v1 ProvisionerClass)"
)
# metadata the API server sets: a plan to apply leaves it out
_SERVER_METADATA = (
    "creationTimestamp",
    "deletionGracePeriodSeconds",
    "deletionTimestamp",
    "generation",
    "managedFields",
    "resourceVersion",
    "selfLink",
    "uid",
)


@dataclass(frozen=True, slots=True)
class PlannedExtension:
    """One ClusterExtension of the plan. ``requested_by`` names the asked-for extension a
    dependency serves (None for one that was asked for); ``refusal`` is OLM v1's, for the
    bundle in the catalog it selects (None: OLM v1 installs it as written)."""

    name: str
    package: str
    version: str
    bundle: str
    catalog: str
    namespace: str | None
    service_account: str | None
    requested_by: str | None
    refusal: Refusal | None
    written: Mapping[str, Any] | None = None  # the request's own document, when asked for

    @property
    def installs_as_written(self) -> bool:
        return self.refusal is None

    def verdict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "package": self.package,
            "version": self.version,
            "bundle": self.bundle,
            "catalog": self.catalog,
            "requiredBy": self.requested_by,
            "installsAsWritten": self.installs_as_written,
            "refusal": self.refusal.as_dict() if self.refusal else None,
        }

    def as_object(self) -> dict[str, Any]:
        if self.namespace is None:
            raise InputError(
                f"-o clusterextensions: ClusterExtension {self.name}",
                "no install namespace (spec.namespace is required)",
                "give --install-namespace or set spec.namespace",
            )
        data = _as_written(self.written) if self.written is not None else _defaults(self)
        metadata = data.setdefault("metadata", {})
        metadata["name"] = self.name
        annotations = dict(metadata.get("annotations") or {})
        if self.requested_by:
            annotations[REQUIRED_BY] = self.requested_by
        annotations[INSTALLS_AS_WRITTEN] = str(self.installs_as_written).lower()
        annotations.pop(REFUSAL, None)
        if self.refusal is not None:
            annotations[REFUSAL] = self.refusal.message
        metadata["annotations"] = annotations
        spec = data.setdefault("spec", {})
        spec["namespace"] = spec.get("namespace") or self.namespace
        if self.service_account and not spec.get("serviceAccount"):
            spec["serviceAccount"] = {"name": self.service_account}
        source = spec.setdefault("source", {})
        source["sourceType"] = "Catalog"
        catalog = source.setdefault("catalog", {})
        catalog["packageName"] = self.package
        catalog["version"] = self.version
        if self.catalog != CLUSTER_CATALOG:  # OLM v1's fallback: the selector as written
            catalog["selector"] = {"matchLabels": {NAME_LABEL: self.catalog}}
        return data


def _as_written(document: Mapping[str, Any]) -> dict[str, Any]:
    """The request's ClusterExtension without what the API server (not the user) wrote."""
    data = {k: copy.deepcopy(v) for k, v in document.items() if k != "status"}
    data["apiVersion"] = API_VERSION
    data["kind"] = "ClusterExtension"
    metadata = data.get("metadata")
    if isinstance(metadata, Mapping):
        data["metadata"] = {k: v for k, v in metadata.items() if k not in _SERVER_METADATA}
    return data


def _defaults(planned: PlannedExtension) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "ClusterExtension",
        "metadata": {"name": planned.name},
        "spec": {"namespace": planned.namespace, "source": {"sourceType": "Catalog"}},
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
    resolved_catalog: str | None = None,
    moved: frozenset[str] = frozenset(),
) -> list[PlannedExtension]:
    """The plan's ClusterExtensions in install order (dependencies first).

    ``namespace`` fills what the requesting extension does not say; ``service_account`` too,
    only when given (OLM v1 ignores the field). Bundles named in ``moved`` install from the
    ClusterCatalog ``resolved_catalog``, where OLM v1 finds no dependency property on them. An
    installed bundle that stays as it is and that no asked-for extension needs is left out: it
    is another ClusterExtension's.
    """
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
        if terms is None and item.action == "keep":
            continue
        from_resolved = resolved_catalog is not None and item.bundle in moved
        planned.append(
            PlannedExtension(
                name=own.name if own is not None else item.package,
                package=item.package,
                version=item.version,
                bundle=item.bundle,
                catalog=resolved_catalog if from_resolved and resolved_catalog else item.catalog,
                namespace=(terms.namespace if terms else None) or namespace,
                service_account=(terms.service_account if terms else None) or service_account,
                requested_by=terms.name if terms is not None and own is None else None,
                refusal=None if from_resolved else refusal_of(item.source),
                written=own.document if own is not None else None,
            )
        )
    return planned


def refusal_notes(planned: Sequence[PlannedExtension]) -> list[str]:
    """One warning per ClusterExtension OLM v1 refuses as written, and the packages the plan
    adds beyond the ClusterExtensions asked for."""
    notes = [
        f"ClusterExtension {p.name}: OLM v1 refuses it as written: {p.refusal.message}"
        for p in planned
        if p.refusal is not None
    ]
    if notes:
        notes.append(f"to install the whole plan, {RESOLVED_CATALOG_WAY_OUT}")
    extra = [p.package for p in planned if p.requested_by]
    if extra:
        notes.append(
            "the plan needs packages no ClusterExtension asks for: "
            + ", ".join(extra)
            + " (-o clusterextensions writes one ClusterExtension each)"
        )
    return notes


def plan_summary(
    planned: Sequence[PlannedExtension], resolved: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """What ``-o json`` and the service say of the plan under ``olmv1``: whether OLM v1 installs
    all of it as written, each ClusterExtension's verdict, and the resolved catalog if any."""
    whole = all(p.installs_as_written for p in planned)
    summary: dict[str, Any] = {
        "installsAsWritten": whole,
        "extensions": [p.verdict() for p in planned],
        "resolvedCatalog": dict(resolved) if resolved is not None else None,
    }
    if not whole:
        summary["wayOut"] = RESOLVED_CATALOG_WAY_OUT
    return summary


def plan_documents(planned: Sequence[PlannedExtension]) -> list[dict[str, Any]]:
    return [p.as_object() for p in planned]


@dataclass(frozen=True, slots=True)
class PublishedCatalog:
    """A resolved catalog that was published: its ClusterCatalog (``name``, the document to
    apply), the image by digest, and the bundles it holds."""

    name: str
    image: str
    bundles: frozenset[str]
    document: Mapping[str, Any] = field(compare=False)
    note: str | None = None  # what is left to do before OLM v1 can pull it
    pushed: str | None = None  # where it went by name: HOST/REPO:TAG or oci:DIR:TAG (None: not now)

    def lines(self) -> list[str]:
        """What was published, for people (``resolve``'s text output): where, the digest, the
        ClusterCatalog and the bundles it holds."""
        where = self.pushed or self.image
        verb = "written to the OCI layout" if where.startswith("oci:") else "pushed to"
        if self.pushed is None:
            verb = "already published at"
        return [
            f"Resolved catalog {verb} {where}",
            f"  digest:         {self.image.rpartition('@')[2]}",
            f"  image:          {self.image}",
            f"  ClusterCatalog: {self.name} (the ClusterExtensions select it: "
            "-o clusterextensions)",
            f"  bundles:        {', '.join(sorted(self.bundles))}",
        ]

    def as_dict(self) -> dict[str, Any]:
        found = {"clusterCatalog": self.name, "image": self.image, "bundles": sorted(self.bundles)}
        return found | ({"note": self.note} if self.note else {})


@dataclass(frozen=True, slots=True)
class OLMv1Plan:
    """The whole plan: the ClusterCatalog of a resolved catalog (when one was published), then
    the ClusterExtensions; ``note`` says why no resolved catalog was built when one was asked
    for and none was needed."""

    extensions: tuple[PlannedExtension, ...]
    published: PublishedCatalog | None = None
    note: str | None = None

    @property
    def installs_as_written(self) -> bool:
        return all(p.installs_as_written for p in self.extensions)

    def summary(self) -> dict[str, Any]:
        found = plan_summary(self.extensions, self.published.as_dict() if self.published else None)
        if self.note:
            found["note"] = self.note
        return found

    def published_lines(self) -> list[str]:
        """The resolved catalog asked for, for people: what was published, or why nothing was
        (empty when none was asked for)."""
        if self.published is not None:
            return self.published.lines()
        return [f"Resolved catalog: none: {self.note}"] if self.note else []

    def documents(self) -> list[dict[str, Any]]:
        catalogs = [dict(self.published.document)] if self.published is not None else []
        return catalogs + plan_documents(self.extensions)


Publisher = Callable[[Resolution], PublishedCatalog | None]
NOTHING_TO_PUBLISH = "no bundle of the plan declares a dependency: no resolved catalog was built"


def build_plan(
    resolution: Resolution,
    *,
    namespace: str | None = None,
    service_account: str | None = None,
    publish: Publisher | None = None,
) -> OLMv1Plan:
    """The plan; with ``publish``, bundles OLM v1 would refuse are published in a resolved
    catalog first (``publish`` returns None when no bundle needs one) and install from it."""
    planned = plan_extensions(resolution, namespace=namespace, service_account=service_account)
    if publish is None:
        return OLMv1Plan(tuple(planned))
    if all(p.installs_as_written for p in planned):
        return OLMv1Plan(tuple(planned), note=NOTHING_TO_PUBLISH)
    published = publish(resolution)
    if published is None:
        return OLMv1Plan(tuple(planned), note=NOTHING_TO_PUBLISH)
    moved = plan_extensions(
        resolution,
        namespace=namespace,
        service_account=service_account,
        resolved_catalog=published.name,
        moved=published.bundles,
    )
    return OLMv1Plan(tuple(moved), published)


__all__ = [
    "DEPENDENCY_PROPERTIES",
    "INSTALLS_AS_WRITTEN",
    "NOTHING_TO_PUBLISH",
    "REFUSAL",
    "REQUIRED_BY",
    "RESOLVED_CATALOG_WAY_OUT",
    "OLMv1Plan",
    "PlannedExtension",
    "PublishedCatalog",
    "Publisher",
    "build_plan",
    "plan_documents",
    "plan_extensions",
    "plan_summary",
    "refusal_notes",
]
