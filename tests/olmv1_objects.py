"""OLM v1 objects as a person writes them, for the tests and the soak (imports no test tool)."""

from __future__ import annotations

from typing import Any


def cluster_catalog(name: str, *, priority: int = 0, available: bool = True) -> dict[str, Any]:
    return {
        "apiVersion": "olm.operatorframework.io/v1",
        "kind": "ClusterCatalog",
        "metadata": {"name": name},
        "spec": {
            "priority": priority,
            "availabilityMode": "Available" if available else "Unavailable",
            "source": {"type": "Image", "image": {"ref": f"example.com/{name}:latest"}},
        },
    }
