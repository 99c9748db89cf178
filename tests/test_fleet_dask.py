"""``deppy fleet plan`` on a real dask.distributed cluster: a scheduler and two workers started
with dask's own command-line tools on 127.0.0.1, one worker killed while it plans a batch. Every
cluster comes back exactly once, and the output is byte for byte the one of a run in a single
process and of the embedded local scheduler."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from benchmarks.fleet_exports import write_fleet

from deppy.resolution.request_parsing import parse_catalog
from deppy.workflows.catalog_loading import load_catalogs
from tests.conftest import free_port, shared_path

COMMUNITY = str(shared_path("catalogs", "community-operators-prod-v4.18"))
BIN = Path(sys.executable).parent
COUNT = 24


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("fleet")
    write_fleet(load_catalogs([parse_catalog(COMMUNITY)]), directory, COUNT, low=3, high=10,
                damaged=True)  # fmt: skip
    return directory


def _plan(fleet: Path, *more: str, batch: str | None = "2") -> subprocess.Popen[bytes]:
    batching = ["--batch-size", batch] if batch is not None else []
    return subprocess.Popen(
        [str(BIN / "deppy"), "fleet", "plan", str(fleet), "--catalog", COMMUNITY,
         "--ocp-version", "4.20", "-o", "jsonl", *batching, *more],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip


def _finish(process: subprocess.Popen[bytes]) -> bytes:
    out, err = process.communicate(timeout=240)
    assert process.returncode == 0, err.decode()
    assert b"Traceback" not in err, err.decode()
    return out


@pytest.fixture(scope="module")
def in_process(fleet: Path) -> bytes:
    return _finish(_plan(fleet, "--workers", "0"))


@pytest.fixture
def dask_cluster() -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    """A scheduler and two single-threaded workers (no nanny: a killed worker stays dead)."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    started = [
        subprocess.Popen(
            [
                str(BIN / "dask"),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--no-dashboard",
                "--dashboard-address",
                "127.0.0.1:0",
            ],
            **quiet,
        )
    ]
    try:
        for name in ("w1", "w2"):
            started.append(
                subprocess.Popen(
                    [
                        str(BIN / "dask"),
                        "worker",
                        address,
                        "--name",
                        name,
                        "--nthreads",
                        "1",
                        "--no-nanny",
                        "--no-dashboard",
                        "--dashboard-address",
                        "127.0.0.1:0",
                        "--host",
                        "127.0.0.1",
                    ],
                    **quiet,
                )
            )
        from distributed import Client

        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
        yield address, started[1:]
    finally:
        for process in reversed(started):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in started:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _indices(out: bytes) -> list[int]:
    return [orjson.loads(line)["index"] for line in out.splitlines()]


def test_a_worker_killed_mid_run_loses_no_cluster_and_plans_none_twice(
    fleet: Path, in_process: bytes, dask_cluster: tuple[str, list[subprocess.Popen[bytes]]]
) -> None:
    address, workers = dask_cluster
    from distributed import Client

    with Client(address, timeout="30s") as client:
        victim = next(
            addr for addr, info in client.scheduler_info()["workers"].items()
            if info["name"] == "w1"
        )  # fmt: skip
        process = _plan(fleet, "--scheduler", address)
        deadline = time.monotonic() + 120
        while not client.processing(workers=[victim]).get(victim):
            assert time.monotonic() < deadline, "w1 never got a batch"
            assert process.poll() is None, process.communicate()
            time.sleep(0.01)
        os.kill(workers[0].pid, signal.SIGKILL)  # w1, busy with a batch (loading catalogs)
        out = _finish(process)
        assert len(client.scheduler_info()["workers"]) == 1
    assert _indices(out) == list(range(COUNT))
    assert out == in_process


