"""What must hold on the cluster after every step of the soak, checked from the API server's
objects and the soak's own record of the catalog (not from the controller's resolution path).

Each check returns the violations it found, as sentences naming the object. ``World`` is one
read of everything the soak made; ``History`` is what the soak remembers between steps (every
bundle ever published, and the versions approved so far, for "no downgrade").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from deppy.catalog.semver import Version, VersionRange
from deppy.controller.kube import Kube
from tests.soak.catalog import SoakBundle

Body = dict[str, Any]
MANAGED = "app.kubernetes.io/managed-by=deppy"
UNIT = "deppy.io/unit"
KINDS = ("inputs", "operators", "activeresolutions", "instances", "bundles")
EXTENSION_NAMESPACE = "deppy.io/namespace"
OLM_V1_UNIT = "olm-v1"  # the unit of the Inputs of InputClass olm-v1 (handed to OLM v1)


def condition(body: Body, kind: str) -> Body | None:
    for found in (body.get("status") or {}).get("conditions") or ():
        if found.get("type") == kind:
            return dict(found)
    return None


def is_true(body: Body, kind: str) -> bool:
    found = condition(body, kind)
    return found is not None and found.get("status") == "True"


@dataclass
class World:
    """Everything the soak created, read once (namespaces: the soak's own)."""

    objects: dict[str, list[Body]]
    catalogs: list[Body]
    # OLM v1: the ClusterExtensions deppy wrote for the soak's namespaces (cluster-scoped)
    extensions: list[Body] = field(default_factory=list)

    @classmethod
    def read(cls, api: Kube, namespaces: set[str]) -> World:
        objects: dict[str, list[Body]] = {}
        for plural in (*KINDS, "configmaps"):
            labels = MANAGED if plural == "configmaps" else None
            objects[plural] = [
                o
                for o in api.list(plural, labels=labels)
                if o["metadata"].get("namespace") in namespaces
            ]
        extensions = [
            o
            for o in api.list("clusterextensions", labels=MANAGED)
            if (o["metadata"].get("labels") or {}).get(EXTENSION_NAMESPACE) in namespaces
        ]
        return cls(objects, api.list("catalogs"), extensions)

    def fingerprint(self) -> tuple[tuple[str, str, str], ...]:
        """Changes whenever anything the soak watches changes (for "settled")."""
        return tuple(
            sorted(
                (
                    plural,
                    f"{o['metadata'].get('namespace')}/{o['metadata']['name']}",
                    o["metadata"]["resourceVersion"],
                )
                for plural, items in [
                    *self.objects.items(),
                    ("catalogs", self.catalogs),
                    ("clusterextensions", self.extensions),
                ]
                for o in items
            )
        )

    def in_namespace(self, plural: str, namespace: str) -> list[Body]:
        return [o for o in self.objects[plural] if o["metadata"]["namespace"] == namespace]

    def namespaces(self) -> list[str]:
        return sorted(
            {o["metadata"]["namespace"] for items in self.objects.values() for o in items}
        )

    def set_content(self, namespace: str, name: str) -> list[Body] | None:
        for found in self.in_namespace("configmaps", namespace):
            if found["metadata"]["name"] == f"{name}-content":
                text = (found.get("data") or {}).get("resolved.bundles.json", "[]")
                return list(orjson.loads(text))
        return None

    def installed(self, namespace: str) -> dict[str, Body]:
        """Per unit, the newest approved Instance (what a provisioner would have installed)."""
        newest: dict[str, Body] = {}
        for instance in self.in_namespace("instances", namespace):
            unit = instance["metadata"].get("labels", {}).get(UNIT)
            if unit is None or not is_true(instance, "Approved"):
                continue
            key = (instance["metadata"]["creationTimestamp"], instance["metadata"]["name"])
            known = newest.get(unit)
            if known is None or key > (
                known["metadata"]["creationTimestamp"],
                known["metadata"]["name"],
            ):
                newest[unit] = instance
        return newest


@dataclass
class History:
    published: dict[str, SoakBundle] = field(default_factory=dict)  # every bundle ever served
    approved: dict[tuple[str, str], str] = field(default_factory=dict)  # (ns, package) -> version


def _generation_answered(body: Body) -> bool:
    status = body.get("status") or {}
    return status.get("observedGeneration") == body["metadata"].get("generation")


def unanswered(world: World) -> list[str]:
    """Every object answered for its current generation (a status for the spec it has now)."""
    found: list[str] = []
    for plural in ("inputs", "operators", "activeresolutions"):
        for body in world.objects[plural]:
            if body["metadata"].get("deletionTimestamp"):
                continue
            meta = body["metadata"]
            if not _generation_answered(body):
                found.append(
                    f"{plural} {meta['namespace']}/{meta['name']}: generation "
                    f"{meta.get('generation')} not answered (observedGeneration "
                    f"{(body.get('status') or {}).get('observedGeneration')})"
                )
            elif plural != "operators" and condition(body, "Resolved") is None:
                found.append(f"{plural} {meta['namespace']}/{meta['name']}: no Resolved condition")
    for catalog in world.catalogs:
        if not _generation_answered(catalog):
            found.append(f"Catalog {catalog['metadata']['name']}: generation not answered")
    for namespace in world.namespaces():
        instance = world.installed(namespace).get(OLM_V1_UNIT)
        if instance is not None and condition(instance, "Applied") is None:
            meta = instance["metadata"]
            found.append(f"instances {namespace}/{meta['name']}: approved, not applied yet")
    return found


def _refused(entries: list[dict[str, Any]]) -> bool:
    """Some bundle of the set declares a dependency, which OLM v1 refuses."""
    refusing = ("olm.package.required", "olm.gvk.required", "olm.constraint")
    return any(p.get("type") in refusing for e in entries for p in e.get("properties") or () if p)


def extensions_match(world: World) -> list[str]:
    """OLM v1: the olm-v1 unit's newest approved set is what its ClusterExtensions ask for,
    each pinned (exact version, the set's channel, CatalogProvided, its catalog by name), or
    the set is rightly not applied: a bundle of it declares a dependency OLM v1 refuses and the
    class names no resolved catalog (``NeedsResolvedCatalog``)."""
    found: list[str] = []
    for namespace in world.namespaces():
        instance = world.installed(namespace).get(OLM_V1_UNIT)
        if instance is None:
            continue
        name = instance["metadata"]["name"]
        applied = condition(instance, "Applied") or {}
        if applied.get("reason") == "NeedsResolvedCatalog" and _refused(
            world.set_content(namespace, name) or []
        ):
            continue  # rightly not applied: OLM v1 refuses a bundle of it (no resolved catalog)
        if applied.get("status") != "True":
            found.append(f"{namespace}/{name}: Applied {applied.get('reason')}: {applied}")
            continue
        mine = {
            ((e.get("spec") or {}).get("source") or {}).get("catalog", {}).get("packageName"): e
            for e in world.extensions
            if (e["metadata"].get("labels") or {}).get(EXTENSION_NAMESPACE) == namespace
        }
        for entry in world.set_content(namespace, name) or []:
            package = entry.get("packageName")
            extension = mine.get(package)
            if extension is None:
                found.append(f"{namespace}/{name}: no ClusterExtension for {package}")
                continue
            catalog = extension["spec"]["source"]["catalog"]
            wanted = {
                "version": entry.get("version"),
                "channels": list(entry.get("channels") or []),
                "upgradeConstraintPolicy": "CatalogProvided",
                "selector": {
                    "matchLabels": {"olm.operatorframework.io/metadata.name": entry.get("catalog")}
                },
            }
            have = {k: catalog.get(k) for k in wanted}
            if have != wanted:
                found.append(
                    f"{namespace}/{name}: ClusterExtension {extension['metadata']['name']} "
                    f"asks for {have}, the approved set has {wanted}"
                )
    return found


def orphans(world: World) -> list[str]:
    """No owned object left after its owners are deleted (ownerReferences by uid)."""
    alive = {o["metadata"]["uid"] for items in world.objects.values() for o in items}
    found: list[str] = []
    for plural, items in world.objects.items():
        for body in items:
            owners = body["metadata"].get("ownerReferences") or []
            if owners and not any(o["uid"] in alive for o in owners):
                meta = body["metadata"]
                names = ", ".join(f"{o['kind']} {o['name']}" for o in owners)
                found.append(f"{plural} {meta['namespace']}/{meta['name']}: owners gone ({names})")
    return found


def pending_per_unit(world: World) -> list[str]:
    """At most one pending proposal per unit: Instances not approved and not superseded."""
    found: list[str] = []
    for namespace in world.namespaces():
        pending: dict[str, list[str]] = {}
        for instance in world.in_namespace("instances", namespace):
            if instance["metadata"].get("deletionTimestamp"):
                continue
            approved = condition(instance, "Approved")
            if approved is not None and (
                approved.get("status") == "True" or approved.get("reason") == "Superseded"
            ):
                continue
            unit = instance["metadata"].get("labels", {}).get(UNIT, "?")
            pending.setdefault(unit, []).append(instance["metadata"]["name"])
        for unit, names in sorted(pending.items()):
            if len(names) > 1:
                found.append(f"{namespace} unit {unit}: {len(names)} pending proposals {names}")
    return found


def approved_sets(world: World, history: History) -> list[str]:
    """Every approved set valid against the catalog data it was computed from: each bundle one
    the catalog published, one bundle per package, its dependencies met (by the namespace's
    installed sets), one provider per API, and no package moved below what was approved."""
    found: list[str] = []
    for namespace in world.namespaces():
        sets = world.installed(namespace)
        everything: dict[str, tuple[str, SoakBundle]] = {}  # package -> (instance, bundle)
        for _unit, instance in sorted(sets.items()):
            name = instance["metadata"]["name"]
            entries = world.set_content(namespace, name)
            if entries is None:
                found.append(f"{namespace}/{name}: approved, but its content ConfigMap is gone")
                continue
            packages: dict[str, str] = {}
            for entry in entries:
                record = history.published.get(str(entry.get("name")))
                if record is None or record.version != entry.get("version"):
                    found.append(
                        f"{namespace}/{name}: {entry.get('name')} was never published as "
                        f"{entry.get('packageName')} {entry.get('version')}"
                    )
                    continue
                if record.package in packages:
                    found.append(
                        f"{namespace}/{name}: two bundles of {record.package} "
                        f"({packages[record.package]}, {record.name})"
                    )
                packages[record.package] = record.name
                if record.package in everything and everything[record.package][0] != name:
                    other = everything[record.package]
                    found.append(
                        f"{namespace}: {record.package} installed twice ({other[1].name} by "
                        f"{other[0]}, {record.name} by {name})"
                    )
                everything[record.package] = (name, record)
        found += _dependencies(namespace, everything)
        found += _providers(namespace, everything)
        found += _no_downgrade(namespace, everything, history)
    return found


def _dependencies(namespace: str, installed: dict[str, tuple[str, SoakBundle]]) -> Iterator[str]:
    provided = {kind for _, b in installed.values() for kind in b.provides}
    for holder, bundle in installed.values():
        for package, text in bundle.requires_package:
            have = installed.get(package)
            if have is None or not VersionRange.parse(text).contains(
                Version.parse(have[1].version)
            ):
                got = have[1].name if have is not None else "nothing"
                yield (
                    f"{namespace}/{holder}: {bundle.name} needs {package} {text}, the namespace "
                    f"has {got}"
                )
        for kind in bundle.requires_kind:
            if kind not in provided:
                yield f"{namespace}/{holder}: {bundle.name} needs API {kind}, nothing provides it"


def _providers(namespace: str, installed: dict[str, tuple[str, SoakBundle]]) -> Iterator[str]:
    by_kind: dict[str, list[str]] = {}
    for _, bundle in installed.values():
        for kind in bundle.provides:
            by_kind.setdefault(kind, []).append(bundle.name)
    for kind, names in sorted(by_kind.items()):
        if len(names) > 1:
            yield f"{namespace}: API {kind} provided by {len(names)} bundles {sorted(names)}"


def _no_downgrade(
    namespace: str, installed: dict[str, tuple[str, SoakBundle]], history: History
) -> Iterator[str]:
    for key in [k for k in history.approved if k[0] == namespace and k[1] not in installed]:
        del history.approved[key]  # uninstalled: a later install starts afresh
    for package, (holder, bundle) in sorted(installed.items()):
        before = history.approved.get((namespace, package))
        if before is not None and Version.parse(bundle.version) < Version.parse(before):
            yield f"{namespace}/{holder}: {package} moved down from {before} to {bundle.version}"
        if before is None or Version.parse(bundle.version) > Version.parse(before):
            history.approved[(namespace, package)] = bundle.version


Upgrades = Callable[[str, str, str, str], list[tuple[str, list[str]]] | None]


def updates_agree(world: World, upgrades: Upgrades) -> list[str]:
    """``Operator.status.updates`` = what ``deppy upgrades`` lists for the same installed bundle
    (``upgrades(package, version, channel, bundle)`` -> [(channel, newest-first options)], or
    None when it cannot say). The installed bundle and its channel are read from the approved
    set that holds it, as the controller reads them."""
    found: list[str] = []
    for body in world.objects["operators"]:
        meta = body["metadata"]
        status = body.get("status") or {}
        package = ((body.get("spec") or {}).get("catalog") or {}).get("package")
        if not status.get("installed") or meta.get("deletionTimestamp"):
            continue
        held = [
            entry
            for instance in world.installed(meta["namespace"]).values()
            for entry in world.set_content(meta["namespace"], instance["metadata"]["name"]) or []
            if entry.get("packageName") == package
        ]
        if not held:
            continue
        entry = held[0]
        channel = (entry.get("channels") or [""])[0]
        expected = upgrades(package, str(entry["version"]), channel, str(entry["name"]))
        # deppy upgrades is asked about the Operator's own catalog (the ClusterCatalog on the
        # same content offers the same updates again, under its name)
        named = ((body.get("spec") or {}).get("catalog") or {}).get("name")
        have = [
            ((u.get("catalog") or {}).get("channel"), list(u.get("options") or []))
            for u in status.get("updates") or []
            if (u.get("catalog") or {}).get("name") in (None, named)
        ]
        if expected is not None and have != expected:
            found.append(
                f"Operator {meta['namespace']}/{meta['name']} at {entry['name']}: "
                f"status.updates {have} but deppy upgrades lists {expected}"
            )
    return found


def answers(world: World) -> dict[str, tuple[str, ...]]:
    """Each object's answer (for "a fault changes no answer"): its Resolved condition and what
    it selected or installed."""
    found: dict[str, tuple[str, ...]] = {}
    for plural in ("inputs", "activeresolutions", "operators"):
        for body in world.objects[plural]:
            meta = body["metadata"]
            status = body.get("status") or {}
            resolved = condition(body, "Resolved") or {}
            found[f"{plural} {meta['namespace']}/{meta['name']}"] = (
                str(resolved.get("status")),
                str(resolved.get("reason")),
                str(sorted(status.get("selection") or [])),
                str((status.get("resolveset") or {}).get("name")),
                str(status.get("installed")),
            )
    return found


def changed_answers(
    before: dict[str, tuple[str, ...]], after: dict[str, tuple[str, ...]]
) -> list[str]:
    return [
        f"{key}: answer changed by a fault from {before[key]} to {after.get(key)}"
        for key in sorted(before)
        if key in after and after[key] != before[key]
    ]


INVARIANTS = {
    "answered": "every Input, Operator, ActiveResolution and Catalog answered for its current "
    "generation",
    "approved-valid": "every approved set valid against the catalog data: bundles published, "
    "one per package, dependencies met, one provider per API, no downgrade",
    "one-pending": "at most one pending (unapproved, not superseded) proposal per unit",
    "no-orphans": "no owned object left after its owners are deleted",
    "updates": "Operator.status.updates agrees with deppy upgrades for the same installed version",
    "olmv1-extensions": "the ClusterExtensions of the olm-v1 unit are its newest approved set, "
    "pinned (exact version, channel, CatalogProvided, catalog by name)",
    "rss": "controller RSS below the bound",
    "fault-no-change": "a fault (catalog outage, API server/etcd stall, kill -9, takeover) "
    "changes no answer",
}
