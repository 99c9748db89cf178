"""Request bodies: an ActiveResolution in JSON or YAML, and a bundle directory as a tar.gz.

A body is parsed by the same parser ``deppy resolve -f`` uses (``request_from_document``), so
the same input is refused for the same reason, named by its field path. The service answers from
the catalogs it has loaded, so a body naming catalog paths is refused (``spec.sources`` picks
among the loaded ones).
"""

from __future__ import annotations

import io
import tarfile
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

from deppy.errors import InputError
from deppy.input_limits import UnsafeInput, json_value
from deppy.input_limits.streams import GZIP_MAGIC, gunzip_capped
from deppy.resolution.request import ResolutionRequest
from deppy.resolution.request_parsing import read_yaml, request_from_document
from deppy.service.problems import Problem
from deppy.store.schema import is_history_name

JSON_TYPES = ("application/json",)
YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml")
MAX_UNPACKED = 64 * 1024 * 1024
MAX_MEMBERS = 5000
TAR_OVERHEAD = (MAX_MEMBERS + 2) * 1024  # a header (and padding) per member, the end blocks


def read_document(body: bytes, content_type: str) -> Any:
    """The parsed body: JSON when it says so, else YAML (of which JSON is a part)."""
    if not body.strip():
        raise Problem(
            400, "the request body is empty", field="body", fix="send an ActiveResolution"
        )
    media = content_type.split(";")[0].strip().lower()
    if media in JSON_TYPES:
        try:
            return json_value(body)
        except orjson.JSONDecodeError as error:
            raise Problem(400, f"invalid JSON: {error}", field="body") from None
        except UnsafeInput as error:
            raise Problem(400, str(error), field="body") from None
    if media and media not in YAML_TYPES:
        raise Problem(
            415,
            f"cannot read a body of type {media}",
            field="header.Content-Type",
            fix=f"send {JSON_TYPES[0]} or {YAML_TYPES[0]}",
        )
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise Problem(400, "the body is not UTF-8 text", field="body") from None
    try:
        return read_yaml(text, "body")
    except InputError as error:
        raise Problem(400, str(error), field="body") from None


def parse_request(
    body: bytes,
    content_type: str,
    catalogs: Sequence[str],
    priorities: Mapping[str, int] | None = None,
) -> ResolutionRequest:
    """The request of an ActiveResolution body, its sources checked against ``catalogs``; or
    of ClusterExtension (and ClusterCatalog) objects — one, several in a YAML stream, or a
    ``kind: List`` — under OLM v1's rules, on the loaded catalogs (``priorities`` as loaded;
    a ClusterCatalog in the body states its own)."""
    extension = _extension_request(body, catalogs, priorities or {})
    if extension is not None:
        return extension
    document = read_document(body, content_type)
    if not isinstance(document, dict):
        raise Problem(400, "expected an ActiveResolution object", field="body")
    try:
        request, named = request_from_document(document)
    except InputError as error:
        raise Problem.of(error) from None
    if named:
        raise Problem(
            422,
            "the service resolves against the catalogs it has loaded, not catalog paths",
            field="spec.catalogs",
            fix=f"name catalogs in spec.sources instead: {', '.join(catalogs)}",
        )
    for n, source in enumerate(request.sources):
        if source not in catalogs and not is_history_name(source):  # NAME@N: history.py
            raise Problem(
                422,
                f"no loaded catalog is named {source!r}",
                field=f"spec.sources[{n}]",
                fix=f"loaded catalogs: {', '.join(catalogs)}",
            )
    if not request.required and not request.installed:
        raise Problem(
            422,
            "nothing to resolve",
            field="spec.constraints",
            fix='add required("PACKAGE") or installed("PACKAGE", "VERSION")',
        )
    return request


def _extension_request(
    body: bytes, catalogs: Sequence[str], priorities: Mapping[str, int]
) -> ResolutionRequest | None:
    from deppy.resolution.olmv1 import request_from_objects
    from deppy.workflows.olmv1 import olmv1_documents_of

    try:
        documents = olmv1_documents_of(body, "body")
    except InputError:
        return None  # unreadable: read_document answers it (400, naming the syntax error)
    if documents is None:
        return None
    try:
        content = [(name, priorities.get(name, 0)) for name in catalogs]
        return request_from_objects(documents, "", content).request
    except InputError as error:
        raise Problem.of(error) from None


def unpack_bundle(body: bytes, into: Path) -> Path:
    """Unpack a tar.gz of one bundle directory (manifests/ and metadata/, at the top or in one
    folder) into ``into``; returns the bundle directory. Links, devices, paths leaving the
    archive and archives unpacking to more than 64 MiB are refused."""
    from deppy.catalog.bundle_dir import looks_like_bundle_dir

    try:
        if body[:2] == GZIP_MAGIC:  # inflated by deppy's one gzip reader, within its bounds
            body = gunzip_capped(body, MAX_UNPACKED + TAR_OVERHEAD)
        with tarfile.open(fileobj=io.BytesIO(body), mode="r:") as archive:
            members = archive.getmembers()
            if len(members) > MAX_MEMBERS:
                raise Problem(422, f"the archive holds more than {MAX_MEMBERS} files", field="body")
            if sum(m.size for m in members if m.isfile()) > MAX_UNPACKED:
                raise Problem(
                    413, f"the archive unpacks to more than {MAX_UNPACKED} bytes", field="body"
                )
            root = into.resolve()
            for member in members:
                if not (member.isfile() or member.isdir()):
                    raise Problem(
                        422,
                        f"{member.name}: only files and directories may be in the archive",
                        field="body",
                    )
                if not (root / member.name).resolve().is_relative_to(root):
                    raise Problem(422, f"{member.name}: a path outside the archive", field="body")
            # tarfile's "data" filter (Python 3.11.4+) checks the same again where it exists
            if hasattr(tarfile, "data_filter"):
                archive.extractall(into, filter="data")
            else:  # pragma: no cover - Python 3.11.0-3.11.3
                archive.extractall(into)
    except UnsafeInput as error:
        raise Problem(
            413, f"the archive unpacks to {error}", field="body", kind="too-large"
        ) from None
    except (tarfile.TarError, EOFError, OSError, ValueError, zlib.error) as error:
        raise Problem(
            400,
            f"not a readable tar.gz archive: {' '.join(str(error).split())}",
            field="body",
            fix="send tar -czf - -C BUNDLE_DIR . (manifests/ and metadata/ inside)",
        ) from None
    if looks_like_bundle_dir(into):
        return into
    inner = [p for p in into.iterdir() if p.is_dir()]
    if len(inner) == 1 and looks_like_bundle_dir(inner[0]):
        return inner[0]
    raise Problem(
        422,
        "the archive holds no bundle directory (manifests/ and metadata/annotations.yaml)",
        field="body",
        fix="send tar -czf - -C BUNDLE_DIR .",
    )
