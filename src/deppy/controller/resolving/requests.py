"""From deppy's objects to deppy's ``ResolutionRequest``: ActiveResolution, Input, InputClass.

An ActiveResolution's spec is read by ``request_parsing.request_from_document``, the code that reads
``deppy resolve -f``. An Input's constraints become requirements: ``olm.catalog`` a required
package (catalog, channel), ``olm.packageVersion`` its version range, ``olm.name`` the package
and version of the named bundle, ``olm.cel`` (where the seed writes ``olm.rego``) the versions
whose properties fail the rule are ignored. Every error is an ``InputError`` naming the object
and the field (``Input ns/name: spec.constraints[1].value.version``), which the controller
writes into a status condition.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.cel import (
    CelCompileError,
    CelEvaluationError,
    compile_rule,
    properties_of,
    rule_budget,
)
from deppy.catalog.semver import Version
from deppy.controller.fields import flag, items, mapping, name_in, seconds, text
from deppy.controller.install.crds import MAX_INPUT_CONSTRAINTS
from deppy.errors import InputError, json_type
from deppy.resolution.request import ClusterFacts, RequiredPackage, ResolutionRequest
from deppy.resolution.request_parsing import (
    checked_rules,
    parse_version,
    request_from_document,
    required_from_parts,
)

DEFAULT_INPUT_CLASS = "subscription"
DEFAULT_TIMEOUT = 10.0


def where_of(kind: str, body: Mapping[str, Any]) -> str:
    namespace, name = name_in(body)
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def active_resolution_request(
    body: Mapping[str, Any], cluster: ClusterFacts
) -> tuple[ResolutionRequest, float]:
    """The request and its deadline in seconds; the cluster's versions fill what spec omits."""
    where = where_of("ActiveResolution", body)
    spec = mapping(body.get("spec"), f"{where}: spec")
    if spec.get("catalogs"):
        raise InputError(
            f"{where}: spec.catalogs",
            "on a cluster, catalogs are Catalog objects",
            "create a Catalog and name it in spec.sources",
        )
    # timeoutSeconds is the controller's own field (a deadline per resolution); the rest is the
    # ActiveResolution that `deppy resolve -f` reads, by the same strict rules
    shared = {key: value for key, value in spec.items() if key != "timeoutSeconds"}
    request, _catalogs = request_from_document({"spec": shared}, where)
    if not request.required and not request.installed:
        raise InputError(
            f"{where}: spec.constraints",
            "nothing to resolve",
            'add required("package") or installed("package", "version")',
        )
    timeout = seconds(spec.get("timeoutSeconds"), f"{where}: spec.timeoutSeconds", DEFAULT_TIMEOUT)
    return replace(request, cluster=request.cluster.or_else(cluster)), timeout


@dataclass(frozen=True, slots=True)
class ClassParameters:
    """An InputClass's parameters (defaults: the subscription behaviour)."""

    name: str
    force: bool = False
    minimal_version: bool = False
    generate_inputs: bool = False
    dry_run: bool = False
    next_cluster: bool = False
    trace: bool = False
    provisioner_class: str = "deppy.resolveset"
    min_kube: Version | None = None
    min_ocp: Version | None = None
    # whose rules answer the class's Inputs: deppy's own (default; the controller installs what
    # it resolves) or OLM v0's resolver (``olm-v0``: what OLM v0 itself would choose)
    rules: str = "deppy"

    def cluster(self, actual: ClusterFacts) -> ClusterFacts:
        """The cluster to resolve against: what it runs, raised to the class's lower bounds
        (the OpenShift bound only on OpenShift)."""
        openshift = actual.openshift_version
        return ClusterFacts(
            _at_least(openshift, self.min_ocp) if openshift is not None else None,
            _at_least(actual.kube_version, self.min_kube),
        )


def _at_least(actual: Version | None, bound: Version | None) -> Version | None:
    if actual is None or bound is None:
        return actual or bound
    return max(actual, bound)


