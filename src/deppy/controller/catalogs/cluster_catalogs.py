"""OLM v1's ClusterCatalogs as catalogs: read, loaded and kept like deppy's own Catalogs.

catalogd unpacks a ClusterCatalog's image and serves the whole catalog as one JSON stream at
``status.urls.base`` + ``/api/v1/all``; ``status.resolvedSource.image.ref`` names the content
(the image's digest). The controller loads that stream when the ClusterCatalog says it is
serving and its digest is not the one loaded — never on a timer: catalogd polls the image, and
a new digest is what says the content changed. The cache keeps the digest as the content's
``digest``, so Inputs and ActiveResolutions name a ClusterCatalog like a Catalog and see which
content answered them.

The ClusterCatalog's spec and status belong to catalogd: the controller never writes them.
What it has to say (a load failed, the stream is garbage, the digest changed while it loaded, a
deppy Catalog already has that name) is an Event on the ClusterCatalog and, for the answers that
use it, the ``CatalogStale`` / ``CatalogUnavailable`` conditions the Catalogs' outages give:
a load that fails keeps the last good content serving. ``spec.priority`` is the catalog's
priority; ``spec.availabilityMode: Unavailable`` withdraws the content (as OLM v1 then does).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from deppy.catalog.model import Catalog
from deppy.controller.catalogs.cache import CatalogEntry
from deppy.controller.catalogs.sources import (
    PARSING,
    CatalogSource,
    digest_of,
    fetch_http,
    load_files,
)
from deppy.controller.conditions import now
from deppy.controller.fields import mapping, name_in, text
from deppy.controller.kube import ApiError, Body, Kube
from deppy.controller.runtime import Runtime
from deppy.errors import InputError, json_type
from deppy.workflows.olmv1 import RESOLVED_CATALOG_LABEL

log = logging.getLogger("deppy.controller")
KIND = "ClusterCatalog"
ALL_PATH = "/api/v1/all"
MID_LOAD_TRIES = 3  # the digest changed while the stream was read: read it again, this often
RETRY_SECONDS = 30.0  # a failed load of one digest is tried again at most this often
_loading = PARSING  # one catalog load at a time, Catalogs' included (they are memory-heavy)


@dataclass(frozen=True, slots=True)
class Served:
    """What a ClusterCatalog offers now: where its content is, and which content it is."""

    name: str
    priority: int
    url: str  # base + /api/v1/all; "" when it is not serving
    ref: str  # status.resolvedSource.image.ref: the content's digest
    available: bool  # spec.availabilityMode is not Unavailable
    why_not: str = ""  # why there is nothing to load now


def _serving(status: Mapping[str, Any]) -> tuple[bool, str]:
    for found in status.get("conditions") or ():
        if isinstance(found, Mapping) and found.get("type") == "Serving":
            if found.get("status") == "True":
                return True, ""
            return False, f"{found.get('reason') or 'not serving'}: {found.get('message') or ''}"
    return False, "catalogd has not said it serves it yet (no Serving condition)"


def served(body: Mapping[str, Any]) -> Served:
    """The ClusterCatalog's fields, checked (an InputError names the field)."""
    name = name_in(body)[1]
    where = f"ClusterCatalog {name}"
    spec = mapping(body.get("spec"), f"{where}: spec")
    priority = spec.get("priority", 0)
    if isinstance(priority, bool) or not isinstance(priority, int):
        raise InputError(
            f"{where}: spec.priority", f"expected an integer, found {json_type(priority)}"
        )
    mode = text(spec.get("availabilityMode"), f"{where}: spec.availabilityMode", "Available")
    if mode == "Unavailable":
        why = f"ClusterCatalog {name} has spec.availabilityMode Unavailable"
        return Served(name, priority, "", "", False, why)
    status = mapping(body.get("status"), f"{where}: status")
    base = text(mapping(status.get("urls"), f"{where}: status.urls").get("base"), "")
    source = mapping(status.get("resolvedSource"), f"{where}: status.resolvedSource")
    image = mapping(source.get("image"), f"{where}: status.resolvedSource.image")
    ref = text(image.get("ref"), f"{where}: status.resolvedSource.image.ref")
    serving, why = _serving(status)
    if not serving or not base or not ref:
        why = why or "catalogd has not written status.urls.base and resolvedSource yet"
        return Served(name, priority, "", ref, True, f"ClusterCatalog {name} is not serving: {why}")
    if not base.startswith(("http://", "https://")):
        raise InputError(
            f"{where}: status.urls.base", f"expected an http(s):// URL, found {base!r}"
        )
    return Served(name, priority, base.rstrip("/") + ALL_PATH, ref, True)


def resolved_catalog(body: Body) -> bool:
    """A resolved catalog deppy published (``deppy.io/resolved-catalog``): only the plan's own
    ClusterExtensions install from it; deppy never resolves against it (its bundles' dependency
    properties are records of answers deppy already gave)."""
    labels = (body.get("metadata") or {}).get("labels") or {}
    return labels.get(RESOLVED_CATALOG_LABEL) == "true"


