"""A Catalog object loaded into the cache, and its status written.

Loading is skipped when the content's digest is unchanged. A load that fails leaves the last good
content in the cache and serving (``Ready`` False with the reason, ``Stale`` True naming the time
of the content served); the counts and digest in the status stay those of that content.
``Unavailable`` True only when there is no content to serve (it never loaded).
"""

from __future__ import annotations

import datetime
import logging
import time
from collections.abc import Mapping
from typing import Any

from deppy.controller.catalogs.cache import CatalogEntry
from deppy.controller.catalogs.sources import (
    PARSING,
    CatalogSource,
    catalog_source,
    config_map_files,
    digest_of,
    fetch_http,
    load_files,
    load_path,
)
from deppy.controller.conditions import now, set_condition
from deppy.controller.kube import ApiError, Body
from deppy.controller.registry_secrets import SecretError
from deppy.controller.runtime import Runtime
from deppy.errors import InputError

log = logging.getLogger("deppy.controller")
SHOWN_PROBLEMS = 5


def load_catalog(runtime: Runtime, body: Body, *, write: bool = True) -> bool:
    """Load (or keep) the Catalog's content; True when what the cache serves changed."""
    name = body["metadata"]["name"]
    try:
        source = catalog_source(body)
    except InputError as error:
        runtime.cache.failed(name, str(error))
        runtime.observe.catalog_invalid(body, str(error))
        if write:
            _write(runtime, body, "InvalidSpec", str(error), {})
        return True
    before = runtime.cache.digest(name)
    was_healthy = name in runtime.cache.entries and runtime.cache.entries[name].error is None
    clock = time.perf_counter()
    try:
        changed, fields = _load(runtime, source)
    except (OSError, InputError, ApiError) as error:
        served = bool((body.get("status") or {}).get("digest"))
        entry = catalog_failed(runtime, name, error, was_healthy=was_healthy, served=served)
        seconds = time.perf_counter() - clock
        runtime.observe.catalog_failed(body, str(error), entry.catalog, seconds)
        if write:
            kept = f" (serving the content loaded at {entry.loaded_at})" if entry.catalog else ""
            reason = "PullSecretInvalid" if isinstance(error, SecretError) else "LoadFailed"
            _write(runtime, body, reason, f"{error}{kept}", {"lastAttemptTime": now()})
        return was_healthy
    runtime.observe.catalog_loaded(body, before, fields, time.perf_counter() - clock)
    if write:
        _write(runtime, body, "Loaded", f"loaded from {source.where}", fields)
    return changed or before != runtime.cache.digest(name) or not was_healthy


def catch_up(runtime: Runtime) -> list[str]:
    """Load what another replica loaded since this one did. A standby loads the catalogs when it
    starts and then waits; when it takes over, its handlers run at once, in parallel with the
    Catalogs' own, and must not answer from the content of its start. The Catalog's status
    names the content served (its digest); when that is not what this process holds, it loads
    now — once per digest seen, so a source that is down is not asked again by every handler.
    The names whose served content changed: answers made from the old content are made again."""
    kube, cache = runtime.kube, runtime.cache
    changed = []
    for body in kube.list("catalogs"):
        name = body["metadata"]["name"]
        served = (body.get("status") or {}).get("digest")
        if not served or served == cache.digest(name) or runtime.caught_up.get(name) == served:
            continue
        with runtime.catch_up_lock:
            if served == cache.digest(name) or runtime.caught_up.get(name) == served:
                continue  # another handler loaded it meanwhile
            runtime.caught_up[name] = served
            log.info("catalog %s: loading the content another replica served (%s)", name, served)
            if load_catalog(runtime, body):
                changed.append(name)
    return changed


def catalog_failed(
    runtime: Runtime,
    name: str,
    error: Exception,
    *,
    was_healthy: bool,
    served: bool = False,
    kind: str = "Catalog",
) -> CatalogEntry:
    """A load failed: the last good content (if any) keeps serving, and the answers that use it
    will say ``CatalogStale``. ``was_healthy``: this is the moment the catalog went stale.
    ``served``: an earlier controller served content (the status has a digest), so the answers
    made from it wait for this process to load it rather than becoming unavailable."""
    entry = runtime.cache.failed(name, str(error), served_before=served, kind=kind)
    if was_healthy and entry.catalog is not None:
        log.warning(
            "%s %s is stale: %s (serving the content of %s)",
            kind,
            name,
            error,
            entry.loaded_at,
        )
    else:
        log.warning("%s %s: %s", kind, name, error)
    return entry


