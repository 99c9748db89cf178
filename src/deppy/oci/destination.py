"""Where a catalog image goes, written in skopeo's and podman's transport syntax.

``docker://HOST[:PORT]/REPO[:TAG]`` is a repository in a registry; ``oci:DIR[:TAG]`` an OCI
image layout on disk (as skopeo splits it: the directory ends at the first colon). A name
without a registry host (``docker://busybox``) is on Docker Hub, as for skopeo. A digest cannot
be a destination: the image's content decides it. A port out of range is refused before any
name is resolved; ``user:password@`` is refused without echoing it: credentials go in an auth
file, as skopeo and podman keep them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from deppy.errors import InputError, excerpt

# The distribution reference grammar (docker/distribution reference/regexp.go), in parts.
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
REPOSITORY = re.compile(rf"{_COMPONENT}(?:/{_COMPONENT})*")
TAG = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
HOST = re.compile(
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)*|\[[0-9a-fA-F:.]+\])(?::[0-9]+)?"
)
DOCKER_HUB = "docker.io"
FORMS = "docker://HOST[:PORT]/REPO[:TAG] or oci:DIR[:TAG]"
# user:password@ anywhere (a mistyped transport still carries one), or user@ after "//"; up
# to the last "@" before a "/", as a URL's authority ends (a password may hold an "@")
_USERINFO = re.compile(r"[^/@]*:[^/]*@|(?<=//)[^/]+@")


@dataclass(frozen=True, slots=True)
class RegistryDestination:
    """A repository in a registry (``registry`` as written: HOST[:PORT])."""

    registry: str
    repository: str
    tag: str | None
    text: str

    def __str__(self) -> str:
        return self.text

    def tagged(self, tag: str) -> RegistryDestination:
        """The same repository with ``tag`` (a controller tags each push from its set)."""
        return replace(self, tag=_tag(self.text, tag, "tag"))

    @property
    def endpoint(self) -> str:
        return endpoint_of(self.registry)


@dataclass(frozen=True, slots=True)
class LayoutDestination:
    """An OCI image layout directory, and the name (``org.opencontainers.image.ref.name``) the
    image gets in its index."""

    directory: str
    tag: str | None
    text: str

    def __str__(self) -> str:
        return self.text

    def tagged(self, tag: str) -> LayoutDestination:
        """The same layout, the image named ``tag``."""
        return replace(self, tag=_tag(self.text, tag, "tag"))


Destination = RegistryDestination | LayoutDestination


def endpoint_of(registry: str) -> str:
    """The host that serves ``registry``'s API (Docker Hub's is not its name)."""
    return "registry-1.docker.io" if registry == DOCKER_HUB else registry


def is_host(component: str) -> bool:
    """What the distribution reference takes for a registry host rather than a path."""
    return "." in component or ":" in component or component == "localhost"


_TAG_RULE = "a tag is up to 128 letters, digits, '_', '.' and '-', not starting with '.' or '-'"


def _tag(text: str, tag: str, where: str) -> str:
    if not TAG.fullmatch(tag):
        raise InputError(
            f"{where} {shown(text)}", f"tag {excerpt(tag)} is not a valid tag", _TAG_RULE
        )
    return tag


def port_problem(host: str) -> str | None:
    """Why the port of HOST[:PORT] cannot be one (0, or past 65535), or None."""
    port = host.rpartition(":")[2] if ":" in host.rpartition("]")[2] else ""
    if port and (len(port) > 5 or not 0 < int(port) <= 65535):
        return f"port {excerpt(port)[1:-1]} is not a port (1 to 65535)"
    return None


def shown(text: str) -> str:
    """A destination as a message quotes it: ``user:password@`` after a scheme hidden."""
    return excerpt(_USERINFO.sub("<credentials>@", text))


def _registry(text: str, rest: str, where: str) -> RegistryDestination:
    place = f"{where} {shown(text)}"
    if "@" in rest.partition("/")[0]:  # docker://user:password@host/repo: not echoed
        raise InputError(
            place,
            "credentials do not belong in the reference (they would show in process lists, "
            "logs and plans)",
            "log in (podman login / docker login / skopeo login) so that an auth file holds "
            "them ($REGISTRY_AUTH_FILE, containers' auth.json or ~/.docker/config.json), or, "
            "in the controller, name a dockerconfigjson Secret",
        )
    if "@" in rest:
        raise InputError(place, "a digest cannot be pushed to", "give a tag, or none")
    host, _, path = rest.partition("/")
    if not path:
        if not host or is_host(host):
            raise InputError(place, "no repository", f"write {FORMS}")
        host, path = DOCKER_HUB, rest
    elif not is_host(host):
        host, path = DOCKER_HUB, rest
    checked_host(host, place, FORMS)
    name, tag = checked_repository(path, place)
    if host == DOCKER_HUB and "/" not in name:
        name = f"library/{name}"
    return RegistryDestination(host, name, tag, text)


def checked_host(host: str, place: str, forms: str) -> None:
    """An InputError at ``place`` unless ``host`` is HOST[:PORT] with a port in range."""
    if not HOST.fullmatch(host):
        raise InputError(place, f"{excerpt(host)} is not a registry host", f"write {forms}")
    port = port_problem(host)
    if port is not None:
        raise InputError(place, port, f"write {forms}")


def checked_repository(path: str, place: str) -> tuple[str, str | None]:
    """REPO[:TAG] split into the repository and the tag (None without one), each checked by
    the distribution grammar; an InputError at ``place`` otherwise."""
    name, colon, tag = path.rpartition(":") if ":" in path else (path, "", "")
    if not REPOSITORY.fullmatch(name):
        raise InputError(
            place,
            f"repository {excerpt(name)} is not a valid name",
            "a repository is lowercase letters and digits, separated by '/', '.', '_' or '-'",
        )
    if colon and not TAG.fullmatch(tag):
        raise InputError(place, f"tag {excerpt(tag)} is not a valid tag", _TAG_RULE)
    return name, tag if colon else None


def parse_destination(text: str, *, where: str = "--resolved-catalog") -> Destination:
    """``text`` as a destination; an InputError naming ``where`` and the text for an unknown
    transport, a DEST with no repository or directory, or a bad name or tag."""
    if text.startswith("docker://"):
        return _registry(text, text.removeprefix("docker://"), where)
    if text.startswith("oci:"):
        directory, colon, tag = text.removeprefix("oci:").partition(":")
        if not directory:
            raise InputError(f"{where} {shown(text)}", "no directory", f"write {FORMS}")
        return LayoutDestination(directory, _tag(text, tag, where) if colon else None, text)
    transport = text.partition(":")[0] if ":" in text else ""
    what = f"unknown transport {excerpt(transport)}" if transport else "no transport"
    raise InputError(f"{where} {shown(text)}", what, f"write {FORMS}")


__all__ = [
    "Destination",
    "LayoutDestination",
    "RegistryDestination",
    "parse_destination",
]
