"""OLM v1 objects as a request: ClusterExtension documents (one requested package each) and
ClusterCatalog documents (labels, ``spec.priority``, ``spec.availabilityMode``).

``request_from_objects`` turns them into a ``ResolutionRequest`` under OLM v1's rule set: each
ClusterExtension becomes a ``RequiredPackage`` carrying its ``ExtensionTerms`` (channels,
version constraint, upgrade policy, installed bundle from ``status.install.bundle``, and the
ClusterCatalogs its selector chose). Bad input is an ``InputError`` naming the document and the
field, as the API server or operator-controller would refuse it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from deppy.catalog.semver import Version, VersionError
from deppy.catalog.semver.extension_constraint import ExtensionConstraint
from deppy.errors import InputError, excerpt, only_fields
from deppy.resolution.olmv1.catalogs import (
    API_VERSION,
    GROUP,
    ClusterCatalogFacts,
    catalog_from_object,
    field_at,
    mapping_field,
    merge_catalogs,
    metadata_of,
    selected_catalogs,
    string_field,
)
from deppy.resolution.request import (
    CATALOG_PROVIDED,
    UPGRADE_POLICIES,
    CatalogChoice,
    ExtensionTerms,
    InstalledBundle,
    RequiredPackage,
    ResolutionRequest,
)

_SPEC_FIELDS = ("namespace", "serviceAccount", "source", "install", "config",
                "progressDeadlineMinutes")  # fmt: skip
_SOURCE_FIELDS = ("sourceType", "catalog")
_CATALOG_FIELDS = ("packageName", "version", "channels", "selector", "upgradeConstraintPolicy")


def _document_name(data: Mapping[str, Any], kind: str, index: int) -> str:
    metadata = data.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    return f"{kind} {name}" if isinstance(name, str) and name else f"{kind} #{index + 1}"


def is_olmv1_document(data: object) -> bool:
    """A ClusterExtension or ClusterCatalog (any version of OLM v1's API group)."""
    return isinstance(data, Mapping) and str(data.get("apiVersion", "")).startswith(f"{GROUP}/")


@dataclass(frozen=True, slots=True)
class ExtensionRequest:
    """A file's OLM v1 objects: the request, and the ClusterCatalogs it described."""

    request: ResolutionRequest
    catalogs: tuple[ClusterCatalogFacts, ...]
    warnings: tuple[str, ...] = ()


# -- ClusterExtension ----------------------------------------------------------------------------


def _channels(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise InputError(where, "expected a list of channel names", "e.g. channels: [stable]")
    names = []
    for n, item in enumerate(value):
        name = string_field(item, f"{where}[{n}]", required=True)
        assert name is not None
        names.append(name)
    return tuple(dict.fromkeys(names))


def _installed(data: Mapping[str, Any], package: str, where: str) -> InstalledBundle | None:
    status = mapping_field(data.get("status"), field_at(where, "status"))
    install = mapping_field(status.get("install"), field_at(where, "status.install"))
    bundle = mapping_field(install.get("bundle"), field_at(where, "status.install.bundle"))
    if not bundle:
        return None
    at = field_at(where, "status.install.bundle")
    name = string_field(bundle.get("name"), f"{at}.name", required=True)
    text = string_field(bundle.get("version"), f"{at}.version", required=True)
    assert text is not None
    try:
        version = Version.parse(text)  # OLM v1 parses it strictly (blang Parse)
    except VersionError as error:
        raise InputError(f"{at}.version", str(error)) from None
    return InstalledBundle(package, version, bundle=name, text=f"{name} {text}")


def extension_from_object(
    data: Mapping[str, Any],
    where: str,
    catalogs: Sequence[ClusterCatalogFacts],
    *,
    existing: Sequence[ClusterCatalogFacts] | None = None,
) -> RequiredPackage:
    """One ClusterExtension as a required package under OLM v1's terms; ``existing``: every
    ClusterCatalog on the cluster, those without content here too (default: ``catalogs``)."""
    metadata = metadata_of(data, where)
    name = string_field(metadata.get("name"), field_at(where, "metadata.name")) or where
    spec = mapping_field(data.get("spec"), field_at(where, "spec"), required=True)
    only_fields(spec, _SPEC_FIELDS, field_at(where, "spec"))
    source = mapping_field(spec.get("source"), field_at(where, "spec.source"), required=True)
    only_fields(source, _SOURCE_FIELDS, field_at(where, "spec.source"))
    source_type = source.get("sourceType")
    if source_type != "Catalog":
        raise InputError(
            field_at(where, "spec.source.sourceType"),
            "required field"
            if source_type is None
            else f"unknown sourceType {excerpt(source_type)}",
            "OLM v1 knows sourceType: Catalog",
        )
    at = field_at(where, "spec.source.catalog")
    catalog = mapping_field(source.get("catalog"), at, required=True)
    only_fields(catalog, _CATALOG_FIELDS, at)
    package = string_field(catalog.get("packageName"), f"{at}.packageName", required=True)
    assert package is not None
    version_text = string_field(catalog.get("version"), f"{at}.version")
    constraint = None
    if version_text is not None:
        try:
            constraint = ExtensionConstraint.parse(version_text)
        except VersionError as error:
            raise InputError(f"{at}.version", str(error)) from None
    policy = catalog.get("upgradeConstraintPolicy") or CATALOG_PROVIDED
    if policy not in UPGRADE_POLICIES:
        raise InputError(
            f"{at}.upgradeConstraintPolicy",
            f"unknown policy {excerpt(policy)}",
            f"write {' or '.join(UPGRADE_POLICIES)}",
        )
    selector = catalog.get("selector")
    if selector is not None and not isinstance(selector, Mapping):
        raise InputError(f"{at}.selector", "expected a mapping (matchLabels, matchExpressions)")
    # a selector that matches nothing is no error: OLM v1 walks no catalog and finds no bundle
    chosen = selected_catalogs(selector, catalogs, f"{at}.selector")
    service_account = mapping_field(
        spec.get("serviceAccount"), field_at(where, "spec.serviceAccount")
    )
    terms = ExtensionTerms(
        name=name,
        channels=_channels(catalog.get("channels"), f"{at}.channels"),
        constraint=constraint,
        policy=str(policy),
        installed=_installed(data, package, where),
        catalogs=tuple(CatalogChoice(c.name, c.priority) for c in chosen if c.available),
        unselected=tuple(
            CatalogChoice(c.name, c.priority) for c in catalogs if c.available and c not in chosen
        ),
        unavailable=tuple(CatalogChoice(c.name, c.priority) for c in chosen if not c.available),
        namespace=string_field(spec.get("namespace"), field_at(where, "spec.namespace")),
        no_catalog_left=not selected_catalogs(
            selector, catalogs if existing is None else existing, f"{at}.selector"
        ),
        service_account=string_field(
            service_account.get("name"), field_at(where, "spec.serviceAccount.name")
        ),
        document=data,
    )
    return RequiredPackage(
        package,
        versions_text=version_text or "",
        text=f"ClusterExtension {name}",
        extension=terms,
    )


def request_from_objects(
    documents: Sequence[Any],
    where: str,
    content: Sequence[tuple[str, int]],
    *,
    described: Sequence[ClusterCatalogFacts] = (),
) -> ExtensionRequest:
    """ClusterExtensions (and ClusterCatalogs) as a request under OLM v1's rules.

    ``content`` names the catalogs whose content deppy has, with the priority given with each
    (``--catalog DIR=NAME:PRIORITY``); ``where`` names the file in errors; ``described`` are
    ClusterCatalogs known otherwise (a cluster's), which the file's own may replace.
    """
    in_file: list[ClusterCatalogFacts] = []
    extensions: list[tuple[Mapping[str, Any], str]] = []
    for index, data in enumerate(documents):
        if data is None:
            continue
        if not isinstance(data, Mapping):
            raise InputError(field_at(where, f"document {index + 1}"), "expected a mapping")
        kind = data.get("kind")
        if not is_olmv1_document(data):
            continue  # a Namespace or a ServiceAccount beside them, as in OLM v1's samples
        if data.get("apiVersion") != API_VERSION:
            raise InputError(
                field_at(where, f"{_document_name(data, str(kind), index)}: apiVersion"),
                f"expected {API_VERSION!r}, got {excerpt(data.get('apiVersion'))}",
            )
        here = field_at(where, _document_name(data, str(kind), index))
        if kind == "ClusterCatalog":
            in_file.append(catalog_from_object(data, here))
        elif kind == "ClusterExtension":
            extensions.append((data, here))
        else:
            raise InputError(
                field_at(where, f"document {index + 1}: kind"),
                f"unknown kind {excerpt(kind)}",
                "deppy reads ClusterExtension and ClusterCatalog",
            )
    if not extensions:
        raise InputError(where, "no ClusterExtension in the file", f"apiVersion: {API_VERSION}")
    replaced = {c.name for c in in_file}
    known = [c for c in described if c.name not in replaced] + in_file
    catalogs, warnings = merge_catalogs(known, content)
    # a ClusterCatalog described without content still exists: OLM v1 would not fall back
    existing = [*catalogs, *(c for c in known if c.name not in {m.name for m in catalogs})]
    required = tuple(
        extension_from_object(data, here, catalogs, existing=existing) for data, here in extensions
    )
    for facts in catalogs:
        if not facts.available:
            warnings.append(f"ClusterCatalog {facts.name} is Unavailable: not used")
    request = ResolutionRequest(required=required, rules="olmv1")
    return ExtensionRequest(request, tuple(catalogs), tuple(warnings))


__all__ = [
    "ExtensionRequest",
    "extension_from_object",
    "is_olmv1_document",
    "request_from_objects",
]