def _load(runtime: Runtime, source: CatalogSource) -> tuple[bool, dict[str, Any]]:
    with PARSING:  # one catalog fetched and parsed at a time (``sources.PARSING``)
        return _load_now(runtime, source)


def _load_now(runtime: Runtime, source: CatalogSource) -> tuple[bool, dict[str, Any]]:
    cache = runtime.cache
    if source.kind == "path":
        from deppy.controller.catalogs.sources import directory_digest

        digest = directory_digest(source.path) if _exists(source.path) else ""
        if (
            digest
            and digest == cache.digest(source.name)
            and cache.reprioritised(source.name, source.priority)
        ):
            return False, content_fields(runtime, source.name)
        catalog, digest = load_path(source)
    elif source.kind == "image":
        from deppy.controller.catalogs.images import load_image

        loaded, resolved = load_image(runtime, source)
        if loaded:
            release_memory()
        return loaded, {**content_fields(runtime, source.name), **resolved}
    else:
        if source.kind == "http":
            files = fetch_http(source.url)
        else:
            maps = []
            for map_name in source.config_maps:
                found = runtime.kube.get("configmaps", map_name, source.namespace)
                if found is None:
                    raise OSError(f"ConfigMap {source.namespace}/{map_name} does not exist")
                maps.append(found)
            files = config_map_files(maps)
        digest = digest_of(files)
        if digest == cache.digest(source.name) and cache.reprioritised(
            source.name, source.priority
        ):
            cache.entries[source.name].error = None
            return False, content_fields(runtime, source.name)
        catalog = load_files(source, files)
        del files
    cache.loaded(source.name, catalog, digest, now())
    release_memory()
    return True, content_fields(runtime, source.name)


def release_memory() -> None:
    """Give back what a load left behind: the raw body and parse garbage (tens of MB for a full
    catalog) would otherwise stay in the process's heap."""
    import contextlib
    import ctypes
    import ctypes.util
    import gc

    gc.collect()
    name = ctypes.util.find_library("c")
    if name:
        with contextlib.suppress(OSError, AttributeError):  # not glibc
            ctypes.CDLL(name).malloc_trim(0)


def _exists(path: str) -> bool:
    from pathlib import Path

    return Path(path).exists()


def content_fields(runtime: Runtime, name: str) -> dict[str, Any]:
    """What a Catalog's status says of the content served (counts, digest, load times)."""
    entry = runtime.cache.entries[name]
    catalog = entry.catalog
    assert catalog is not None
    return {
        "packages": len(catalog.packages),
        "bundles": len(catalog.bundles),
        "problems": len(catalog.problems),
        "firstProblems": [str(p) for p in catalog.problems[:SHOWN_PROBLEMS]],
        "digest": entry.digest,
        "lastLoadTime": entry.loaded_at,
        "lastAttemptTime": now(),
    }


def _write(
    runtime: Runtime, body: Body, reason: str, message: str, fields: Mapping[str, Any]
) -> None:
    generation = body["metadata"].get("generation", 0)
    ready = reason == "Loaded"
    entry = runtime.cache.entries.get(body["metadata"]["name"])
    serving = entry is not None and entry.catalog is not None
    stale = not ready and serving

    def compute(current: Body) -> Body | None:
        old = (current.get("status") or {}).get("conditions")
        conditions = set_condition(old, "Ready", ready, reason, message, generation=generation)
        conditions = set_condition(
            conditions,
            "Unavailable",
            not ready and not serving,
            reason,
            "" if ready or serving else message,
            generation=generation,
        )
        conditions = set_condition(
            conditions,
            "Stale",
            stale,
            reason if stale else "Fresh",
            message if stale else "",
            generation=generation,
        )
        return {**fields, "observedGeneration": generation, "conditions": conditions}

    runtime.kube.update_status("catalogs", body["metadata"]["name"], None, compute)


def poll_due(body: Body, *, at: datetime.datetime | None = None) -> bool:
    """An http, image or configMap Catalog whose poll interval has passed since the last
    attempt."""
    try:
        source = catalog_source(body)
    except InputError:
        return False
    last = (body.get("status") or {}).get("lastAttemptTime")
    if not last:
        return True
    moment = at or datetime.datetime.now(datetime.UTC)
    then = datetime.datetime.strptime(last, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.UTC)
    polled = source.kind in ("http", "image")
    interval = source.poll_seconds if polled else min(source.poll_seconds, 60.0)
    return (moment - then).total_seconds() >= interval