def class_parameters(body: Mapping[str, Any]) -> ClassParameters:
    where = where_of("InputClass", body)
    raw = mapping(body.get("parameters"), f"{where}: parameters")
    bounds: dict[str, Version] = {}
    for n, item in enumerate(items(raw.get("constraints"), f"{where}: parameters.constraints")):
        here = f"{where}: parameters.constraints[{n}]"
        kind, value = (
            (item.get("type"), item.get("value")) if isinstance(item, Mapping) else ("", "")
        )
        if kind not in ("minKubeVersion", "minOCPVersion") or not isinstance(value, str):
            raise InputError(
                here,
                "expected {type: minKubeVersion|minOCPVersion, value: '>= VERSION'}",
            )
        bound = value.strip().removeprefix(">=").strip()
        bounds[kind] = parse_version(bound, f"{here}.value", tolerant=True)
    name = name_in(body)[1]

    def flag_of(key: str) -> bool:
        return flag(raw.get(key), f"{where}: parameters.{key}")

    return ClassParameters(
        name=DEFAULT_INPUT_CLASS if name == "?" else name,
        force=flag_of("force"),
        minimal_version=flag_of("minimalVersion"),
        generate_inputs=flag_of("generateInputsForDependencies"),
        dry_run=flag_of("dryRun"),
        next_cluster=flag_of("nextClusterVersion"),
        trace=flag_of("trace"),
        provisioner_class=text(
            raw.get("provisionerClass"), f"{where}: parameters.provisionerClass", "deppy.resolveset"
        ),
        min_kube=bounds.get("minKubeVersion"),
        min_ocp=bounds.get("minOCPVersion"),
        rules=checked_rules(
            text(raw.get("rules"), f"{where}: parameters.rules", "deppy"),
            f"{where}: parameters.rules",
        ),
    )


def input_class_name(body: Mapping[str, Any]) -> str:
    where = where_of("Input", body)
    spec = mapping(body.get("spec"), f"{where}: spec")
    return text(spec.get("inputClass"), f"{where}: spec.inputClass", DEFAULT_INPUT_CLASS)


def input_requirements(body: Mapping[str, Any], catalogs: BundleSource) -> list[RequiredPackage]:
    """What an Input asks for, as required packages (one per package it names)."""
    where = where_of("Input", body)
    spec = mapping(body.get("spec"), f"{where}: spec")
    constraints = items(spec.get("constraints"), f"{where}: spec.constraints")
    if not constraints:
        raise InputError(f"{where}: spec.constraints", "at least one constraint is needed")
    if len(constraints) > MAX_INPUT_CONSTRAINTS:
        raise InputError(
            f"{where}: spec.constraints",
            f"{len(constraints)} constraints; at most {MAX_INPUT_CONSTRAINTS} are allowed",
            "combine olm.cel rules with && into fewer rules",
        )
    wanted: dict[str, dict[str, Any]] = {}
    rules: list[tuple[str, str]] = []
    for n, item in enumerate(constraints):
        here = f"{where}: spec.constraints[{n}]"
        if not isinstance(item, Mapping):
            raise InputError(here, "expected {type: ..., value: ...}")
        kind, value = item.get("type"), item.get("value")
        if kind == "olm.catalog":
            _catalog_constraint(value, f"{here}.value", wanted)
        elif kind == "olm.packageVersion":
            _version_constraint(value, f"{here}.value", wanted)
        elif kind == "olm.name":
            _name_constraint(value, f"{here}.value", wanted, catalogs)
        elif kind == "olm.cel":
            if not isinstance(value, str):
                raise InputError(f"{here}.value", "expected a CEL rule (a string)")
            try:
                compile_rule(value)
            except CelCompileError as error:
                raise InputError(
                    f"{here}.value", f"the CEL rule does not compile: {error}"
                ) from None
            rules.append((value, f"{here}.value"))
        else:
            raise InputError(
                f"{here}.type",
                f"unknown constraint type {kind!r}",
                "use olm.catalog, olm.packageVersion, olm.name or olm.cel",
            )
    if not wanted:
        raise InputError(
            f"{where}: spec.constraints",
            "no constraint names a package",
            "add {type: olm.catalog, value: {name: CATALOG, package: PACKAGE}}",
        )
    required = []
    for package, parts in wanted.items():
        requirement = required_from_parts(
            package,
            " ".join(parts["ranges"]) or None,
            channel=parts.get("channel"),
            catalog=parts.get("catalog"),
            where=parts["where"],
            text=f"Input {name_in(body)[1]}: {package}",
        )
        for rule, here in rules:
            requirement = _apply_rule(requirement, rule, here, catalogs)
        required.append(requirement)
    return required


def _entry(wanted: dict[str, dict[str, Any]], package: str, where: str) -> dict[str, Any]:
    return wanted.setdefault(package, {"ranges": [], "where": where})


def _text_field(value: Mapping[str, Any], key: str, where: str, *, required: bool) -> str | None:
    got = value.get(key)
    if got is None or got == "":
        if required:
            raise InputError(f"{where}.{key}", "is required")
        return None
    if not isinstance(got, str | int | float):
        raise InputError(f"{where}.{key}", "expected a string")
    return str(got)


