"""The resolveset: what deppy hands a provisioner (seed "RukPak", ``deppy.resolveset``).

A ConfigMap holds ``resolved.bundles.json`` — one ``bundle.v1`` entry per bundle to have
(packageName, path = image, version, channels, properties: ``pivotFrom`` first when it replaces
an installed bundle, then the properties resolution used) — plus the trace or the what-if report
when asked for. A ``Bundle`` of class ``deppy.resolveset`` mounts it; an ``Instance`` (not for
dry runs) makes it active, selecting earlier Bundles of the same unit by label so a provisioner
can pivot. Names are a hash of the content (and of the unit), so the same answer always has the
same name and a restarted controller creates nothing twice.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from deppy.catalog.model import Bundle
from deppy.cluster import projected_properties
from deppy.controller.install.crds import API_VERSION

BUNDLES_KEY = "resolved.bundles.json"
TRACE_KEY = "trace.jsonl.gz"
WHATIF_KEY = "whatif.json"
UNIT_LABEL = "deppy.io/unit"
SET_LABEL = "deppy.io/resolveset"
MANAGED_LABEL = "app.kubernetes.io/managed-by"
MANAGER = "deppy"
_LABEL_VALUE = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True, slots=True)
class SetEntry:
    """One bundle of a resolveset, and the installed bundle it replaces (if any)."""

    bundle: Bundle
    channel: str | None
    pivot_from: str | None = None
    kept: bool = False  # already held by this unit: unchanged


def used_properties(bundle: Bundle) -> list[dict[str, Any]]:
    """Exactly the properties resolution used (property projection: the bundle's properties
    without bulk content such as embedded manifests), as the CSV annotation would carry them."""
    return [{"type": p.type, "value": p.value} for p in projected_properties(bundle)]


def bundle_entry(entry: SetEntry) -> dict[str, Any]:
    bundle = entry.bundle
    properties = used_properties(bundle)
    if entry.pivot_from:
        properties.insert(0, {"type": "pivotFrom", "value": entry.pivot_from})
    return {
        "schema": "bundle.v1",
        "name": bundle.name,
        "packageName": bundle.package,
        "path": bundle.image,
        "version": str(bundle.version),
        "channels": [entry.channel] if entry.channel else [],
        "catalog": bundle.catalog,
        "properties": properties,
    }


def bundles_json(entries: Sequence[SetEntry]) -> str:
    return orjson.dumps(
        [bundle_entry(e) for e in entries], option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
    ).decode()


def read_bundles_json(text: str) -> list[dict[str, Any]]:
    """Entries of a resolveset (as written above); malformed content reads as empty."""
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return []
    return [d for d in data if isinstance(d, dict)] if isinstance(data, list) else []


def label_value(text: str) -> str:
    """A valid label value (≤ 63 characters) naming ``text``; long names keep a hash suffix."""
    clean = _LABEL_VALUE.sub("-", text).strip("-_.") or "unit"
    if len(clean) <= 63:
        return clean
    return clean[:52].rstrip("-_.") + "-" + hashlib.sha256(text.encode()).hexdigest()[:10]


@dataclass(frozen=True, slots=True)
class Resolveset:
    """The objects of one resolveset, ready to create."""

    name: str
    unit: str
    data: dict[str, str]
    binary: dict[str, str]
    dry_run: bool
    provisioner_class: str

    @property
    def config_map_name(self) -> str:
        return f"{self.name}-content"


def build(
    unit: str,
    entries: Sequence[SetEntry],
    *,
    dry_run: bool,
    provisioner_class: str,
    trace: bytes | None = None,
    whatif: Mapping[str, Any] | None = None,
) -> Resolveset:
    # by package: the same bundles make the same content (and name) whatever order the Inputs
    # asked in (a dependency's generated Input turns it from a dependency into a requirement)
    ordered = sorted(entries, key=lambda e: (e.bundle.package, e.bundle.name))
    data = {BUNDLES_KEY: bundles_json(ordered)}
    if whatif is not None:
        data[WHATIF_KEY] = orjson.dumps(whatif, option=orjson.OPT_SORT_KEYS).decode()
    binary: dict[str, str] = {}
    if trace is not None:
        # mtime 0: the same trace compresses to the same bytes
        binary[TRACE_KEY] = base64.b64encode(gzip.compress(trace, mtime=0)).decode()
    sha = hashlib.sha256(f"{unit}\0{dry_run}\0{provisioner_class}\0".encode())
    sha.update(data[BUNDLES_KEY].encode())
    digest = sha.hexdigest()[:10]
    prefix = label_value(unit)[:40].rstrip("-_.").lower().replace("_", "-").replace(".", "-")
    return Resolveset(f"{prefix}-{digest}", unit, data, binary, dry_run, provisioner_class)


def owner_reference(owner: Mapping[str, Any]) -> dict[str, Any]:
    meta = owner["metadata"]
    return {
        "apiVersion": owner.get("apiVersion", API_VERSION),
        "kind": owner.get("kind", "Input"),
        "name": meta["name"],
        "uid": meta["uid"],
    }


def _metadata(
    name: str, namespace: str, resolveset: Resolveset, owners: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    return {
        "name": name,
        "namespace": namespace,
        "labels": {
            UNIT_LABEL: label_value(resolveset.unit),
            SET_LABEL: resolveset.name,
            MANAGED_LABEL: MANAGER,
        },
        "ownerReferences": [owner_reference(o) for o in owners],
    }


def config_map_body(
    resolveset: Resolveset, namespace: str, owners: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": _metadata(resolveset.config_map_name, namespace, resolveset, owners),
        "data": resolveset.data,
    }
    if resolveset.binary:
        body["binaryData"] = resolveset.binary
    return body


def bundle_spec(resolveset: Resolveset, namespace: str) -> dict[str, Any]:
    return {
        "class": resolveset.provisioner_class,
        "refs": ["file://content"],
        "volumeMounts": [
            {
                "mountPath": "/content",
                "configMap": {"name": resolveset.config_map_name, "namespace": namespace},
            }
        ],
    }


def bundle_body(
    resolveset: Resolveset, namespace: str, owners: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "Bundle",
        "metadata": _metadata(resolveset.name, namespace, resolveset, owners),
        "spec": bundle_spec(resolveset, namespace),
    }


def instance_body(
    resolveset: Resolveset, namespace: str, owners: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "Instance",
        "metadata": _metadata(resolveset.name, namespace, resolveset, owners),
        "spec": {
            "selector": {"matchLabels": {UNIT_LABEL: label_value(resolveset.unit)}},
            "bundle": {"name": resolveset.name},
        },
    }
