"""The request body of a resolution in OpenAPI: the ActiveResolution of deppy-phase-0.md.

The schema documents the body and lets property-based tests generate it; the body itself is
read by ``resolution.request_parsing``, so the same rules hold as for ``deppy resolve -f``.
"""

from __future__ import annotations

from typing import Any

from deppy.resolution.request import CHOSEN_RULES

_TEXT: dict[str, Any] = {"type": "string"}
_REQUIRED: dict[str, Any] = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string", "description": "the package"},
        "versionRange": {"type": "string", "description": "blang/semver, e.g. '>=1.0.0 <2.0.0'"},
        "channel": _TEXT,
        "catalog": _TEXT,
        "ignoreVersions": {"type": "array", "items": _TEXT},
        "within": {"type": "string", "description": "major|minor|patch:VERSION"},
        "startingCSV": {"type": "string", "description": "an OLM v0 Subscription's first bundle"},
        "subscription": {"type": "string", "description": "the Subscription's name"},
        "catalogNamespace": {"type": "string", "description": "its CatalogSource's namespace"},
    },
    "additionalProperties": False,
}
_INSTALLED: dict[str, Any] = {
    "type": "object",
    "required": ["name", "version"],
    "properties": {
        "name": _TEXT,
        "version": _TEXT,
        "channel": _TEXT,
        "catalog": _TEXT,
        "bundle": _TEXT,
        "subscription": {"type": "string", "description": "the Subscription's name"},
        "catalogNamespace": {"type": "string", "description": "its CatalogSource's namespace"},
        "subscribed": {
            "type": "boolean",
            "description": "false: a CSV no Subscription references (it stays)",
        },
    },
    "additionalProperties": False,
}
ACTIVE_RESOLUTION: dict[str, Any] = {
    "type": "object",
    "required": ["spec"],
    "properties": {
        "apiVersion": _TEXT,
        "kind": _TEXT,
        "metadata": {"type": "object"},
        "spec": {
            "type": "object",
            "properties": {
                "constraints": {
                    "type": "array",
                    "items": {
                        "anyOf": [
                            {
                                "type": "string",
                                "description": 'required("name", "range", "channel") or '
                                'installed("name", "version", "channel")',
                            },
                            {
                                "type": "object",
                                "required": ["required"],
                                "properties": {"required": _REQUIRED},
                                "additionalProperties": False,
                            },
                            {
                                "type": "object",
                                "required": ["installed"],
                                "properties": {"installed": _INSTALLED},
                                "additionalProperties": False,
                            },
                        ]
                    },
                },
                "rules": {
                    "type": "string",
                    "enum": list(CHOSEN_RULES),
                    "description": "whose rules answer: deppy's own (default) or OLM v0's "
                    "resolver (olm-v0)",
                },
                "namespace": {
                    "type": "string",
                    "description": "OLM v0: the namespace resolved (its Subscriptions')",
                },
                "sources": {
                    "type": "array",
                    "items": _TEXT,
                    "description": "only these loaded catalogs (GET /api/v1/catalogs)",
                },
                "cluster": {
                    "type": "object",
                    "properties": {"openshiftVersion": _TEXT, "kubernetesVersion": _TEXT},
                },
                "exclude": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["type", "value"],
                        "properties": {"type": _TEXT, "value": _TEXT},
                    },
                },
            },
        },
    },
}
EXAMPLE = {
    "apiVersion": "deppy.io/v1alpha1",
    "kind": "ActiveResolution",
    "spec": {
        "constraints": [
            {"required": {"name": "observability-stack", "versionRange": ">=1.0.0"}},
            {"installed": {"name": "prometheus-operator", "version": "0.56.3"}},
        ],
        "cluster": {"openshiftVersion": "4.18"},
    },
}
RESOLVE_BODY: dict[str, Any] = {
    "required": True,
    "description": "An ActiveResolution, as JSON or YAML (the format of deppy resolve -f)",
    "content": {
        "application/json": {"schema": ACTIVE_RESOLUTION, "example": EXAMPLE},
        "application/yaml": {"schema": ACTIVE_RESOLUTION},
    },
}
