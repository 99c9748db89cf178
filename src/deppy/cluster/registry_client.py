"""A catalog read over operator-registry's gRPC API (``opm serve``, OLM's registry pods).

The registry lists packages (``ListPackages`` + ``GetPackage`` for default channels and
deprecations) and bundles (``ListBundles``: one message per bundle *per channel*, carrying that
channel entry's replaces, skips and skipRange). They are turned into File-Based Catalog objects
the way operator-registry converts API bundles into its model (``pkg/api/api_to_model.go``):
properties as served; ``olm.package`` from packageName/version when not served; provided and
required APIs and legacy dependencies added when the properties do not already say them
(``olm.package`` dependencies become ``olm.package.required``, ``olm.gvk`` ones
``olm.gvk.required``, ``olm.label`` ones ``olm.label.required``); related images and CSV metadata
from ``csvJson`` when the registry sends it. The objects are then loaded by the FBC loader, so a
catalog read over gRPC obeys exactly the rules of one read from a directory.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

from deppy.catalog.fbc import load_catalog_documents
from deppy.catalog.model import Catalog
from deppy.catalog.properties import (
    CSV_METADATA,
    GVK_PROVIDED,
    GVK_REQUIRED,
    LABEL,
    LABEL_REQUIRED,
    PACKAGE,
    PACKAGE_REQUIRED,
    csv_metadata_of,
)
from deppy.cluster.fbc_render import entry_object
from deppy.errors import InputError
from deppy.input_limits import UnsafeInput, json_value, streams

if TYPE_CHECKING:
    from deppy.cluster import registry_pb2 as pb

__all__ = ["load_registry_catalog", "registry_documents"]

CONNECT_TIMEOUT = 5.0
CALL_TIMEOUT = 300.0
MAX_MESSAGE = 256 << 20
_M = TypeVar("_M", "pb.Package", "pb.PackageName", "pb.Bundle")
# Legacy channel-membership properties: the channel entries carry this information.
_CHANNEL_PROPERTIES = frozenset({"olm.channel", "olm.skips", "olm.skipRange"})


def _value(raw: str) -> Any:
    try:
        return json_value(raw)
    except (orjson.JSONDecodeError, UnsafeInput):
        return raw  # kept as served: the loader reports what is wrong with it


def _gvk(api: pb.GroupVersionKind) -> dict[str, str]:
    return {"group": api.group, "kind": api.kind, "version": api.version}


def _dependency(kind: str, value: Any) -> tuple[str, Any] | None:
    if kind == PACKAGE:
        if isinstance(value, Mapping) and "versionRange" not in value and "version" in value:
            value = {"packageName": value.get("packageName"), "versionRange": value["version"]}
        return PACKAGE_REQUIRED, value
    if kind == GVK_PROVIDED:
        if isinstance(value, Mapping):
            value = {k: value.get(k) for k in ("group", "kind", "version")}
        return GVK_REQUIRED, value
    if kind == LABEL:
        return LABEL_REQUIRED, value
    return kind, value  # olm.constraint and unknown types pass through, as opm keeps them


def bundle_properties(bundle: pb.Bundle) -> list[dict[str, Any]]:
    """An API bundle's properties, completed as operator-registry's api_to_model does."""
    props: list[dict[str, Any]] = []
    seen: set[bytes] = set()

    def add(kind: str, value: Any) -> None:
        key = orjson.dumps([kind, value], option=orjson.OPT_SORT_KEYS)
        if key not in seen:
            seen.add(key)
            props.append({"type": kind, "value": value})

    for prop in bundle.properties:
        if prop.type not in _CHANNEL_PROPERTIES:
            add(prop.type, _value(prop.value))
    for dependency in bundle.dependencies:
        converted = _dependency(dependency.type, _value(dependency.value))
        if converted is not None:
            add(*converted)
    if not any(p["type"] == PACKAGE for p in props):
        add(PACKAGE, {"packageName": bundle.packageName, "version": bundle.version})
    for api in bundle.providedApis:
        add(GVK_PROVIDED, _gvk(api))
    for api in bundle.requiredApis:
        add(GVK_REQUIRED, _gvk(api))
    if bundle.csvJson and not any(p["type"] == CSV_METADATA for p in props):
        csv = _value(bundle.csvJson)
        if isinstance(csv, Mapping):
            add(CSV_METADATA, csv_metadata_of(csv))
    return props


def _related_images(bundle: pb.Bundle) -> list[dict[str, str]]:
    csv = _value(bundle.csvJson) if bundle.csvJson else None
    spec = csv.get("spec") if isinstance(csv, Mapping) else None
    related = spec.get("relatedImages") if isinstance(spec, Mapping) else None
    out: list[dict[str, str]] = []
    for item in related if isinstance(related, list) else ():
        if isinstance(item, Mapping) and isinstance(item.get("image"), str):
            out.append({"name": str(item.get("name") or ""), "image": item["image"]})
    return out


def _deprecation_entry(schema: str, name: str | None, message: str) -> dict[str, Any]:
    reference: dict[str, Any] = {"schema": schema}
    if name is not None:
        reference["name"] = name
    return {"reference": reference, "message": message}


def registry_documents(
    packages: Sequence[pb.Package], bundles: Iterable[pb.Bundle]
) -> list[dict[str, Any]]:
    """FBC objects for what a registry served (see the module docstring)."""
    channels: dict[str, dict[str, list[dict[str, Any]]]] = {}
    bundle_objects: dict[tuple[str, str], dict[str, Any]] = {}
    deprecations: dict[str, list[dict[str, Any]]] = {}
    for bundle in bundles:
        entry = entry_object(bundle.csvName, bundle.replaces, bundle.skips, bundle.skipRange)
        package_channels = channels.setdefault(bundle.packageName, {})
        package_channels.setdefault(bundle.channelName, []).append(entry)
        key = (bundle.packageName, bundle.csvName)
        if key in bundle_objects:
            continue
        obj: dict[str, Any] = {
            "schema": "olm.bundle",
            "name": bundle.csvName,
            "package": bundle.packageName,
            "image": bundle.bundlePath,
            "properties": bundle_properties(bundle),
        }
        related = _related_images(bundle)
        if related:
            obj["relatedImages"] = related
        bundle_objects[key] = obj
        if bundle.HasField("deprecation") and bundle.deprecation.message:
            deprecations.setdefault(bundle.packageName, []).append(
                _deprecation_entry("olm.bundle", bundle.csvName, bundle.deprecation.message)
            )
    documents: list[dict[str, Any]] = []
    for package in sorted(packages, key=lambda p: p.name):
        obj = {"schema": "olm.package", "name": package.name}
        if package.defaultChannelName:
            obj["defaultChannel"] = package.defaultChannelName
        documents.append(obj)
        entries = []
        if package.HasField("deprecation") and package.deprecation.message:
            entries.append(_deprecation_entry("olm.package", None, package.deprecation.message))
        for channel in package.channels:
            if channel.HasField("deprecation") and channel.deprecation.message:
                entries.append(
                    _deprecation_entry("olm.channel", channel.name, channel.deprecation.message)
                )
        entries += deprecations.get(package.name, [])
        if entries:
            documents.append(
                {"schema": "olm.deprecations", "package": package.name, "entries": entries}
            )
    for package_name in sorted(channels):
        for channel_name, channel_entries in sorted(channels[package_name].items()):
            documents.append(
                {
                    "schema": "olm.channel",
                    "package": package_name,
                    "name": channel_name,
                    "entries": sorted(channel_entries, key=lambda e: str(e["name"])),
                }
            )
    documents += [bundle_objects[k] for k in sorted(bundle_objects)]
    return documents


class _Received:
    """What a registry has sent so far, in bytes: a registry that streams without end (or lists
    millions of packages) stops at the catalog stream limit instead of filling memory."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.size = 0

    def counted(self, message: _M) -> _M:
        self.size += message.ByteSize()
        if self.size > streams.MAX_STREAM_BYTES:
            raise InputError(
                self.where,
                f"the registry sent {streams.too_big_message(streams.MAX_STREAM_BYTES)}",
                "serve a smaller catalog",
            )
        return message


