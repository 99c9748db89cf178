"""deppy's controller with a thousand Inputs (issue 34): figures on a real kube-apiserver
(../shared/k8s), community v4.18 loaded as a Catalog (``community``, over HTTP) and as an OLM v1
ClusterCatalog (``community-v1``, a local HTTP server playing catalogd, as the tests do).

It creates --namespaces namespaces (200), each holding four subscription-style Inputs (one unit,
the default InputClass), one olm-v1 Input (class ``olm-v1-bench``, DenyAll: proposals stay
pending, no ClusterExtension is written) and five ActiveResolutions (one per package asked, the
olm-v1 one over the ClusterCatalog). Even namespaces ask for the packages of group A, odd ones
for group B. Then:

* answered: from the first create until every Input has its proposal (``status.resolveset``,
  ``Resolved``) and every ActiveResolution its answer; per object, create → seen answered
  (polled every second: a figure within a second), p50 and p99;
* the controller's peak RSS (VmHWM) over the whole run;
* the API requests the controller's own code made, by verb and resource, from its
  ``deppy_kube_requests_total``; writes per answer = its create, update, patch and delete
  requests over the objects answered;
* a catalog change: the heads of group A's packages withdrawn from both catalogs (so every even
  namespace's two units get a new proposal); the time until they all have, and the writes to
  the odd namespaces' unit objects (Inputs, Instances, Bundles, ConfigMaps), which the change
  does not touch (goal 0). ActiveResolutions name the catalog digest they answered from, so
  every one over a changed catalog is written once (counted apart, not as needless);
* ``kill -9`` of the controller and a new one started: the time until it has caught up (every
  unit resolved again, every ActiveResolution looked at, its queue empty), and the objects
  written meanwhile, when no answer changed (goal 0).

Needless writes N: objects written that the change left alone, plus objects written after the
restart. Writes are seen by comparing every object's resourceVersion before and after.

Usage: python benchmarks/controller_scale.py [--namespaces 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.controller import memory  # noqa: E402
from tests.controller_env import (  # noqa: E402
    Controller,
    approval_classes,
    catalog_object,
    client,
    condition,
    install,
    install_olm_v1,
    run_controller,
    serve_as_catalogd,
)
from tests.fbc_server import fbc_stream, serve_catalog, without_heads  # noqa: E402
from tests.kube import start_cluster  # noqa: E402
from tests.olmv1_objects import cluster_catalog  # noqa: E402

from deppy.controller.kube import Kube  # noqa: E402

SHARED = Path(os.environ.get("DEPPY_SHARED", ROOT.parent / "shared"))
CATALOG, CLUSTER_CATALOG, OLM_V1_CLASS = "community", "community-v1", "olm-v1-bench"
GROUPS = {  # subscription-style packages, then the olm-v1 one
    "A": (("etcd", "keda", "prometheus", "grafana-operator"), "jaeger"),
    "B": (("argocd-operator", "strimzi-kafka-operator", "cert-manager", "redis-operator"),
          "opentelemetry-operator"),
}  # fmt: skip
WATCHED = ("inputs", "instances", "bundles", "activeresolutions")
WRITES = ("create", "update", "patch", "delete")
TIMEOUT = 900.0


def group_of(index: int) -> str:
    return "A" if index % 2 == 0 else "B"


def objects(namespace: str, index: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """The Inputs and ActiveResolutions of one namespace, as (plural, body)."""
    subscriptions, olm_v1 = GROUPS[group_of(index)]
    for package in subscriptions:
        yield "inputs", input_body(namespace, package, CATALOG, None)
    yield "inputs", input_body(namespace, olm_v1, CLUSTER_CATALOG, OLM_V1_CLASS)
    for package, source in [*((p, CATALOG) for p in subscriptions), (olm_v1, CLUSTER_CATALOG)]:
        yield (
            "activeresolutions",
            {
                "apiVersion": "deppy.io/v1alpha1",
                "kind": "ActiveResolution",
                "metadata": {"name": f"ask-{package}", "namespace": namespace},
                "spec": {"sources": [source], "constraints": [f'required("{package}")']},
            },
        )


def input_body(namespace: str, package: str, catalog: str, klass: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "constraints": [{"type": "olm.catalog", "value": {"name": catalog, "package": package}}]
    }
    if klass:
        spec["inputClass"] = klass
    return {
        "apiVersion": "deppy.io/v1alpha1",
        "kind": "Input",
        "metadata": {"name": package, "namespace": namespace},
        "spec": spec,
    }


def answered(plural: str, body: dict[str, Any]) -> bool:
    status = body.get("status") or {}
    if status.get("observedGeneration") != body["metadata"].get("generation"):
        return False
    found = condition(body, "Resolved")
    if found is None:
        return False
    return plural == "activeresolutions" or bool((status.get("resolveset") or {}).get("name"))


def versions(
    api: Kube, bodies: dict[tuple[str, str, str], Any] | None = None
) -> dict[tuple[str, str, str], str]:
    """Every watched object's resourceVersion, by (plural, namespace, name); ``bodies`` gets
    their statuses."""
    found = {}
    for plural in WATCHED:
        for body in api.list(plural):
            meta = body["metadata"]
            if meta["namespace"].startswith("scale-"):
                found[plural, meta["namespace"], meta["name"]] = meta["resourceVersion"]
                if bodies is not None:
                    bodies[plural, meta["namespace"], meta["name"]] = body.get("status") or {}
    return found


def what_moved(before: dict[str, Any], after: dict[str, Any]) -> str:
    """The status fields that differ (timestamps aside), shortly."""
    keys = sorted(k for k in before.keys() | after.keys() if k != "resolvedAt")
    moved = [k for k in keys if before.get(k) != after.get(k)]
    return ", ".join(f"{k}: {str(before.get(k))[:160]} -> {str(after.get(k))[:160]}" for k in moved)


def written(before: dict[Any, str], after: dict[Any, str]) -> list[tuple[str, str, str]]:
    """Objects created, changed or deleted between two ``versions``."""
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def scrape(controller: Controller) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    url = f"http://127.0.0.1:{controller.health_port}/metrics"
    with urllib.request.urlopen(url, timeout=30) as response:
        text = response.read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def total(metrics: dict[Any, float], name: str, **labels: str) -> float:
    return sum(
        value
        for (found, where), value in metrics.items()
        if found == name and all((k, v) in where for k, v in labels.items())
    )


def until(what: str, probe: Callable[[], bool], every_s: float = 1.0) -> float:
    begin = time.monotonic()
    while not probe():
        if time.monotonic() - begin > TIMEOUT:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(every_s)
    return time.monotonic() - begin


def rss(controller: Controller) -> str:
    now, peak = memory(controller.process.pid)
    return f"RSS {now:.0f} MB (peak {peak:.0f} MB)"


def image(n: int) -> str:
    return f"example.com/community@sha256:{n:064x}"


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--namespaces", type=int, default=200)
    count = parser.parse_args().namespaces
    stream = fbc_stream(SHARED / "catalogs" / "community-operators-prod-v4.18")
    changed = without_heads(stream, {p for p in (*GROUPS["A"][0], GROUPS["A"][1])})
    with ExitStack() as stack:
        kube = stack.enter_context(contextmanager(start_cluster)(SHARED))
        server = stack.enter_context(serve_catalog(stream))
        install(kube)
        install_olm_v1(kube)
        api = client(kube)
        api.create("catalogs", catalog_object(CATALOG, {"http": {"url": server.url}}))
        api.create("clustercatalogs", cluster_catalog(CLUSTER_CATALOG))
        serve_as_catalogd(api, CLUSTER_CATALOG, server.url, image(1))
        approval_classes(api, OLM_V1_CLASS, "DenyAll", "deppy.io/olm-v1", serviceAccount="bench")
        log = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "controller.log"
        controller = stack.enter_context(run_controller(kube, log, "--standalone"))
        until("both catalogs loaded", lambda: loaded(controller), 0.5)
        print(f"community loaded as {CATALOG} and {CLUSTER_CATALOG}: {rss(controller)} ({load()})")
        namespaces = [f"scale-{n:03d}" for n in range(count)]
        created: dict[tuple[str, str, str], float] = {}
        begin = time.monotonic()
        for index, namespace in enumerate(namespaces):
            api.create("namespaces", {"metadata": {"name": namespace}})
            for plural, body in objects(namespace, index):
                api.create(plural, body, namespace)
                created[plural, namespace, body["metadata"]["name"]] = time.monotonic()
        print(f"created {len(created)} objects in {time.monotonic() - begin:.1f} s ({load()})")
        seen: dict[tuple[str, str, str], float] = {}

        def all_answered() -> bool:
            moment = time.monotonic()
            for plural in ("inputs", "activeresolutions"):
                for body in api.list(plural):
                    meta = body["metadata"]
                    key = (plural, meta["namespace"], meta["name"])
                    if key in created and key not in seen and answered(plural, body):
                        seen[key] = moment
            return len(seen) == len(created)

        until("every object answered", all_answered)
        answer_s = max(seen.values()) - begin
        each = sorted(seen[k] - created[k] for k in created)
        p50, p99 = statistics.median(each), each[int(len(each) * 0.99) - 1]
        print(f"answered: all {answer_s:.1f} s after the first create; per object p50 {p50:.1f} s, "
              f"p99 {p99:.1f} s ({load()})")  # fmt: skip
        metrics = scrape(controller)
        writes = sum(total(metrics, "deppy_kube_requests_total", verb=v) for v in WRITES)
        per_answer = writes / len(created)
        show_requests(metrics)
        print(f"controller after the answers: {rss(controller)}")
        change_s, needless_change, restamped = catalog_change(api, server, changed, namespaces)
        print(f"controller after the catalog change: {rss(controller)}")
        rss_peak = memory(controller.process.pid)[1]
        restart_s, needless_restart, rss2 = restart(api, kube, controller, stack, log, count)
        rss_peak = max(rss_peak, rss2)
    needless = needless_change + needless_restart
    print(f"machine: {os.cpu_count()} cores, {load()}; Python {sys.version.split()[0]}")
    print(
        f"scale: {sum(1 for k in created if k[0] == 'inputs')} inputs, "
        f"{sum(1 for k in created if k[0] == 'activeresolutions')} activeresolutions, "
        f"{count} namespaces: answered {answer_s:.1f} s (p99 {p99:.1f} s), catalog change "
        f"{change_s:.1f} s, restart {restart_s:.1f} s, peak RSS {rss_peak:.0f} MB, writes per "
        f"answer {per_answer:.2f}, needless writes {needless}"
    )
    del restamped


def loaded(controller: Controller) -> bool:
    try:
        metrics = scrape(controller)
    except OSError:
        return False
    return all(
        total(metrics, "deppy_catalog_bundles", catalog=name) > 0
        for name in (CATALOG, CLUSTER_CATALOG)
    )


def show_requests(metrics: dict[Any, float]) -> None:
    counts = Counter[str]()
    for (name, where), value in metrics.items():
        if name == "deppy_kube_requests_total" and value:
            labels = dict(where)
            counts[f"{labels['verb']} {labels['resource']}"] += int(value)
    print(
        "controller API requests: "
        + ", ".join(f"{what} {n}" for what, n in sorted(counts.items(), key=lambda i: -i[1]))
        + f" (total {sum(counts.values())})"
    )


def restamped(api: Kube) -> Callable[[], bool]:
    """Whether every ActiveResolution names the digest its catalog serves now."""

    def probe() -> bool:
        digests = {
            CATALOG: ((api.get("catalogs", CATALOG) or {}).get("status") or {}).get("digest")
        }
        digests[CLUSTER_CATALOG] = image(2)
        for body in api.list("activeresolutions"):
            used = (body.get("status") or {}).get("catalogs") or [{}]
            source = body["spec"]["sources"][0]
            if used[0].get("digest") != digests[source]:
                return False
        return True

    return probe


def proposals(api: Kube) -> dict[tuple[str, str], str]:
    """Each Input's proposal (resolveset name), by (namespace, name)."""
    return {
        (i["metadata"]["namespace"], i["metadata"]["name"]): (
            (i.get("status") or {}).get("resolveset") or {}
        ).get("name", "")
        for i in api.list("inputs")
    }


