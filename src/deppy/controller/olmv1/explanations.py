"""Where OLM v1 gives up: deppy's explanation, and a way out it has seen work, as an Event.

operator-controller says only that it found no bundle (``Progressing`` with reason
``Retrying``, or a message "no bundles found"). For any ClusterExtension in that state,
whoever wrote it, deppy resolves the same question against the same ClusterCatalogs (those
its selector names by ``olm.operatorframework.io/metadata.name``, else every ClusterCatalog):
the package, the version range, the channel, what is installed now. When that has no answer,
the Event says why (deppy's explanation) and gives a way out deppy resolved: the version (and
channel) to write, with the ``kubectl patch`` that writes it. When deppy finds a bundle OLM v1
did not, the Event names it. The Event is posted once per change of the answer, deduplicated as
deppy's other Events are; deppy never writes a ClusterExtension's spec or status.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from deppy.catalog.semver import Version, VersionRange
from deppy.controller.catalogs.cluster_catalogs import KIND
from deppy.controller.kube import ApiError, Body
from deppy.controller.olmv1.extensions import (
    CATALOG_NAME_LABEL,
    conditions_of,
    installed_version,
    package_of,
)
from deppy.controller.runtime import Runtime
from deppy.errors import InputError
from deppy.explain import explanation_as_dict
from deppy.resolution.answer import Resolution
from deppy.resolution.request import InstalledBundle, RequiredPackage, ResolutionRequest
from deppy.resolution.request_parsing import required_from_parts
from deppy.solver import SolveTimeout
from deppy.workflows.resolve import resolve_with_options

log = logging.getLogger("deppy.controller")
REASON = "NoBundleExplained"
TIMEOUT = 10.0


def troubled(body: Mapping[str, Any]) -> bool:
    """operator-controller could not resolve it: it says so in ``Progressing``."""
    found = conditions_of(body).get("Progressing") or {}
    message = str(found.get("message") or "").lower()
    return found.get("reason") == "Retrying" or "no bundles found" in message


def explain_all(runtime: Runtime) -> None:
    """Every troubled ClusterExtension looked at again (the catalogs' content changed)."""
    try:
        found = runtime.kube.list("clusterextensions")
    except ApiError as error:
        if error.status == 404:
            return  # OLM v1 is not installed
        raise
    for body in found:
        explain(runtime, body)


def explain(runtime: Runtime, body: Body) -> None:
    """Post deppy's explanation on ``body`` when OLM v1 finds no bundle for it (once per
    change of the answer)."""
    if not troubled(body):
        runtime.observe.explained(body, "", "", way_out=False)
        return
    try:
        message, way_out = _answer(runtime, body)
    except SolveTimeout:
        message, way_out = f"deppy: no answer within {TIMEOUT:g} s", False
    except InputError as error:
        message, way_out = f"deppy cannot read it: {error}", False
    runtime.observe.explained(body, REASON, message, way_out)


def _request(runtime: Runtime, body: Body) -> tuple[ResolutionRequest, list[str], str]:
    name = str(body["metadata"]["name"])
    where = f"ClusterExtension {name}: spec.source.catalog"
    catalog = ((body.get("spec") or {}).get("source") or {}).get("catalog") or {}
    package = package_of(body)
    if not package:
        raise InputError(f"{where}.packageName", "is missing")
    labels = ((catalog.get("selector") or {}).get("matchLabels")) or {}
    named = labels.get(CATALOG_NAME_LABEL)
    names = [str(named)] if named else runtime.cache.names_of_kind(KIND)
    channels = [str(c) for c in catalog.get("channels") or ()]
    versions = str(catalog.get("version") or "").replace(",", " ")
    required = required_from_parts(
        package,
        versions or None,
        channel=channels[0] if len(channels) == 1 else None,
        catalog=str(named) if named else None,
        where=f"{where}.version",
        text=f"ClusterExtension {name}",
    )
    installed: tuple[InstalledBundle, ...] = ()
    now = installed_version(body)
    if now:
        bundle = ((body.get("status") or {}).get("install") or {}).get("bundle") or {}
        installed = (
            InstalledBundle(
                package,
                Version.parse_tolerant(now),
                bundle=str(bundle.get("name") or "") or None,
                text=f"ClusterExtension {name}: status.install.bundle",
            ),
        )
    request = ResolutionRequest(required=(required,), installed=installed, cluster=runtime.cluster)
    return request, names, name


def _answer(runtime: Runtime, body: Body) -> tuple[str, bool]:
    request, names, name = _request(runtime, body)
    view = runtime.cache.view(names)
    source = view.source
    if source is None:
        why = "; ".join(f"{n}: {w}" for n, w in view.unavailable) or "no ClusterCatalog is loaded"
        return f"deppy has no content of the ClusterCatalogs it selects ({why})", False
    shown = ", ".join(n for n, _ in view.used)

    def resolve(changed: ResolutionRequest) -> Resolution:
        return resolve_with_options(source, changed, timeout=TIMEOUT, pipeline=None, trace=None)

    resolution = resolve(request)
    package = request.required[0].package
    if resolution.resolved:
        picked = _picked(resolution, package)
        return (
            f"deppy finds {picked} for this spec in ClusterCatalog(s) {shown}; OLM v1 may be "
            "reading other content (catalogd not serving the newest yet)",
            True,
        )
    summary = resolution.explanation.summary if resolution.explanation else "no answer"
    way_out = _way_out(resolution, request, resolve, package)
    if way_out is None:
        return f"deppy: {summary} (ClusterCatalogs {shown}); deppy found no way out", False
    version, channel = way_out
    patch = {"spec": {"source": {"catalog": {"version": version, "channels": [channel]}}}}
    return (
        f"deppy: way out: set spec.source.catalog.version to {version!r} and channels to "
        f"[{channel}] (deppy resolved it against ClusterCatalogs {shown}): kubectl patch "
        f"clusterextension {name} --type merge -p '{json.dumps(patch, separators=(',', ':'))}'. "
        f"Why: {summary}",
        True,
    )


def _picked(resolution: Resolution, package: str) -> str:
    for item in resolution.selection or ():
        if item.package == package:
            return f"{package} {item.version} (channel {item.channel}, catalog {item.catalog})"
    return package


def _way_out(
    resolution: Resolution,
    request: ResolutionRequest,
    resolve: Any,
    package: str,
) -> tuple[str, str] | None:
    """(version, channel) a changed request resolves to: deppy's own suggestions first (each
    already seen to resolve), else the requirement without its version range and channel."""
    tries: list[RequiredPackage] = []
    if resolution.explanation is not None:
        for shown in explanation_as_dict(resolution.explanation).get("suggestions") or ():
            change = shown.get("change") or {}
            fields = change.get("requirement") or {}
            if change.get("kind") == "replace-requirement" and fields.get("name") == package:
                tries.append(
                    required_from_parts(
                        package,
                        fields.get("versionRange"),
                        channel=fields.get("channel"),
                        catalog=fields.get("catalog"),
                        where="suggestion",
                    )
                )
    old = request.required[0]
    tries.append(replace(old, versions=VersionRange.any(), versions_text="", channel=None))
    for required in tries:
        try:
            answer = resolve(replace(request, required=(required,)))
        except (InputError, SolveTimeout):
            continue
        for item in answer.selection or () if answer.resolved else ():
            if item.package == package and item.channel:
                return str(item.version), str(item.channel)
    return None
