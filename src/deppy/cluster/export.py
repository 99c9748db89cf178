"""The cluster export file (``deppy cluster export``) and reading cluster state from files.

The export is one YAML (or JSON) document::

    apiVersion: deppy.io/v1alpha1
    kind: ClusterExport
    cluster:
      source: https://api.example:6443 (context admin)
      kubernetesVersion: v1.31.2
      openshiftVersion: 4.18.3        # only when config.openshift.io ClusterVersion exists
      apis: [operators.coreos.com/v1alpha1, ...]
      problems: [...]                 # what could not be read, and why
    clusterServiceVersions: [...]     # the objects as the API server returns them, minus
    subscriptions: [...]              # managedFields, the last-applied annotation and CSV icons;
    catalogSources: [...]             # OLM's copied CSVs are left out
    operatorGroups: [...]
    clusterCatalogs: [...]            # OLM v1, when the API exists
    clusterExtensions: [...]

``--cluster`` also takes any file or directory of ``kubectl get ... -o yaml`` (or ``-o json``)
output: Lists, multi-document streams and single objects are sorted by kind; a ClusterVersion
gives the OpenShift version and ``kubectl version -o json`` output the Kubernetes version.
Objects of other kinds are ignored; malformed ones become problems naming the file and item.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson

from deppy.cluster.objects import (
    KIND_CATALOG_SOURCE,
    KIND_CLUSTER_CATALOG,
    KIND_CLUSTER_EXTENSION,
    KIND_CLUSTER_VERSION,
    KIND_CSV,
    KIND_OPERATOR_GROUP,
    KIND_SUBSCRIPTION,
    is_copied_csv,
    name_of,
    sort_key,
    text,
)
from deppy.cluster.state import ClusterState, openshift_version_of
from deppy.errors import InputError, special_file
from deppy.input_limits import UnsafeInput, json_value, read_standard_input, yaml_documents

__all__ = ["EXPORT_API_VERSION", "EXPORT_KIND", "export_document", "read_cluster_files"]

EXPORT_API_VERSION = "deppy.io/v1alpha1"
EXPORT_KIND = "ClusterExport"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"

# export key -> (kind, ClusterState field)
SECTIONS = (
    ("clusterServiceVersions", KIND_CSV, "csvs"),
    ("subscriptions", KIND_SUBSCRIPTION, "subscriptions"),
    ("catalogSources", KIND_CATALOG_SOURCE, "catalog_sources"),
    ("operatorGroups", KIND_OPERATOR_GROUP, "operator_groups"),
    ("clusterCatalogs", KIND_CLUSTER_CATALOG, "cluster_catalogs"),
    ("clusterExtensions", KIND_CLUSTER_EXTENSION, "cluster_extensions"),
)
_FIELD_OF_KIND = {kind: attribute for _, kind, attribute in SECTIONS}
_SUFFIXES = (".yaml", ".yml", ".json")


def slim(obj: Mapping[str, Any]) -> dict[str, Any]:
    """The object without what resolution never reads and that only makes exports big or
    unstable: managedFields, the last-applied annotation, a CSV's icon. Keys sorted."""
    data = orjson.loads(orjson.dumps(obj, option=orjson.OPT_SORT_KEYS))
    meta = data.get("metadata")
    if isinstance(meta, dict):
        meta.pop("managedFields", None)
        annotations = meta.get("annotations")
        if isinstance(annotations, dict):
            annotations.pop(LAST_APPLIED, None)
    spec = data.get("spec")
    if data.get("kind") == KIND_CSV and isinstance(spec, dict):
        spec.pop("icon", None)
    return data  # type: ignore[no-any-return]


def export_document(state: ClusterState) -> dict[str, Any]:
    """The export of ``state`` (see the module docstring); same state, same document."""
    cluster: dict[str, Any] = {"source": state.where}
    cluster["kubernetesVersion"] = state.kube_version
    if state.openshift_version is not None:
        cluster["openshiftVersion"] = state.openshift_version
    cluster["apis"] = list(state.apis)
    cluster["problems"] = list(state.problems)
    document: dict[str, Any] = {
        "apiVersion": EXPORT_API_VERSION,
        "kind": EXPORT_KIND,
        "cluster": cluster,
    }
    for key, _, attribute in SECTIONS:
        objects = getattr(state, attribute)
        document[key] = [slim(o) for o in sorted(objects, key=sort_key)]
    return document