def _catalog_constraint(value: Any, where: str, wanted: dict[str, dict[str, Any]]) -> None:
    if not isinstance(value, Mapping):
        raise InputError(where, "expected {name: CATALOG, package: PACKAGE, channel: CHANNEL}")
    package = _text_field(value, "package", where, required=True)
    assert package is not None
    entry = _entry(wanted, package, where)
    for key, field in (("catalog", "name"), ("channel", "channel")):
        text = _text_field(value, field, where, required=False)
        if text is not None:
            if entry.get(key) not in (None, text):
                raise InputError(
                    f"{where}.{field}",
                    f"package {package} is already asked for with {field} {entry[key]!r}",
                    "keep one",
                )
            entry[key] = text


def _version_constraint(value: Any, where: str, wanted: dict[str, dict[str, Any]]) -> None:
    if not isinstance(value, Mapping):
        raise InputError(where, "expected {package: PACKAGE, version: VERSION or RANGE}")
    package = _text_field(value, "package", where, required=False) or _text_field(
        value, "packageName", where, required=True
    )
    version = _text_field(value, "version", where, required=True)
    assert package is not None and version is not None
    _entry(wanted, package, where)["ranges"].append(_as_range(version))


def _as_range(version: str) -> str:
    """An exact version pins it ('2.0.0' and 'v2.0.0' mean =2.0.0); anything else is a range."""
    text = version.strip()
    bare = text.removeprefix("v")
    if bare and bare[0].isdigit() and " " not in bare and not any(c in bare for c in "<>=!|*x"):
        return f"={bare}"
    return text


def _name_constraint(
    value: Any, where: str, wanted: dict[str, dict[str, Any]], catalogs: BundleSource
) -> None:
    if not isinstance(value, str) or not value:
        raise InputError(where, "expected a bundle name, e.g. plumbus.v2.0.0")
    found = [b for b in catalogs.all_bundles() if b.name == value]
    if not found:
        raise InputError(where, f"no catalog has a bundle named {value!r}", "check the name")
    bundle = found[0]
    entry = _entry(wanted, bundle.package, where)
    entry["ranges"].append(f"={bundle.version}")
    if len({b.catalog for b in found}) == 1:
        entry.setdefault("catalog", bundle.catalog)


def _apply_rule(
    requirement: RequiredPackage, rule: str, where: str, catalogs: BundleSource
) -> RequiredPackage:
    try:
        program = compile_rule(rule)
    except CelCompileError as error:
        raise InputError(where, f"the CEL rule does not compile: {error}") from None
    failing: list[Version] = []
    with rule_budget():  # one budget for the rule over the package's bundles
        for bundle in catalogs.bundles_of(requirement.package):
            try:
                ok = program.evaluate(properties_of(bundle))
            except CelEvaluationError:
                ok = False  # OLM's celPredicate: an evaluation error does not match
            if not ok:
                failing.append(bundle.version)
    ignored = tuple(dict.fromkeys((*requirement.ignore_versions, *sorted(failing))))
    return replace(requirement, ignore_versions=ignored)


def operator_input_constraints(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The Input an Operator stands for (the seed: ``catalog`` and ``version`` become
    olm.catalog and olm.packageVersion constraints, ``constraints`` are copied)."""
    where = where_of("Operator", body)
    spec = mapping(body.get("spec"), f"{where}: spec")
    catalog = mapping(spec.get("catalog"), f"{where}: spec.catalog")
    value = {
        key: text(catalog.get(key), f"{where}: spec.catalog.{key}")
        for key in ("name", "package", "channel")
    }
    if not value["package"]:
        raise InputError(f"{where}: spec.catalog.package", "is required")
    constraints: list[dict[str, Any]] = [
        {"type": "olm.catalog", "value": {k: v for k, v in value.items() if v}}
    ]
    version = spec.get("version")
    if version is not None and version != "":
        if isinstance(version, bool) or not isinstance(version, str | int | float):
            raise InputError(
                f"{where}: spec.version", f"expected a version, found {json_type(version)}"
            )
        constraints.append(
            {
                "type": "olm.packageVersion",
                "value": {"package": value["package"], "version": str(version)},
            }
        )
    extra = items(spec.get("constraints"), f"{where}: spec.constraints")
    for n, item in enumerate(extra):
        constraints.append(dict(mapping(item, f"{where}: spec.constraints[{n}]")))
    return constraints
