"""Planning a fleet: the same per-cluster question, fanned out on dask (DESIGN.md, "Scale-out").

* ``workers=0``: in this process, one cluster after the other (no dask at all);
* otherwise an embedded ``LocalCluster`` of ``workers`` processes on this machine (loopback
  only, no dashboard), or an existing dask.distributed cluster (``scheduler="tcp://HOST:PORT"``,
  where deppy must be installed and nothing else is shared: each batch carries its exports'
  content, and the catalogs are named by what a worker can fetch, ``fleet.shipping``).

The clusters go out in batches (``batch_size`` references each: a few bytes); a worker plans a
batch with its process's planner (``planner_for``: catalogs loaded once per process, caches
kept between batches) and sends back the batch's records serialised as the output has them
(JSON lines, which the client writes as they come, never parsing or splitting them) with
their rollup (the batch summed up on the worker, so the client merges rollups instead of
parsing every record again: that parsing cost more CPU than a worker spent planning, and it
all fell on one process). The client merges each batch's rollup into the caller's as it
hands on the batch's records, in input order: the summary is the same as from the records
one by one. Only a bounded number of batches is in flight, and results are taken as they
complete, so the memory of this process depends on the batch size and the number of workers,
not on the fleet.

A worker lost mid-run: the scheduler gives its batches to another worker (dask's own retry of
a task whose worker died); a batch that still fails (it took down workers again and again) comes
back as one error record per cluster. Records are handed on in input order (a small reorder
buffer holds those that arrive early) and each index once, so no cluster is missing or
planned twice, and the output is the same for 1 and N workers.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import uuid
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

import orjson

from deppy.errors import DeppyError, InputError
from deppy.workflows.fleet.inputs import ClusterRef, with_content
from deppy.workflows.fleet.plan import FleetSettings, planner_for
from deppy.workflows.fleet.rollup import Rollup

__all__ = ["Lines", "plan_batch", "plan_fleet", "plan_packed", "plan_shipped"]

Progress = Callable[[int, int], None]
IN_FLIGHT_PER_WORKER = 3
WARM_UP_CLUSTERS = 100  # the forkserver plans these first ones (``fleet.warm_up``)
BATCHES_PER_WORKER = 8  # the default batch size leaves each worker at least this many batches
MOST_PER_BATCH = 500  # ... and puts no more clusters than this in one


class Lines(NamedTuple):
    """Consecutive clusters' records as the output has them: each record's JSON and a newline
    (orjson escapes newlines inside strings), serialised once, where they were planned. The
    command writes them as they come, without parsing or splitting them again."""

    data: bytes
    clusters: int  # how many records


class Batch(NamedTuple):
    """What a worker sends back for a batch: its records, and their rollup (the batch summed
    up where the records are still values)."""

    lines: Lines
    rollup: Rollup


def plan_batch(settings: FleetSettings, refs: Sequence[ClusterRef]) -> Batch:
    """What a worker runs: each cluster's record as JSON lines, and the batch's rollup. A
    cluster that trips a bug becomes an error record saying so (the rest of the batch, and
    the run, go on)."""
    records = []
    rollup = Rollup()
    for ref in refs:
        planner = planner_for(settings, ref.catalog_set)  # a catalog it cannot read: the batch's
        try:
            record = planner.plan(ref)
        except Exception as error:  # a bug: one cluster's, reported, not the run's end
            record = {
                "index": ref.index,
                "cluster": ref.name,
                "error": f"deppy could not plan it ({type(error).__name__}: {error}); "
                "please report this with the cluster's export",
            }
        rollup.add(record)
        records.append(orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE))
    return Batch(Lines(b"".join(records), len(records)), rollup)


def plan_packed(
    settings: FleetSettings, refs: Sequence[ClusterRef], *, compress: bool = True
) -> tuple[bytes, int, Rollup]:
    """``plan_batch`` as a dask task: the records go back as one stream of JSON lines, zlib
    compressed (~9x smaller) for a cluster of other machines, where the network is what it
    saves. Not on this machine's loopback (the embedded cluster): there compressing cost the
    worker, and decompressing the command, more CPU than moving the bytes does."""
    (data, count), rollup = plan_batch(settings, refs)
    return (zlib.compress(data, 1) if compress else data), count, rollup


def plan_shipped(
    settings: FleetSettings, refs: Sequence[ClusterRef], contents: dict[str, bytes], run: str
) -> tuple[bytes, int, Rollup]:
    """``plan_packed`` on a worker of a remote dask cluster: the catalogs fetched first (the
    shipped ones unpacked, the images pulled, once per worker: ``fleet.shipping``). A worker
    that cannot fetch them fails the batch as one error record per cluster, saying why: a
    registry that does not answer is given up after ``--registry-timeout``, once per run (the
    worker's later batches of the run fail at once, not after another wait each)."""
    from deppy.workflows.fleet.shipping import settings_here

    why = _UNFETCHABLE.get(run)
    if why is None:
        try:
            here = settings_here(settings, contents)
            planner_for(here)
            return plan_packed(here, refs)
        except (DeppyError, OSError) as error:
            why = f"this dask worker could not fetch the catalogs: {error}"
            _UNFETCHABLE.clear()  # one run's at a time
            _UNFETCHABLE[run] = why
    (data, count), rollup = _error_records(refs, why)
    return zlib.compress(data, 1), count, rollup


_UNFETCHABLE: dict[str, str] = {}  # run -> why this worker could not fetch its catalogs


def _unpacked(packed: tuple[bytes, int, Rollup], *, compressed: bool) -> Batch:
    blob, count, rollup = packed
    return Batch(Lines(zlib.decompress(blob) if compressed else blob, count), rollup)


def _error_records(refs: Sequence[ClusterRef], why: str) -> Batch:
    rollup = Rollup()
    records = []
    for ref in refs:
        record = {"index": ref.index, "cluster": ref.name, "error": why}
        rollup.add(record)
        records.append(orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE))
    return Batch(Lines(b"".join(records), len(records)), rollup)


