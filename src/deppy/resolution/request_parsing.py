"""Requests from the command line (SPEC strings) and from ActiveResolution files.

SPEC grammar (also in ``deppy resolve --help`` and docs/olm-v0/resolve.md)::

    --require   PACKAGE[@RANGE][,channel=C][,catalog=NAME][,ignore=V1|V2][,within=LEVEL:VERSION]
    --installed PACKAGE@VERSION[,channel=C][,catalog=NAME][,bundle=NAME]
    --exclude   TYPE=VALUE            e.g. olm.label=deprecated-stack
    --catalog   PATH[=NAME[:PRIORITY]]

RANGE uses blang/semver syntax as in real catalogs (``>=1.0.0 <2.0.0``, ``1.x``, ``!=1.2.3``,
``||``); ``latest`` or nothing means any version. ``within=minor:1.4.2`` is the phase-0 shortcut
"latest within the minor version of 1.4.2" (``>=1.4.0 <1.5.0-0``: no 1.5.0 prerelease); levels are
major, minor, patch.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from deppy.catalog.semver import Version, VersionError, VersionRange
from deppy.errors import InputError, check_type, excerpt, only_fields, unknown_field
from deppy.input_limits import load_yaml_file, parse_yaml
from deppy.resolution.olmv1.catalogs import checked_priority
from deppy.resolution.request import (
    CHOSEN_RULES,
    ClusterFacts,
    InstalledBundle,
    PropertyRestriction,
    RequiredPackage,
    ResolutionRequest,
    known_rules,
)

REQUIRE_KEYS = ("channel", "catalog", "ignore", "within")
INSTALLED_KEYS = ("channel", "catalog", "bundle")
# Catalogs and request files take any package name; a SPEC only needs its separators kept out
# (``packageA`` from OLM's own tests is a name).
_PACKAGE = re.compile(r"^[^\s@,=|]+$")


@dataclass(frozen=True, slots=True)
class CatalogSpec:
    path: str
    name: str | None
    priority: int
    namespace: str | None = None  # an OLM v0 CatalogSource's namespace (olm-v0 rules)


def _split(spec: str, where: str, keys: tuple[str, ...]) -> tuple[str, str | None, dict[str, str]]:
    _check_text(spec, where)
    head, *options = spec.split(",")
    package, _, version = head.partition("@")
    package = package.strip()
    if not _PACKAGE.match(package):
        raise InputError(
            where,
            f"{excerpt(package)} is not a package name",
            "write PACKAGE[@RANGE][,key=value...], e.g. 'etcd@>=0.9.0,channel=alpha'",
        )
    found: dict[str, str] = {}
    for option in options:
        key, sep, value = option.partition("=")
        key = key.strip()
        if not sep or key not in keys:
            raise InputError(
                where,
                f"unknown option {excerpt(option.strip())}",
                f"options are {', '.join(k + '=...' for k in keys)}",
            )
        found[key] = value.strip()
    return package, (version.strip() if "@" in head else None), found


def _check_text(spec: str, where: str) -> None:
    """A spec from a library caller may hold lone surrogates (bytes decoded with
    surrogateescape) that no answer can be written with: refused here, where it enters."""
    try:
        spec.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(where, "not valid UTF-8 text (a lone surrogate)", "pass text") from None


def parse_range(text: str, where: str) -> VersionRange:
    try:
        return VersionRange.parse(text)
    except VersionError as error:
        raise InputError(where, str(error)) from None


def parse_version(text: str, where: str, *, tolerant: bool = False) -> Version:
    try:
        return Version.parse_tolerant(text) if tolerant else Version.parse(text)
    except VersionError as error:
        raise InputError(where, str(error)) from None


def within(level_and_version: str, where: str) -> tuple[VersionRange, str]:
    """The phase-0 shortcut: versions sharing the major / minor / patch of a given version."""
    level, _, text = level_and_version.partition(":")
    version = parse_version(text, where, tolerant=True)
    major, minor, patch = version.major, version.minor, version.patch
    bounds = {
        "major": (f"{major}.0.0", f"{major + 1}.0.0"),
        "minor": (f"{major}.{minor}.0", f"{major}.{minor + 1}.0"),
        "patch": (f"{major}.{minor}.{patch}", f"{major}.{minor}.{patch + 1}"),
    }.get(level)
    if bounds is None:
        raise InputError(
            where,
            f"unknown level {excerpt(level)} in within=",
            "write within=major:VERSION, within=minor:VERSION or within=patch:VERSION",
        )
    # "-0" keeps out the next level's prereleases, which blang orders below it (<1.5.0 would
    # admit 1.5.0-rc.1, a version outside the minor version 1.4).
    text = f">={bounds[0]} <{bounds[1]}-0"
    return parse_range(text, where), text


def required_from_parts(
    package: str,
    versions_text: str | None,
    *,
    channel: str | None = None,
    catalog: str | None = None,
    ignore: list[str] | None = None,
    within_text: str | None = None,
    where: str,
    text: str = "",
    fields: tuple[str, str, str] | None = None,
    starting_csv: str | None = None,
    subscription: str | None = None,
) -> RequiredPackage:
    """``fields`` names where the range, ``within`` and each ignored version were written
    (field paths of a document); by default they are phrases after ``where`` (a CLI SPEC)."""
    range_at, within_at, ignore_at = fields or (
        f"{where}: version range",
        f"{where}: within",
        f"{where}: ignore",
    )
    versions_text = (versions_text or "").strip()
    exact = _exact_with_build(versions_text)
    if versions_text in ("", "latest", "*"):
        versions, shown = VersionRange.any(), ""
    elif exact is not None:
        versions, shown = VersionRange.exactly(exact), versions_text
    else:
        versions, shown = parse_range(versions_text, range_at), versions_text
    if within_text:
        narrowed, narrowed_text = within(within_text, within_at)
        versions = versions.intersection(narrowed)
        shown = f"{shown} {narrowed_text}".strip()
    ignored = tuple(
        parse_version(v, f"{ignore_at}[{n}]" if fields else ignore_at, tolerant=True)
        for n, v in enumerate(ignore or ())
    )
    return RequiredPackage(
        package,
        versions,
        shown,
        channel or None,
        catalog or None,
        ignored,
        text or package,
        starting_csv=starting_csv or None,
        subscription=subscription or None,
    )


def _exact_with_build(text: str) -> Version | None:
    """``1.15.1+x7095b76`` (real in cilium's catalog) as the exact version it names: the range
    grammar, as blang reads it, takes that ``x`` for a wildcard and refuses it, yet a version
    copied from a catalog or from deppy's own answer must work when pasted. Build metadata takes
    no part in comparisons, so this is the range ``=1.15.1``."""
    bare = text.removeprefix("=").strip()
    if "+" not in bare:
        return None
    try:
        return Version.parse(bare)
    except VersionError:
        return None


def parse_require(spec: str) -> RequiredPackage:
    where = f"--require {excerpt(spec)}"
    package, versions, options = _split(spec, where, REQUIRE_KEYS)
    ignore = [v for v in options.get("ignore", "").split("|") if v.strip()]
    return required_from_parts(
        package,
        versions,
        channel=options.get("channel"),
        catalog=options.get("catalog"),
        ignore=ignore,
        within_text=options.get("within"),
        where=where,
        text=spec,
    )


def parse_installed(spec: str) -> InstalledBundle:
    where = f"--installed {excerpt(spec)}"
    package, version, options = _split(spec, where, INSTALLED_KEYS)
    if not version:
        raise InputError(where, "the installed version is missing", "write PACKAGE@VERSION")
    return InstalledBundle(
        package,
        parse_version(version, where, tolerant=True),
        options.get("channel") or None,
        options.get("catalog") or None,
        options.get("bundle") or None,
        spec,
    )


def parse_exclude(spec: str) -> PropertyRestriction:
    _check_text(spec, f"--exclude {excerpt(spec)}")
    kind, sep, value = spec.partition("=")
    if not sep or not kind.strip() or not value.strip():
        raise InputError(f"--exclude {excerpt(spec)}", "expected TYPE=VALUE", "e.g. olm.label=beta")
    return PropertyRestriction(kind.strip(), value.strip())


def checked_rules(name: str, where: str) -> str:
    """A rule set's name as a user gives it (``--rules``, ``spec.rules``, a request body)."""
    if name not in CHOSEN_RULES:
        raise InputError(where, f"no rule set {excerpt(name)}", known_rules())
    return name


def parse_catalog(spec: str) -> CatalogSpec:
    path, _, rest = spec.partition("=")
    name, _, priority = rest.partition(":")
    where = f"--catalog {excerpt(spec)}: priority"
    number = checked_priority(priority, where) if priority else 0
    return CatalogSpec(path, name or None, number)


# -- ActiveResolution files ------------------------------------------------------------------

_CALL = re.compile(r"^\s*(required|installed)\s*\((.*)\)\s*$")
API_VERSION = "deppy.io/v1alpha1"
KIND = "ActiveResolution"
TOP_FIELDS = ("apiVersion", "kind", "metadata", "spec")
METADATA_FIELDS = ("name", "namespace", "labels", "annotations")
SPEC_FIELDS = (
    "sources", "catalogs", "cluster", "exclude", "constraints", "oneStep", "rules", "namespace",
)  # fmt: skip
CLUSTER_FIELDS = ("openshiftVersion", "kubernetesVersion")
CATALOG_FIELDS = ("name", "path", "priority", "namespace")
EXCLUDE_FIELDS = ("type", "value")
# OLM v0 Subscriptions: startingCSV, the Subscription's name, its catalog's namespace;
# ``subscribed: false`` is a CSV no Subscription references (docs/olm-v0/rules.md)
REQUIRED_FIELDS = (
    "name", "versionRange", "channel", "catalog", "ignoreVersions", "within",
    "startingCSV", "subscription", "catalogNamespace",
)  # fmt: skip
INSTALLED_FIELDS = (
    "name", "version", "channel", "catalog", "bundle",
    "subscription", "catalogNamespace", "subscribed",
)  # fmt: skip
# fields written one level off: where each belongs
_BELONGS = {
    **{key: "spec" for key in SPEC_FIELDS},
    **{key: "spec.cluster" for key in CLUSTER_FIELDS},
    "required": "spec.constraints[]",
    "installed": "spec.constraints[]",
}


def _check_document(data: Mapping[str, Any], where: str) -> None:
    """apiVersion and kind, when given, are this file's; no field is unknown or misplaced."""
    check_type(data, where, API_VERSION, KIND)
    only_fields(data, TOP_FIELDS, f"{where}:" if where else "", _BELONGS)
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        raise InputError(_at(where, "metadata"), "expected a mapping")
    only_fields(metadata, METADATA_FIELDS, _at(where, "metadata"), _BELONGS)
    only_fields(data["spec"], SPEC_FIELDS, _at(where, "spec"), _BELONGS)


def load_request_file(path: str | Path) -> tuple[ResolutionRequest, list[CatalogSpec]]:
    """An ActiveResolution document (seed deppy-phase-0.md) and the catalogs it names."""
    where = str(path)
    return request_from_document(load_yaml_file(path), where, Path(path).parent)


def read_yaml(text: str | bytes, where: str) -> Any:
    """One YAML (or JSON) document within deppy's input limits; an error is one line naming
    ``where``."""
    return parse_yaml(text, where)


def _at(where: str, path: str) -> str:
    """A field path inside the document ``where`` came from ("" when the caller names it)."""
    return f"{where}: {path}" if where else path


_REQUEST_KINDS = "an ActiveResolution (deppy.io/v1alpha1), or ClusterExtension objects"


def _not_a_request(data: Any, where: str) -> InputError:
    """Why a document is no request, in the words that lead to the fix: an empty file (or
    body) is empty, a ``kind: List`` inside a List is that (kubectl never writes one: its
    objects were not found), anything else lacks the ActiveResolution's ``spec``."""
    if data is None or data == "":
        return InputError(
            where or "body", "the file is empty" if where else "the body is empty",
            f"give {_REQUEST_KINDS}",
        )  # fmt: skip
    if isinstance(data, Mapping) and data.get("kind") == "List":
        items = data.get("items")
        for n, item in enumerate(items if isinstance(items, list) else ()):
            if isinstance(item, Mapping) and item.get("kind") == "List":
                return InputError(
                    _at(where, f"items[{n}]"),
                    "a kind: List inside a kind: List (objects are read from one level only)",
                    "put its items in the outer List's items",
                )
        return InputError(
            where or "items", "a kind: List with no ClusterExtension in its items",
            f"give {_REQUEST_KINDS}",
        )  # fmt: skip
    return InputError(where or "spec", "expected an ActiveResolution with a 'spec' mapping")


def request_from_document(
    data: Any, where: str = "", base: Path | None = None
) -> tuple[ResolutionRequest, list[CatalogSpec]]:
    """The request and catalogs of a parsed ActiveResolution (a file's content, an HTTP body).

    Errors name the field (``spec.constraints[2].required.versionRange``), after ``where`` and a
    colon when ``where`` is given; relative catalog paths are taken from ``base``.
    """
    if not isinstance(data, Mapping) or not isinstance(data.get("spec"), Mapping):
        raise _not_a_request(data, where)
    _check_document(data, where)
    spec = data["spec"]
    sources = tuple(str(s) for s in _list(spec, "sources", where))
    catalogs = [
        _catalog_entry(c, base or Path("."), _at(where, f"spec.catalogs[{n}]"))
        for n, c in enumerate(_list(spec, "catalogs", where))
    ]
    namespace = _field(spec, "namespace", _at(where, "spec"))
    catalogs = [
        c if c.namespace or not namespace else replace(c, namespace=namespace) for c in catalogs
    ]
    spaces = {c.name: c.namespace for c in catalogs if c.name}
    required: list[RequiredPackage] = []
    installed: list[InstalledBundle] = []
    for n, item in enumerate(_list(spec, "constraints", where)):
        here = _at(where, f"spec.constraints[{n}]")
        kind, body = _constraint(item, here)
        here = f"{here}.{kind}"
        _check_catalog_namespace(body, spaces, here)
        if kind == "required":
            required.append(_required(body, here))
        else:
            installed.append(_installed(body, here))
    cluster_raw = spec.get("cluster") or {}
    if not isinstance(cluster_raw, Mapping):
        raise InputError(_at(where, "spec.cluster"), "expected a mapping")
    only_fields(cluster_raw, CLUSTER_FIELDS, _at(where, "spec.cluster"), _BELONGS)
    cluster = ClusterFacts(
        _optional_version(
            cluster_raw.get("openshiftVersion"), _at(where, "spec.cluster.openshiftVersion")
        ),
        _optional_version(
            cluster_raw.get("kubernetesVersion"), _at(where, "spec.cluster.kubernetesVersion")
        ),
    )
    exclude = tuple(
        _exclude_entry(e, _at(where, f"spec.exclude[{n}]"))
        for n, e in enumerate(_list(spec, "exclude", where))
    )
    one_step = spec.get("oneStep", False)
    if not isinstance(one_step, bool):
        raise InputError(_at(where, "spec.oneStep"), "expected true or false")
    rules = checked_rules(
        _field(spec, "rules", _at(where, "spec")) or "deppy", _at(where, "spec.rules")
    )
    request = ResolutionRequest(
        tuple(required),
        tuple(installed),
        cluster,
        sources,
        exclude,
        one_step,
        rules=rules,
        namespace=namespace,
        catalog_namespaces=tuple((c.name, c.namespace) for c in catalogs if c.name and c.namespace),
    )
    return request, catalogs


def _check_catalog_namespace(
    body: Mapping[str, Any], spaces: Mapping[str, str | None], where: str
) -> None:
    """A Subscription's ``catalogNamespace`` is its catalog's own: catalogs are named uniquely
    in a file, the namespace only confirms which CatalogSource is meant."""
    asked = _field(body, "catalogNamespace", where)
    catalog = _field(body, "catalog", where)
    if asked is None or catalog is None or catalog not in spaces:
        return
    if spaces[catalog] != asked:
        raise InputError(
            f"{where}.catalogNamespace",
            f"catalog {catalog} is in namespace {spaces[catalog] or '(none given)'}, not {asked}",
            "give the catalog's namespace in spec.catalogs[].namespace, or name its catalog",
        )


def _list(spec: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = spec.get(key) or []
    if not isinstance(value, list):
        raise InputError(_at(where, f"spec.{key}"), "expected a list")
    return value


def _constraint(item: Any, where: str) -> tuple[str, dict[str, Any]]:
    if isinstance(item, str):
        match = _CALL.match(item)
        if not match:
            raise InputError(
                where,
                f"cannot read {excerpt(item)}",
                'write required("name", "range", "channel") or installed(...)',
            )
        args = _call_arguments(match.group(2), where)
        if match.group(1) == "required":
            keys = ["name", "versionRange", "channel"]
        else:
            keys = ["name", "version", "channel"]
        if len(args) > len(keys):
            raise InputError(
                where,
                f"{match.group(1)}() takes at most {len(keys)} arguments "
                f"({', '.join(keys)}), not {len(args)}",
                'quote each argument; a range has no commas: ">=1.0.0 <2.0.0"',
            )
        return match.group(1), {k: v for k, v in zip(keys, args, strict=False) if v}
    if isinstance(item, Mapping) and len(item) == 1:
        kind, body = next(iter(item.items()))
        if kind not in ("required", "installed"):
            raise unknown_field(where, str(kind), ("required", "installed"))
        if isinstance(body, Mapping):
            return str(kind), dict(body)
    raise InputError(where, "expected 'required: {...}' or 'installed: {...}'")


def _call_arguments(text: str, where: str) -> list[str]:
    """The arguments of required(...)/installed(...): quoted strings (a quoted argument may hold
    commas), or bare words."""
    if not any(quote in text for quote in "\"'"):
        return [a.strip() for a in text.split(",")] if text.strip() else []
    try:
        values = ast.literal_eval(f"({text},)")
    except (SyntaxError, ValueError):
        values = None
    if not isinstance(values, tuple) or not all(isinstance(v, str) for v in values):
        raise InputError(
            where,
            f"cannot read the arguments {excerpt(text)}",
            'quote each one: required("name", ">=1.0.0 <2.0.0", "channel")',
        )
    return [v.strip() for v in values]


def _check_keys(body: Mapping[str, Any], allowed: tuple[str, ...], where: str) -> None:
    only_fields(body, allowed, where, _BELONGS)
    if not isinstance(body.get("name"), str) or not body["name"]:
        raise InputError(f"{where}.name", "a package name is required")


def _required(body: Mapping[str, Any], where: str) -> RequiredPackage:
    _check_keys(body, REQUIRED_FIELDS, where)
    ignore = body.get("ignoreVersions") or []
    if not isinstance(ignore, list):
        raise InputError(f"{where}.ignoreVersions", "expected a list of versions")
    return required_from_parts(
        body["name"],
        _field(body, "versionRange", where),
        channel=_field(body, "channel", where),
        catalog=_field(body, "catalog", where),
        ignore=[str(v) for v in ignore],
        within_text=_field(body, "within", where),
        where=where,
        fields=(f"{where}.versionRange", f"{where}.within", f"{where}.ignoreVersions"),
        starting_csv=_field(body, "startingCSV", where),
        subscription=_field(body, "subscription", where),
    )


def _installed(body: Mapping[str, Any], where: str) -> InstalledBundle:
    _check_keys(body, INSTALLED_FIELDS, where)
    version = _field(body, "version", where)
    if not version:
        raise InputError(f"{where}.version", "the installed version is required")
    subscribed = body.get("subscribed", True)
    if not isinstance(subscribed, bool):
        raise InputError(f"{where}.subscribed", "expected true or false")
    bundle = _field(body, "bundle", where)
    held = (
        ""
        if subscribed
        else f"clusterserviceversion {bundle or body['name']} exists and is not referenced by "
        "a subscription"
    )
    return InstalledBundle(
        body["name"],
        parse_version(version, f"{where}.version", tolerant=True),
        _field(body, "channel", where),
        _field(body, "catalog", where),
        bundle,
        held=held,
        subscription=_field(body, "subscription", where),
    )


def _catalog_entry(raw: Any, base: Path, where: str) -> CatalogSpec:
    if not isinstance(raw, Mapping) or not raw.get("path"):
        raise InputError(where, "expected {path: ..., name: ..., priority: ...}")
    only_fields(raw, CATALOG_FIELDS, where, _BELONGS)
    path = Path(str(raw["path"]))
    if not path.is_absolute():
        path = base / path
    priority = checked_priority(raw.get("priority", 0), f"{where}.priority")
    return CatalogSpec(str(path), _text(raw.get("name")), priority, _field(raw, "namespace", where))


def _exclude_entry(raw: Any, where: str) -> PropertyRestriction:
    fields = (raw.get("type"), raw.get("value")) if isinstance(raw, Mapping) else (None, None)
    if isinstance(raw, Mapping):
        only_fields(raw, EXCLUDE_FIELDS, where, _BELONGS)
    if any(value is None or value == "" for value in fields):
        raise InputError(
            where, "expected {type: ..., value: ...}", "e.g. {type: olm.label, value: beta}"
        )
    return PropertyRestriction(str(fields[0]), str(fields[1]))


def _field(body: Mapping[str, Any], key: str, where: str) -> str | None:
    """A scalar field as text; a list or a mapping where one name or version belongs is bad
    input (a list of channels would otherwise become the channel "['beta', 'alpha']")."""
    value = body.get(key)
    if isinstance(value, list | Mapping):
        kind = "a list" if isinstance(value, list) else "a mapping"
        fix = (
            "give one channel (deppy's request takes one channel per package)"
            if key == ("channel")
            else "give one value"
        )
        raise InputError(f"{where}.{key}", f"expected one value, not {kind}", fix)
    return _text(value)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _optional_version(value: Any, where: str) -> Version | None:
    if value is None:
        return None
    return parse_version(str(value), where, tolerant=True)
