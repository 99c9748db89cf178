"""The rules that turn a bundle's raw properties into its typed fields, shared by both loaders.

File-Based Catalogs and bundle directories describe a bundle with the same property types, so one
function reads them: the two loaders then cannot disagree about what a property means or about
which values are acceptable. Messages name the property and say what to change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any

import orjson

from deppy.catalog.model import GVK, Bundle, PackageRequirement, Property
from deppy.catalog.semver import Version, VersionError, VersionRange
from deppy.errors import excerpt
from deppy.input_limits import UnsafeInput, json_value

PACKAGE = "olm.package"
GVK_PROVIDED = "olm.gvk"
GVK_REQUIRED = "olm.gvk.required"
PACKAGE_REQUIRED = "olm.package.required"
LABEL = "olm.label"
LABEL_REQUIRED = "olm.label.required"
CONSTRAINT = "olm.constraint"
MAX_OPENSHIFT_VERSION = "olm.maxOpenShiftVersion"
CSV_METADATA = "olm.csv.metadata"
BUNDLE_OBJECT = "olm.bundle.object"
PROPERTIES_ANNOTATION = "olm.properties"

# The keys operator-registry copies from a CSV into olm.csv.metadata (spec keys unless noted).
CSV_METADATA_SPEC_KEYS = (
    "apiservicedefinitions",
    "customresourcedefinitions",
    "description",
    "displayName",
    "installModes",
    "keywords",
    "links",
    "maintainers",
    "maturity",
    "minKubeVersion",
    "nativeAPIs",
    "provider",
)


# Bulk content rather than facts about the operator: never projected onto a CSV nor shown as a
# property "used during resolution" (operator-registry leaves olm.bundle.object out of its API for
# the same reason: an annotation holding it would double a CSV's size in etcd).
NOT_PROJECTED = frozenset({BUNDLE_OBJECT, CSV_METADATA})


def projected_properties(bundle: Bundle) -> list[Property]:
    """A bundle's properties as a resolution uses them (bulk content left out)."""
    return [p for p in bundle.properties if p.type not in NOT_PROJECTED]


@lru_cache(maxsize=1 << 16)
def parse_version(text: str) -> Version:
    """Strict semver, cached: catalogs repeat the same few thousand version strings."""
    return Version.parse(text)


@lru_cache(maxsize=1 << 16)
def parse_version_tolerant(text: str) -> Version:
    """Like blang's ParseTolerant ("4.8", "v1.2"), cached."""
    return Version.parse_tolerant(text)


@lru_cache(maxsize=1 << 14)
def parse_range(text: str) -> VersionRange:
    """A blang/semver range, cached (most bundles of a package repeat their ranges)."""
    return VersionRange.parse(text)


@lru_cache(maxsize=1 << 16)
def make_gvk(group: str, version: str, kind: str) -> GVK:
    """One shared GVK object per distinct API: a catalog names the same few APIs many times."""
    return GVK(group, version, kind)


class BundleFacts:
    """What a bundle's properties say, plus what was wrong with them.

    ``errors`` make the bundle unusable (OLM would reject or mis-resolve it); ``warnings`` are
    reported but the bundle is kept, as operator-registry keeps it.
    """

    __slots__ = (
        "bundle_objects",
        "constraints",
        "csv_metadata",
        "errors",
        "extra_properties",
        "labels",
        "max_openshift_version",
        "min_kube_version",
        "package",
        "provided_gvks",
        "required_gvks",
        "required_labels",
        "required_packages",
        "version",
        "version_text",
        "warnings",
    )

    def __init__(self) -> None:
        self.package: str | None = None
        self.version_text: str | None = None
        self.version: Version | None = None
        self.provided_gvks: list[GVK] = []
        self.required_gvks: list[GVK] = []
        self.required_packages: list[PackageRequirement] = []
        self.labels: list[str] = []
        self.required_labels: list[str] = []
        self.constraints: list[Any] = []
        self.max_openshift_version: Version | None = None
        self.min_kube_version: Version | None = None
        self.csv_metadata: Mapping[str, Any] | None = None
        self.bundle_objects: list[Any] = []
        # Properties found in the CSV's olm.properties annotation and not declared already.
        self.extra_properties: list[Property] = []
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def bundle(
        self,
        *,
        name: str,
        package: str,
        image: str,
        catalog: str,
        source: str,
        properties: list[Property],
        related_images: tuple[str, ...],
        replaces: str | None,
        skips: tuple[str, ...],
        skip_range: str | None,
    ) -> Bundle:
        """The bundle these facts describe; both loaders build bundles here, the same way."""
        assert self.version is not None, "only bundles with a version are built"
        return Bundle(
            name=name,
            package=package,
            version=self.version,
            image=image,
            catalog=catalog,
            source=source,
            properties=tuple(properties + self.extra_properties),
            provided_gvks=tuple(self.provided_gvks),
            required_packages=tuple(self.required_packages),
            required_gvks=tuple(self.required_gvks),
            labels=tuple(self.labels),
            required_labels=tuple(self.required_labels),
            constraints=tuple(self.constraints),
            max_openshift_version=self.max_openshift_version,
            min_kube_version=self.min_kube_version,
            related_images=related_images,
            csv_metadata=self.csv_metadata,
            replaces=replaces,
            skips=skips,
            skip_range=skip_range,
        )


