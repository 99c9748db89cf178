"""The OLM v1 provisioner: an approved resolveset Instance applied as ClusterExtensions.

An Instance belongs to it when its Bundle's class is a ProvisionerClass whose ``provisioner``
is ``deppy.io/olm-v1`` (the shipped class ``olm-v1``). Of each unit, the newest approved
Instance that is not superseded is applied: one ClusterExtension per package of the set
(``extensions``), created, or updated in place when a newer set is approved. Where the operator
goes: ``spec.installNamespace`` / ``spec.serviceAccount`` of the Input asking for the package
(the unit's first Input for a dependency), else the InputClass's ``parameters`` of the same
names; the namespace defaults to the Input's own, and the service account (deprecated and
ignored by OLM v1) is written only when one is named.

What happened is the Instance's status: ``clusterExtensions`` (each written one, its approved
and installed version, and OLM v1's ``Installed`` / ``Progressing`` conditions, mirrored), and
the conditions ``Applied`` (False: ``NotOwned`` — a ClusterExtension of that name is not this
unit's —, ``OLMv1NotInstalled``, ``InvalidSpec``, ``Refused`` by the API server,
``NeedsResolvedCatalog`` — a bundle of the set declares a dependency, which OLM v1 refuses, and
the class names no resolved catalog to publish it in), ``Installed``
(True once OLM v1 installed every package at the approved version), ``Progressing`` (OLM v1's,
the most troubled first) and ``PackagesLeft`` (a package of an earlier set that is no longer
in this one: its ClusterExtension is deleted only with ``prune: true`` in the ProvisionerClass's
parameters — deleting one uninstalls the operator). Idempotent: a second run writes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from deppy.catalog.olmv1 import refusal_of_types
from deppy.controller.approval import proposals
from deppy.controller.approval.resolveset import (
    BUNDLES_KEY,
    MANAGED_LABEL,
    MANAGER,
    UNIT_LABEL,
    read_bundles_json,
)
from deppy.controller.conditions import is_true, same_conditions, set_condition
from deppy.controller.fields import flag, mapping, name_in, text
from deppy.controller.kube import OLM_V1_GROUP, OLM_V1_VERSION, ApiError, Body, Kube
from deppy.controller.olmv1.extensions import (
    NAMESPACE_LABEL,
    PROVISIONER,
    Wanted,
    conditions_of,
    extension_body,
    installed_version,
    owner_of,
    ownership,
    package_of,
    spec_of,
    up_to_date,
)
from deppy.controller.olmv1.resolved_catalogs import (
    moved,
    prune_catalogs,
    publish_set,
    settings_of,
    write_catalog,
)
from deppy.controller.runtime import Runtime
from deppy.errors import InputError
from deppy.oci.push import RegistryError

MANAGED = f"{MANAGED_LABEL}={MANAGER}"
NOT_INSTALLED = (
    "the ClusterExtension kind (olm.operatorframework.io/v1) is not served by this cluster: "
    "OLM v1 is not installed; install it and the approved set is applied"
)
TROUBLED = ("Blocked", "Retrying", "Failed")
NEEDS_RESOLVED_CATALOG = "NeedsResolvedCatalog"
NOT_PUBLISHED = "ResolvedCatalogNotPublished"


def _needs_resolved_catalog(wanted: Sequence[Wanted], provisioner: Body) -> str:
    refused = [w for w in wanted if w.refusal is not None]
    listed = "; ".join(
        f"{w.package} {w.version} declares {', '.join(w.refusal.declared)}"
        for w in refused
        if w.refusal is not None
    )
    return (
        f"OLM v1 refuses bundles that declare dependencies ({listed}), so nothing of this set "
        f"is written; way out: set parameters.resolvedCatalog (ref: docker://HOST/REPO, "
        f"tlsVerify, authSecret) on ProvisionerClass {name_in(provisioner)[1]}, and deppy "
        "publishes them in a resolved catalog OLM v1 installs them from"
    )


def olm_v1_served(kube: Kube) -> bool:
    try:
        found = kube.call("GET", f"/apis/{OLM_V1_GROUP}/{OLM_V1_VERSION}")
    except ApiError as error:
        if error.status == 404:
            return False
        raise
    return any(r.get("name") == "clusterextensions" for r in found.get("resources") or ())


def _created(body: Body) -> tuple[str, str]:
    meta = body["metadata"]
    return (meta.get("creationTimestamp", ""), meta["name"])


def provision_namespace(runtime: Runtime, namespace: str) -> None:
    """Apply the newest approved Instance of every unit whose class is OLM v1's."""
    kube = runtime.kube
    newest: dict[str, Body] = {}
    for instance in kube.list("instances", namespace, labels=MANAGED):
        unit = (instance["metadata"].get("labels") or {}).get(UNIT_LABEL)
        if unit is None or not is_true(instance, "Approved") or proposals.is_superseded(instance):
            continue
        if unit not in newest or _created(instance) > _created(newest[unit]):
            newest[unit] = instance
    classes: dict[str, Body | None] = {}
    for unit, instance in sorted(newest.items()):
        name = str(instance["metadata"]["name"])
        bundle = kube.get("bundles", name, namespace) or {}
        class_name = str((bundle.get("spec") or {}).get("class") or "")
        if class_name not in classes:
            classes[class_name] = kube.get("provisionerclasses", class_name) if class_name else None
        provisioner = classes[class_name]
        if provisioner is None or provisioner.get("provisioner") != PROVISIONER:
            continue
        apply_instance(runtime, instance, unit, provisioner)


