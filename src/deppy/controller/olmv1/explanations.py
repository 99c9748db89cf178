"""Where OLM v1 gives up: deppy's explanation, and a way out it has seen work, as an Event.

operator-controller says only that it found no bundle (``Progressing`` with reason
``Retrying``, or a message "no bundles found"). For any ClusterExtension in that state,
whoever wrote it, deppy resolves the same ClusterExtension with OLM v1's rules
(``resolution.olmv1.request``: its channels, version constraint, upgrade policy, installed
bundle, and the ClusterCatalogs its selector picks, with their priorities) against the content
of those ClusterCatalogs. When that has no answer, the Event says why (deppy's explanation)
and gives a way out: the version and channel to write, with the ``kubectl patch`` that writes
them — the changed ClusterExtension resolved again with OLM v1's rules before it is shown.
When deppy finds a bundle operator-controller did not, the Event names it. When OLM v1 chose
a bundle and refused it because it declares a dependency (its ``NoDependencyValidation``), the
Event (``DependencyRefused``) names the property, what deppy would install to satisfy it, and
the way out: a resolved catalog. The Event is posted once per change of the answer,
deduplicated as deppy's other Events are; deppy never writes a ClusterExtension's spec or
status.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

from deppy.catalog.olmv1 import refused_property
from deppy.controller.catalogs.cluster_catalogs import KIND, list_cluster_catalogs
from deppy.controller.kube import ApiError, Body
from deppy.controller.olmv1.extensions import conditions_of
from deppy.controller.runtime import Runtime
from deppy.errors import InputError
from deppy.explain import explanation_as_dict
from deppy.resolution.answer import Resolution
from deppy.resolution.olmv1 import (
    ClusterCatalogFacts,
    catalog_from_object,
    extension_from_object,
    nothing_walked,
)
from deppy.resolution.request import ResolutionRequest
from deppy.solver import SolveTimeout
from deppy.workflows.resolve import resolve_with_options

log = logging.getLogger("deppy.controller")
REASON = "NoBundleExplained"
REFUSED_REASON = "DependencyRefused"
REFUSED_WAY_OUT = (
    "way out: install it through deppy: an olm-v1 Input whose ProvisionerClass has "
    "parameters.resolvedCatalog (deppy publishes the bundles that declare dependencies in a "
    "resolved catalog and installs the whole plan), or deppy resolve -f CLUSTEREXTENSION.yaml "
    "-o clusterextensions --resolved-catalog docker://HOST/REPO | kubectl apply -f -"
)
TIMEOUT = 10.0


def troubled(body: Mapping[str, Any]) -> bool:
    """operator-controller could not resolve it: it says so in ``Progressing``."""
    found = conditions_of(body).get("Progressing") or {}
    message = str(found.get("message") or "").lower()
    return found.get("reason") == "Retrying" or "no bundles found" in message


def refused_for(body: Mapping[str, Any]) -> str | None:
    """The dependency property OLM v1 refused the chosen bundle for, from ``Progressing``."""
    found = conditions_of(body).get("Progressing") or {}
    return refused_property(str(found.get("message") or ""))


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
    refused = refused_for(body)
    reason = REASON if refused is None else REFUSED_REASON
    try:
        if refused is not None:
            message, way_out = _refused_answer(runtime, body, refused)
        else:
            message, way_out = _answer(runtime, body)
    except SolveTimeout:
        message, way_out = f"deppy: no answer within {TIMEOUT:g} s", False
    except InputError as error:
        message, way_out = f"deppy cannot read it: {error}", False
    runtime.observe.explained(body, reason, message, way_out)


def _facts(runtime: Runtime) -> list[ClusterCatalogFacts]:
    """The ClusterCatalogs whose content deppy holds: labels, priority, availability."""
    loaded = set(runtime.cache.names_of_kind(KIND))
    facts = []
    for body in list_cluster_catalogs(runtime.kube):
        name = str(body["metadata"]["name"])
        if name in loaded:
            facts.append(catalog_from_object(body, f"ClusterCatalog {name}"))
    return facts


def _with_catalog(body: Body, **fields: Any) -> dict[str, Any]:
    """``body`` with ``spec.source.catalog`` fields changed (a copy: deppy never writes it)."""
    spec = dict(body.get("spec") or {})
    source = dict(spec.get("source") or {})
    source["catalog"] = {**(source.get("catalog") or {}), **fields}
    return {**body, "spec": {**spec, "source": source}}


def _request_of(
    runtime: Runtime, extension: Mapping[str, Any], name: str, facts: list[ClusterCatalogFacts]
) -> ResolutionRequest:
    """``extension`` (the ClusterExtension ``name``, or a changed copy) as an OLM v1 request."""
    required = extension_from_object(extension, f"ClusterExtension {name}", facts)
    return ResolutionRequest(required=(required,), cluster=runtime.cluster, rules="olmv1")


def _refused_answer(runtime: Runtime, body: Body, refused: str) -> tuple[str, bool]:
    """OLM v1 refused the bundle it chose for declaring ``refused``: what deppy installs to
    satisfy the bundle's dependencies (resolved with OLM v1's rules), and the way out."""
    request = _request_of(runtime, body, str(body["metadata"]["name"]), _facts(runtime))
    package = request.required[0].package
    terms = request.required[0].extension
    names = [c.name for c in terms.catalogs] if terms is not None else []
    view = runtime.cache.view(names) if names else None
    source = view.source if view is not None else None
    head = f"OLM v1 refuses the bundle it chose for {package}: it declares {refused}"
    if view is None or source is None:
        return f"{head}; deppy has no content of the ClusterCatalogs it selects", False
    resolution = resolve_with_options(source, request, timeout=TIMEOUT, pipeline=None, trace=None)
    if not resolution.resolved:
        summary = resolution.explanation.summary if resolution.explanation else "no answer"
        return f"{head}; deppy cannot resolve its dependencies either: {summary}", False
    chosen = _picked(resolution, package)
    needs = [
        f"{item.package} {item.version} (catalog {item.catalog})"
        for item in resolution.selection or ()
        if item.package != package
    ]
    satisfied = (
        f"deppy satisfies it with {', '.join(needs)}" if needs else "deppy needs nothing more"
    )
    return f"{head} ({chosen}); {satisfied}; {REFUSED_WAY_OUT}", True


def _answer(runtime: Runtime, body: Body) -> tuple[str, bool]:
    name = str(body["metadata"]["name"])
    facts = _facts(runtime)

    def request_of(extension: Mapping[str, Any]) -> ResolutionRequest:
        return _request_of(runtime, extension, name, facts)

    request = request_of(body)
    terms = request.required[0].extension
    names = [c.name for c in terms.catalogs] if terms is not None else []
    if terms is not None and not names:  # the selector walks no catalog: say which and why
        return (
            f"deppy: {nothing_walked(terms)}; a selector naming one, or none, is the way out",
            False,
        )
    view = runtime.cache.view(names) if names else None
    source = view.source if view is not None else None
    if view is None or source is None:
        why = "; ".join(f"{n}: {w}" for n, w in view.unavailable) if view is not None else ""
        return f"deppy has no content of the ClusterCatalogs it selects ({why or 'none'})", False
    shown = ", ".join(n for n, _ in view.used)

    def resolve(changed: ResolutionRequest) -> Resolution:
        return resolve_with_options(source, changed, timeout=TIMEOUT, pipeline=None, trace=None)

    resolution = resolve(request)
    package = request.required[0].package
    if resolution.resolved:
        return (
            f"deppy finds {_picked(resolution, package)} for this spec with OLM v1's rules in "
            f"ClusterCatalog(s) {shown}; operator-controller may be reading older content",
            True,
        )
    summary = resolution.explanation.summary if resolution.explanation else "no answer"
    way_out = _way_out(resolution, body, request_of, resolve, package)
    if way_out is None:
        return f"deppy: {summary} (ClusterCatalogs {shown}); deppy found no way out", False
    version, channel = way_out
    patch = {"spec": {"source": {"catalog": {"version": version, "channels": [channel]}}}}
    return (
        f"deppy: way out: set spec.source.catalog.version to {version!r} and channels to "
        f"[{channel}] (resolved with OLM v1's rules against ClusterCatalogs {shown}): kubectl "
        f"patch clusterextension {name} --type merge -p "
        f"'{json.dumps(patch, separators=(',', ':'))}'. Why: {summary}",
        True,
    )


def _picked(resolution: Resolution, package: str) -> str:
    for item in resolution.selection or ():
        if item.package == package:
            return f"{package} {item.version} (channel {item.channel}, catalog {item.catalog})"
    return package


def _way_out(
    resolution: Resolution,
    body: Body,
    request_of: Callable[[Mapping[str, Any]], ResolutionRequest],
    resolve: Callable[[ResolutionRequest], Resolution],
    package: str,
) -> tuple[str, str] | None:
    """(version, channel) to write: deppy's suggestions first, else the ClusterExtension
    without its version and channels; each tried as the changed ClusterExtension under OLM v1's
    rules, and the exact pin it gives tried again — a way out deppy has seen work."""
    tries: list[dict[str, Any]] = []
    if resolution.explanation is not None:
        for shown in explanation_as_dict(resolution.explanation).get("suggestions") or ():
            change = shown.get("change") or {}
            fields = change.get("requirement") or {}
            if change.get("kind") == "replace-requirement" and fields.get("name") == package:
                channel = fields.get("channel")
                tries.append(
                    {
                        "version": fields.get("versionRange"),
                        **({"channels": [channel]} if channel else {}),
                    }
                )
    tries.append({"version": None, "channels": None})
    for fields in tries:
        clean = {k: v for k, v in fields.items() if v is not None}
        dropped = [k for k, v in fields.items() if v is None]
        changed = _with_catalog(body, **clean)
        catalog = changed["spec"]["source"]["catalog"]
        for key in dropped:
            catalog.pop(key, None)
        try:
            answer = resolve(request_of(changed))
        except (InputError, SolveTimeout):
            continue
        picked = next(
            (i for i in answer.selection or () if i.package == package and i.channel), None
        )
        if not answer.resolved or picked is None:
            continue
        pinned = _with_catalog(body, version=str(picked.version), channels=[str(picked.channel)])
        try:
            if resolve(request_of(pinned)).resolved:
                return str(picked.version), str(picked.channel)
        except (InputError, SolveTimeout):
            continue
    return None