@pytest.mark.parametrize("batch", ["2", None])
def test_the_embedded_scheduler_gives_the_same_output(
    fleet: Path, in_process: bytes, batch: str | None
) -> None:
    """Its workers forked from dask's forkserver; batches of 2 or of the default size."""
    out = _finish(_plan(fleet, "--workers", "2", batch=batch))
    assert out == in_process
    damaged = sum(1 for n in range(COUNT) if n % 10 in (3, 6))  # cut short; unknown package
    assert sum(b'"error"' in line for line in out.splitlines()) == damaged


def test_the_embedded_cluster_samples_the_host_seldom() -> None:
    """dask's host monitors (the scheduler's, each nanny's and worker's SystemMonitor every
    500 ms, memory every 100 ms, an event loop check every 20 ms) took most of the command's
    CPU while the workers plan, growing with the wall time: on the embedded cluster the host
    is sampled every 10 s, memory and the event loop once a second."""
    from deppy.workflows.fleet.fanout import _client
    from deppy.workflows.fleet.plan import FleetSettings

    with _client(1, None, FleetSettings(catalogs=(COMMUNITY,)), []) as client:
        scheduler = client.cluster.scheduler
        (nanny,) = client.cluster.workers.values()

        def periods(dask_worker: Any) -> dict[str, float]:
            return {n: c.callback_time for n, c in dask_worker.periodic_callbacks.items()}

        worker = next(iter(client.run(periods).values()))
        nannied, scheduled = periods(nanny), periods(scheduler)
    for callbacks in (scheduled, nannied, worker):
        assert callbacks["monitor"] >= 10_000
        assert callbacks["tick"] >= 1_000
    assert nannied["memory_monitor"] >= 1_000 and worker["memory_monitor"] >= 1_000


def test_a_planner_warmed_before_a_fork_plans_in_the_child_as_one_process_does(
    fleet: Path, in_process: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What dask's forkserver does for the embedded cluster (deppy.workflows.fleet.warm_up):
    load the catalogs from the parsed-catalog cache (an immutable store), plan the first
    clusters, then fork; the child plans every cluster on what it inherited, reading the
    store on a connection of its own (not the parent's), and says what one process says."""
    from deppy.catalog.fbc.cache import wait_for_writers
    from deppy.workflows.fleet import warm_up
    from deppy.workflows.fleet.fanout import plan_batch
    from deppy.workflows.fleet.inputs import cluster_refs
    from deppy.workflows.fleet.plan import FleetSettings, forget_planners, planner_for

    monkeypatch.setenv("DEPPY_HOME", str(tmp_path))
    load_catalogs([parse_catalog(COMMUNITY)])  # the first read keeps it in the cache
    wait_for_writers()
    settings = FleetSettings(catalogs=(COMMUNITY,), target_ocp="4.20")
    refs = cluster_refs([str(fleet)])
    paths = [r.path for r in refs[:5] if r.path is not None]
    monkeypatch.setenv(warm_up.WARM_UP_VARIABLE, warm_up.warm_up_request(settings, paths))
    forget_planners()  # one an earlier test left in this process
    try:
        warm_up._warm_up()
        warmed = planner_for(settings)
        assert warmed.new.reports, "the warm-up kept no report"
        # frozen: no collection in a worker walks (and so copies) the pages it inherited
        assert gc.is_tracked(warmed.new.reports)
        assert not any(o is warmed.new.reports for o in gc.get_objects())
        reading, writing = os.pipe()
        child = os.fork()
        if child == 0:  # pragma: no cover - the child reports through the pipe
            try:
                assert planner_for(settings) is warmed
                (lines, _), _ = plan_batch(settings, refs)
                snapshot = warmed.new.source._snapshot  # type: ignore[attr-defined]
                reopened = (
                    snapshot._inherited is not None and snapshot._conn is not snapshot._inherited
                )
                os.write(writing, lines if reopened else b"shared")
            finally:
                os._exit(0)
        os.close(writing)
        with os.fdopen(reading, "rb") as pipe:
            out = pipe.read()
        os.waitpid(child, 0)
    finally:
        forget_planners()
    assert out == in_process
