"""Serve a catalog over operator-registry's gRPC API, as ``opm serve`` does.

``deppy catalog serve`` and the tests use it: a CatalogSource with ``spec.address`` pointing at
it is read by deppy (and by OLM) like any registry pod. Answers follow operator-registry's
FBC querier (``pkg/registry/query.go``): ``ListBundles`` sends each bundle once per channel with
that entry's replaces/skips/skipRange; ``GetBundle``/``GetBundleForChannel``/
``GetBundleThatReplaces`` leave replaces and skips empty (as the SQLite server did); properties
are the bundle's own minus ``olm.bundle.object``; a channel's head is the entry that no other
entry replaces or skips. Unknown names answer NOT_FOUND. Nothing is written anywhere.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass
from typing import Any, NoReturn

import grpc
import orjson

from deppy.catalog.file_values import plain
from deppy.catalog.model import Bundle, Catalog, Channel, ChannelEntry
from deppy.catalog.properties import BUNDLE_OBJECT, GVK_REQUIRED, PACKAGE_REQUIRED
from deppy.catalog.upgrade_edges import channel_head
from deppy.cluster import registry_pb2 as pb
from deppy.cluster import registry_pb2_grpc as rpc
from deppy.errors import InputError

__all__ = ["RegistryService", "start_registry_server"]


@dataclass(frozen=True, slots=True)
class _Placed:
    bundle: Bundle
    channel: Channel
    entry: ChannelEntry


def _not_found(context: Any, message: str) -> NoReturn:
    context.abort(grpc.StatusCode.NOT_FOUND, message)
    raise AssertionError(message)  # pragma: no cover - abort raises


class RegistryService(rpc.RegistryServicer):
    """The Registry service over one loaded catalog (immutable: safe for concurrent calls)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.placed: list[_Placed] = []
        self.heads: dict[tuple[str, str], _Placed] = {}
        for package in catalog.packages:
            bundles = {b.name: b for b in catalog.bundles_of(package)}
            versions = {name: b.version for name, b in bundles.items()}
            for channel in catalog.channels_of(package):
                head = channel_head(channel, versions)
                for entry in channel.entries:
                    bundle = bundles.get(entry.name)
                    if bundle is None:
                        continue
                    placed = _Placed(bundle, channel, entry)
                    self.placed.append(placed)
                    if head is not None and entry.name == head.name:
                        self.heads[channel.key] = placed
        self.deprecated: dict[tuple[str, str, str | None], str] = {
            (d.package, d.schema, d.name): d.message for d in catalog.deprecations
        }

    # -- conversions -------------------------------------------------------------------------
    def _deprecation(self, package: str, schema: str, name: str | None) -> pb.Deprecation | None:
        message = self.deprecated.get((package, schema, name))
        return pb.Deprecation(message=message) if message else None

    def api_bundle(self, placed: _Placed, *, with_edges: bool = True) -> pb.Bundle:
        bundle, entry = placed.bundle, placed.entry
        properties = [
            pb.Property(type=p.type, value=orjson.dumps(plain(p.value)).decode())
            for p in bundle.properties
            if p.type != BUNDLE_OBJECT
        ]
        dependencies = [
            pb.Dependency(type=kind, value=orjson.dumps(p.value).decode())
            for p in bundle.properties
            for required, kind in ((GVK_REQUIRED, "olm.gvk"), (PACKAGE_REQUIRED, "olm.package"))
            if p.type == required
        ]
        message = pb.Bundle(
            csvName=bundle.name,
            packageName=bundle.package,
            channelName=placed.channel.name,
            bundlePath=bundle.image,
            providedApis=[
                pb.GroupVersionKind(group=g.group, version=g.version, kind=g.kind)
                for g in bundle.provided_gvks
            ],
            requiredApis=[
                pb.GroupVersionKind(group=g.group, version=g.version, kind=g.kind)
                for g in bundle.required_gvks
            ],
            version=str(bundle.version),
            skipRange=entry.skip_range_text or "",
            dependencies=dependencies,
            properties=properties,
            replaces=(entry.replaces or "") if with_edges else "",
            skips=list(entry.skips) if with_edges else [],
        )
        deprecation = self._deprecation(bundle.package, "olm.bundle", bundle.name)
        if deprecation is not None:
            message.deprecation.CopyFrom(deprecation)
        return message

    @staticmethod
    def _entries(placed: _Placed, *, every_skip: bool) -> Iterator[pb.ChannelEntry]:
        entry = placed.entry
        base = {
            "packageName": placed.bundle.package,
            "channelName": placed.channel.name,
            "bundleName": entry.name,
        }
        yield pb.ChannelEntry(**base, replaces=entry.replaces or "")
        names = {e.name for e in placed.channel.entries}
        for skip in entry.skips:
            if skip != entry.replaces and (every_skip or skip in names):
                yield pb.ChannelEntry(**base, replaces=skip)

    def _find(self, package: str, channel: str, name: str | None) -> _Placed | None:
        if name is None:
            return self.heads.get((package, channel))
        return next(
            (
                p
                for p in self.placed
                if (p.bundle.package, p.channel.name, p.bundle.name) == (package, channel, name)
            ),
            None,
        )

    # -- the service -------------------------------------------------------------------------
    def ListPackages(self, request: Any, context: Any) -> Iterator[pb.PackageName]:
        for name in self.catalog.packages:
            yield pb.PackageName(name=name)

    def GetPackage(self, request: Any, context: Any) -> pb.Package:
        package = self.catalog.packages.get(request.name)
        if package is None:
            _not_found(context, f"package {request.name!r} not found")
        channels = []
        for channel in self.catalog.channels_of(request.name):
            head = self.heads.get(channel.key)
            message = pb.Channel(name=channel.name, csvName=head.bundle.name if head else "")
            deprecation = self._deprecation(request.name, "olm.channel", channel.name)
            if deprecation is not None:
                message.deprecation.CopyFrom(deprecation)
            channels.append(message)
        answer = pb.Package(
            name=package.name,
            channels=channels,
            defaultChannelName=package.default_channel or "",
        )
        deprecation = self._deprecation(request.name, "olm.package", None)
        if deprecation is not None:
            answer.deprecation.CopyFrom(deprecation)
        return answer

    def GetBundle(self, request: Any, context: Any) -> pb.Bundle:
        found = self._find(request.pkgName, request.channelName, request.csvName)
        if found is None:
            _not_found(
                context,
                f"package {request.pkgName!r}, channel {request.channelName!r}, bundle "
                f"{request.csvName!r} not found",
            )
        return self.api_bundle(found, with_edges=False)

    def GetBundleForChannel(self, request: Any, context: Any) -> pb.Bundle:
        found = self._find(request.pkgName, request.channelName, None)
        if found is None:
            _not_found(
                context,
                f"package {request.pkgName!r}, channel {request.channelName!r} not found",
            )
        return self.api_bundle(found, with_edges=False)

    def GetChannelEntriesThatReplace(self, request: Any, context: Any) -> Iterator[pb.ChannelEntry]:
        found = False
        for placed in self.placed:
            entry = placed.entry
            if entry.replaces == request.csvName or request.csvName in entry.skips:
                found = True
                yield pb.ChannelEntry(
                    packageName=placed.bundle.package,
                    channelName=placed.channel.name,
                    bundleName=entry.name,
                    replaces=entry.replaces or "",
                )
        if not found:
            _not_found(
                context,
                f"no channel entries found that replace {request.csvName}",
            )

    def GetBundleThatReplaces(self, request: Any, context: Any) -> pb.Bundle:
        for placed in self.placed:
            entry = placed.entry
            if (placed.bundle.package, placed.channel.name) == (
                request.pkgName,
                request.channelName,
            ) and (entry.replaces == request.csvName or request.csvName in entry.skips):
                return self.api_bundle(placed, with_edges=False)
        _not_found(
            context,
            f"no entry found for package {request.pkgName!r}, channel {request.channelName!r}",
        )

    def _providers(self, request: Any, placements: Iterator[_Placed]) -> Iterator[_Placed]:
        for placed in placements:
            if any(
                (g.group, g.version, g.kind) == (request.group, request.version, request.kind)
                for g in placed.bundle.provided_gvks
            ):
                yield placed

    def GetChannelEntriesThatProvide(self, request: Any, context: Any) -> Iterator[pb.ChannelEntry]:
        found = list(self._providers(request, iter(self.placed)))
        if not found:
            _not_found(context, f"no channel entries provide {request.kind}")
        for placed in found:
            yield from self._entries(placed, every_skip=True)

    def GetLatestChannelEntriesThatProvide(
        self, request: Any, context: Any
    ) -> Iterator[pb.ChannelEntry]:
        found = list(self._providers(request, iter(self.heads.values())))
        if not found:
            _not_found(context, f"no channel heads provide {request.kind}")
        for placed in found:
            yield from self._entries(placed, every_skip=False)

    def GetDefaultBundleThatProvides(self, request: Any, context: Any) -> pb.Bundle:
        heads = sorted(
            self._providers(request, iter(self.heads.values())), key=lambda p: p.bundle.package
        )
        for placed in heads:
            package = self.catalog.packages.get(placed.bundle.package)
            if package is not None and placed.channel.name == package.default_channel:
                return self.api_bundle(placed, with_edges=False)
        _not_found(context, f"no default bundle provides {request.kind}")

    def ListBundles(self, request: Any, context: Any) -> Iterator[pb.Bundle]:
        for placed in self.placed:
            yield self.api_bundle(placed)

    def ListPackageCustomSchemas(self, request: Any, context: Any) -> Iterator[Any]:
        return iter(())


def start_registry_server(
    catalog: Catalog, address: str = "127.0.0.1:0", *, workers: int = 4
) -> tuple[grpc.Server, int]:
    """Serve ``catalog`` at ``address`` (port 0: a free one); returns the server and its port.
    Stop it with ``server.stop(grace)``."""
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=workers),
        options=[("grpc.max_send_message_length", 256 << 20)],
    )
    rpc.add_RegistryServicer_to_server(RegistryService(catalog), server)  # type: ignore[no-untyped-call]
    try:
        port = server.add_insecure_port(address)
    except RuntimeError:
        port = 0
    if port == 0:
        raise InputError(
            f"address {address}", "cannot listen there", "give a free HOST:PORT on this machine"
        )
    server.start()
    return server, port
