"""The controller's namespace queue: events that arrive together are answered together (a quiet
period, bounded), one resolution of a namespace at a time, and a failed one tried again."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from deppy.controller.kube import ApiError
from deppy.controller.namespace_queue import RETRY_SECONDS, NamespaceQueue


class Recorder:
    def __init__(self, fail: int = 0, seconds: float = 0.0) -> None:
        self.calls: list[tuple[str, float]] = []
        self.fail = fail
        self.seconds = seconds
        self.running = 0
        self.most = 0
        self.guard = threading.Lock()

    def __call__(self, namespace: str) -> None:
        with self.guard:
            self.running += 1
            self.most = max(self.most, self.running)
            self.calls.append((namespace, time.monotonic()))
        try:
            time.sleep(self.seconds)
            if self.fail:
                self.fail -= 1
                raise ApiError(503, "the API server is stalled (test)")
        finally:
            with self.guard:
                self.running -= 1


@pytest.fixture
def started() -> Iterator[list[NamespaceQueue]]:
    queues: list[NamespaceQueue] = []
    yield queues
    for queue in queues:
        queue.stop()


def _queue(started: list[NamespaceQueue], work: Recorder, **options: float) -> NamespaceQueue:
    queue = NamespaceQueue(work, **options)  # type: ignore[arg-type]
    queue.start()
    started.append(queue)
    return queue


def _wait_idle(queue: NamespaceQueue, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not queue.idle():
        assert time.monotonic() < deadline, "the queue never went idle"
        time.sleep(0.02)


def test_a_burst_is_answered_once_after_it_goes_quiet(started: list[NamespaceQueue]) -> None:
    work = Recorder()
    queue = _queue(started, work, quiet=0.3, bound=5.0)
    first = time.monotonic()
    for _ in range(10):  # one kubectl apply of ten Inputs
        queue.request("team-a")
        time.sleep(0.01)
    queue.request("team-b")
    time.sleep(0.8)
    _wait_idle(queue)
    assert sorted(ns for ns, _ in work.calls) == ["team-a", "team-b"]
    assert all(at - first >= 0.3 for _, at in work.calls)


def test_a_steady_stream_cannot_postpone_the_answer(started: list[NamespaceQueue]) -> None:
    work = Recorder()
    queue = _queue(started, work, quiet=0.3, bound=0.6)
    first = time.monotonic()
    while time.monotonic() - first < 1.5:  # an event every 0.1 s: never quiet for 0.3 s
        queue.request("busy")
        time.sleep(0.1)
    _wait_idle(queue)
    assert work.calls and work.calls[0][1] - first < 1.0


def test_one_resolution_of_a_namespace_at_a_time(started: list[NamespaceQueue]) -> None:
    work = Recorder(seconds=0.3)
    queue = _queue(started, work, quiet=0.0, bound=0.0, workers=2)
    queue.request("team-a")
    time.sleep(0.1)
    queue.request("team-a")  # arrives while the first runs: runs once more, afterwards
    _wait_idle(queue)
    assert [ns for ns, _ in work.calls] == ["team-a", "team-a"]
    assert work.most == 1


def test_a_failed_resolution_is_tried_again(started: list[NamespaceQueue]) -> None:
    work = Recorder(fail=1)
    queue = _queue(started, work, quiet=0.0, bound=0.0)
    queue.request("team-a")
    deadline = time.monotonic() + 10
    while len(work.calls) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [ns for ns, _ in work.calls] == ["team-a", "team-a"]


def test_a_trickling_registry_holds_one_worker_only_until_its_deadline(
    started: list[NamespaceQueue],
) -> None:
    """A namespace whose resolved catalog goes to a registry trickling a byte every 0.4 s: the
    push gives up at its 1 s deadline and the namespace is tried again with backoff, while the
    other namespaces are answered meanwhile (before, the push waited as long as it trickled)."""
    from deppy.controller.olmv1.provisioner import RegistryUnavailable
    from deppy.oci import catalog_image, parse_destination, publish
    from deppy.oci.push import RegistryError
    from tests.hostile_registry import hostile_registry

    image = catalog_image({"pkg/catalog.json": b"{}\n"})
    answered: dict[str, float] = {}
    failures: list[str] = []

    def work(namespace: str) -> None:
        if namespace == "slow":  # the provisioner's push, as the provisioner reports it
            try:
                publish(image, parse_destination(destination), tls_verify=False, timeout=1.0)
            except RegistryError as error:
                failures.append(str(error))
                raise RegistryUnavailable(str(error)) from None
        answered[namespace] = time.monotonic()

    with hostile_registry("trickle-headers") as registry:
        destination = f"docker://{registry.address}/deppy/resolved:t1"
        queue = NamespaceQueue(work, quiet=0.0, bound=0.0, workers=2)
        queue.start()
        started.append(queue)
        began = time.monotonic()
        queue.request("slow")
        time.sleep(0.1)
        for name in ("team-a", "team-b", "team-c"):
            queue.request(name)
        deadline = time.monotonic() + 10
        while not failures and time.monotonic() < deadline:
            time.sleep(0.05)
        ended = time.monotonic()
    assert failures and "did not finish answering GET /v2/ within 1 s" in failures[0]
    assert ended - began < 4  # the deadline, not the trickle's 20 s
    assert sorted(answered) == ["team-a", "team-b", "team-c"]
    assert all(at - began < 1.0 for at in answered.values())  # served while "slow" waited
    assert queue.retries.get("slow") == RETRY_SECONDS  # tried again, with backoff
