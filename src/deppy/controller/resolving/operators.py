"""The Operator porcelain: it owns an Input of the same name, and its status shows what is
installed, the updates it could take (``deppy upgrades``' logic: along the channel, and those
needing a channel change — ``CrossChannelUpdateFound``) and the refs of its components. A catalog
that fails to reload still answers from its last good content, and ``CatalogStale`` says so."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from deppy.controller.conditions import condition, same_conditions, set_condition
from deppy.controller.fields import text
from deppy.controller.install.crds import API_VERSION
from deppy.controller.kube import Body, as_stored
from deppy.controller.resolving.namespace_sync import MANAGED, held_bundles
from deppy.controller.resolving.requests import operator_input_constraints, where_of
from deppy.controller.resolving.units import name_of
from deppy.controller.runtime import Runtime
from deppy.errors import InputError
from deppy.workflows.upgrades import ChannelUpdates, UpgradeReport, upgrade_reports

OWNED_LABEL = "deppy.io/operator"


def input_for(body: Body) -> Body:
    meta = body["metadata"]
    constraints = operator_input_constraints(body)  # first: it checks that spec is a mapping
    input_class = text(
        body["spec"].get("inputClass"), f"{where_of('Operator', body)}: spec.inputClass"
    )
    return {
        "apiVersion": API_VERSION,
        "kind": "Input",
        "metadata": {
            "name": meta["name"],
            "namespace": meta["namespace"],
            "labels": {OWNED_LABEL: meta["name"]},
            "ownerReferences": [
                {
                    "apiVersion": API_VERSION,
                    "kind": "Operator",
                    "name": meta["name"],
                    "uid": meta["uid"],
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {
            "inputClass": input_class or "subscription",
            "constraints": constraints,
        },
    }


def ensure_input(runtime: Runtime, body: Body) -> Body | None:
    """Create or update the Operator's Input; an invalid spec is written to its status."""
    kube = runtime.kube
    meta = body["metadata"]
    try:
        wanted = input_for(body)
    except InputError as error:
        _write(runtime, body, {}, "InvalidSpec", str(error))
        return None
    found = kube.get("inputs", meta["name"], meta["namespace"])
    if found is None:
        return kube.create("inputs", wanted, meta["namespace"])
    if found.get("spec") != wanted["spec"]:
        return kube.patch("inputs", meta["name"], {"spec": wanted["spec"]}, meta["namespace"])
    return found


def refresh_status(runtime: Runtime, body: Body) -> None:
    """Installed bundle, updates and components, from the API server's state."""
    kube = runtime.kube
    meta = body["metadata"]
    namespace, name = meta["namespace"], meta["name"]
    try:
        package = operator_input_constraints(body)[0]["value"]["package"]
    except InputError as error:
        _write(runtime, body, {}, "InvalidSpec", str(error))
        return
    instances = kube.list("instances", namespace, labels=MANAGED)
    config_maps = {name_of(c): c for c in kube.list("configmaps", namespace, labels=MANAGED)}
    held = [h for h in held_bundles(instances, config_maps) if h.installed.package == package]
    refs: list[dict[str, Any]] = []
    the_input = kube.get("inputs", name, namespace)
    if the_input is not None:
        refs.append(_ref(the_input, "Input"))
        resolveset = (the_input.get("status") or {}).get("resolveset") or {}
        if resolveset.get("name"):
            for kind, plural in (("Bundle", "bundles"), ("Instance", "instances")):
                found = kube.get(plural, resolveset["name"], namespace)
                if found is not None:
                    refs.append(_ref(found, kind))
    fields: dict[str, Any] = {
        "components": {"matchLabels": {OWNED_LABEL: name}, "refs": refs},
        "installed": "",
        "updates": [],
    }
    view = runtime.cache.view(())  # a catalog failing to reload serves its last good content
    source = view.source
    named = ((body.get("spec") or {}).get("catalog") or {}).get("name")
    stale = view.staleness({named, *(h.installed.catalog for h in held)} - {None})
    if view.waits_for({named, *(h.installed.catalog for h in held)}):
        return  # its catalog has not loaded in this controller yet: the status stays
    if not held or source is None:
        why = "not installed yet (no approved Instance holds it)" if not held else "no catalog"
        _write(runtime, body, fields, "NotInstalled", why, status="Unknown", stale=stale)
        return
    installed = held[0].installed
    fields["installed"] = installed.bundle or f"{package}.v{installed.version}"
    reports, _ = upgrade_reports(source, [installed], runtime.cluster)
    report = reports[0]
    fields["updates"] = updates_of(report, package)
    reason, message, available = update_condition(report)
    _write(
        runtime, body, fields, reason, message, status="True" if available else "False", stale=stale
    )


