"""What Prometheus scrapes from ``deppy controller`` at ``/metrics`` on the health port.

The resolution metrics of ``deppy serve`` (same names), with the kind answered
(``ActiveResolution``, or ``unit``: the Inputs of a namespace that resolve together) and the
namespace; catalog loads with their duration and failures; the catalogs' content (bundles, age,
stale) read from the cache at each scrape; proposals (resolveset Instances) created, superseded
and approved; the work queue; and the time from a change to its answer.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from contextlib import suppress

from prometheus_client import Counter, Gauge, Histogram
from prometheus_client.metrics_core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from deppy.controller.catalogs.cache import CatalogCache
from deppy.observability import SECONDS, LabelValues
from deppy.observability import registry as new_registry

OUTCOMES = {
    "Resolved": "resolved",
    "Unsatisfiable": "unsatisfiable",
    "InvalidSpec": "invalid",
    "DeadlineExceeded": "deadline",
    "CatalogUnavailable": "catalog_unavailable",
}


KINDS = ("ActiveResolution", "unit")
NAMES_KEPT = 1000
"""Distinct namespaces, and distinct Catalogs, that get series of their own: the ones past it
(a cluster with more, or a long life of created and deleted namespaces) count as ``other``."""


def outcome_of(reason: str) -> str:
    return OUTCOMES.get(reason, "other")


def _seconds_since(stamp: str) -> float | None:
    try:
        then = datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.UTC)
    except ValueError:
        return None
    return max(0.0, (datetime.datetime.now(datetime.UTC) - then).total_seconds())


class CacheCollector(Collector):
    """The catalogs the controller serves from, as they are at the moment of the scrape."""

    def __init__(self, cache: CatalogCache) -> None:
        self.cache = cache

    def collect(self) -> Iterator[Metric]:
        def family(name: str, text: str) -> GaugeMetricFamily:
            return GaugeMetricFamily(name, text, labels=["catalog"])

        bundles = family("deppy_catalog_bundles", "Bundles in each catalog's content served.")
        packages = family("deppy_catalog_packages", "Packages in each catalog's content served.")
        age = family(
            "deppy_catalog_content_age_seconds",
            "Seconds since the content served was loaded (it is reloaded when it changes).",
        )
        stale = family(
            "deppy_catalog_stale",
            "1 while the Catalog fails to load and its last good content is served.",
        )
        unavailable = family(
            "deppy_catalog_unavailable", "1 while the Catalog has no content to serve."
        )
        for name, entry in sorted(self.cache.entries.items()):
            catalog = entry.catalog
            failing = entry.error is not None
            stale.add_metric([name], int(failing and catalog is not None))
            unavailable.add_metric([name], int(catalog is None))
            if catalog is None:
                continue
            bundles.add_metric([name], len(catalog.bundles))
            packages.add_metric([name], len(catalog.packages))
            seconds = _seconds_since(entry.loaded_at)
            if seconds is not None:
                age.add_metric([name], seconds)
        yield from (bundles, packages, age, stale, unavailable)


class ControllerMetrics:
    def __init__(self, cache: CatalogCache) -> None:
        self.registry = registry = new_registry()
        self.resolutions = Counter(
            "deppy_resolutions",
            "Resolutions, by kind (ActiveResolution, unit), namespace and outcome: resolved, "
            "unsatisfiable, invalid, deadline, catalog_unavailable (other: anything else).",
            ["kind", "namespace", "outcome"],
            registry=registry,
        )
        self.resolution_seconds = Histogram(
            "deppy_resolution_duration_seconds",
            "Time to resolve, by kind.",
            ["kind"],
            buckets=SECONDS,
            registry=registry,
        )
        self.change_to_answer = Histogram(
            "deppy_change_to_answer_seconds",
            "From a change noticed (a spec edited, an Input added, a catalog's new content) to "
            "its answer written, retries and waits for a busy namespace included, by kind.",
            ["kind"],
            buckets=SECONDS,
            registry=registry,
        )
        self.catalog_loads = Counter(
            "deppy_catalog_loads",
            "Catalog loads (and re-checks of unchanged content), by catalog and result "
            "(loaded, unchanged, failed).",
            ["catalog", "result"],
            registry=registry,
        )
        self.catalog_load_seconds = Histogram(
            "deppy_catalog_load_duration_seconds",
            "Time to fetch and load a catalog's content, by catalog.",
            ["catalog"],
            buckets=SECONDS,
            registry=registry,
        )
        self.proposals = Counter(
            "deppy_proposals",
            "Resolveset Instances, by namespace and what happened: created, approved "
            "(by the policy or a person), superseded (a newer proposal replaced it unapproved).",
            ["namespace", "event"],
            registry=registry,
        )
        self.queue_depth = Gauge(
            "deppy_work_queue_depth",
            "Namespaces waiting to be resolved again (a change arrived while they resolved).",
            registry=registry,
        )
        self.in_progress = Gauge(
            "deppy_work_in_progress", "Namespaces resolving now.", registry=registry
        )
        self.events = Counter(
            "deppy_events_posted",
            "Kubernetes Events posted, by reason.",
            ["reason"],
            registry=registry,
        )
        self.cluster_extensions = Counter(
            "deppy_cluster_extensions_written",
            "OLM v1 ClusterExtensions written for approved sets, by action (created, updated, "
            "deleted by prune).",
            ["action"],
            registry=registry,
        )
        self.olmv1_explanations = Counter(
            "deppy_olmv1_explanations",
            "Explanations posted on ClusterExtensions OLM v1 found no bundle for, by whether "
            "deppy found a way out (way_out, no_way_out).",
            ["outcome"],
            registry=registry,
        )
        self.kube_requests = Counter(
            "deppy_kube_requests",
            "Requests the controller's own code sent to the API server, by verb (get, list, "
            "create, update, patch, delete) and resource (inputs/status for a subresource); "
            "kopf's watches and its annotations on the objects it handles are not counted.",
            ["verb", "resource"],
            registry=registry,
        )
        registry.register(CacheCollector(cache))
        # Labels taken from objects come from bounded sets (each series lives as long as the
        # process): a Catalog's series go with the Catalog.
        self.kind = LabelValues(KINDS)
        self.namespace = LabelValues(cap=NAMES_KEPT)
        self.catalog = LabelValues(cap=NAMES_KEPT)

    def kube_request(self, verb: str, resource: str) -> None:
        self.kube_requests.labels(verb, resource).inc()

    def catalog_gone(self, name: str) -> None:
        """A deleted Catalog: its series are removed, its place freed for another."""
        if not self.catalog.forget(name):
            return
        with suppress(KeyError):
            self.catalog_load_seconds.remove(name)
        for result in ("loaded", "unchanged", "failed"):
            with suppress(KeyError):
                self.catalog_loads.remove(name, result)

    def catalog_loaded(self, name: str, result: str, seconds: float) -> None:
        label = self.catalog(name)
        self.catalog_loads.labels(label, result).inc()
        self.catalog_load_seconds.labels(label).observe(seconds)

    def proposal(self, namespace: str, event: str) -> None:
        self.proposals.labels(self.namespace(namespace), event).inc()

    def change_answered(self, kind: str, seconds: float) -> None:
        self.change_to_answer.labels(self.kind(kind)).observe(max(0.0, seconds))

    def watch_queue(self, waiting: Callable[[], int], running: Callable[[], int]) -> None:
        self.queue_depth.set_function(waiting)
        self.in_progress.set_function(running)

    def resolved(self, kind: str, namespace: str, reason: str, seconds: float) -> None:
        kind = self.kind(kind)
        self.resolutions.labels(kind, self.namespace(namespace), outcome_of(reason)).inc()
        self.resolution_seconds.labels(kind).observe(seconds)