def load_registry_catalog(address: str, *, name: str, priority: int = 0) -> Catalog:
    """Every package and bundle a gRPC registry at ``host:port`` serves, as a catalog.

    Raises :class:`InputError` naming the address when no registry answers or a call fails.
    """
    import grpc

    from deppy.cluster import registry_pb2 as pb
    from deppy.cluster import registry_pb2_grpc as rpc

    where = f"grpc://{address}"
    options = [("grpc.max_receive_message_length", MAX_MESSAGE)]
    channel = grpc.insecure_channel(address, options=options)
    try:
        try:
            grpc.channel_ready_future(channel).result(timeout=CONNECT_TIMEOUT)
        except grpc.FutureTimeoutError:
            raise InputError(
                where,
                f"no gRPC registry answered within {CONNECT_TIMEOUT:g} s",
                "check that the catalog's registry (opm serve, deppy catalog serve, a "
                "CatalogSource pod) is running and reachable from here, e.g. through "
                "'kubectl port-forward'",
            ) from None
        stub = rpc.RegistryStub(channel)  # type: ignore[no-untyped-call]
        try:
            received = _Received(where)
            names = sorted(
                received.counted(p).name
                for p in stub.ListPackages(pb.ListPackageRequest(), timeout=CALL_TIMEOUT)
            )
            pending = [
                stub.GetPackage.future(pb.GetPackageRequest(name=n), timeout=CALL_TIMEOUT)
                for n in names
            ]
            packages = [received.counted(future.result()) for future in pending]
            bundles = [
                received.counted(b)
                for b in stub.ListBundles(pb.ListBundlesRequest(), timeout=CALL_TIMEOUT)
            ]
        except grpc.RpcError as error:
            raise InputError(
                where,
                f"the registry failed: {error.code().name}: {error.details()}",
                "check the registry's logs; 'opm serve' needs a valid catalog",
            ) from None
    finally:
        channel.close()
    documents = registry_documents(packages, bundles)
    data = b"\n".join(orjson.dumps(d) for d in documents)
    return load_catalog_documents({"": data}, name=name, priority=priority, where=where)
