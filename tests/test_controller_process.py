"""The controller as a process: a clean stop on SIGTERM and SIGINT, and two replicas of which
only one works (kopf peering: the lower priority pauses while the higher one is alive, then
takes over)."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from deppy.controller.catalogs.loading import catch_up, load_catalog
from deppy.controller.runtime import Runtime
from tests.controller_env import (
    Controller,
    catalog_object,
    client,
    condition,
    install,
    run_controller,
    wait_for,
)
from tests.fbc_server import serve_catalog
from tests.kube import KubeCluster
from tests.soak.catalog import SoakBundle, SoakCatalog


@pytest.mark.parametrize(
    ("how", "status"),
    [(signal.SIGTERM, 0), (signal.SIGINT, 130)],
    ids=["SIGTERM: a supervisor's stop, exit 0", "SIGINT: Ctrl-C's exit 130"],
)
def test_a_signal_stops_it_cleanly(
    kube: KubeCluster, tmp_path: Path, how: signal.Signals, status: int
) -> None:
    install(kube)
    with run_controller(kube, tmp_path / "one.log") as controller:
        wait_for(
            "start-up",
            lambda: (
                "Resuming operations" in controller.log_text()
                or "startup' succeeded" in controller.log_text()
            ),
            60,
            controller,
        )
        started = time.monotonic()
        code = controller.stop(timeout=30, how=how)
        assert code == status, controller.log_text()[-2000:]
        assert time.monotonic() - started < 30
    assert "Traceback" not in controller.log_text()


def test_two_replicas_never_both_write(kube: KubeCluster, tmp_path: Path) -> None:
    install(kube)
    api = client(kube)
    ns = kube.new_namespace("peer")
    peering = f"deppy-{ns}"
    with two_replicas(kube, tmp_path, peering) as (high, low):
        wait_for(
            "both replicas in the peering, the lower one paused",
            lambda: (
                len((api.get("clusterkopfpeerings", peering) or {}).get("status") or {}) == 2
                and _active(high.log_text())
                and not _active(low.log_text())
            ),
            60,
            low,
        )
        api.create(
            "activeresolutions",
            {
                "apiVersion": "deppy.io/v1alpha1",
                "kind": "ActiveResolution",
                "metadata": {"name": "x", "namespace": ns},
                "spec": {"constraints": ['required("etcd")']},
            },
            ns,
        )
        wait_for(
            "an answer",
            lambda: condition(api.get("activeresolutions", "x", ns), "Resolved"),
            60,
            high,
        )
        # only the higher replica works
        assert _active(high.log_text()) and not _active(low.log_text())
        # the working replica stops; the paused one takes over
        assert high.stop() == 0
        wait_for(
            "the other replica to resume",
            lambda: _active(low.log_text()),
            90,
            low,
        )
        api.patch(
            "activeresolutions", "x", {"spec": {"constraints": ['required("prometheus")']}}, ns
        )
        wait_for(
            "the takeover's answer",
            lambda: (
                (api.get("activeresolutions", "x", ns) or {})
                .get("status", {})
                .get("observedGeneration")
                == 2
            ),
            60,
            low,
        )


@contextmanager
def two_replicas(
    kube: KubeCluster, tmp_path: Path, peering: str
) -> Iterator[tuple[Controller, Controller]]:
    """Two controllers in a peering of their own (no record of other tests' replicas): priority
    200 works, 100 waits."""
    client(kube).create(
        "clusterkopfpeerings",
        {"apiVersion": "kopf.dev/v1", "kind": "ClusterKopfPeering", "metadata": {"name": peering}},
    )
    with (
        run_controller(kube, tmp_path / "high.log", "--peering", peering, priority=200) as high,
        run_controller(kube, tmp_path / "low.log", "--peering", peering, priority=100) as low,
    ):
        yield high, low


def _active(log: str) -> bool:
    """kopf starts paused and logs each change: active when the last one was a resumption."""
    resumed, paused = log.rfind("Resuming operations"), log.rfind("Pausing operations")
    return resumed > paused


def _publish_gamma_1_1(
    api: Any, content: SoakCatalog, server: Any, name: str, working: Controller
) -> None:
    """gamma 1.1.0 published in the Catalog's source, and loaded by the working replica (the
    Catalog's status names the new digest)."""
    loaded = api.get("catalogs", name)["status"]["digest"]
    content.packages["gamma"].bundles["1.1.0"] = SoakBundle(
        "gamma", "1.1.0", ["stable"], ["Gamma"], rules=None
    )
    server.server.body = content.render()
    api.patch("catalogs", name, {"spec": {"source": {"http": {"url": server.url + "?2"}}}})
    wait_for(
        "the new content loaded by the working replica",
        lambda: api.get("catalogs", name)["status"].get("digest") != loaded,
        60,
        working,
    )


def _answers_from_the_new_content(
    api: Any, namespace: str, catalog: str, resolution: str, replica: Controller
) -> None:
    """An ActiveResolution created now, requiring gamma >=1.1.0 from ``catalog``: ``replica``
    answers it Resolved (Unsatisfiable: it answered from the content of before)."""
    api.create(
        "activeresolutions",
        {
            "apiVersion": "deppy.io/v1alpha1",
            "kind": "ActiveResolution",
            "metadata": {"name": resolution, "namespace": namespace},
            "spec": {"sources": [catalog], "constraints": ['required("gamma", ">=1.1.0")']},
        },
        namespace,
    )
    answer = wait_for(
        "an answer from the replica that took over",
        lambda: condition(api.get("activeresolutions", resolution, namespace), "Resolved"),
        60,
        replica,
    )
    assert answer["reason"] == "Resolved", (answer, replica.log_text()[-3000:])


def test_a_replica_taking_over_serves_the_catalog_content_loaded_meanwhile(
    kube: KubeCluster, tmp_path: Path
) -> None:
    """The standby loaded the catalog when it started; versions published while it waited must
    be there when it takes over (found by the lifecycle soak: an answer went Unsatisfiable)."""
    install(kube)
    api = client(kube)
    ns = kube.new_namespace("takeover")
    content = SoakCatalog()
    name = f"cat-{ns}"
    with serve_catalog(content.render()) as server:
        api.create("catalogs", catalog_object(name, {"http": {"url": server.url}}))
        with two_replicas(kube, tmp_path, f"deppy-{ns}") as (high, low):
            wait_for(
                "the catalog loaded and the lower replica paused",
                lambda: (
                    (condition(api.get("catalogs", name), "Ready") or {}).get("status") == "True"
                    and _active(high.log_text())
                    and not _active(low.log_text())
                ),
                60,
                high,
            )
            _publish_gamma_1_1(api, content, server, name, high)
            assert high.stop() == 0
            wait_for("the standby to take over", lambda: _active(low.log_text()), 90, low)
            _answers_from_the_new_content(api, ns, name, "new", low)
    api.delete("catalogs", name)


def test_a_standby_catches_up_with_the_content_the_working_replica_loaded(
    kube: KubeCluster,
) -> None:
    """A standby loaded the catalog when it started; before it answers anything it loads what
    the Catalog's status says is served now (two runtimes here, as two replicas hold them)."""
    install(kube)
    api = client(kube)
    content = SoakCatalog()
    name = f"cat-{kube.new_namespace('catchup')}"
    with serve_catalog(content.render()) as server:
        api.create("catalogs", catalog_object(name, {"http": {"url": server.url}}))
        standby, working = Runtime(client(kube)), Runtime(client(kube))
        load_catalog(standby, api.get("catalogs", name), write=False)  # at its start
        content.packages["gamma"].bundles["1.1.0"] = SoakBundle(
            "gamma", "1.1.0", ["stable"], ["Gamma"], rules=None
        )
        server.server.body = content.render()  # type: ignore[attr-defined]
        load_catalog(working, api.get("catalogs", name))  # writes the status
        assert standby.cache.digest(name) != working.cache.digest(name)
        catch_up(standby)
        assert standby.cache.digest(name) == working.cache.digest(name)
        catch_up(standby)  # nothing to do: no second load
    api.delete("catalogs", name)


def test_a_replica_that_worked_before_it_paused_catches_up_when_it_takes_over(
    kube: KubeCluster, tmp_path: Path
) -> None:
    """The lower replica works alone first (it answers and looks at the catalogs), pauses for a
    higher one, and takes over again a moment later: what was published while it paused is
    served at once, not after its next scheduled look at the catalogs (CI: an answer went
    Unsatisfiable when the takeover came within seconds of that look)."""
    install(kube)
    api = client(kube)
    ns = kube.new_namespace("rework")
    peering = f"deppy-{ns}"
    content = SoakCatalog()
    name = f"cat-{ns}"
    api.create(
        "clusterkopfpeerings",
        {"apiVersion": "kopf.dev/v1", "kind": "ClusterKopfPeering", "metadata": {"name": peering}},
    )

    with serve_catalog(content.render()) as server:
        api.create("catalogs", catalog_object(name, {"http": {"url": server.url}}))
        with run_controller(kube, tmp_path / "low.log", "--peering", peering, priority=100) as low:
            first = {
                "apiVersion": "deppy.io/v1alpha1",
                "kind": "ActiveResolution",
                "metadata": {"name": "first", "namespace": ns},
                "spec": {"sources": [name], "constraints": ['required("gamma")']},
            }
            api.create("activeresolutions", first, ns)
            wait_for(
                "the lone replica's answer",
                lambda: condition(api.get("activeresolutions", "first", ns), "Resolved"),
                60,
                low,
            )
            with run_controller(
                kube, tmp_path / "high.log", "--peering", peering, priority=200
            ) as high:
                wait_for(
                    "the lower replica paused for the higher one",
                    lambda: _active(high.log_text()) and not _active(low.log_text()),
                    60,
                    high,
                )
                _publish_gamma_1_1(api, content, server, name, high)
                assert high.stop() == 0
            wait_for("the lower replica to take over", lambda: _active(low.log_text()), 90, low)
            _answers_from_the_new_content(api, ns, name, "second", low)
    api.delete("catalogs", name)
