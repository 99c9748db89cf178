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


def cluster_extension(
    name: str,
    package: str,
    installed: str | None,
    *,
    namespace: str | None = None,
    account: str = "installer",
    **catalog: Any,
) -> dict[str, Any]:
    """A ClusterExtension as a person writes it (``spec.source.catalog`` from ``catalog``;
    the namespace defaults to its name) and, with ``installed``, as OLM v1 leaves it once
    installed (``status.install.bundle``)."""
    source = {"sourceType": "Catalog", "catalog": {"packageName": package, **catalog}}
    spec = {"namespace": namespace or name, "serviceAccount": {"name": account}, "source": source}
    document: dict[str, Any] = {"apiVersion": "olm.operatorframework.io/v1",
                                "kind": "ClusterExtension", "metadata": {"name": name},
                                "spec": spec}  # fmt: skip
    if installed is not None:
        bundle = {"name": f"{package}.v{installed}", "version": installed}
        document["status"] = {"install": {"bundle": bundle}}
    return document


# a ClusterExtension whose bundle (in community v4.18) declares olm.gvk.required and
# olm.package.required: OLM v1 refuses it as written
TOPOLOGY = """\
apiVersion: olm.operatorframework.io/v1
kind: ClusterExtension
metadata:
  name: topology
spec:
  namespace: rabbitmq
  source:
    sourceType: Catalog
    catalog:
      packageName: rabbitmq-messaging-topology-operator
"""