def _text(value: Mapping[str, Any], key: str, ptype: str, *, required: bool = True) -> str:
    """A string field of a property value, or ValueError saying which field to fix."""
    got = value.get(key)
    if isinstance(got, str) and (got or not required):
        return got
    if got is None and not required:
        return ""
    shown = "missing" if got is None else f"{excerpt(got)} is not a non-empty string"
    raise ValueError(f"{ptype} property: field {excerpt(key)} {shown}")


def _object(value: Any, ptype: str, fields: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(
            f"{ptype} property: value must be an object with {fields}, not {excerpt(value)}"
        )
    return value


def gvk_of(value: Any, ptype: str) -> GVK:
    """The GVK of an olm.gvk / olm.gvk.required value (group may be empty: the core API group)."""
    obj = _object(value, ptype, "group, version and kind")
    group = _text(obj, "group", ptype, required=False)
    return make_gvk(group, _text(obj, "version", ptype), _text(obj, "kind", ptype))


def requirement_of(value: Any) -> PackageRequirement:
    """An olm.package.required value; the range must parse, or the dependency is unknowable."""
    obj = _object(value, PACKAGE_REQUIRED, "packageName and versionRange")
    name = _text(obj, "packageName", PACKAGE_REQUIRED)
    text = _text(obj, "versionRange", PACKAGE_REQUIRED)
    try:
        return PackageRequirement(name, parse_range(text), text)
    except VersionError as err:
        raise ValueError(f"{PACKAGE_REQUIRED} property for {name}: versionRange: {err}") from None


def openshift_version_of(value: Any) -> Version | None:
    """olm.maxOpenShiftVersion as OLM reads it: a string or number, quotes trimmed, tolerant."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(
            f"{MAX_OPENSHIFT_VERSION} property: {excerpt(value)} is not a version like '4.12'"
        )
    text = str(value).strip().strip('"')
    if not text:
        return None
    try:
        return parse_version_tolerant(text)
    except VersionError as err:
        raise ValueError(f"{MAX_OPENSHIFT_VERSION} property: {err}") from None


def kube_version_of(value: Any) -> Version | None:
    """A CSV's minKubeVersion, parsed tolerantly as OLM does; empty means no minimum."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"minKubeVersion {excerpt(value)} is not a version like '1.25.0'")
    text = value.strip()
    if not text:
        return None
    try:
        return parse_version_tolerant(text)
    except VersionError as err:
        raise ValueError(f"minKubeVersion: {err}") from None


def annotation_properties(annotations: Any) -> tuple[list[Property], str | None]:
    """The properties a CSV declares in its olm.properties annotation, and a warning if broken.

    OLM reads runtime properties (olm.maxOpenShiftVersion among them) from this annotation; a
    malformed one is ignored with a warning, as operator-registry does.
    """
    if not isinstance(annotations, Mapping):
        return [], None
    raw = annotations.get(PROPERTIES_ANNOTATION)
    if raw is None or raw == "":
        return [], None
    try:
        items = json_value(raw) if isinstance(raw, str | bytes) else raw
    except (orjson.JSONDecodeError, UnsafeInput) as err:
        return [], f"annotation {PROPERTIES_ANNOTATION} is not valid JSON ({err}); it is ignored"
    if not isinstance(items, list) or not all(
        isinstance(i, Mapping) and isinstance(i.get("type"), str) for i in items
    ):
        return [], (
            f"annotation {PROPERTIES_ANNOTATION} must be a JSON list of {{type, value}} objects; "
            "it is ignored"
        )
    return [Property(i["type"], i.get("value")) for i in items], None


def csv_metadata_of(csv: Mapping[str, Any]) -> dict[str, Any]:
    """The olm.csv.metadata value operator-registry would render for this CSV manifest.

    Bundles that embed their CSV (olm.bundle.object) or come from a bundle directory then offer
    the same searchable metadata as bundles rendered with olm.csv.metadata.
    """
    meta = csv.get("metadata")
    spec = csv.get("spec")
    meta = meta if isinstance(meta, Mapping) else {}
    spec = spec if isinstance(spec, Mapping) else {}
    out: dict[str, Any] = {}
    if isinstance(meta.get("annotations"), Mapping):
        out["annotations"] = meta["annotations"]
    if isinstance(meta.get("labels"), Mapping):
        out["labels"] = meta["labels"]
    for key in CSV_METADATA_SPEC_KEYS:
        if key in spec and spec[key] is not None:
            # operator-registry renames the two definition lists.
            name = {
                "customresourcedefinitions": "crdDescriptions",
                "apiservicedefinitions": "apiServiceDefinitions",
            }.get(key, key)
            out[name] = spec[key]
    return out


def _apply_csv_metadata(facts: BundleFacts, value: Any, declared: list[Property]) -> None:
    if not isinstance(value, Mapping):
        facts.errors.append(
            f"{CSV_METADATA} property: value must be an object, not {excerpt(value)}"
        )
        return
    facts.csv_metadata = value
    try:
        facts.min_kube_version = kube_version_of(value.get("minKubeVersion"))
    except ValueError as err:
        facts.errors.append(f"{CSV_METADATA} property: {err}; OLM refuses to install it")
    extra, warning = annotation_properties(value.get("annotations"))
    if warning:
        facts.warnings.append(f"{CSV_METADATA} property: {warning}")
    for prop in extra:
        if prop not in declared and prop not in facts.extra_properties:
            facts.extra_properties.append(prop)


def _apply(facts: BundleFacts, prop: Property, declared: list[Property]) -> None:
    """Fold one property into ``facts``; raises ValueError for a malformed value."""
    ptype, value = prop.type, prop.value
    if ptype == GVK_PROVIDED:
        facts.provided_gvks.append(gvk_of(value, ptype))
    elif ptype == PACKAGE:
        obj = _object(value, ptype, "packageName and version")
        name, version = _text(obj, "packageName", ptype), _text(obj, "version", ptype)
        if facts.package is not None and (name, version) != (facts.package, facts.version_text):
            raise ValueError(
                f"more than one {PACKAGE} property ({facts.package} {facts.version_text} and "
                f"{name} {version}); a bundle must have exactly one"
            )
        facts.package, facts.version_text = name, version
    elif ptype == GVK_REQUIRED:
        facts.required_gvks.append(gvk_of(value, ptype))
    elif ptype == PACKAGE_REQUIRED:
        facts.required_packages.append(requirement_of(value))
    elif ptype in (LABEL, LABEL_REQUIRED):
        label = _text(_object(value, ptype, "label"), "label", ptype)
        (facts.labels if ptype == LABEL else facts.required_labels).append(label)
    elif ptype == CONSTRAINT:
        facts.constraints.append(_object(value, ptype, "a failureMessage and one constraint"))
    elif ptype == MAX_OPENSHIFT_VERSION:
        ocp = openshift_version_of(value)
        if facts.max_openshift_version is not None and ocp != facts.max_openshift_version:
            raise ValueError(
                f"more than one {MAX_OPENSHIFT_VERSION} property ({facts.max_openshift_version} "
                f"and {ocp}); OLM refuses such a bundle, keep one"
            )
        facts.max_openshift_version = ocp
    elif ptype == CSV_METADATA:
        if facts.csv_metadata is None:
            _apply_csv_metadata(facts, value, declared)
    elif ptype == BUNDLE_OBJECT:
        facts.bundle_objects.append(value)


def interpret(
    properties: Iterable[Property],
    csv_loader: Callable[[list[Any]], Mapping[str, Any] | None] | None = None,
) -> BundleFacts:
    """Read a bundle's properties; never raises for bad data (problems land in the result).

    ``csv_loader`` finds the CSV among olm.bundle.object values; it runs only when the bundle has
    no olm.csv.metadata, so catalogs that carry metadata never decode their manifests.
    """
    declared = properties if isinstance(properties, list) else list(properties)
    facts = BundleFacts()
    for prop in declared:
        try:
            _apply(facts, prop, declared)
        except ValueError as err:
            facts.errors.append(str(err))
    if facts.csv_metadata is None and facts.bundle_objects and csv_loader is not None:
        try:
            csv = csv_loader(facts.bundle_objects)
        except ValueError as err:
            facts.warnings.append(f"{BUNDLE_OBJECT}: {err}")
            csv = None
        if csv is not None:
            _apply_csv_metadata(facts, csv_metadata_of(csv), declared)
    for prop in facts.extra_properties:
        try:
            _apply(facts, prop, declared)
        except ValueError as err:
            facts.errors.append(f"{err} (from the CSV's {PROPERTIES_ANNOTATION} annotation)")
    # Duplicates (a GVK both declared and derived from the CSV) are dropped, keeping first places.
    if len(facts.provided_gvks) > 1:
        facts.provided_gvks = list(dict.fromkeys(facts.provided_gvks))
    if len(facts.required_gvks) > 1:
        facts.required_gvks = list(dict.fromkeys(facts.required_gvks))
    if facts.package is None:
        facts.errors.append(
            f"no {PACKAGE} property; add one with the bundle's packageName and version"
        )
    elif facts.version_text is not None:
        try:
            facts.version = parse_version(facts.version_text)
        except VersionError as err:
            facts.errors.append(f"{PACKAGE} property: version: {err}")
    return facts
