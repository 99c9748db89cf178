"""Reading a live cluster with the official ``kubernetes`` client — GET requests only.

deppy never writes to the cluster: it discovers which OLM APIs are served, lists the objects
of ``export.SECTIONS`` in all namespaces, and reads ``/version`` and OpenShift's ClusterVersion;
the registry pods of CatalogSources with an image (label ``olm.catalogSource``) give the
digest each runs.
A list the kubeconfig's user may not read is a problem naming the resource and the missing
permission, and the rest is still read; an unreachable cluster or refused credentials stop
everything with one message. ``kubernetes`` is imported here only, when a cluster is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from deppy.cluster.catalogs import IMAGE_ID_ANNOTATION
from deppy.cluster.kubeconfig import kube_configuration
from deppy.cluster.objects import is_copied_csv, name_of, namespace_of, text
from deppy.cluster.state import ClusterState, openshift_version_of
from deppy.errors import InputError

if TYPE_CHECKING:
    from kubernetes.client import ApiClient

__all__ = ["read_live"]

OLM_V0 = "operators.coreos.com"
OLM_V1 = "olm.operatorframework.io"
OPENSHIFT_CONFIG = "config.openshift.io"

# (ClusterState field, group, preferred versions, plural, namespaced)
RESOURCES = (
    ("csvs", OLM_V0, ("v1alpha1",), "clusterserviceversions"),
    ("subscriptions", OLM_V0, ("v1alpha1",), "subscriptions"),
    ("catalog_sources", OLM_V0, ("v1alpha1",), "catalogsources"),
    ("operator_groups", OLM_V0, ("v1", "v1alpha2"), "operatorgroups"),
    ("cluster_catalogs", OLM_V1, ("v1",), "clustercatalogs"),
    ("cluster_extensions", OLM_V1, ("v1",), "clusterextensions"),
)
CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 60.0
TIMEOUT = (CONNECT_TIMEOUT, READ_TIMEOUT)
CATALOG_SOURCE_LABEL = "olm.catalogSource"  # on the registry pod OLM runs for a CatalogSource


def _client(kubeconfig: str | None, context: str | None) -> tuple[ApiClient, str]:
    from kubernetes import client

    configuration = kube_configuration(kubeconfig, context)
    configuration.retries = 1
    shown = configuration.host + (f" (context {context})" if context else "")
    return client.ApiClient(configuration), shown


def _unreachable(server: str, error: Exception) -> InputError:
    reason = getattr(error, "reason", None) or error
    return InputError(
        f"cluster {server}",
        f"cannot be reached: {' '.join(str(reason).split())[:300]}",
        "check that it is up and that the kubeconfig names the right server and context",
    )


def _api_error(server: str, status: int, what: str) -> InputError | None:
    if status == 401:
        return InputError(
            f"cluster {server}",
            f"refused the kubeconfig's credentials reading {what} (401 Unauthorized)",
            "log in again or use a kubeconfig with a valid token or certificate",
        )
    return None


def read_live(kubeconfig: str | None = None, context: str | None = None) -> ClusterState:
    """The cluster's OLM state, read with list/get requests only."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException
    from urllib3.exceptions import HTTPError

    api, server = _client(kubeconfig, context)
    timeout = (CONNECT_TIMEOUT, READ_TIMEOUT)
    problems: list[str] = []
    with api:
        try:
            version = client.VersionApi(api).get_code(_request_timeout=timeout)
            groups = client.ApisApi(api).get_api_versions(_request_timeout=timeout)
        except ApiException as error:
            raise _api_error(server, error.status, "/version") or InputError(
                f"cluster {server}",
                f"answered {error.status} {error.reason} to /version or API discovery",
                "check the kubeconfig's server",
            ) from None
        except HTTPError as error:
            raise _unreachable(server, error) from None
        served = {g.name: [v.version for v in g.versions] for g in groups.groups}
        apis = sorted(
            f"{name}/{v}"
            for name, versions in served.items()
            for v in versions
            if name in (OLM_V0, OLM_V1, OPENSHIFT_CONFIG)
        )
        custom = client.CustomObjectsApi(api)
        found: dict[str, tuple[Mapping[str, Any], ...]] = {}
        for attribute, group, versions, plural in RESOURCES:
            version_here = next((v for v in versions if v in served.get(group, ())), None)
            if version_here is None:
                continue
            try:
                listed = custom.list_cluster_custom_object(
                    group, version_here, plural, _request_timeout=timeout
                )
            except ApiException as error:
                fatal = _api_error(server, error.status, plural)
                if fatal is not None:
                    raise fatal from None
                problems.append(
                    f"cluster {server}: cannot list {plural}.{group} ({error.status} "
                    f"{error.reason}); they are left out — grant the kubeconfig's user 'list' "
                    f"on {plural}.{group} in all namespaces"
                )
                continue
            except HTTPError as error:
                raise _unreachable(server, error) from None
            items = listed.get("items") if isinstance(listed, Mapping) else None
            objects = [i for i in items or () if isinstance(i, Mapping)]
            if attribute == "csvs":
                objects = [o for o in objects if not is_copied_csv(o)]
            kind = plural_kind(plural)
            for obj in objects:
                if isinstance(obj, dict) and "kind" not in obj:
                    obj["kind"] = kind  # list items carry no kind; exports keep it
            found[attribute] = tuple(objects)
        if found.get("catalog_sources"):
            found["catalog_sources"] = _with_pod_images(
                api, server, found["catalog_sources"], problems
            )
        openshift = None
        if "v1" in served.get(OPENSHIFT_CONFIG, ()):
            try:
                cluster_version = custom.get_cluster_custom_object(
                    OPENSHIFT_CONFIG, "v1", "clusterversions", "version", _request_timeout=timeout
                )
                if isinstance(cluster_version, Mapping):
                    openshift = openshift_version_of(cluster_version)
            except ApiException as error:
                if error.status == 404:
                    pass  # the API without the object: no OpenShift version to read
                else:
                    problems.append(
                        f"cluster {server}: cannot read ClusterVersion 'version' ({error.status} "
                        f"{error.reason}); give --ocp-version"
                    )
            except HTTPError as error:
                raise _unreachable(server, error) from None
    if OLM_V0 not in served and OLM_V1 not in served:
        problems.append(
            f"cluster {server} serves no OLM API ({OLM_V0} or {OLM_V1}): no operator is "
            "installed through OLM"
        )
    return ClusterState(
        where=f"cluster {server}",
        kube_version=version.git_version,
        openshift_version=openshift,
        apis=tuple(apis),
        problems=tuple(problems),
        live=True,
        **found,
    )