def catalog_change(
    api: Kube, server: Any, changed: bytes, namespaces: list[str]
) -> tuple[float, int, int]:
    affected = set(namespaces[0::2])
    before_versions = versions(api)
    before = proposals(api)
    server.set_body(changed)
    begin = time.monotonic()
    api.patch("catalogs", CATALOG, {"spec": {"source": {"http": {"url": server.url + "?v=2"}}}})
    serve_as_catalogd(api, CLUSTER_CATALOG, server.url, image(2))

    def all_new() -> bool:
        now = proposals(api)
        return all(
            now[key] and now[key] != old for key, old in before.items() if key[0] in affected
        )

    until("every affected unit's new proposal", all_new)
    change_s = time.monotonic() - begin
    restamped_s = until("every ActiveResolution answered from the new content", restamped(api))
    restamped_s += change_s
    time.sleep(10)  # what else the change brings (superseded proposals, Events) settles
    changed_objects = written(before_versions, versions(api))
    needless = [k for k in changed_objects if k[1] not in affected and k[0] != "activeresolutions"]
    restamps = [k for k in changed_objects if k[1] not in affected and k[0] == "activeresolutions"]
    print(
        f"catalog change (heads of {len(GROUPS['A'][0]) + 1} packages withdrawn; "
        f"{len(affected)} namespaces affected): every affected unit has its new proposal after "
        f"{change_s:.1f} s, every ActiveResolution answered from the new content after "
        f"{restamped_s:.1f} s; unit objects written in unaffected namespaces {len(needless)}; "
        f"ActiveResolutions there re-stamped with the new digest {len(restamps)} ({load()})"
    )
    return change_s, len(needless), len(restamps)