def updates_of(report: UpgradeReport, package: str) -> list[dict[str, Any]]:
    channels: list[ChannelUpdates] = []
    if report.channel is not None and report.channel.updates:
        channels.append(report.channel)
    channels += [c for c in report.other_channels if c.updates]
    return [
        {
            "options": [u.bundle.name for u in c.updates],
            "catalog": {"name": c.catalog, "package": package, "channel": c.channel},
        }
        for c in channels
    ]


def update_condition(report: UpgradeReport) -> tuple[str, str, bool]:
    here = report.channel
    if here is not None and here.newest is not None:
        return (
            "UpdateFound",
            f"{here.newest.name} is newer in channel {here.channel} (catalog {here.catalog})",
            True,
        )
    if report.cross_channel_update_found:
        found = next(c for c in report.other_channels if c.updates)
        return (
            "CrossChannelUpdateFound",
            "updates have been found that require a change in the operator spec to apply: "
            f"{found.updates[0].bundle.name} in channel {found.channel} (catalog {found.catalog})",
            True,
        )
    return "NoUpdates", "the installed bundle is the newest it can reach", False


def _ref(body: Body, kind: str) -> dict[str, Any]:
    conditions = (body.get("status") or {}).get("conditions") or []
    return {
        "apiVersion": API_VERSION,
        "kind": kind,
        "name": body["metadata"]["name"],
        "namespace": body["metadata"].get("namespace", ""),
        "conditions": [
            {k: c[k] for k in ("type", "status", "reason", "message") if k in c} for c in conditions
        ],
    }


def _write(
    runtime: Runtime,
    body: Body,
    fields: Mapping[str, Any],
    reason: str,
    message: str,
    *,
    status: str = "False",
    stale: tuple[bool, str, str] | None = None,
) -> None:
    """``UpdateAvailable`` (or ``Valid`` False for an invalid spec) and ``CatalogStale``."""
    generation = body["metadata"].get("generation", 0)

    def compute(current: Body) -> Body | None:
        old = current.get("status") or {}
        kind = "UpdateAvailable" if reason != "InvalidSpec" else "Valid"
        state = status if reason != "InvalidSpec" else "False"
        conditions = set_condition(
            old.get("conditions"), kind, state, reason, message, generation=generation
        )
        if reason != "InvalidSpec" and condition(current, "Valid") is not None:
            conditions = set_condition(conditions, "Valid", True, "Valid", "")
        if stale is not None:
            conditions = set_condition(conditions, "CatalogStale", *stale)
        if (
            same_conditions(old.get("conditions") or [], conditions)
            and all(as_stored(old.get(k)) == as_stored(v) for k, v in fields.items())
            and old.get("observedGeneration") == generation
        ):
            return None
        return {**fields, "observedGeneration": generation, "conditions": conditions}

    runtime.kube.update_status(
        "operators", body["metadata"]["name"], body["metadata"]["namespace"], compute
    )


def operators_of(runtime: Runtime, namespace: str) -> Sequence[Body]:
    return runtime.kube.list("operators", namespace)
