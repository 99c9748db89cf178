"""What deppy knows of a cluster: the OLM objects it holds and the versions it runs.

A :class:`ClusterState` is the same whether it was read live (``live``) or from an export or a
directory of ``kubectl get -o yaml`` output (``export``): plain dicts as the API server returns
them, sorted by namespace and name, OLM's copied CSVs left out. ``problems`` lists what could
not be read (a list the kubeconfig's user may not see, a malformed object), each naming the
object or file and what to do; a reader never gives up on the whole cluster for one of them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from deppy.catalog.semver import Version, VersionError
from deppy.cluster.objects import name_of, namespace_of, text

__all__ = ["ClusterState", "catalog_name_map", "cluster_version"]

Obj = Mapping[str, Any]

_LEADING_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?")


@dataclass(frozen=True, slots=True, eq=False)
class ClusterState:
    where: str
    csvs: tuple[Obj, ...] = ()
    subscriptions: tuple[Obj, ...] = ()
    catalog_sources: tuple[Obj, ...] = ()
    operator_groups: tuple[Obj, ...] = ()
    cluster_catalogs: tuple[Obj, ...] = ()
    cluster_extensions: tuple[Obj, ...] = ()
    kube_version: str | None = None
    openshift_version: str | None = None
    apis: tuple[str, ...] = ()  # the OLM/OpenShift group versions the cluster serves
    problems: tuple[str, ...] = field(default=())
    live: bool = False
    """Read from the API server (its catalogs' in-cluster addresses may be reachable), not from
    an export."""

    def counts(self) -> str:
        """One line for a person: how much was read."""
        parts = [
            f"{len(self.csvs)} ClusterServiceVersions",
            f"{len(self.subscriptions)} Subscriptions",
            f"{len(self.catalog_sources)} CatalogSources",
            f"{len(self.operator_groups)} OperatorGroups",
        ]
        if self.cluster_catalogs or self.cluster_extensions:
            parts += [
                f"{len(self.cluster_catalogs)} ClusterCatalogs",
                f"{len(self.cluster_extensions)} ClusterExtensions",
            ]
        return ", ".join(parts)


def cluster_version(raw: str | None, where: str) -> tuple[Version | None, str | None]:
    """A version as clusters report it (``v1.20.2``, ``v1.27.6-gke.1248000``, ``4.18.3``):
    its major.minor.patch, or None and why it cannot be read."""
    if not raw:
        return None, None
    match = _LEADING_VERSION.match(raw.strip())
    if match is None:
        return (
            None,
            f"{where}: {raw!r} is not a version; it is ignored — give it on the command line",
        )
    major, minor, patch = match.group(1), match.group(2), match.group(3) or "0"
    try:
        return Version.parse(f"{int(major)}.{int(minor)}.{int(patch)}"), None
    except VersionError as error:  # pragma: no cover - the pattern admits only numbers
        return None, f"{where}: {error}"


def catalog_name_map(state: ClusterState) -> dict[tuple[str, str], str]:
    """The deppy catalog name of each CatalogSource (namespace, name) and ClusterCatalog
    ("", name): its own name, or ``namespace/name`` when two of them share a name."""
    keys: list[tuple[str, str]] = [(namespace_of(o), name_of(o)) for o in state.catalog_sources]
    keys += [("", name_of(o)) for o in state.cluster_catalogs]
    names = [name for _, name in keys]
    result: dict[tuple[str, str], str] = {}
    for namespace, name in keys:
        if names.count(name) > 1:
            result[(namespace, name)] = f"{namespace or 'cluster'}/{name}"
        else:
            result[(namespace, name)] = name
    return result


def objects_named(objects: Sequence[Obj], namespace: str, name: str) -> Obj | None:
    for obj in objects:
        if name_of(obj) == name and namespace_of(obj) == namespace:
            return obj
    return None


def priority_of(obj: Obj) -> int:
    raw = obj.get("spec", {}).get("priority") if isinstance(obj.get("spec"), Mapping) else None
    return raw if isinstance(raw, int) and not isinstance(raw, bool) else 0


def openshift_version_of(cluster_version_obj: Obj) -> str | None:
    """What a ClusterVersion says the cluster runs: the newest completed update, else the
    desired one."""
    history = cluster_version_obj.get("status", {})
    history = history.get("history") if isinstance(history, Mapping) else None
    for entry in history if isinstance(history, list) else ():
        if isinstance(entry, Mapping) and entry.get("state") == "Completed":
            version = entry.get("version")
            if isinstance(version, str) and version:
                return version
    return text(cluster_version_obj, "status", "desired", "version")