def restart(
    api: Kube, kube: Any, old: Controller, stack: ExitStack, log: Path, count: int
) -> tuple[float, int, float]:
    statuses: dict[tuple[str, str, str], Any] = {}
    before = versions(api, statuses)
    units = 2 * count
    old.process.kill()
    old.process.wait()
    begin = time.monotonic()
    again = log.with_name("again.log")
    controller = stack.enter_context(run_controller(kube, again, "--standalone"))

    def caught_up() -> bool:
        try:
            metrics = scrape(controller)
        except OSError:
            return False
        return (
            total(metrics, "deppy_resolutions_total", kind="unit") >= units
            and total(metrics, "deppy_change_to_answer_seconds_count", kind="ActiveResolution")
            >= 5 * count
            and total(metrics, "deppy_work_queue_depth") == 0
            and total(metrics, "deppy_work_in_progress") == 0
        )

    until("caught up after the restart", caught_up)
    restart_s = time.monotonic() - begin
    time.sleep(10)
    statuses_after: dict[tuple[str, str, str], Any] = {}
    needless = written(before, versions(api, statuses_after))
    for key in needless[:2]:
        print(f"  {key}: {what_moved(statuses.get(key, {}), statuses_after.get(key, {}))}")
    print(
        f"kill -9 and restart: caught up after {restart_s:.1f} s (process start and catalog "
        f"loads included); objects written since {len(needless)} "
        f"{[f'{p} {n}/{m}' for p, n, m in needless[:5]]} ({load()})"
    )
    show_requests(scrape(controller))
    print(f"controller after the restart: {rss(controller)}")
    return restart_s, len(needless), memory(controller.process.pid)[1]


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)
    main()
