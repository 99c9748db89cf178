"""Registry credentials from ``kubernetes.io/dockerconfigjson`` Secrets in deppy's own namespace.

Shared by the jobs that speak to registries: the olm-v1 provisioner pushing resolved catalogs
(a ProvisionerClass's ``authSecret``) and Catalogs of kind ``image`` pulling theirs
(``pullSecret``). deppy reads Secrets in its own namespace only (the install's Role
``deppy-controller-secrets``: ``get`` on secrets there, never cluster-wide: a Role naming
Secrets by ``resourceNames`` cannot cover names a user chooses later). Credentials are never
written anywhere: not to logs, Events, status or metrics.
"""

from __future__ import annotations

import base64
import binascii
import os

from deppy.controller.kube import Kube
from deppy.errors import InputError
from deppy.oci.auth import RegistryAuth, auth_from_dockerconfigjson

__all__ = ["DEFAULT_NAMESPACE", "SECRET_KEY", "SECRET_TYPE", "SecretError", "own_namespace",
           "registry_auth"]  # fmt: skip

SECRET_KEY = ".dockerconfigjson"
SECRET_TYPE = "kubernetes.io/dockerconfigjson"
DEFAULT_NAMESPACE = "deppy-system"  # the install manifests' namespace (POD_NAMESPACE wins)


class SecretError(InputError):
    """A pull or push Secret that is missing, elsewhere, or no dockerconfigjson."""


def own_namespace() -> str:
    """Where deppy runs: its Secrets live there (the Deployment sets POD_NAMESPACE)."""
    return os.environ.get("POD_NAMESPACE") or DEFAULT_NAMESPACE


def registry_auth(
    kube: Kube, name: str, namespace: str | None = None, *, typed: bool = False
) -> RegistryAuth:
    """The credentials of the Secret ``namespace/name`` (default: deppy's namespace); a
    SecretError naming the Secret when it is missing, in another namespace, has no
    ``.dockerconfigjson`` or (``typed``) is not of type ``kubernetes.io/dockerconfigjson``."""
    home = own_namespace()
    where = f"Secret {namespace or home}/{name}"
    if namespace not in (None, "", home):
        raise SecretError(
            where,
            f"is outside deppy's namespace {home}: deppy reads Secrets there only (its Role "
            "deppy-controller-secrets)",
            f"create the Secret in {home}",
        )
    secret = kube.get("secrets", name, home)
    if secret is None:
        raise SecretError(
            where, "not found", "create it: kubectl create secret docker-registry NAME ..."
        )
    if typed and secret.get("type") != SECRET_TYPE:
        raise SecretError(
            where,
            f"is of type {secret.get('type') or 'Opaque'}, not {SECRET_TYPE}",
            "create it with kubectl create secret docker-registry NAME ...",
        )
    encoded = (secret.get("data") or {}).get(SECRET_KEY)
    if not isinstance(encoded, str):
        raise SecretError(where, f"has no {SECRET_KEY}", f"a {SECRET_TYPE} Secret")
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise SecretError(where, f"{SECRET_KEY} is not base64") from None
    return auth_from_dockerconfigjson(data, origin=where)