def apply_instance(runtime: Runtime, instance: Body, unit: str, provisioner: Body) -> None:
    kube = runtime.kube
    namespace, name = str(instance["metadata"]["namespace"]), str(instance["metadata"]["name"])
    problems: list[tuple[str, str]] = []
    rows: list[dict[str, Any]] = []
    wanted: list[Wanted] = []
    entries: list[dict[str, Any]] = []
    try:
        prune = flag(
            mapping(provisioner.get("parameters"), "parameters").get("prune"),
            f"ProvisionerClass {name_in(provisioner)[1]}: parameters.prune",
        )
        content = kube.get("configmaps", f"{name}-content", namespace) or {}
        entries = read_bundles_json((content.get("data") or {}).get(BUNDLES_KEY, ""))
        wanted = wanted_of(kube, instance, entries)
    except InputError as error:
        prune = False
        problems.append(("InvalidSpec", str(error)))
    if not problems and not olm_v1_served(kube):
        problems.append(("OLMv1NotInstalled", NOT_INSTALLED))
        wanted = []
    registry_down = False
    written: list[str] = []
    if any(w.refusal is not None for w in wanted) and not problems:
        try:
            wanted = _through_resolved_catalog(
                runtime, wanted, entries, provisioner, unit, instance, written
            )
        except RegistryError as error:
            problems.append((NOT_PUBLISHED, str(error)))
            registry_down = error.retriable  # down, timing out, 5xx: tried again with backoff
        except InputError as error:
            problems.append((NOT_PUBLISHED, str(error)))
        except _Refused as refused:
            problems.append((NEEDS_RESOLVED_CATALOG, str(refused)))
        if problems:
            wanted = []  # nothing of this set: OLM v1 would install part of it, refuse the rest
    for item in wanted:
        row, problem, action = _apply_one(kube, item, namespace, unit, name)
        if problem is not None:
            problems.append(problem)
        else:
            rows.append(row)
        if action:
            written.append(f"{action} {item.name} ({item.package} {item.version})")
            runtime.observe.extension_written(action)
    left = (
        _left(runtime, namespace, unit, {w.package for w in wanted}, prune, instance)
        if (wanted and not problems)
        else []
    )
    rows += left
    if wanted and not problems:  # ClusterExtensions moved first, then their old catalogs go
        for deleted in prune_catalogs(kube, namespace, unit, {w.catalog for w in wanted}):
            written.append(f"deleted ClusterCatalog {deleted} (no ClusterExtension uses it)")
    runtime.observe.left_set(instance, ", ".join(f"{r['name']} ({r['package']})" for r in left))
    _write_status(kube, instance, rows, problems)
    runtime.observe.applied(instance, problems, written)
    if registry_down:  # the namespace is tried again with backoff
        raise RegistryUnavailable(f"Instance {namespace}/{name}: {problems[-1][1]}")


class RegistryUnavailable(OSError):
    """The registry of a resolved catalog did not take it: the Instance says why; the
    namespace's work is retried with backoff."""


class _Refused(Exception):
    """A set holds bundles OLM v1 refuses and the class names no resolved catalog."""


def _through_resolved_catalog(
    runtime: Runtime,
    wanted: list[Wanted],
    entries: Sequence[Mapping[str, Any]],
    provisioner: Body,
    unit: str,
    instance: Body,
    written: list[str],
) -> list[Wanted]:
    """Publish the set's resolved catalog and write its ClusterCatalog, then point the refused
    bundles' ClusterExtensions at it; ``_Refused`` without ``parameters.resolvedCatalog``."""
    kube = runtime.kube
    namespace, name = str(instance["metadata"]["namespace"]), str(instance["metadata"]["name"])
    settings = settings_of(provisioner, name_in(provisioner)[1])
    if settings is None:
        raise _Refused(_needs_resolved_catalog(wanted, provisioner))
    published = publish_set(runtime, settings, unit, namespace, name, entries)
    if published is None:  # pragma: no cover - a refused bundle always publishes
        return wanted
    action = write_catalog(kube, published, namespace, unit)
    if action:
        written.append(f"{action} ClusterCatalog {published.name} ({published.image})")
    return moved(wanted, published)


