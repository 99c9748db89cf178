"""Pushing an image to a registry through python-dxf (the registry's HTTP API, token and basic
auth), with every failure turned into one line that names the destination and what to do.

Blobs go first and the manifest, which names them, last: a failed push leaves at most blobs
nobody points at, never a tag for a half-pushed image. With ``tls_verify`` off, HTTPS is tried
without checking the certificate and then plain HTTP, as skopeo's ``--tls-verify=false`` does.
Credentials are sent over HTTPS only (python-dxf refuses to send them in the clear); the
messages name where credentials were looked for, never what they are.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from deppy.cluster.oci.auth import Credential, RegistryAuth, auth_file_paths
from deppy.cluster.oci.destination import RegistryDestination
from deppy.cluster.oci.image import CatalogImage
from deppy.errors import InputError

if TYPE_CHECKING:
    import requests
    from dxf import DXF, DXFBase

TIMEOUT_S = 60.0
LOOPBACK = re.compile(r"(localhost|127(\.\d+){3}|\[::1\])(:\d+)?")
# what is wrong, inside requests' long messages: "[SSL: X] what (_ssl.c:1)", "[Errno 111] what"
TLS_REASON = r"\] ([^(]+)"
SOCKET_REASON = r"\[Errno -?\d+\] ([^'\")]+)"


class RegistryError(InputError):
    """A push that failed; ``retriable`` when trying again later may work (the registry was
    down or answered 5xx), not when the request itself is wrong (credentials, TLS, a name)."""

    def __init__(self, where: str, what: str, fix: str, *, retriable: bool = False) -> None:
        super().__init__(where, what, fix)
        self.retriable = retriable


def _reason(error: Exception, pattern: str, fallback: str) -> str:
    found = re.search(pattern, str(error))
    return found.group(1).strip() if found else fallback


def _tls_fix(destination: RegistryDestination) -> str:
    if LOOPBACK.fullmatch(destination.registry):
        return (
            "give the registry a certificate this machine trusts, or --tls-verify=false "
            "(for a plain-HTTP or loopback registry only)"
        )
    return "give the registry a certificate this machine trusts"


def _http_error(
    destination: RegistryDestination, response: requests.Response | None, auth: RegistryAuth | None
) -> RegistryError:
    where = str(destination)
    host = destination.registry
    code = response.status_code if response is not None else 0
    if code in (401, 403):
        return _denied(destination, auth, code)
    detail = ""
    try:
        answer = response.json() if response is not None else None
    except ValueError:  # not JSON: the status says enough
        answer = None
    errors = answer.get("errors") if isinstance(answer, dict) else None
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        detail = f": {errors[0].get('code', '')} {errors[0].get('message', '')}".rstrip()
    reason = response.reason if response is not None else ""
    return RegistryError(
        where,
        f"registry {host} answered {code} {reason}{detail}",
        "check the repository name and that the registry accepts pushes",
        retriable=code >= 500 or code == 429,
    )


def _denied(
    destination: RegistryDestination, auth: RegistryAuth | None, code: int
) -> RegistryError:
    host = destination.registry
    credential = auth.for_registry(host, destination.repository) if auth else None
    if credential is None:
        looked = auth.describe() if auth else ", ".join(auth_file_paths())
        return RegistryError(
            str(destination),
            f"registry {host} asks for credentials ({code}) and none were found for it",
            f"log in to {host} (podman login / docker login) so that one of {looked} holds them",
        )
    verb = "refused" if code == 401 else "denied push access with"
    return RegistryError(
        str(destination),
        f"registry {host} {verb} the credentials from {credential.origin} ({code})",
        f"log in to {host} again with an account that may push to {destination.repository}",
    )


@contextmanager
def registry_errors(destination: RegistryDestination, auth: RegistryAuth | None) -> Iterator[None]:
    """Turn what python-dxf and requests raise into a :class:`RegistryError`."""
    import requests
    from dxf import exceptions

    where, host = str(destination), destination.registry
    try:
        yield
    except exceptions.DXFUnauthorizedError:
        raise _denied(destination, auth, 401) from None
    except exceptions.DXFAuthInsecureError:
        raise RegistryError(
            where,
            f"registry {host} asks for credentials over plain HTTP, and deppy sends them "
            "only over HTTPS",
            "serve the registry with TLS (--tls-verify=false still skips checking its certificate)",
        ) from None
    except exceptions.DXFUnexpectedStatusCodeError as error:
        raise RegistryError(
            where,
            f"registry {host} answered {error.got}",
            "check that it is an OCI registry",
            retriable=error.got >= 500,
        ) from None
    except requests.exceptions.SSLError as error:
        raise RegistryError(
            where,
            "TLS failure talking to registry "
            f"{host} ({_reason(error, TLS_REASON, 'the TLS handshake failed')})",
            _tls_fix(destination),
        ) from None
    except (requests.exceptions.ConnectionError, requests.exceptions.Timeout) as error:
        raise RegistryError(
            where,
            f"cannot reach registry {host} ({_reason(error, SOCKET_REASON, 'no answer')})",
            "check the address and that the registry is running",
            retriable=True,
        ) from None
    except requests.exceptions.HTTPError as error:
        raise _http_error(destination, error.response, auth) from None


def _client(
    destination: RegistryDestination, credential: Credential | None, *, insecure: bool, verify: bool
) -> DXF:
    from dxf import DXF

    def authenticate(client: DXFBase, response: requests.Response) -> None:
        assert credential is not None
        client.authenticate(
            credential.username, credential.secret, actions=["pull", "push"], response=response
        )

    return DXF(
        destination.endpoint,
        destination.repository,
        auth=authenticate if credential is not None else None,
        insecure=insecure,
        tlsverify=verify,
        timeout=TIMEOUT_S,
    )


def _connected(
    destination: RegistryDestination, credential: Credential | None, tls_verify: bool
) -> DXF:
    """A client that has reached the registry (and logged in, where it asks): HTTPS, or with
    ``tls_verify`` off and a registry that speaks no TLS, plain HTTP."""
    import requests

    client = _client(destination, credential, insecure=False, verify=tls_verify)
    try:
        client.api_version_check()
    except requests.exceptions.SSLError:
        if tls_verify:
            raise
        client = _client(destination, credential, insecure=True, verify=False)
        client.api_version_check()
    return client


def push_image(
    image: CatalogImage,
    destination: RegistryDestination,
    tag: str,
    *,
    tls_verify: bool,
    auth: RegistryAuth | None,
) -> None:
    """Push ``image`` to the destination's repository and tag it ``tag``."""
    credential = auth.for_registry(destination.registry, destination.repository) if auth else None
    with registry_errors(destination, auth):
        client = _connected(destination, credential, tls_verify)
        for blob in image.blobs:
            client.push_blob(data=io.BytesIO(blob.data), digest=blob.digest)
        client.set_manifest(tag, image.manifest.decode("ascii"))


__all__ = ["RegistryError", "push_image", "registry_errors"]
