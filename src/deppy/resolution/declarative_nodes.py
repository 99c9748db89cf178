"""Declarative nodes: nudge the resolver from a pipeline file, without writing code.

``static-variable-producer`` adds variables the configuration spells out: prohibit bundles,
require a package (like --require), or declare two sets of bundles in conflict.
``filter-processor`` drops bundle variables by what their bundles are (catalog, package,
version range, channel, label, property) and removes the references that the variables passing
through it hold to what it dropped; variables without a bundle always pass.

    - name: nudges
      type: static-variable-producer
      config:
        variables:
          - prohibit: {package: etcd, versions: ">=0.9.4"}
            reason: 0.9.4 corrupts backups          # quoted in explanations
          - require: {package: prometheus, versions: "<0.30.0", channel: beta}
          - conflict: [{package: etcd}, {package: prometheus}]
    - name: no-beta
      type: filter-processor
      inputs: [required-packages, installed-packages, bundles]
      config:
        drop: [{catalog: community, label: beta}]    # or keep: [...]

Wiring: a static producer that prohibits or declares conflicts emits bundle variables, so it
must be an input of bundles-and-dependencies (which then does not make them twice) and of the
solver. A filter should see every variable the solver will see, or references to what it drops
remain (the solver then reports the unknown variable).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from deppy.catalog.model import Bundle
from deppy.catalog.semver import VersionRange
from deppy.errors import InputError, excerpt, unknown_field
from deppy.pipeline.events import Batch
from deppy.pipeline.library import NodeConfig, Run
from deppy.resolution.context import CandidateOrder, ResolutionContext
from deppy.resolution.dependencies import needs_of
from deppy.resolution.nodes import RequiredPackageProducer, has_property
from deppy.resolution.request import PropertyRestriction, RequiredPackage
from deppy.resolution.request_parsing import parse_range, required_from_parts
from deppy.resolution.rule_sets import rule_set
from deppy.resolution.variables import (
    ClusterPolicy,
    Excluded,
    Fact,
    Needs,
    OLMVariable,
    OnePerAPI,
    OnePerPackage,
    bundle_id,
    make,
)
from deppy.solver import AtMost, Conflict, Constraint, Dependency, Mandatory, Prohibited

SELECTOR_FIELDS = ("package", "versions", "bundle", "catalog", "channel", "label", "property")


@dataclass(frozen=True, slots=True)
class Selector:
    """Which bundles a rule means; every field given must hold."""

    text: str
    package: str | None = None
    versions: VersionRange | None = None
    bundle: str | None = None
    catalog: str | None = None
    channel: str | None = None
    label: str | None = None
    with_property: tuple[str, str] | None = None  # (type, value)

    @property
    def short(self) -> str:
        """The package alone when the selector names nothing else."""
        return (
            self.package if self.package and self.text == f"package {self.package}" else self.text
        )

    def matches(self, bundle: Bundle, order: CandidateOrder) -> bool:
        return (
            (self.package is None or bundle.package == self.package)
            and (self.bundle is None or bundle.name == self.bundle)
            and (self.catalog is None or bundle.catalog == self.catalog)
            and (self.versions is None or self.versions.contains(bundle.version))
            and (self.label is None or self.label in bundle.labels)
            and (self.with_property is None or has_property(bundle, *self.with_property))
            and (self.channel is None or order.in_channel(bundle, self.channel))
        )

    def bundles(self, context: ResolutionContext) -> list[Bundle]:
        catalogs = context.catalogs
        found = catalogs.bundles_of(self.package) if self.package else catalogs.all_bundles()
        return [b for b in found if self.matches(b, context.order)]


def _text(raw: Mapping[str, Any], key: str, where: str) -> str | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, str | int | float) or isinstance(value, bool) or value == "":
        raise InputError(where, f"field {excerpt(key)} must be a non-empty string")
    return str(value)


def parse_selector(raw: Any, where: str) -> Selector:
    if not isinstance(raw, Mapping) or not raw:
        raise InputError(where, "expected a bundle selector", f"use {', '.join(SELECTOR_FIELDS)}")
    for key in raw:
        if key not in SELECTOR_FIELDS:
            raise unknown_field(where, str(key), SELECTOR_FIELDS)
    versions_text = _text(raw, "versions", where)
    prop = raw.get("property")
    prop_pair: tuple[str, str] | None = None
    if prop is not None:
        if not isinstance(prop, Mapping) or set(prop) != {"type", "value"}:
            raise InputError(where, "field 'property' must be {type: ..., value: ...}")
        prop_pair = (str(prop["type"]), str(prop["value"]))
    words = [f"{k} {raw[k]}" for k in SELECTOR_FIELDS if k in raw and k != "property"]
    if prop_pair:
        words.append(f"property {prop_pair[0]}={prop_pair[1]}")
    return Selector(
        text=", ".join(words),
        package=_text(raw, "package", where),
        versions=parse_range(versions_text, f"{where}: versions") if versions_text else None,
        bundle=_text(raw, "bundle", where),
        catalog=_text(raw, "catalog", where),
        channel=_text(raw, "channel", where),
        label=_text(raw, "label", where),
        with_property=prop_pair,
    )


# -- static-variable-producer ----------------------------------------------------------------

RULES = ("prohibit", "require", "conflict")
REQUIRE_FIELDS = ("package", "versions", "channel", "catalog")


@dataclass(frozen=True, slots=True)
class _Prohibit:
    selector: Selector
    reason: str


@dataclass(frozen=True, slots=True)
class _Require:
    requirement: RequiredPackage


@dataclass(frozen=True, slots=True)
class _Conflict:
    sides: tuple[Selector, Selector]
    reason: str


_Rule = _Prohibit | _Require | _Conflict


class StaticVariableProducer:
    """Variables spelled out in the pipeline file (the seed's "gently nudge the resolver")."""

    def __init__(self, config: NodeConfig) -> None:
        config.unknown_fields(("variables",))
        raw = config.config.get("variables")
        where = f"{config.where}: config.variables"
        if not isinstance(raw, list) or not raw:
            raise InputError(where, "expected a non-empty list of prohibit/require/conflict rules")
        self.name = config.name
        self.rules = [self._rule(item, f"{where}[{n}]") for n, item in enumerate(raw)]

    def _rule(self, raw: Any, where: str) -> _Rule:
        if not isinstance(raw, Mapping):
            raise InputError(where, "expected a rule", f"start it with one of {', '.join(RULES)}")
        kinds = [k for k in RULES if k in raw]
        for key in raw:
            if key not in (*RULES, "reason"):
                raise unknown_field(where, str(key), (*RULES, "reason"))
        if len(kinds) != 1:
            raise InputError(
                where,
                "a rule needs exactly one action",
                f"use one of {', '.join(RULES)} (and optionally 'reason')",
            )
        kind = kinds[0]
        body = raw[kind]
        reason = raw.get("reason")
        if reason is not None and not isinstance(reason, str):
            raise InputError(where, "field 'reason' must be a string")
        if kind == "prohibit":
            selector = parse_selector(body, f"{where}.prohibit")
            return _Prohibit(selector, reason or f"prohibit {selector.text}")
        if kind == "require":
            return _Require(self._requirement(body, f"{where}.require"))
        if not isinstance(body, list) or len(body) != 2:
            raise InputError(f"{where}.conflict", "expected a list of two bundle selectors")
        sides = (
            parse_selector(body[0], f"{where}.conflict[0]"),
            parse_selector(body[1], f"{where}.conflict[1]"),
        )
        return _Conflict(sides, reason or f"{sides[0].short} conflicts with {sides[1].short}")

    @staticmethod
    def _requirement(body: Any, where: str) -> RequiredPackage:
        if not isinstance(body, Mapping) or not isinstance(body.get("package"), str):
            raise InputError(where, "expected {package: NAME, versions: RANGE, channel, catalog}")
        for key in body:
            if key not in REQUIRE_FIELDS:
                raise unknown_field(where, str(key), REQUIRE_FIELDS)
        return required_from_parts(
            body["package"],
            _text(body, "versions", where),
            channel=_text(body, "channel", where),
            catalog=_text(body, "catalog", where),
            where=where,
        )

    def produce(self, run: Run) -> list[OLMVariable]:
        context: ResolutionContext = run.context
        anchors: list[OLMVariable] = []
        bundles: dict[str, OLMVariable] = {}
        prohibited: dict[str, OLMVariable] = {}
        for n, rule in enumerate(self.rules, 1):
            label = f"{self.name} #{n}"
            if isinstance(rule, _Prohibit):
                restriction = PropertyRestriction(self.name, rule.reason)
                for bundle in rule.selector.bundles(context):
                    pairs: list[tuple[Constraint, Fact]] = [
                        (Prohibited(), Excluded(bundle, restriction))
                    ]
                    prohibited[bundle_id(bundle)] = make("bundle", bundle_id(bundle), pairs, bundle)
            elif isinstance(rule, _Require):
                requirement = rule.requirement
                anchors.append(
                    RequiredPackageProducer.variable(
                        requirement, f"{label}: required package {requirement.package}", context
                    )
                )
            else:
                anchors.append(self._conflict(rule, label, context, bundles))
        for identifier, variable in prohibited.items():
            bundles[identifier] = variable  # a prohibited bundle needs no dependencies
        return [*anchors, *bundles.values()]

    def _conflict(
        self,
        rule: _Conflict,
        label: str,
        context: ResolutionContext,
        bundles: dict[str, OLMVariable],
    ) -> OLMVariable:
        """At most one bundle of both sides; every bundle named becomes a full bundle variable
        (with its dependencies, as bundles-and-dependencies would make it), so the conflict
        never names a variable the solver does not know."""
        members = list(dict.fromkeys(b for side in rule.sides for b in side.bundles(context)))
        for bundle in members:
            identifier = bundle_id(bundle)
            if identifier not in bundles:
                needs = needs_of(bundle, context, rule_set(context.request).dependency_order)
                pairs: list[tuple[Constraint, Fact]] = [
                    (Dependency(*(bundle_id(b) for b in need.candidates)), need) for need in needs
                ]
                bundles[identifier] = make("bundle", identifier, pairs, bundle)
        what = (
            f"{rule.sides[0].short} or {rule.sides[1].short} "
            f"(in conflict by pipeline node {self.name})"
        )
        return make(
            "nudge",
            f"{label}: {rule.reason}",
            [
                (Mandatory(), ClusterPolicy(f"pipeline rule {label}: {rule.reason}")),
                (AtMost(1, *(bundle_id(b) for b in members)), OnePerPackage(what, tuple(members))),
            ],
        )


# -- filter-processor ------------------------------------------------------------------------


class FilterProcessor:
    """Drops bundle variables by a match on their bundles, and prunes references to them."""

    def __init__(self, config: NodeConfig) -> None:
        config.unknown_fields(("drop", "keep"))
        given = [k for k in ("drop", "keep") if k in config.config]
        if len(given) != 1:
            raise InputError(
                f"{config.where}: config", "give exactly one of 'drop' and 'keep'", None
            )
        self.keep = given[0] == "keep"
        raw = config.config[given[0]]
        where = f"{config.where}: config.{given[0]}"
        if not isinstance(raw, list) or not raw:
            raise InputError(where, "expected a non-empty list of bundle selectors")
        self.selectors = [parse_selector(item, f"{where}[{n}]") for n, item in enumerate(raw)]
        self.name = config.name

    def process(self, run: Run, batch: Batch[Any]) -> Sequence[OLMVariable]:
        order = run.context.order
        variables: tuple[OLMVariable, ...] = batch.variables
        dropped: set[str] = set()
        for variable in variables:
            bundle = variable.bundle
            if variable.kind != "bundle" or bundle is None:
                continue
            hit = any(s.matches(bundle, order) for s in self.selectors)
            if hit != self.keep:
                dropped.add(variable.id)
        if not dropped:
            return variables
        return [self._pruned(v, dropped) for v in variables if v.id not in dropped]

    def _pruned(self, variable: OLMVariable, dropped: set[str]) -> OLMVariable:
        constraints = variable.variable.constraints
        if not any(_names(c) & dropped for c in constraints):
            return variable
        pairs: list[tuple[Constraint, Fact]] = []
        for constraint, fact in zip(constraints, variable.facts, strict=True):
            if isinstance(constraint, Conflict):
                if constraint.id not in dropped:
                    pairs.append((constraint, fact))
            elif isinstance(constraint, Dependency):
                kept = [i for i in constraint.ids if i not in dropped]
                pairs.append((Dependency(*kept), self._fact(fact, dropped)))
            elif isinstance(constraint, AtMost):
                kept = [i for i in constraint.ids if i not in dropped]
                pairs.append((AtMost(constraint.n, *kept), self._fact(fact, dropped)))
            else:
                pairs.append((constraint, fact))
        return make(variable.kind, variable.id, pairs, variable.bundle)

    def _fact(self, fact: Fact, dropped: set[str]) -> Fact:
        if isinstance(fact, Needs):
            kept = tuple(b for b in fact.candidates if bundle_id(b) not in dropped)
            missing = fact.missing
            if not kept and missing is None:
                missing = f"every candidate was dropped by pipeline node {self.name}"
            return dataclasses.replace(fact, candidates=kept, missing=missing)
        if isinstance(fact, OnePerPackage | OnePerAPI):
            kept = tuple(b for b in fact.bundles if bundle_id(b) not in dropped)
            return dataclasses.replace(fact, bundles=kept)
        return fact


def _names(constraint: Constraint) -> set[str]:
    if isinstance(constraint, Dependency | AtMost):
        return set(constraint.ids)
    if isinstance(constraint, Conflict):
        return {constraint.id}
    return set()
