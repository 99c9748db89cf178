"""Reading a live cluster with the official ``kubernetes`` client — GET requests only.

deppy never writes to the cluster: it discovers which OLM APIs are served, lists the objects
of ``export.SECTIONS`` in all namespaces, and reads ``/version`` and OpenShift's ClusterVersion.
A list the kubeconfig's user may not read is a problem naming the resource and the missing
permission, and the rest is still read; an unreachable cluster or refused credentials stop
everything with one message. ``kubernetes`` is imported here only, when a cluster is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from deppy.cluster.kubeconfig import kube_configuration
from deppy.cluster.objects import is_copied_csv
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
        **found,
    )


def plural_kind(plural: str) -> str:
    return {
        "clusterserviceversions": "ClusterServiceVersion",
        "subscriptions": "Subscription",
        "catalogsources": "CatalogSource",
        "operatorgroups": "OperatorGroup",
        "clustercatalogs": "ClusterCatalog",
        "clusterextensions": "ClusterExtension",
    }[plural]