def _apply_one(
    kube: Kube, item: Wanted, namespace: str, unit: str, instance: str
) -> tuple[dict[str, Any], tuple[str, str] | None, str]:
    """(status row, problem, what was done: created, updated or "")."""
    action = ""
    try:
        current = kube.get("clusterextensions", item.name)
        if current is None:
            current = kube.create(
                "clusterextensions", extension_body(item, namespace, unit, instance)
            )
            action = "created"
        if owner_of(current) != (namespace, unit):
            return {}, ("NotOwned", _not_owned(current, item)), ""
        if not action and not up_to_date(current, item, namespace, unit, instance):
            patch = {"metadata": ownership(namespace, unit, instance), "spec": spec_of(item)}
            current = kube.patch("clusterextensions", item.name, patch)
            action = "updated"
    except ApiError as error:
        if error.status in (400, 403, 409, 422):
            return {}, ("Refused", f"ClusterExtension {item.name}: {error}"), ""
        raise
    return _row(current, item.version, True), None, action


def _not_owned(current: Body, item: Wanted) -> str:
    owner = owner_of(current)
    who = (
        f"deppy wrote it for unit {owner[1]} in namespace {owner[0]}"
        if owner is not None
        else "it has no deppy.io/unit label: a person or another tool wrote it"
    )
    return (
        f"ClusterExtension {item.name} exists and is not this unit's ({who}); deppy leaves it "
        f"alone and does not install {item.package} {item.version}: delete that "
        "ClusterExtension, or leave the package out of the Inputs"
    )


def _row(body: Body, version: str, in_set: bool) -> dict[str, Any]:
    found = conditions_of(body)
    installed, progressing = found.get("Installed") or {}, found.get("Progressing") or {}
    return {
        "name": str(body["metadata"]["name"]),
        "package": package_of(body),
        "version": version,
        "installedVersion": installed_version(body),
        "inSet": in_set,
        "installed": str(installed.get("status") or "Unknown"),
        "progressing": str(progressing.get("reason") or ""),
        "message": str(progressing.get("message") or installed.get("message") or ""),
    }


def _left(
    runtime: Runtime,
    namespace: str,
    unit: str,
    packages: set[str],
    prune: bool,
    instance: Body,
) -> list[dict[str, Any]]:
    """This unit's ClusterExtensions whose package is not in the set: deleted with prune,
    reported otherwise."""
    kube = runtime.kube
    selector = f"{MANAGED},{NAMESPACE_LABEL}={namespace},{UNIT_LABEL}={unit}"
    rows = []
    for body in kube.list("clusterextensions", labels=selector):
        if package_of(body) in packages:
            continue
        name = str(body["metadata"]["name"])
        if prune:
            kube.delete("clusterextensions", name)
            runtime.observe.extension_written("deleted")
            runtime.observe.pruned(instance, name, package_of(body))
        else:
            rows.append(_row(body, "", False))
    return rows


def wanted_of(kube: Kube, instance: Body, entries: Sequence[Mapping[str, Any]]) -> list[Wanted]:
    """Each package of the set, and where it goes (from the Inputs and their InputClass)."""
    namespace = str(instance["metadata"]["namespace"])
    owners = [
        r for r in instance["metadata"].get("ownerReferences") or () if r.get("kind") == "Input"
    ]
    inputs = [
        found
        for r in sorted(owners, key=lambda r: str(r.get("name")))
        if (found := kube.get("inputs", str(r.get("name")), namespace)) is not None
    ]
    if not inputs:
        raise InputError(
            f"Instance {namespace}/{instance['metadata']['name']}",
            "none of its Inputs exists any more",
        )
    classes: dict[str, Mapping[str, Any]] = {}
    result = []
    for entry in entries:
        package = str(entry.get("packageName") or "")
        body = next((i for i in inputs if package in _packages_named(i)), inputs[0])
        spec = mapping(body.get("spec"), f"Input {namespace}/{name_in(body)[1]}: spec")
        class_name = text(spec.get("inputClass"), "spec.inputClass", "subscription")
        if class_name not in classes:
            found = kube.get("inputclasses", class_name) or {}
            classes[class_name] = mapping(found.get("parameters"), f"InputClass {class_name}")
        params = classes[class_name]
        where = f"Input {namespace}/{name_in(body)[1]}: spec"
        install_ns = text(spec.get("installNamespace"), f"{where}.installNamespace") or text(
            params.get("installNamespace"), f"InputClass {class_name}: parameters.installNamespace"
        )
        account = text(spec.get("serviceAccount"), f"{where}.serviceAccount") or text(
            params.get("serviceAccount"), f"InputClass {class_name}: parameters.serviceAccount"
        )
        channels = entry.get("channels") or []
        types = [str(p.get("type")) for p in entry.get("properties") or () if isinstance(p, dict)]
        result.append(
            Wanted(
                package,
                str(entry.get("version") or ""),
                str(channels[0]) if channels else "",
                str(entry.get("catalog") or ""),
                install_ns or namespace,
                account or None,
                refusal_of_types(str(entry.get("name") or package), types),
            )
        )
    return sorted(result, key=lambda w: w.package)


