"""A small typed door to the API server: objects in and out as plain dicts.

Built on the kubernetes client's connection handling (kubeconfig, in-cluster service account,
TLS), but speaking REST paths directly, so no generated model classes stand between the
controller and the JSON. Status writes are merge patches that carry the ``resourceVersion``
they were computed from: the server refuses them (409) when the object changed meanwhile, and
``update_status`` reads the object again and recomputes, so a concurrent write — a person's
approval, a spec change — is never overwritten.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from deppy.controller.install.crds import GROUP, VERSION

Body = dict[str, Any]

_CLUSTER_SCOPED = {
    "catalogs",
    "inputclasses",
    "provisionerclasses",
    "clusterkopfpeerings",
    "clustercatalogs",
    "clusterextensions",
}
OLM_V1_GROUP, OLM_V1_VERSION = "olm.operatorframework.io", "v1"  # OLM v1's kinds (not deppy's)
_CORE = {"configmaps", "namespaces", "events", "secrets"}
RETRIES = 8


class ApiError(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(f"HTTP {status}: {reason}")
        self.status = status
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Kind:
    plural: str
    group: str = GROUP
    version: str = VERSION

    @property
    def namespaced(self) -> bool:
        return self.plural not in _CLUSTER_SCOPED and self.plural != "namespaces"

    def path(self, namespace: str | None = None, name: str | None = None) -> str:
        base = f"/api/{self.version}" if self.group == "" else f"/apis/{self.group}/{self.version}"
        if namespace is not None and self.namespaced:
            base += f"/namespaces/{quote(namespace)}"
        base += f"/{self.plural}"
        if name is not None:
            base += f"/{quote(name)}"
        return base


def clean(value: Any, *, in_list: bool = False) -> Any:
    """A merge patch without empty strings: the API server reads ``""`` in a merge patch as null
    (which a string field refuses), so an empty field is dropped inside lists and deleted
    (null) elsewhere."""
    if isinstance(value, dict):
        cleaned: dict[str, Any] = {}
        for key, item in value.items():
            if item == "":
                if in_list:
                    continue
                cleaned[key] = None
            else:
                cleaned[key] = clean(item, in_list=in_list)
        return cleaned
    if isinstance(value, list):
        return [clean(item, in_list=True) for item in value]
    return value


_VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}


def verb_and_resource(method: str, path: str) -> tuple[str, str]:
    """Kubernetes' own names for a request (as the API server's audit log writes them): verb
    ``get``, ``list``, ``create``, ``update``, ``patch`` or ``delete``; resource the plural, with
    ``/status`` for the subresource (``inputs/status``). A path outside ``/api`` and ``/apis``
    (``/version``) is resource ``nonresource``. Bounded sets: a name never becomes a label."""
    words = path.split("?", 1)[0].strip("/").split("/")
    if words[0] == "api":
        words = words[2:]  # api, v1
    elif words[0] == "apis":
        words = words[3:]  # apis, group, version
    else:
        return _VERBS.get(method, "get"), "nonresource"
    if len(words) > 2 and words[0] == "namespaces":
        words = words[2:]  # namespaces/NAME/<plural>...
    resource = words[0] if words else "nonresource"
    named = len(words) >= 2
    if len(words) >= 3:
        resource = f"{resource}/{words[2]}"
    verb = _VERBS.get(method) or ("get" if named else "list")
    return verb, resource


def as_stored(value: Any) -> Any:
    """``value`` as the API server keeps it once written through ``clean``: no empty strings
    and no nulls in objects. Comparing a status read back with one about to be written in this
    form tells a write that would change something from one that would not."""
    if isinstance(value, dict):
        return {k: as_stored(v) for k, v in value.items() if v is not None and v != ""}
    if isinstance(value, list):
        return [as_stored(item) for item in value]
    return value


def kind(plural: str) -> Kind:
    if plural in _CORE:
        return Kind(plural, "", "v1")
    if plural == "clusterkopfpeerings":
        return Kind(plural, "kopf.dev", "v1")
    if plural in ("clusterserviceversions", "subscriptions"):
        return Kind(plural, "operators.coreos.com", "v1alpha1")
    if plural in ("clustercatalogs", "clusterextensions"):
        return Kind(plural, OLM_V1_GROUP, OLM_V1_VERSION)
    return Kind(plural)


class Kube:
    """REST calls with JSON bodies; ``client`` is a kubernetes ``ApiClient``."""

    def __init__(self, client: Any) -> None:
        self.client = client
        # told (verb, resource) of every request before it is sent: the controller's
        # ``deppy_kube_requests_total``, counted here, where every call to the server passes
        self.counted: Callable[[str, str], None] | None = None
        self._here = threading.local()

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        content_type: str = "application/json",
        query: Mapping[str, str] | None = None,
    ) -> Body:
        if self.counted is not None:
            self.counted(*verb_and_resource(method, path))
        if method != "GET":
            self._here.writes = self.writes_here() + 1
        url = self.client.configuration.host + path
        if query:
            url += "?" + urlencode(query)
        headers = {"Accept": "application/json", "Content-Type": content_type}
        self.client.update_params_for_auth(headers, [], ["BearerToken"], path, method, body)
        response = self._send(method, url, headers, body)
        data = response.read()
        text = data.decode() if isinstance(data, bytes) else str(data or "")
        if response.status >= 400:
            reason = response.reason or ""
            with contextlib.suppress(ValueError):
                reason = json.loads(text).get("message", reason)
            raise ApiError(response.status, reason)
        return json.loads(text) if text else {}

    def writes_here(self) -> int:
        """Write requests this thread has sent so far (a pass that sent none changed nothing)."""
        return int(getattr(self._here, "writes", 0))

    def _send(self, method: str, url: str, headers: dict[str, str], body: Any) -> Any:
        """The request; a failure of the connection itself (the server closed a kept-alive
        connection, a TLS handshake cut short, a read that timed out) is a ConnectionError, as
        the standard library would raise, not urllib3's or the client's own exception types:
        callers retry it like any other outage, with one log line and no traceback."""
        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import HTTPError

        try:
            return self.client.rest_client.request(
                method, url, headers=headers, body=body, _request_timeout=30
            )
        except HTTPError as error:
            raise ConnectionError(f"{method} {url}: {error}") from None
        except ApiException as error:  # the client's own: a TLS error, a read told to retry
            if not error.status:
                reason = " ".join(str(error.reason).split())
                raise ConnectionError(f"{method} {url}: {reason}") from None
            raise ApiError(error.status, str(error.reason)) from None

    # -- reads -------------------------------------------------------------------------------
    def get(self, plural: str, name: str, namespace: str | None = None) -> Body | None:
        try:
            return self.call("GET", kind(plural).path(namespace, name))
        except ApiError as error:
            if error.status == 404:
                return None
            raise

    def list(
        self, plural: str, namespace: str | None = None, *, labels: str | None = None
    ) -> list[Body]:
        query = {"labelSelector": labels} if labels else None
        found = self.call("GET", kind(plural).path(namespace), query=query)
        items: list[Body] = found.get("items") or []
        return sorted(items, key=lambda o: o["metadata"]["name"])

    def version(self) -> str:
        return str(self.call("GET", "/version").get("gitVersion", ""))

    # -- writes ------------------------------------------------------------------------------
    def create(self, plural: str, body: Body, namespace: str | None = None) -> Body:
        """Create, or return the existing object of that name (names are deterministic)."""
        try:
            return self.call("POST", kind(plural).path(namespace), body)
        except ApiError as error:
            if error.status != 409:
                raise
        found = self.get(plural, body["metadata"]["name"], namespace)
        if found is None:
            raise ApiError(409, f"{plural} {body['metadata']['name']} is being deleted")
        return found

    def delete(self, plural: str, name: str, namespace: str | None = None) -> None:
        try:
            self.call(
                "DELETE",
                kind(plural).path(namespace, name),
                {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"},
            )
        except ApiError as error:
            if error.status != 404:
                raise

    def patch(self, plural: str, name: str, patch: Body, namespace: str | None = None) -> Body:
        return self.call(
            "PATCH",
            kind(plural).path(namespace, name),
            patch,
            content_type="application/merge-patch+json",
        )

    def update_status(
        self,
        plural: str,
        name: str,
        namespace: str | None,
        compute: Callable[[Body], Body | None],
        *,
        read: Mapping[str, Any] | None = None,
    ) -> Body | None:
        """Merge-patch ``status`` with what ``compute(current object)`` returns (None: nothing
        to write), guarded by the object's resourceVersion; on a conflict, read and recompute.
        ``read``: the object as the caller just read it (a list, a watch event), taken as the
        current one first; when it is older than the server's, the guard refuses the patch and
        the object is read again. An unchanged status then costs no request at all."""
        for attempt in range(RETRIES):
            current = dict(read) if attempt == 0 and read else self.get(plural, name, namespace)
            if current is None:
                return None
            status = compute(current)
            if status is None:
                return current
            patch = {
                "metadata": {"resourceVersion": current["metadata"]["resourceVersion"]},
                "status": clean(status),
            }
            try:
                return self.call(
                    "PATCH",
                    kind(plural).path(namespace, name) + "/status",
                    patch,
                    content_type="application/merge-patch+json",
                )
            except ApiError as error:
                if error.status == 404:
                    return None
                if error.status != 409:
                    raise
            time.sleep(min(0.05 * 2**attempt, 1.0))
        raise ApiError(409, f"{plural} {namespace}/{name}: status kept changing; will retry")


def namespaces_of(items: list[Body]) -> Iterator[str]:
    yield from sorted({o["metadata"]["namespace"] for o in items})
