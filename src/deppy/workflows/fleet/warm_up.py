"""The forkserver's warm-up: imported by the process dask forks the embedded cluster's workers
from (``fanout.PRELOAD``), and only there, it plans the first clusters of the run so that every
worker starts with its planner built: the catalogs loaded and the reports of the installs
those clusters hold (nearly every package of the fleet) worked out and kept. Each worker did
that again on its own (the warm-up, ~0.6 CPU s); now the forkserver does it once, on another
core while the command starts dask's scheduler, and the workers skip it.

The command names the run in ``DEPPY_FLEET_WARM_UP`` (``fanout._start_forkserver``): the
settings and the clusters' paths. Nothing is warmed when the variable is absent, when a
catalog could not be read after a fork (only immutable stores, such as the parsed-catalog
cache of a catalog directory, can: ``StoreSource.survives_fork``), or when anything fails: the
workers then load their planner as before. Records planned here are dropped; the workers plan
every cluster (the warm ones in a fraction of the time)."""

from __future__ import annotations

import dataclasses
import gc
import os
import warnings
from typing import Any

import orjson

from deppy.store.source import StoreSource
from deppy.workflows.fleet.inputs import ClusterRef
from deppy.workflows.fleet.plan import FleetSettings, Planner, forget_planners, planner_for

__all__ = ["WARM_UP_VARIABLE", "warm_up_request"]

WARM_UP_VARIABLE = "DEPPY_FLEET_WARM_UP"


def warm_up_request(
    settings: FleetSettings, paths: list[str], catalog_set: int | None = None
) -> str:
    """The value of ``WARM_UP_VARIABLE`` that warms a planner for ``settings`` (and the
    clusters' ``catalog_set``) on ``paths`` (every field of the settings: texts, tuples of
    them, None; a setting added later travels too, and the worker's planner is found under
    settings equal to the command's)."""
    named = {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)}
    asked = {"settings": named, "clusters": paths, "catalogSet": catalog_set}
    return orjson.dumps(asked).decode()


def _survives_fork(planner: Planner) -> bool:
    sides = [planner.new] + ([planner.old] if planner.old is not None else [])
    return all(isinstance(s.source, StoreSource) and s.source.survives_fork for s in sides)


def _tuples(value: Any) -> Any:
    """A setting as the command held it: JSON's lists as tuples, nested ones too."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def _warm_up() -> None:
    asked = os.environ.get(WARM_UP_VARIABLE)
    if not asked:
        return
    # A catalog directory read for the first time is kept in the parsed-catalog cache by a
    # forked writer (``ParsedCache.keep_catalog``): a child of the forkserver that it did not
    # fork itself, which it reaps when it ends with a warning on the user's terminal.
    warnings.filterwarnings("ignore", "forkserver: waitpid returned unexpected pid")
    try:
        request = orjson.loads(asked)
        named: dict[str, Any] = {k: _tuples(v) for k, v in request["settings"].items()}
        settings = FleetSettings(**named)
        catalog_set = request.get("catalogSet")
        planner = planner_for(settings, catalog_set)
        if not _survives_fork(planner):
            forget_planners()
            return
        for n, path in enumerate(request["clusters"]):
            planner.plan(ClusterRef(n, path, path=path, catalog_set=catalog_set))
    except Exception:  # a warm-up, never a failure: the workers load their planner themselves
        forget_planners()
        return
    # What the workers inherit stays out of the cyclic collector's walks: a walk writes into
    # every container object it visits, so each worker's first full collection copied most of
    # the pages it shared with this process (the warm planner, dask, deppy) into its own
    # memory. Frozen, they stay shared until a worker writes to them itself.
    gc.freeze()


_warm_up()