def _packages_named(body: Body) -> set[str]:
    named = set()
    for item in (body.get("spec") or {}).get("constraints") or ():
        value = item.get("value") if isinstance(item, Mapping) else None
        if isinstance(value, Mapping):
            named.add(str(value.get("package") or value.get("packageName") or ""))
    return named


def _progressing(rows: Sequence[Mapping[str, Any]]) -> tuple[str, str, str]:
    troubled = [r for r in rows if r["inSet"] and r["progressing"] in TROUBLED]
    if troubled:
        text_ = "; ".join(f"{r['name']}: {r['progressing']}: {r['message']}" for r in troubled)
        status = "False" if all(r["progressing"] == "Blocked" for r in troubled) else "True"
        return status, troubled[0]["progressing"], text_
    mine = [r for r in rows if r["inSet"]]
    if mine and all(r["progressing"] == "Succeeded" for r in mine):
        return "True", "Succeeded", "OLM v1 reached the approved set"
    return "Unknown", "Waiting", "waiting for OLM v1's operator-controller"


def _installed(rows: Sequence[Mapping[str, Any]]) -> tuple[str, str, str]:
    mine = [r for r in rows if r["inSet"]]
    if not mine:
        return "Unknown", "Waiting", "nothing written yet"
    missing = [r for r in mine if r["installed"] != "True" or r["installedVersion"] != r["version"]]
    if not missing:
        return "True", "Succeeded", "OLM v1 installed every package at the approved version"
    text_ = "; ".join(
        f"{r['name']}: {r['installedVersion'] or 'nothing'} installed, {r['version']} approved"
        for r in missing
    )
    status = "Unknown" if all(r["installed"] == "Unknown" for r in missing) else "False"
    return status, "Waiting" if status == "Unknown" else "NotInstalled", text_


def _write_status(
    kube: Kube,
    instance: Body,
    rows: Sequence[Mapping[str, Any]],
    problems: Sequence[tuple[str, str]],
) -> None:
    namespace, name = str(instance["metadata"]["namespace"]), str(instance["metadata"]["name"])
    left = [r for r in rows if not r["inSet"]]

    def compute(current: Body) -> Body | None:
        old = current.get("status") or {}
        conditions = old.get("conditions")
        if problems:
            message = "; ".join(m for _, m in problems)
            conditions = set_condition(conditions, "Applied", False, problems[0][0], message)
        else:
            written = ", ".join(f"{r['name']} {r['version']}" for r in rows if r["inSet"])
            conditions = set_condition(
                conditions, "Applied", True, "Written", f"ClusterExtensions: {written}"
            )
        conditions = set_condition(conditions, "Installed", *_installed(rows))
        conditions = set_condition(conditions, "Progressing", *_progressing(rows))
        if left:
            names = ", ".join(f"{r['name']} ({r['package']})" for r in left)
            conditions = set_condition(
                conditions,
                "PackagesLeft",
                True,
                "NotInSet",
                f"no longer in the approved set, still installed: {names}; the ProvisionerClass "
                "has prune: false, so deppy leaves them: kubectl delete clusterextension NAME "
                "uninstalls one",
            )
        else:
            conditions = set_condition(conditions, "PackagesLeft", False, "None")
        # no empty strings: a merge patch would drop them from the list, and the status written
        # would never read back as equal
        listed = [{k: v for k, v in r.items() if v != ""} for r in rows]
        if (
            same_conditions(old.get("conditions") or [], conditions)
            and (old.get("clusterExtensions") or []) == listed
        ):
            return None
        return {"conditions": conditions, "clusterExtensions": listed}

    kube.update_status("instances", name, namespace, compute)