def _with_pod_images(
    api: ApiClient, server: str, sources: tuple[Mapping[str, Any], ...], problems: list[str]
) -> tuple[Mapping[str, Any], ...]:
    """The CatalogSources, each with ``spec.image`` annotated with the image digest its
    registry pod runs (``IMAGE_ID_ANNOTATION``: the pod's ``containerStatuses[].imageID``), so
    that an export is read at the content the cluster serves, not at wherever the tag has
    moved since. A namespace whose pods the user may not list is a problem; the tags stay."""
    from kubernetes import client
    from kubernetes.client.exceptions import ApiException
    from urllib3.exceptions import HTTPError

    core = client.CoreV1Api(api)
    digests: dict[tuple[str, str], str] = {}
    for namespace in sorted({namespace_of(s) for s in sources if text(s, "spec", "image")}):
        try:
            pods = core.list_namespaced_pod(
                namespace, label_selector=CATALOG_SOURCE_LABEL, _request_timeout=TIMEOUT
            ).items
        except ApiException as error:
            problems.append(
                f"cluster {server}: cannot list pods in namespace {namespace} ({error.status} "
                f"{error.reason}); its CatalogSources' images are read at their tags — grant "
                f"the kubeconfig's user 'list' on pods there"
            )
            continue
        except HTTPError as error:
            raise _unreachable(server, error) from None
        # the ready pod's image, else any pod's: a pod being replaced may run the old digest
        for pod in sorted(pods, key=lambda p: (not _ready(p), _meta(p, "name") or "")):
            owner = (_meta(pod, "labels") or {}).get(CATALOG_SOURCE_LABEL)
            for status in (pod.status.container_statuses if pod.status else None) or ():
                image_id = (status.image_id or "").strip()
                if owner and "@sha256:" in image_id:
                    digests.setdefault((namespace, owner), image_id)
    if not digests:
        return sources
    return tuple(
        _annotated(s, digests[key])
        if (key := (namespace_of(s), name_of(s))) in digests and text(s, "spec", "image")
        else s
        for s in sources
    )


def _meta(pod: Any, field: str) -> Any:
    return getattr(pod.metadata, field, None) if pod.metadata is not None else None


def _ready(pod: Any) -> bool:
    statuses = (pod.status.container_statuses if pod.status else None) or ()
    return bool(statuses) and all(s.ready for s in statuses)


def _annotated(source: Mapping[str, Any], image_id: str) -> Mapping[str, Any]:
    copied = dict(source)
    metadata = dict(copied.get("metadata") or {})
    annotations = dict(metadata.get("annotations") or {})
    annotations[IMAGE_ID_ANNOTATION] = image_id
    metadata["annotations"] = annotations
    copied["metadata"] = metadata
    return copied


def plural_kind(plural: str) -> str:
    return {
        "clusterserviceversions": "ClusterServiceVersion",
        "subscriptions": "Subscription",
        "catalogsources": "CatalogSource",
        "operatorgroups": "OperatorGroup",
        "clustercatalogs": "ClusterCatalog",
        "clusterextensions": "ClusterExtension",
    }[plural]
