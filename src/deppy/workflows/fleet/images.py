"""The catalogs a fleet's exports name as images, read once by the command before any worker
starts (``fleet plan`` with no ``--catalog``).

Each export's CatalogSources and ClusterCatalogs are found as ``resolve --cluster`` finds them
(``deppy.cluster.catalog_endpoints``: a CatalogSource's image at the digest its registry pod
ran, a ClusterCatalog's at the digest catalogd serves). Each distinct image is pulled once per
run, with the command's registry options, into deppy's cache and named to the workers by the
directory it was unpacked to (a worker needs no registry, no credentials and no
``--tls-verify``; the parsed-catalog cache of that directory is shared as for any ``--catalog
DIR``). Clusters that name the same images share one catalog set, and one planner per worker.

A cluster whose exports name no image keeps the stored catalogs, as before; a live cluster
(``context:NAME``) too. An image that cannot be read is one warning naming the object and the
reference, once per run; the cluster is planned with its other catalogs, and a cluster with
none left is that cluster's error record.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import orjson

from deppy.cluster import ClusterState, catalog_endpoints, read_cluster_files
from deppy.cluster.export import EXPORT_KIND
from deppy.cluster.objects import sort_key
from deppy.errors import DeppyError
from deppy.workflows.fleet.inputs import ClusterRef

__all__ = ["image_catalog_sets"]

Pulled = dict[str, str | None]
"""Each image reference read this run: the catalog path the workers get, None: unreadable."""


def image_catalog_sets(
    refs: Sequence[ClusterRef], warn: Callable[[str], None]
) -> tuple[tuple[tuple[str, ...], ...], list[ClusterRef]]:
    """The catalog sets the exports' images make, and the references with each export's set
    (``ClusterRef.catalog_set``); references of no image returned as they were."""
    pulled: Pulled = {}
    sets: dict[tuple[str, ...], int] = {}  # each set and its number, in first-use order
    planned: list[ClusterRef] = []
    for ref in refs:
        state = _state(ref)
        specs, failed = _specs(state, pulled, warn) if state is not None else ([], 0)
        if not specs and not failed:
            planned.append(ref)  # no image: the stored catalogs, as before
        elif not specs:
            planned.append(
                ClusterRef(
                    ref.index,
                    ref.name,
                    problem=f"none of its {failed} catalog images could be read (the warnings "
                    "name them); give --catalog PATH=NAME for each catalog the Subscriptions name",
                )
            )
        else:
            number = sets.setdefault(tuple(specs), len(sets))
            planned.append(replace(ref, catalog_set=number))
    return tuple(sets), planned


def _state(ref: ClusterRef) -> ClusterState | None:
    if ref.path is None or ref.problem is not None:
        return None  # a live cluster, or one the worker reports as unreadable
    if ref.path.endswith(".json"):
        quick = _catalog_objects(ref.path)
        if quick is not None:
            return quick
    try:
        return read_cluster_files(ref.path)
    except DeppyError:
        return None  # the worker reads it again and makes the error its record


QUICK_BYTES = 64 << 20
"""Larger exports are read whole (with the input limits' words for one too large)."""


def _catalog_objects(path: str) -> ClusterState | None:
    """A JSON export's catalog objects alone, sorted as a full read sorts them, from one
    parse: the full read checks every object, ~3x the time (~1 s of 10,000 exports, before
    any worker starts). None: read it whole (not a JSON export, or too large)."""
    try:
        if os.path.getsize(path) > QUICK_BYTES:
            return None
        with open(path, "rb") as file:
            data = orjson.loads(file.read())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(data, dict) or data.get("kind") != EXPORT_KIND:
        return None

    def objects(key: str) -> tuple[dict[str, Any], ...]:
        found = data.get(key)
        listed = found if isinstance(found, list) else []
        kept = {
            sort_key(o): o
            for o in listed
            if isinstance(o, dict) and isinstance(o.get("metadata"), dict)
        }  # one object per namespace and name, the last, as the full read keeps them
        return tuple(kept[key] for key in sorted(kept))

    return ClusterState(
        path, catalog_sources=objects("catalogSources"), cluster_catalogs=objects("clusterCatalogs")
    )


def _specs(
    state: ClusterState, pulled: Pulled, warn: Callable[[str], None]
) -> tuple[list[str], int]:
    """The export's image catalogs as ``DIR=NAME:PRIORITY`` specs, and how many failed."""
    from deppy.catalog.image_catalog import pulled_image
    from deppy.workflows.catalog_loading import images_path

    specs: list[str] = []
    failed = 0
    for endpoint in catalog_endpoints(state):
        if endpoint.image is None:
            continue
        if endpoint.image not in pulled:
            try:
                image = pulled_image(endpoint.image, images_path(), where="image", report=warn)
            except DeppyError as error:
                pulled[endpoint.image] = None
                warn(
                    f"deppy: warning: {state.where}: {endpoint.obj}: {error}; the clusters "
                    f"naming it are planned without it (give --catalog PATH={endpoint.name})"
                )
            else:  # an FBC image as the directory it was unpacked to (an older image's
                # SQLite index stays a reference: the worker reads it from the cache)
                pulled[endpoint.image] = str(image.path) if image.kind == "fbc" else endpoint.image
        path = pulled[endpoint.image]
        if path is None:
            failed += 1
            continue
        specs.append(f"{path}={endpoint.name}:{endpoint.priority}")
    return specs, failed
