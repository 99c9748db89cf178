"""OLM v1 objects as a request: ClusterExtension documents (one requested package each) and
ClusterCatalog documents (labels, ``spec.priority``, ``spec.availabilityMode``).

``request_from_objects`` turns them into a ``ResolutionRequest`` under OLM v1's rule set: each
ClusterExtension becomes a ``RequiredPackage`` carrying its ``ExtensionTerms`` (channels,
version constraint, upgrade policy, installed bundle from ``status.install.bundle``, and the
ClusterCatalogs its selector chose). Bad input is an ``InputError`` naming the document and the
field, as the API server or operator-controller would refuse it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from deppy.catalog.semver import Version, VersionError
from deppy.catalog.semver.extension_constraint import ExtensionConstraint
from deppy.errors import InputError, excerpt, only_fields, quoted
from deppy.resolution.request import (
    CATALOG_PROVIDED,
    UPGRADE_POLICIES,
    CatalogChoice,
    ExtensionTerms,
    InstalledBundle,
    RequiredPackage,
    ResolutionRequest,
)

GROUP: Final = "olm.operatorframework.io"
API_VERSION: Final = f"{GROUP}/v1"
NAME_LABEL: Final = f"{GROUP}/metadata.name"
"""The label OLM v1 sets on every ClusterCatalog: its own name (selectors may use it)."""

_SPEC_FIELDS = ("namespace", "serviceAccount", "source", "install", "config",
                "progressDeadlineMinutes")  # fmt: skip
_SOURCE_FIELDS = ("sourceType", "catalog")
_CATALOG_FIELDS = ("packageName", "version", "channels", "selector", "upgradeConstraintPolicy")
_SELECTOR_FIELDS = ("matchLabels", "matchExpressions")
_EXPRESSION_FIELDS = ("key", "operator", "values")
_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
_AVAILABILITY = ("Available", "Unavailable")


def is_olmv1_document(data: object) -> bool:
    """A ClusterExtension or ClusterCatalog (any version of OLM v1's API group)."""
    return isinstance(data, Mapping) and str(data.get("apiVersion", "")).startswith(f"{GROUP}/")


@dataclass(frozen=True, slots=True)
class ClusterCatalogFacts:
    """What OLM v1 reads of a ClusterCatalog when it resolves (content aside)."""

    name: str
    labels: tuple[tuple[str, str], ...] = ()
    priority: int = 0
    priority_stated: bool = False
    available: bool = True

    def label_map(self) -> dict[str, str]:
        """Its labels, with the name label OLM v1 puts on every ClusterCatalog."""
        return {**dict(self.labels), NAME_LABEL: self.name}


@dataclass(frozen=True, slots=True)
class ExtensionRequest:
    """A file's OLM v1 objects: the request, and the ClusterCatalogs it described."""

    request: ResolutionRequest
    catalogs: tuple[ClusterCatalogFacts, ...]
    warnings: tuple[str, ...] = ()


def _at(where: str, path: str) -> str:
    return f"{where}: {path}" if where else path


def _mapping(value: Any, where: str, *, required: bool = False) -> Mapping[str, Any]:
    if value is None and not required:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(where, "expected a mapping" if value is not None else "required field")
    return value


def _string(value: Any, where: str, *, required: bool = False) -> str | None:
    if value is None or value == "":
        if required:
            raise InputError(where, "required field")
        return None
    if not isinstance(value, str):
        raise InputError(where, f"expected a string, got {excerpt(value)}", "quote it")
    return value


def _document_name(data: Mapping[str, Any], kind: str, index: int) -> str:
    metadata = data.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    return f"{kind} {name}" if isinstance(name, str) and name else f"{kind} #{index + 1}"


# -- ClusterCatalog ------------------------------------------------------------------------------


def catalog_from_object(data: Mapping[str, Any], where: str) -> ClusterCatalogFacts:
    """A ClusterCatalog's name, labels, priority and availability."""
    metadata = _mapping(data.get("metadata"), _at(where, "metadata"), required=True)
    name = _string(metadata.get("name"), _at(where, "metadata.name"), required=True)
    assert name is not None
    labels = _mapping(metadata.get("labels"), _at(where, "metadata.labels"))
    pairs = tuple(
        (str(k), _string(v, _at(where, f"metadata.labels.{k}")) or "")
        for k, v in sorted(labels.items())
    )
    spec = _mapping(data.get("spec"), _at(where, "spec"))
    priority = spec.get("priority", 0)
    if isinstance(priority, bool) or not isinstance(priority, int):
        raise InputError(_at(where, "spec.priority"), "expected an integer")
    if not -2147483648 <= priority <= 2147483647:
        raise InputError(_at(where, "spec.priority"), "out of range (a 32-bit integer)")
    mode = spec.get("availabilityMode", "Available")
    if mode not in _AVAILABILITY:
        raise InputError(
            _at(where, "spec.availabilityMode"),
            f"unknown mode {excerpt(mode)}",
            "write Available or Unavailable",
        )
    return ClusterCatalogFacts(name, pairs, priority, "priority" in spec, mode == "Available")


# -- selectors -----------------------------------------------------------------------------------


def _selector_matches(selector: Mapping[str, Any], labels: Mapping[str, str], where: str) -> bool:
    only_fields(selector, _SELECTOR_FIELDS, where)
    match_labels = _mapping(selector.get("matchLabels"), f"{where}.matchLabels")
    for key, value in match_labels.items():
        if not key:
            raise InputError(f"{where}.matchLabels", "a label key is empty")
        wanted = _string(value, f"{where}.matchLabels.{key}") or ""
        if labels.get(str(key)) != wanted:
            return False
    expressions = selector.get("matchExpressions") or []
    if not isinstance(expressions, list):
        raise InputError(f"{where}.matchExpressions", "expected a list")
    for n, raw in enumerate(expressions):
        here = f"{where}.matchExpressions[{n}]"
        if not _expression_matches(_mapping(raw, here, required=True), labels, here):
            return False
    return True


def _expression_matches(
    expression: Mapping[str, Any], labels: Mapping[str, str], where: str
) -> bool:
    only_fields(expression, _EXPRESSION_FIELDS, where)
    key = _string(expression.get("key"), f"{where}.key", required=True)
    operator = expression.get("operator")
    if operator not in _OPERATORS:
        raise InputError(
            f"{where}.operator",
            f"{quoted(str(operator))} is not a valid label selector operator",
            f"write one of {', '.join(_OPERATORS)}",
        )
    values = expression.get("values") or []
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise InputError(f"{where}.values", "expected a list of strings")
    if operator in ("In", "NotIn") and not values:
        raise InputError(f"{where}.values", f"operator {operator} needs at least one value")
    if operator in ("Exists", "DoesNotExist") and values:
        raise InputError(f"{where}.values", f"operator {operator} takes no values")
    present = key in labels
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator == "In":
        return present and labels[str(key)] in values
    return not present or labels[str(key)] not in values  # NotIn


def selected_catalogs(
    selector: Mapping[str, Any] | None, catalogs: Sequence[ClusterCatalogFacts], where: str
) -> list[ClusterCatalogFacts]:
    """The ClusterCatalogs a ClusterExtension's selector matches (all, without a selector)."""
    if not selector:
        return list(catalogs)
    return [c for c in catalogs if _selector_matches(selector, c.label_map(), where)]


# -- ClusterExtension ----------------------------------------------------------------------------


def _channels(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise InputError(where, "expected a list of channel names", "e.g. channels: [stable]")
    names = []
    for n, item in enumerate(value):
        name = _string(item, f"{where}[{n}]", required=True)
        assert name is not None
        names.append(name)
    return tuple(dict.fromkeys(names))


def _installed(data: Mapping[str, Any], package: str, where: str) -> InstalledBundle | None:
    status = _mapping(data.get("status"), _at(where, "status"))
    install = _mapping(status.get("install"), _at(where, "status.install"))
    bundle = _mapping(install.get("bundle"), _at(where, "status.install.bundle"))
    if not bundle:
        return None
    at = _at(where, "status.install.bundle")
    name = _string(bundle.get("name"), f"{at}.name", required=True)
    text = _string(bundle.get("version"), f"{at}.version", required=True)
    assert text is not None
    try:
        version = Version.parse(text)  # OLM v1 parses it strictly (blang Parse)
    except VersionError as error:
        raise InputError(f"{at}.version", str(error)) from None
    return InstalledBundle(package, version, bundle=name, text=f"{name} {text}")


def extension_from_object(
    data: Mapping[str, Any], where: str, catalogs: Sequence[ClusterCatalogFacts]
) -> RequiredPackage:
    """One ClusterExtension as a required package under OLM v1's terms."""
    metadata = _mapping(data.get("metadata"), _at(where, "metadata"))
    name = _string(metadata.get("name"), _at(where, "metadata.name")) or where
    spec = _mapping(data.get("spec"), _at(where, "spec"), required=True)
    only_fields(spec, _SPEC_FIELDS, _at(where, "spec"))
    source = _mapping(spec.get("source"), _at(where, "spec.source"), required=True)
    only_fields(source, _SOURCE_FIELDS, _at(where, "spec.source"))
    source_type = source.get("sourceType")
    if source_type != "Catalog":
        raise InputError(
            _at(where, "spec.source.sourceType"),
            "required field"
            if source_type is None
            else f"unknown sourceType {excerpt(source_type)}",
            "OLM v1 knows sourceType: Catalog",
        )
    at = _at(where, "spec.source.catalog")
    catalog = _mapping(source.get("catalog"), at, required=True)
    only_fields(catalog, _CATALOG_FIELDS, at)
    package = _string(catalog.get("packageName"), f"{at}.packageName", required=True)
    assert package is not None
    version_text = _string(catalog.get("version"), f"{at}.version")
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
    chosen = selected_catalogs(selector, catalogs, f"{at}.selector")
    if selector and not chosen:
        known = ", ".join(c.name for c in catalogs) or "none"
        raise InputError(
            f"{at}.selector",
            "matches no ClusterCatalog",
            f"catalogs: {known} (each carries the label {NAME_LABEL}: <its name>)",
        )
    service_account = _mapping(spec.get("serviceAccount"), _at(where, "spec.serviceAccount"))
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
        namespace=_string(spec.get("namespace"), _at(where, "spec.namespace")),
        service_account=_string(
            service_account.get("name"), _at(where, "spec.serviceAccount.name")
        ),
    )
    return RequiredPackage(
        package,
        versions_text=version_text or "",
        text=f"ClusterExtension {name}",
        extension=terms,
    )


def merge_catalogs(
    described: Iterable[ClusterCatalogFacts], content: Sequence[tuple[str, int]]
) -> tuple[list[ClusterCatalogFacts], list[str]]:
    """The ClusterCatalogs a request resolves on: one per catalog whose content deppy has
    (``content``: name and the priority given with it), with the labels, priority and
    availability of the ClusterCatalog document of that name when the file has one (a stated
    ``spec.priority`` wins over the command line's). Also warnings for described catalogs
    without content."""
    by_name = {c.name: c for c in described}
    merged = []
    for name, priority in content:
        facts = by_name.get(name)
        if facts is None:
            merged.append(ClusterCatalogFacts(name, priority=priority))
        elif not facts.priority_stated:
            merged.append(replace(facts, priority=priority))
        else:
            merged.append(facts)
    names = {name for name, _ in content}
    warnings = [
        f"ClusterCatalog {c.name}: no content for it (give --catalog DIR={c.name}); not used"
        for c in by_name.values()
        if c.name not in names
    ]
    return merged, warnings


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
            raise InputError(_at(where, f"document {index + 1}"), "expected a mapping")
        kind = data.get("kind")
        if not is_olmv1_document(data):
            continue  # a Namespace or a ServiceAccount beside them, as in OLM v1's samples
        if data.get("apiVersion") != API_VERSION:
            raise InputError(
                _at(where, f"{_document_name(data, str(kind), index)}: apiVersion"),
                f"expected {API_VERSION!r}, got {excerpt(data.get('apiVersion'))}",
            )
        here = _at(where, _document_name(data, str(kind), index))
        if kind == "ClusterCatalog":
            in_file.append(catalog_from_object(data, here))
        elif kind == "ClusterExtension":
            extensions.append((data, here))
        else:
            raise InputError(
                _at(where, f"document {index + 1}: kind"),
                f"unknown kind {excerpt(kind)}",
                "deppy reads ClusterExtension and ClusterCatalog",
            )
    if not extensions:
        raise InputError(where, "no ClusterExtension in the file", f"apiVersion: {API_VERSION}")
    replaced = {c.name for c in in_file}
    known = [c for c in described if c.name not in replaced] + in_file
    catalogs, warnings = merge_catalogs(known, content)
    required = tuple(extension_from_object(data, here, catalogs) for data, here in extensions)
    for facts in catalogs:
        if not facts.available:
            warnings.append(f"ClusterCatalog {facts.name} is Unavailable: not used")
    request = ResolutionRequest(required=required, rules="olmv1")
    return ExtensionRequest(request, tuple(catalogs), tuple(warnings))


__all__ = [
    "API_VERSION",
    "NAME_LABEL",
    "ClusterCatalogFacts",
    "ExtensionRequest",
    "catalog_from_object",
    "extension_from_object",
    "is_olmv1_document",
    "merge_catalogs",
    "request_from_objects",
    "selected_catalogs",
]