def plan_fleet(
    refs: Sequence[ClusterRef],
    settings: FleetSettings,
    *,
    workers: int,
    scheduler: str | None = None,
    batch_size: int | None = None,
    progress: Progress | None = None,
    rollup: Rollup | None = None,
) -> Iterator[Lines]:
    """Each cluster's record (a JSON line), in input order, a batch at a time as they become
    ready (one cluster at a time in this process: a writer makes one write per batch, not
    per cluster), summed up into ``rollup`` (when given) as they are handed on; see the
    module docstring. ``batch_size`` None: ``default_batch_size`` for the workers there are."""
    summed = Rollup() if rollup is None else rollup
    if workers == 0 and scheduler is None:
        yield from _in_process(refs, settings, progress, summed)
        return
    contents: dict[str, bytes] | None = None  # what the workers of --scheduler are sent
    if scheduler is not None:  # they see none of this machine's files (before connecting)
        from deppy.workflows.fleet.shipping import settings_for_workers

        settings, contents = settings_for_workers(settings)
    with _client(workers, scheduler, settings, refs) as client:
        yield from _on_dask(client, refs, settings, batch_size, progress, summed, contents)


def default_batch_size(clusters: int, workers: int) -> int:
    """Clusters per batch: as many as leave each worker ``BATCHES_PER_WORKER`` batches (so
    the last batches, which some workers finish while others wait, are short), at most
    ``MOST_PER_BATCH``. Each batch costs dask's machinery a few ms of CPU in the command
    (scheduler, client, taking the result) and on the worker, whatever its size: ~8-10 ms
    in the command on a busy 2-core machine, for 60 clusters or for 375 alike; with the
    records passed on unparsed and the host monitors quiet that was most of the command's
    CPU per cluster at 200 a batch. No more than 500: a batch's records (~5 MB, held twice
    while they are joined) add to the worker's memory, ~15 MB more at 625 than at 200."""
    return max(1, min(MOST_PER_BATCH, clusters // (max(workers, 1) * BATCHES_PER_WORKER)))


def _in_process(
    refs: Sequence[ClusterRef], settings: FleetSettings, progress: Progress | None, rollup: Rollup
) -> Iterator[Lines]:
    for n, ref in enumerate(refs):
        lines, one = plan_batch(settings, [ref])
        rollup.merge(one)
        if progress is not None:
            progress(n + 1, len(refs))
        yield lines


# What a worker process of the embedded cluster imports before its first batch: imported once,
# in the forkserver the worker processes are forked from (``_start_forkserver``)
PRELOAD = (
    "distributed",
    "deppy.workflows.fleet.fanout",
    "deppy.workflows.catalog_loading",
    "deppy.workflows.cluster_input",
    "deppy.store.source",
    "deppy.store.store",
)


def _embedded_config() -> Any:
    """dask's config for the embedded cluster (undone when it stops), what its workers need
    and no more:

    * worker processes forked from one forkserver that has imported dask and deppy
      (``PRELOAD``), instead of spawned as new interpreters that each import them again (~0.5
      CPU s a worker, taken from planning when the workers fill the cores). The forkserver
      is a fresh process with no threads, so forking it is safe (forking this process, which
      runs the scheduler's event loop in a thread, would not be); a worker dask restarts is
      forked from it too. It is started first (``_start_forkserver``);
    * no statistical profiling on the workers (a stack sample every 10 ms, and a periodic
      rollup of them, on the event loop a worker also sends its results with): only a
      dashboard shows it, and the embedded cluster has none;
    * dask's host monitoring slowed down (``QUIET_MONITORS``): the scheduler, each nanny and
      each worker sampled the process's CPU, memory, the host's network and disk counters
      (``SystemMonitor``) every 500 ms, and each nanny and worker its memory every 100 ms,
      for a dashboard and for memory limits. That was the largest part of this process's
      CPU while the workers plan (it holds the scheduler and the nannies), and it grows with
      the wall time and the workers, not with the clusters. The memory limit still holds,
      checked once a second.
    """
    import dask

    return dask.config.set(
        {
            "distributed.worker.multiprocessing-method": "forkserver",
            "distributed.worker.profile.enabled": False,
            **QUIET_MONITORS,
        }
    )


QUIET_MONITORS = {
    "distributed.admin.system-monitor.interval": "10s",
    "distributed.admin.system-monitor.disk": False,
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.tick.interval": "1s",  # the event loop's health check (every 20 ms)
}


def check_temporary_directory() -> None:
    """Refuses, in one line, to start an embedded cluster with no writable temporary
    directory: the forkserver's socket and each worker's local directory go there (Python's
    ``tempfile``: ``TMPDIR``, else /tmp, /var/tmp, /usr/tmp, the working directory). Under
    ``docker run --read-only`` none is writable, and the forkserver died with a
    FileNotFoundError traceback (exit 1, which says "no solution") once output had begun."""
    import shutil
    import tempfile

    try:
        shutil.rmtree(tempfile.mkdtemp(prefix="deppy-fleet-"))
    except OSError:
        asked = os.environ.get("TMPDIR")
        where = f"TMPDIR {asked}" if asked else "/tmp"
        what = "no such directory" if asked and not os.path.isdir(asked) else "not writable"
        raise InputError(
            where,
            f"{what}; fleet plan's worker processes need a writable temporary directory (nor "
            "are /tmp, /var/tmp, /usr/tmp or the working directory writable)",
            "set TMPDIR to one (docker run --read-only: add --tmpfs /tmp), or plan in this "
            "process with --workers 0",
        ) from None


def _start_forkserver(settings: FleetSettings, refs: Sequence[ClusterRef]) -> None:
    """Starts the forkserver the embedded cluster's workers are forked from, with ``PRELOAD``
    (dask would otherwise start it, with its own list, when the first worker starts), and
    has it warm a planner up on the run's first clusters (``fleet.warm_up``): before this
    process imports dask and starts the scheduler, so that the forkserver imports, loads the
    catalogs and warms up on another core at the same time instead of after, and once for
    all workers. A forkserver already running (an earlier run in this process) is kept."""
    from multiprocessing import forkserver, resource_tracker

    from deppy.workflows.fleet.warm_up import WARM_UP_VARIABLE, warm_up_request

    first = refs[:WARM_UP_CLUSTERS]
    catalog_set = first[0].catalog_set if first else None  # the first clusters' catalogs
    paths = [r.path for r in first if r.path is not None and r.catalog_set == catalog_set]
    os.environ[WARM_UP_VARIABLE] = warm_up_request(settings, paths, catalog_set)
    try:  # the forkserver (and multiprocessing's resource tracker) inherit it as they start
        forkserver.set_forkserver_preload([*PRELOAD, "deppy.workflows.fleet.warm_up"])
        # the tracker first: starting it, multiprocessing blocks SIGINT and then unblocks it,
        # which would undo _sigint_blocked before the forkserver starts
        resource_tracker.ensure_running()
        with _sigint_blocked():
            forkserver.ensure_running()
    finally:
        del os.environ[WARM_UP_VARIABLE]


@contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT blocked while the forkserver starts, so it starts with SIGINT blocked (a signal
    mask is kept across fork and exec, and Python leaves it as it finds it), and so does every
    worker forked from it: a SIGINT sent to them stays pending and is never delivered.

    A terminal sends Ctrl-C's SIGINT to every process of the foreground group: the command and
    the processes it started. The workers died of it with tracebacks of dask's event loop (two to
    four, above the command's own message), and the forkserver with one of whatever it was
    importing. Only the command is to take it: it closes the cluster, which stops the workers,
    and says in one line that the run was interrupted. Blocked, not ignored, in this process:
    a Ctrl-C while the forkserver starts waits and is taken right after (ignoring it here, as
    deppy once did, lost it and the run went on). Off the main thread nothing is changed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextmanager
def _interrupt_deferred() -> Iterator[list[bool]]:
    """Ctrl-C while the embedded cluster starts is taken when it has started (the list it
    yields is then not empty); a second Ctrl-C interrupts at once.

    Interrupted half-way, dask's LocalCluster is neither started nor stoppable: its closing
    failed an assertion (``Status.init``) with a traceback, and a worker still starting died of
    a semaphore the command had already removed, with another. Starting takes about a second;
    the command then stops the cluster it has and says the run was interrupted, in one line."""
    asked: list[bool] = []
    if threading.current_thread() is not threading.main_thread():
        yield asked
        return

    def defer(signum: int, frame: object) -> None:
        if asked:
            raise KeyboardInterrupt
        asked.append(True)

    previous = signal.signal(signal.SIGINT, defer)
    try:
        yield asked
    finally:
        signal.signal(signal.SIGINT, previous)


class _client:
    """A dask client: of a LocalCluster started here (and stopped after), or of ``scheduler``."""

    def __init__(
        self,
        workers: int,
        scheduler: str | None,
        settings: FleetSettings,
        refs: Sequence[ClusterRef],
    ) -> None:
        self.workers = workers
        self.scheduler = scheduler
        self.settings = settings
        self.refs = refs
        self.cluster: Any = None
        self.client: Any = None
        self.config: Any = None

    def __enter__(self) -> Any:
        if self.scheduler is None:
            check_temporary_directory()
            _start_forkserver(self.settings, self.refs)
        from distributed import Client, LocalCluster

        try:
            if self.scheduler is not None:
                self.client = Client(self.scheduler, timeout="20s")
                return self.client
            with _interrupt_deferred() as interrupted:
                self.config = _embedded_config()
                self.cluster = LocalCluster(
                    n_workers=self.workers,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    # its HTTP endpoint (no dashboard: bokeh is not installed) on loopback,
                    # any free port: the default 8787 may be taken, and warns when it is
                    dashboard_address="127.0.0.1:0",
                    silence_logs=logging.CRITICAL,  # workers outliving the scheduler: no news
                )
                # results straight from the worker, not relayed by the scheduler: both ends
                # are on this machine, and the relay costs this process a second copy
                self.client = Client(self.cluster, direct_to_workers=True)
            if interrupted:  # Ctrl-C while it started: stopped whole, then said as usual
                self.__exit__()
                raise KeyboardInterrupt
        except (OSError, TimeoutError) as error:
            self.__exit__()
            where = self.scheduler or "a local dask cluster"
            raise DeppyError(
                f"{where}: cannot connect ({error}); check --scheduler tcp://HOST:PORT"
            ) from None
        return self.client

    def __exit__(self, *exc: object) -> None:
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()
        if self.config is not None:
            self.config.__exit__(None, None, None)


def _on_dask(
    client: Any,
    refs: Sequence[ClusterRef],
    settings: FleetSettings,
    batch_size: int | None,
    progress: Progress | None,
    rollup: Rollup,
    contents: dict[str, bytes] | None,
) -> Iterator[Lines]:
    """The batches on dask; ``contents``: the catalogs to send the workers of a remote
    cluster (None: the embedded cluster, on this machine)."""
    from distributed import as_completed

    run = uuid.uuid4().hex[:12]  # keys unique per run: a shared scheduler may hold older ones
    workers = max(len(client.scheduler_info().get("workers", {})), 1)
    size = batch_size or default_batch_size(len(refs), workers)
    batches = [refs[n : n + size] for n in range(0, len(refs), size)]
    total = len(refs)
    limit = max(IN_FLIGHT_PER_WORKER * workers, 2)
    waiting = iter(enumerate(batches))
    batch_of: dict[Any, int] = {}
    remote = contents is not None
    shipped = client.scatter(contents, broadcast=True) if contents else {}

    def submit() -> Any | None:
        for n, batch in waiting:
            key = f"deppy-fleet-{run}-{n}"
            if remote:
                sent = [with_content(r) for r in batch]
                future = client.submit(
                    plan_shipped, settings, sent, shipped, run, key=key, pure=False
                )
            else:
                future = client.submit(
                    plan_packed, settings, list(batch), compress=False, key=key, pure=False
                )
            batch_of[future] = n
            return future
        return None

    first = [f for f in (submit() for _ in range(limit)) if f is not None]
    pending = as_completed(first)
    ready: dict[int, Batch] = {}  # batches (their clusters consecutive) that arrived early
    next_batch = 0
    done = 0
    for future in pending:
        n = batch_of.pop(future)
        try:
            result = _unpacked(future.result(), compressed=remote)
        except Exception as error:  # the batch failed on the cluster (e.g. KilledWorker)
            why = f"its batch failed on the dask cluster ({type(error).__name__}: {error})"
            result = _error_records(batches[n], why)
        future.release()
        if n >= next_batch and n not in ready:  # each batch, so each cluster, once
            ready[n] = result
        while next_batch in ready:
            lines, summed = ready.pop(next_batch)
            rollup.merge(summed)
            yield lines
            done += lines.clusters
            next_batch += 1
        if progress is not None:
            progress(done, total)
        following = submit()
        if following is not None:
            pending.add(following)