class _Collector:
    """Objects of the kinds deppy reads, gathered from any number of documents."""

    def __init__(self) -> None:
        self.found: dict[str, list[Mapping[str, Any]]] = {a: [] for _, _, a in SECTIONS}
        self.kube_version: str | None = None
        self.openshift_version: str | None = None
        self.apis: list[str] = []
        self.problems: list[str] = []
        self.sources: list[str] = []
        self.ignored = 0
        self.recognised = 0

    def add(self, doc: Any, where: str) -> None:
        if doc is None:
            return
        if not isinstance(doc, Mapping):
            self.problems.append(f"{where}: not a Kubernetes object (a {type(doc).__name__})")
            return
        kind = doc.get("kind")
        if kind is not None and not isinstance(kind, str):
            raise InputError(
                f"{where}: kind",
                f"expected text (a Kubernetes kind), found a {type(kind).__name__}",
                "export the objects again with 'kubectl get -o yaml' or 'deppy cluster export'",
            )
        if kind == EXPORT_KIND:
            self.add_export(doc, where)
        elif isinstance(kind, str) and kind.endswith("List") and isinstance(doc.get("items"), list):
            for n, item in enumerate(doc["items"]):
                self.add(item, f"{where}: items[{n}]")
        elif kind in _FIELD_OF_KIND:
            self.add_object(doc, str(kind), where)
        elif kind == KIND_CLUSTER_VERSION:
            self.recognised += 1
            self.openshift_version = openshift_version_of(doc) or self.openshift_version
        elif "serverVersion" in doc or ("gitVersion" in doc and "major" in doc):
            self.recognised += 1
            server = doc.get("serverVersion", doc)
            self.kube_version = text(server, "gitVersion") or self.kube_version
        elif kind is None:
            self.problems.append(f"{where}: object without a 'kind'; it is ignored")
        else:
            self.ignored += 1

    def add_object(self, obj: Mapping[str, Any], kind: str, where: str) -> None:
        if not name_of(obj):
            self.problems.append(f"{where}: {kind} without metadata.name; it is ignored")
            return
        if kind == KIND_CSV and is_copied_csv(obj):
            return
        self.recognised += 1
        self.found[_FIELD_OF_KIND[kind]].append(obj)

    def add_export(self, doc: Mapping[str, Any], where: str) -> None:
        self.recognised += 1
        cluster = doc.get("cluster") or {}
        if not isinstance(cluster, Mapping):
            raise InputError(f"{where}: cluster", "expected a mapping", "re-export the cluster")
        source = text(cluster, "source")
        if source:
            self.sources.append(source)
        self.kube_version = text(cluster, "kubernetesVersion") or self.kube_version
        self.openshift_version = text(cluster, "openshiftVersion") or self.openshift_version
        for field, target in (("apis", self.apis), ("problems", self.problems)):
            values = cluster.get(field) or []
            if not isinstance(values, list):
                raise InputError(f"{where}: cluster.{field}", "expected a list")
            target.extend(str(v) for v in values)
        for key, kind, _ in SECTIONS:
            items = doc.get(key) or []
            if not isinstance(items, list):
                raise InputError(f"{where}: {key}", f"expected a list of {kind} objects")
            for n, item in enumerate(items):
                here = f"{where}: {key}[{n}]"
                if not isinstance(item, Mapping):
                    self.problems.append(f"{here}: not an object; it is ignored")
                elif item.get("kind", kind) != kind:
                    self.problems.append(f"{here}: a {item.get('kind')}, not a {kind}; ignored")
                else:
                    self.add_object(item, kind, here)

    def state(self, where: str) -> ClusterState:
        def sorted_objects(attribute: str) -> tuple[Mapping[str, Any], ...]:
            unique = {(sort_key(o)): o for o in self.found[attribute]}
            return tuple(unique[k] for k in sorted(unique))

        shown = f"{where} (exported from {self.sources[0]})" if self.sources else where
        return ClusterState(
            where=shown,
            csvs=sorted_objects("csvs"),
            subscriptions=sorted_objects("subscriptions"),
            catalog_sources=sorted_objects("catalog_sources"),
            operator_groups=sorted_objects("operator_groups"),
            cluster_catalogs=sorted_objects("cluster_catalogs"),
            cluster_extensions=sorted_objects("cluster_extensions"),
            kube_version=self.kube_version,
            openshift_version=self.openshift_version,
            apis=tuple(dict.fromkeys(self.apis)),
            problems=tuple(self.problems),
        )


