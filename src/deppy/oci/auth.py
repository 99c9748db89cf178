"""Registry credentials from the files podman, skopeo and docker log in to, or from a
``kubernetes.io/dockerconfigjson`` Secret.

All of them hold ``{"auths": {KEY: {"auth": base64("user:password")}}}`` (or ``username`` and
``password``); KEY is a host (``127.0.0.1:5000``), a host with a repository path
(``quay.io/team``: the longest match wins, as in containers' auth.json), or a URL
(``https://index.docker.io/v1/``). The files are read in containers/image's order and the
first that has an entry for a registry wins. Credential helpers (``credsStore``,
``credHelpers``) and identity tokens are not used: log in with a password or token that lands
in the file. A credentials file that is not a regular file (a FIFO, a link to ``/dev/zero``)
or passes :data:`MAX_AUTH_FILE_BYTES` is refused with one line naming it, before any read.

No secret is ever printed: a credential's repr shows only where it came from, and the error
messages name the files, never what they hold.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deppy.errors import InputError
from deppy.input_limits import parse_json
from deppy.input_limits.regular_files import read_regular_file

MAX_AUTH_FILE_BYTES = 4 << 20
"""The largest credentials file read: 4 MiB (one login is ~100 bytes)."""


@dataclass(frozen=True, slots=True)
class Credential:
    """A user name and a password (or token) for one registry, and the file they came from."""

    username: str = field(repr=False)
    secret: str = field(repr=False)
    origin: str


@dataclass(frozen=True, slots=True)
class RegistryAuth:
    """The credentials found, by registry key, and every place that was looked at (for a
    message that says where to log in)."""

    entries: Mapping[str, Credential] = field(repr=False)
    looked_in: tuple[str, ...]

    def for_registry(self, registry: str, repository: str = "") -> Credential | None:
        """The credential for ``registry`` (HOST[:PORT]) and a repository in it: the longest
        key that is the registry or a namespace of the repository."""
        path = f"{registry}/{repository}".rstrip("/")
        while True:
            found = self.entries.get(path)
            if found is not None:
                return found
            if "/" not in path:
                break
            path = path.rpartition("/")[0]
        if registry == "docker.io":
            return self.entries.get("index.docker.io")
        return None

    def describe(self) -> str:
        return ", ".join(self.looked_in) or "no auth file"


def auth_file_paths() -> tuple[str, ...]:
    """Where podman, skopeo and docker keep logins, in the order containers/image reads them."""
    paths = []
    explicit = os.environ.get("REGISTRY_AUTH_FILE")
    if explicit:
        paths.append(explicit)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        paths.append(os.path.join(runtime, "containers", "auth.json"))
    home = Path.home()
    config_home = os.environ.get("XDG_CONFIG_HOME") or str(home / ".config")
    paths.append(os.path.join(config_home, "containers", "auth.json"))
    docker = os.environ.get("DOCKER_CONFIG") or str(home / ".docker")
    paths.append(os.path.join(docker, "config.json"))
    return tuple(dict.fromkeys(paths))


def _key(raw: str) -> str:
    """A registry key as written in a file, without a URL's scheme or API path."""
    key = raw.removeprefix("https://").removeprefix("http://").rstrip("/")
    for api in ("/v1", "/v2"):
        key = key.removesuffix(api)
    return key


def _credential(value: Any, origin: str, where: str) -> Credential | None:
    if not isinstance(value, Mapping):
        raise InputError(where, "each entry of auths must be an object", "log in again")
    encoded = value.get("auth")
    if isinstance(encoded, str) and encoded:
        broken = InputError(where, "auth is not base64 of user:password", "log in again")
        try:
            user, colon, password = base64.b64decode(encoded, validate=True).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            raise broken from None
        if not colon:
            raise broken
        return Credential(user, password, origin)
    named, given = value.get("username"), value.get("password")
    if isinstance(named, str) and isinstance(given, str) and named:
        return Credential(named, given, origin)
    return None  # an identity token or a helper's entry: not usable here


def _entries(data: bytes, origin: str) -> dict[str, Credential]:
    document = parse_json(data, origin)
    auths = document.get("auths") if isinstance(document, Mapping) else None
    if auths is None:
        return {}
    if not isinstance(auths, Mapping):
        raise InputError(f"{origin}: auths", "must be an object of registries", "log in again")
    found: dict[str, Credential] = {}
    for key, value in auths.items():
        credential = _credential(value, origin, f"{origin}: auths: {_key(str(key))}")
        if credential is not None:
            found.setdefault(_key(str(key)), credential)
    return found


def auth_from_files(paths: tuple[str, ...] | None = None) -> RegistryAuth | None:
    """The credentials in the auth files (:func:`auth_file_paths` unless ``paths``), or None
    when none of them holds any; an unreadable file is an InputError naming it."""
    looked_in = auth_file_paths() if paths is None else paths
    entries: dict[str, Credential] = {}
    for path in looked_in:
        try:
            data = read_regular_file(path, "give a credentials file", limit=MAX_AUTH_FILE_BYTES)
        except FileNotFoundError:
            continue
        for key, credential in _entries(data, path).items():
            entries.setdefault(key, credential)
    return RegistryAuth(entries, looked_in) if entries else None


def auth_from_dockerconfigjson(
    data: bytes, origin: str = "the Secret's .dockerconfigjson"
) -> RegistryAuth:
    """The credentials of a ``kubernetes.io/dockerconfigjson`` Secret's ``.dockerconfigjson``
    (decoded from the Secret's base64); ``origin`` names the Secret in messages."""
    return RegistryAuth(_entries(data, origin), (origin,))


__all__ = [
    "Credential",
    "RegistryAuth",
    "auth_file_paths",
    "auth_from_dockerconfigjson",
    "auth_from_files",
]
