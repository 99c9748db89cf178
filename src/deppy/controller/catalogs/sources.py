"""Where a Catalog's content comes from: an HTTP FBC stream, ConfigMaps, a mounted directory, or
a catalog image in a registry (``image``: pulled as ``--catalog docker://…`` is, by
``deppy.oci.pull``; its digest is the image's manifest digest, catalogd's ``resolvedSource``).

``catalog_source`` reads and checks ``spec.source`` (exactly one kind; the API server checks
that too, this names the field when a client skipped validation). HTTP bodies and ConfigMap
keys are loaded with ``load_catalog_documents`` (the directory loader's rules, in memory); a
ConfigMap's ``binaryData`` may hold gzip (``catalog.json.gz``). The digest is a sha256 over the
content, so an unchanged catalog is never loaded, nor resolved against, twice.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
import threading
import urllib.error
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deppy.catalog.bundle_tree import load_any_catalog
from deppy.catalog.fbc import load_catalog_documents
from deppy.catalog.model import Catalog
from deppy.cluster.http_catalog import fetch_stream
from deppy.controller.fields import flag, items, mapping, name_in, text
from deppy.errors import InputError
from deppy.input_limits.limits import UnsafeInput
from deppy.input_limits.streams import GZIP_MAGIC, gunzip_capped

DEFAULT_POLL_SECONDS = 600.0
HTTP_TIMEOUT = 60.0
_DURATION = re.compile(r"([0-9]+(?:\.[0-9]+)?)(s|m|h)")
_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0}


@dataclass(frozen=True, slots=True)
class CatalogSource:
    """``spec`` of a Catalog, checked."""

    name: str
    priority: int
    kind: str  # http | configMap | path | image
    url: str = ""  # an image's docker:// reference
    poll_seconds: float = DEFAULT_POLL_SECONDS
    namespace: str = ""  # of the ConfigMaps; of an image's pull Secret
    config_maps: tuple[str, ...] = ()
    path: str = ""
    pull_secret: str = ""
    tls_verify: bool = True

    @property
    def where(self) -> str:
        if self.kind in ("http", "image"):
            return self.url
        if self.kind == "configMap":
            return f"ConfigMap {self.namespace}/{','.join(self.config_maps)}"
        return self.path


def parse_duration(text: str, where: str) -> float:
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise InputError(where, f"cannot read the duration {text!r}", "write e.g. 30s, 10m or 1h")
    return sum(float(n) * _UNITS[u] for n, u in parts)


def catalog_source(body: Mapping[str, Any]) -> CatalogSource:
    name = name_in(body)[1]
    where = f"Catalog {name}: spec"
    spec = mapping(body.get("spec"), where)
    priority = spec.get("priority", 0)
    if isinstance(priority, bool) or not isinstance(priority, int):
        raise InputError(f"{where}.priority", "expected an integer")
    source = mapping(spec.get("source"), f"{where}.source")
    kinds = [k for k in ("http", "configMap", "path", "image") if source.get(k)]
    if len(kinds) != 1:
        raise InputError(
            f"{where}.source",
            f"exactly one of http, configMap, path, image is needed, not {len(kinds)}",
        )
    kind = kinds[0]
    here = f"{where}.source.{kind}"
    value = mapping(source[kind], here)
    if kind == "http":
        url = text(value.get("url"), f"{here}.url")
        if not url.startswith(("http://", "https://")):
            raise InputError(f"{here}.url", "expected an http(s):// URL of an FBC stream")
        poll = text(value.get("pollInterval"), f"{here}.pollInterval")
        seconds = parse_duration(poll, f"{here}.pollInterval") if poll else None
        return CatalogSource(
            name, priority, kind, url=url, poll_seconds=seconds or DEFAULT_POLL_SECONDS
        )
    if kind == "image":
        return _image_source(name, priority, value, here)
    if kind == "configMap":
        names = [
            text(n, f"{here}.names[{i}]")
            for i, n in enumerate(items(value.get("names"), f"{here}.names"))
        ]
        namespace = text(value.get("namespace"), f"{here}.namespace")
        if not namespace or not names or not all(names):
            raise InputError(here, "expected {namespace: NS, names: [CONFIGMAP, ...]}")
        return CatalogSource(name, priority, kind, namespace=namespace, config_maps=tuple(names))
    return CatalogSource(name, priority, kind, path=text(value.get("path"), f"{here}.path"))


def _image_source(name: str, priority: int, value: Mapping[str, Any], here: str) -> CatalogSource:
    """``source.image: {ref, pollInterval, pullSecret: {namespace, name}, tlsVerify}``; ``ref``
    as catalogd takes it (``quay.io/org/catalog:tag``) or as deppy does (``docker://…``)."""
    from deppy.cluster.catalogs import image_reference
    from deppy.oci.reference import parse_reference

    ref = text(value.get("ref"), f"{here}.ref")
    reference = image_reference(ref.removeprefix("docker://")) if ref else None
    if reference is None:
        raise InputError(f"{here}.ref", "required field", "write e.g. quay.io/org/catalog:v4.18")
    parse_reference(reference, where=f"{here}.ref")  # an InputError naming the field
    poll = text(value.get("pollInterval"), f"{here}.pollInterval")
    seconds = parse_duration(poll, f"{here}.pollInterval") if poll else None
    verify = value.get("tlsVerify")
    secret = mapping(value.get("pullSecret"), f"{here}.pullSecret")
    secret_name = text(secret.get("name"), f"{here}.pullSecret.name")
    if secret and not secret_name:
        raise InputError(f"{here}.pullSecret.name", "required field", "name the Secret")
    return CatalogSource(
        name,
        priority,
        "image",
        url=reference,
        poll_seconds=seconds or DEFAULT_POLL_SECONDS,
        namespace=text(secret.get("namespace"), f"{here}.pullSecret.namespace"),
        pull_secret=secret_name,
        tls_verify=True if verify is None else flag(verify, f"{here}.tlsVerify"),
    )


def fetch_http(url: str, timeout: float = HTTP_TIMEOUT) -> dict[str, bytes]:
    """The body of an FBC stream (gzip-encoded or not; ``cluster.http_catalog.fetch_stream``,
    as ``--catalog URL`` reads it); raises OSError when unreachable and InputError when the
    body, or what its gzip inflates to, passes the stream limit or is no whole gzip stream."""
    try:
        return {"all.json": fetch_stream(url, timeout)}
    except urllib.error.HTTPError as error:
        raise OSError(f"GET {url}: HTTP {error.code} {error.reason}") from None
    except UnsafeInput as error:
        raise InputError(f"GET {url}", f"the body is {error}") from None
    except (EOFError, zlib.error) as error:
        raise InputError(f"GET {url}", f"not a whole gzip stream: {error}") from None
    except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
        reason = getattr(error, "reason", error)
        raise OSError(f"GET {url}: {reason}") from None


def config_map_files(config_maps: Sequence[Mapping[str, Any]]) -> dict[str, bytes]:
    """Every key of the ConfigMaps as a file: ``data`` as UTF-8, ``binaryData`` decoded and,
    when gzip, decompressed (``.gz`` dropped from the name so the format is still guessed)."""
    files: dict[str, bytes] = {}
    for config_map in config_maps:
        namespace, prefix = name_in(config_map)
        where = f"ConfigMap {namespace}/{prefix}"
        for key, value in sorted(mapping(config_map.get("data"), f"{where}: data").items()):
            files[f"{prefix}/{key}"] = text(value, f"{where}: data.{key}").encode()
        binary = mapping(config_map.get("binaryData"), f"{where}: binaryData")
        for key, encoded in sorted(binary.items()):
            raw = _decoded(
                text(encoded, f"{where}: binaryData.{key}"), f"{where}: binaryData.{key}"
            )
            if raw[:2] == GZIP_MAGIC:
                raw = _gunzipped(raw, f"{where}: binaryData.{key}")
                key = key.removesuffix(".gz")
            files[f"{prefix}/{key}"] = raw
    return files


def _decoded(encoded: str, where: str) -> bytes:
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise InputError(
            where, "not base64", "binaryData values are base64 (kubectl writes them so)"
        ) from None


def _gunzipped(raw: bytes, where: str) -> bytes:
    try:
        return gunzip_capped(raw)
    except UnsafeInput as error:
        raise InputError(where, f"inflates to {error}") from None
    except (OSError, EOFError, zlib.error) as error:
        raise InputError(where, f"not a whole gzip stream: {error}") from None


def digest_of(files: Mapping[str, bytes]) -> str:
    sha = hashlib.sha256()
    for key in sorted(files):
        sha.update(key.encode() + b"\0" + hashlib.sha256(files[key]).digest())
    return "sha256:" + sha.hexdigest()


def directory_digest(root: str) -> str:
    sha = hashlib.sha256()
    base = Path(root)
    if base.is_file():
        return digest_of({base.name: base.read_bytes()})
    for directory, subdirs, names in os.walk(base):
        subdirs.sort()
        for name in sorted(names):
            path = Path(directory) / name
            sha.update(str(path.relative_to(base)).encode() + b"\0")
            sha.update(hashlib.sha256(path.read_bytes()).digest())
    return "sha256:" + sha.hexdigest()


# One catalog fetched and parsed at a time in the process: a load holds the raw stream and the
# parse's documents and garbage (hundreds of MB for a full catalog) until it ends, and two
# catalogs changing together (a Catalog and a ClusterCatalog of the same index) would hold both
# at once, for no gain on a GIL-bound parse. Re-entrant: a load takes it around its fetch too.
PARSING = threading.RLock()


def load_files(source: CatalogSource, files: Mapping[str, bytes]) -> Catalog:
    with PARSING:
        return load_catalog_documents(
            files, name=source.name, priority=source.priority, where=source.where
        )


def load_path(source: CatalogSource) -> tuple[Catalog, str]:
    if not Path(source.path).exists():
        raise OSError(f"{source.path}: no such directory in the controller's pod")
    digest = directory_digest(source.path)
    with PARSING:
        catalog = load_any_catalog(source.path, name=source.name, priority=source.priority)
    return catalog, digest
