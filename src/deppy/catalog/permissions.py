"""The RBAC rules a bundle asks for, read from its CSV, and which of them are new (the
controller's approval and fleet plans ask the same question, so it lives with the catalog).

A CSV's ``spec.install.spec.permissions`` (namespaced, per service account) and
``clusterPermissions`` hold PolicyRules. A catalog carries the CSV only when its bundles embed
their manifests (``olm.bundle.object``); ``olm.csv.metadata`` has no install strategy, so for
such bundles the rules are unknown (None). A new rule is one that allows something the old rules
did not: every (apiGroup, resource, verb[, resourceName]) or (URL, verb) it grants is checked
against the old rules, with ``*`` matching anything.
"""

from __future__ import annotations

import base64
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from deppy.catalog.fbc.objects import csv_in_manifest
from deppy.catalog.model import Bundle
from deppy.catalog.properties import BUNDLE_OBJECT
from deppy.errors import json_type

NAMESPACED, CLUSTER = "namespace", "cluster"


@dataclass(frozen=True, slots=True, order=True)
class Rule:
    scope: str
    api_groups: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    resource_names: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()

    def text(self) -> str:
        groups = ",".join(g or '""' for g in self.api_groups)
        what = (
            f"nonResourceURLs {','.join(self.urls)}"
            if self.urls
            else f"{','.join(self.resources)} in apiGroups {groups}"
        )
        names = f" named {','.join(self.resource_names)}" if self.resource_names else ""
        where = "cluster-wide" if self.scope == CLUSTER else "in the namespace"
        return f"{','.join(self.verbs)} {what}{names} ({where})"

    def grants(self) -> Iterable[tuple[str, ...]]:
        if self.urls:
            for url, verb in itertools.product(self.urls, self.verbs):
                yield ("url", url, verb)
            return
        names: Sequence[str] = self.resource_names or ("",)
        for group, resource, verb, name in itertools.product(
            self.api_groups, self.resources, self.verbs, names
        ):
            yield ("api", group, resource, verb, name)

    def allows(self, grant: tuple[str, ...]) -> bool:
        def match(values: Sequence[str], value: str) -> bool:
            return "*" in values or value in values

        if grant[0] == "url":
            url, verb = grant[1], grant[2]
            return (
                bool(self.urls)
                and match(self.verbs, verb)
                and any(
                    u == url or u == "*" or (u.endswith("*") and url.startswith(u[:-1]))
                    for u in self.urls
                )
            )
        group, resource, verb, name = grant[1:]
        return (
            not self.urls
            and match(self.api_groups, group)
            and match(self.resources, resource)
            and match(self.verbs, verb)
            and (not self.resource_names or (name != "" and name in self.resource_names))
        )


class UnreadablePermissions(ValueError):
    """A CSV's install strategy holds permissions of the wrong shape (``permissions: "abc"``,
    ``rules: "abc"``, ``spec: []``). Kubernetes would refuse such rules; deppy cannot say what
    they grant, so it does not approve them automatically. The message names the field."""


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise UnreadablePermissions(f"{where}: expected a mapping, found {json_type(value)}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise UnreadablePermissions(f"{where}: expected a list, found {json_type(value)}")
    return value


def _texts(raw: Any, where: str) -> tuple[str, ...]:
    values = _list(raw, where)
    if not all(isinstance(x, str) for x in values):
        raise UnreadablePermissions(f"{where}: expected a list of strings")
    return tuple(sorted(values))


_RULE_FIELDS = ("apiGroups", "resources", "verbs", "resourceNames", "nonResourceURLs")


def rules_of_csv(csv: Mapping[str, Any]) -> list[Rule]:
    """The CSV's PolicyRules; raises UnreadablePermissions when any part of them is of the
    wrong type (a rule skipped or read as granting nothing would understate what it asks)."""
    spec = _mapping(csv.get("spec"), "spec")
    install = _mapping(spec.get("install"), "spec.install")
    strategy = _mapping(install.get("spec"), "spec.install.spec")
    rules: set[Rule] = set()
    for key, scope in (("permissions", NAMESPACED), ("clusterPermissions", CLUSTER)):
        here = f"spec.install.spec.{key}"
        for n, account in enumerate(_list(strategy.get(key), here)):
            at = f"{here}[{n}].rules"
            for m, raw in enumerate(_list(_mapping(account, f"{here}[{n}]").get("rules"), at)):
                rule = _mapping(raw, f"{at}[{m}]")
                fields = [_texts(rule.get(field), f"{at}[{m}].{field}") for field in _RULE_FIELDS]
                rules.add(Rule(scope, *fields))
    return sorted(rules)


def csv_of(bundle: Bundle) -> Mapping[str, Any] | None:
    """The CSV among the bundle's embedded manifests (``olm.bundle.object`` with ``data``)."""
    for prop in bundle.properties:
        if prop.type != BUNDLE_OBJECT or not isinstance(prop.value, Mapping):
            continue
        data = prop.value.get("data")
        if not isinstance(data, str):
            continue
        try:
            csv = csv_in_manifest(base64.b64decode(data))
        except ValueError:  # not base64, not JSON or YAML, or past deppy's input limits
            continue
        if csv is not None:
            return csv
    return None


def bundle_rules(bundle: Bundle) -> list[Rule] | None:
    """The bundle's rules; None when its catalog does not carry its CSV. Raises
    UnreadablePermissions (naming the bundle and the field) when they cannot be read."""
    csv = csv_of(bundle)
    if csv is None:
        return None
    try:
        return rules_of_csv(csv)
    except UnreadablePermissions as error:
        raise UnreadablePermissions(f"{bundle.name}: its CSV's {error}") from None


def added_rules(new: Sequence[Rule], old: Sequence[Rule]) -> list[Rule]:
    """Rules of ``new`` that grant something no rule of ``old`` (same scope) allows."""
    added = []
    for rule in new:
        same_scope = [o for o in old if o.scope == rule.scope]
        if any(not any(o.allows(g) for o in same_scope) for g in rule.grants()):
            added.append(rule)
    return added