def _files(root: Path) -> Iterator[Path]:
    for directory, subdirs, names in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        for name in sorted(names):
            if name.lower().endswith(_SUFFIXES) and not name.startswith("."):
                yield Path(directory) / name


def _documents(path: Path) -> Iterator[tuple[Any, str]]:
    try:
        kind = special_file(path.stat().st_mode)
        if kind is not None:  # a FIFO would block the read, /dev/zero never end it
            raise InputError(str(path), f"is {kind}, not a file", "give an export file")
        data = path.read_bytes()
    except OSError as error:
        raise InputError(str(path), f"cannot read the file: {error.strerror}") from None
    return _parsed(data, path)


def _parsed(data: bytes, path: Path | str) -> Iterator[tuple[Any, str]]:
    """The documents of one file's (or standard input's) bytes, each with where it is."""
    import yaml

    if data.lstrip()[:1] in (b"{", b"["):
        try:
            yield json_value(data), str(path)
            return
        except orjson.JSONDecodeError:
            pass  # JSON lines or YAML flow style: read as YAML below
        except UnsafeInput as error:
            raise InputError(str(path), str(error), "deppy refuses such input") from None
    try:
        docs = yaml_documents(data)
    except (yaml.YAMLError, UnsafeInput) as error:
        raise InputError(
            str(path),
            f"not YAML or JSON: {' '.join(str(error).split())}",
            "give a 'deppy cluster export' file or 'kubectl get -o yaml' output",
        ) from None
    for n, doc in enumerate(docs):
        yield doc, (str(path) if len(docs) == 1 else f"{path}: document {n + 1}")


def read_cluster_files(path: str | os.PathLike[str]) -> ClusterState:
    """Cluster state from an export file, or a file or directory of kubectl output.

    Raises :class:`InputError` when the path cannot be read or holds nothing deppy reads.
    """
    root = Path(path)
    documents: Iterable[Iterator[tuple[Any, str]]]
    if str(root) == "-":  # kubectl's spelling of standard input, as -f - reads it
        documents = [_parsed(read_standard_input("the cluster export"), root)]
    elif not root.exists():
        raise InputError(
            str(root),
            "no such file or directory",
            "give a 'deppy cluster export' file or a directory of 'kubectl get -o yaml' output",
        )
    else:
        files = list(_files(root)) if root.is_dir() else [root]  # a FIFO: refused, not walked
        documents = (_documents(file) for file in files)  # each file read when its turn comes
    collector = _Collector()
    for found in documents:
        for doc, where in found:
            collector.add(doc, where)
    if collector.recognised == 0:
        raise _nothing_recognised(str(root), collector)
    return collector.state(str(root))


def _nothing_recognised(where: str, collector: _Collector) -> InputError:
    return InputError(
        where,
        "holds no ClusterServiceVersion, Subscription, CatalogSource, OperatorGroup, "
        "ClusterCatalog, ClusterExtension or ClusterExport"
        + (f" ({collector.ignored} objects of other kinds)" if collector.ignored else ""),
        "export with 'deppy cluster export', or 'kubectl get csv,sub,catsrc -A -o yaml'",
    )


def read_cluster_export(data: bytes, path: str) -> ClusterState:
    """Cluster state from the bytes of the export file ``path`` as another machine read them
    (a fleet plan's dask worker that cannot see the file): the state, and each error, as
    :func:`read_cluster_files` gives for the file itself."""
    collector = _Collector()
    for doc, where in _parsed(data, path):
        collector.add(doc, where)
    if collector.recognised == 0:
        raise _nothing_recognised(path, collector)
    return collector.state(path)