def list_cluster_catalogs(kube: Kube) -> list[Body]:
    """Every ClusterCatalog but deppy's resolved catalogs; none when OLM v1 is not installed
    (its kinds are not served)."""
    try:
        return [b for b in kube.list("clustercatalogs") if not resolved_catalog(b)]
    except ApiError as error:
        if error.status == 404:
            return []
        raise


def load_cluster_catalog(runtime: Runtime, body: Body) -> bool:
    """Load (or keep) the ClusterCatalog's content; True when what the cache serves changed."""
    from deppy.controller.catalogs.loading import catalog_failed, content_fields, release_memory

    cache, observe = runtime.cache, runtime.observe
    if resolved_catalog(body):
        return False
    name = str(body["metadata"]["name"])
    if cache.kind_of(name) == "Catalog":
        observe.catalog_invalid(
            body,
            f"ClusterCatalog {name}: a deppy Catalog has the same name and is the one used; "
            "rename one of them",
        )
        return False
    try:
        offer = served(body)
    except InputError as error:
        entry = cache.entries.get(name)
        if entry is not None and entry.error == str(error):
            return False
        cache.failed(name, str(error), kind=KIND)
        observe.catalog_invalid(body, str(error))
        return True
    entry = cache.entries.get(name)
    if not offer.available or not offer.url:
        if entry is not None and entry.catalog is not None and offer.available:
            return False  # catalogd is unpacking or failing: the content loaded stays
        if entry is not None and entry.catalog is None and entry.error == offer.why_not:
            return False
        cache.withdrawn(name, offer.why_not, KIND)
        if not offer.available:
            observe.catalog_failed(body, offer.why_not, None, 0.0)
        return True
    if entry is not None and entry.catalog is not None and entry.digest == offer.ref:
        if entry.catalog.priority == offer.priority:
            return False
        return cache.reprioritised(name, offer.priority)
    tried = runtime.cluster_catalogs_tried.get(name)
    if tried is not None and tried[0] == offer.ref and time.monotonic() - tried[1] < RETRY_SECONDS:
        return False  # this digest failed a moment ago: not again at every event
    with _loading:
        entry = cache.entries.get(name)
        if entry is not None and entry.catalog is not None and entry.digest == offer.ref:
            return False  # another handler loaded it meanwhile
        was_healthy = entry is not None and entry.catalog is not None and entry.error is None
        before = entry.digest if entry is not None else ""
        runtime.cluster_catalogs_tried[name] = (offer.ref, time.monotonic())
        clock = time.perf_counter()
        try:
            catalog, ref, content = _fetch_stable(runtime.kube, offer, entry)
        except (OSError, InputError, ApiError) as error:
            failed = catalog_failed(runtime, name, error, was_healthy=was_healthy, kind=KIND)
            observe.catalog_failed(body, str(error), failed.catalog, time.perf_counter() - clock)
            return was_healthy
        cache.loaded(name, catalog, ref, now(), kind=KIND, content=content)
        release_memory()
        runtime.cluster_catalogs_tried.pop(name, None)
        fields = content_fields(runtime, name)
        observe.catalog_loaded(body, before, fields, time.perf_counter() - clock)
        log.info("ClusterCatalog %s: loaded %s (%s bundles)", name, ref, fields["bundles"])
        return True


def _fetch_stable(kube: Kube, offer: Served, held: CatalogEntry | None) -> tuple[Catalog, str, str]:
    """The content at ``offer.url`` (catalog, digest named, sha256 of the bytes), read whole
    while the ClusterCatalog's digest stayed the same (read before and after): a stream read
    across a change of digest could be either. Bytes equal to the content ``held`` (a new
    image of the same catalog) keep the catalog already parsed."""
    for _attempt in range(MID_LOAD_TRIES):
        files = fetch_http(offer.url)
        current = kube.get("clustercatalogs", offer.name)
        if current is None:
            raise OSError(f"ClusterCatalog {offer.name} was deleted while it loaded")
        now_offer = served(current)
        if now_offer.ref == offer.ref and now_offer.url == offer.url:
            content = digest_of(files)
            if held is not None and held.catalog is not None and held.content == content:
                catalog = held.catalog
                if catalog.priority != offer.priority:
                    catalog = dataclasses.replace(catalog, priority=offer.priority)
                return catalog, offer.ref, content
            source = CatalogSource(offer.name, offer.priority, "http", url=offer.url)
            return load_files(source, files), offer.ref, content
        log.info(
            "ClusterCatalog %s: its digest changed while it loaded (%s, now %s); reading again",
            offer.name,
            offer.ref,
            now_offer.ref or "none",
        )
        if not now_offer.url:
            raise OSError(f"{now_offer.why_not} (it stopped serving while it loaded)")
        offer = now_offer
    raise OSError(
        f"ClusterCatalog {offer.name}: its digest changed {MID_LOAD_TRIES} times while it "
        "loaded; it is loaded once it holds still"
    )


def catch_up_cluster_catalogs(runtime: Runtime) -> list[str]:
    """Every ClusterCatalog whose served digest is not the one loaded (a missed event, a failed
    load whose retry is due, a replica taking over): loaded now. The names whose content or
    health changed."""
    changed = []
    for body in list_cluster_catalogs(runtime.kube):
        if load_cluster_catalog(runtime, body):
            changed.append(str(body["metadata"]["name"]))
    return changed
