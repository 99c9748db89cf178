"""``deppy fleet plan --scheduler`` on dask workers that share nothing with the command: a real
``dask scheduler`` and two ``dask worker``s (dask's own command-line tools), each worker in a
mount namespace of its own where the checkout's parent directory (the checkout, ../shared's
catalogs) and pytest's temporary directory (the exports, the command's deppy home) are covered
by an empty tmpfs, as on pods of a Kubernetes cluster. Only deppy's installation is put back
where it was (the virtual environment and deppy's source, which the editable install imports):
a worker's image holds deppy.

The scheduler, the workers, the command and the registry share one network namespace made
by the test, with nothing but its own loopback: a network namespace cannot reach the host's
127.0.0.1, and the command must reach the scheduler. The output is byte for byte the one of
the embedded cluster, for a catalog directory (its content sent to each worker) and for a
catalog image in Debian's docker-registry (pulled by each worker, by digest); a worker that
cannot pull the image fails its batches as error records, at once.

Needs root's network and mount namespaces (``unshare``); skipped with a message elsewhere."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

import orjson
import pytest
from benchmarks.fleet_exports import write_fleet

from deppy.errors import DeppyError
from deppy.resolution.request_parsing import parse_catalog
from deppy.workflows.catalog_loading import load_catalogs
from tests.catalog_images import Layout, split_catalog
from tests.conftest import free_port, shared_path
from tests.ports import ROOT, SHARED
from tests.registry import DOCKER_REGISTRY, _config, registry_missing

COMMUNITY = shared_path("catalogs", "community-operators-prod-v4.18")
BIN = Path(sys.executable).parent
COUNT = 35
WORKERS = 2


def _namespaces_missing() -> str | None:
    for tool in ("unshare", "nsenter", "ip", "mount"):
        if shutil.which(tool) is None:
            return f"needs {tool} (util-linux, iproute2) for namespaces of its own"
    probe = subprocess.run(
        ["unshare", "--net", "--mount", "true"], capture_output=True, text=True, timeout=30
    )
    if probe.returncode != 0:
        return f"needs root's network and mount namespaces (unshare: {probe.stderr.strip()})"
    return None


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def network() -> Iterator[list[str]]:
    """The prefix that runs a command in the test's network namespace (its loopback up)."""
    missing = _namespaces_missing()
    if missing is not None:
        pytest.skip(missing)
    holder = subprocess.Popen(
        ["unshare", "--net", "sh", "-c", "ip link set lo up && echo up && exec sleep 3600"],
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"up\n"
        yield ["nsenter", f"--net=/proc/{holder.pid}/ns/net"]
    finally:
        holder.kill()
        holder.wait()


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("fleet")
    write_fleet(load_catalogs([parse_catalog(str(COMMUNITY))]), directory, COUNT, low=3,
                high=10, damaged=True)  # fmt: skip
    return directory


@pytest.fixture(scope="module")
def scheduler(
    network: list[str], fleet: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A scheduler and workers with nothing of the command's (``_covered``), each worker's
    deppy home its own (in its own tmpfs)."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    basetemp = tmp_path_factory.getbasetemp()
    dask = str(BIN / "dask")
    serve = [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"]
    started = [subprocess.Popen([*network, *serve], **quiet)]
    try:
        for n in range(WORKERS):
            home = basetemp / "worker-home"
            worker = (
                f"mkdir -p '{home}' && DEPPY_HOME='{home}' exec '{dask}' worker {address} "
                f"--name w{n} --nthreads 1 --no-nanny --no-dashboard --host 127.0.0.1"
            )
            script = _covered([ROOT.parent, SHARED, basetemp], worker)
            started.append(
                subprocess.Popen([*network, "unshare", "--mount", "sh", "-c", script], **quiet)
            )
        seen = _on_the_cluster(
            network,
            address,
            f"c.wait_for_workers({WORKERS}, timeout=60)\n"
            f"print(sorted(c.run(os.path.exists, {str(COMMUNITY)!r}).values()) + "
            f"sorted(c.run(os.path.exists, {str(fleet)!r}).values()) + "
            f"sorted(c.run(os.path.exists, {str(ROOT / 'tests')!r}).values()))",
        )
        assert seen == str([False] * WORKERS * 3), "the workers see the command's files"
        yield address
    finally:
        for process in reversed(started):
            _stop(process)


def _covered(paths: list[Path], command: str) -> str:
    """A script that covers ``paths`` (those under no other of them) with an empty tmpfs,
    keeping only deppy's installation (this virtual environment and deppy's source, which an
    editable install imports) where they were, then runs ``command``."""
    import deppy

    keep = [Path(sys.prefix), Path(deppy.__file__).resolve().parents[1]]
    tops = [p for p in paths if not any(o != p and o in p.parents for o in paths)]
    lines = ["mount -t tmpfs none /mnt"]
    lines += [f"mkdir /mnt/k{n} && mount --bind '{k}' /mnt/k{n}" for n, k in enumerate(keep)]
    lines += [f"mount -t tmpfs none '{top}'" for top in dict.fromkeys(tops)]
    lines += [f"mkdir -p '{k}' && mount --move /mnt/k{n} '{k}'" for n, k in enumerate(keep)]
    return " && ".join([*lines, command])


def _on_the_cluster(network: list[str], address: str, code: str) -> str:
    script = f"import os\nfrom distributed import Client\nc = Client({address!r}, timeout='30s')\n"
    done = subprocess.run([*network, sys.executable, "-c", script + code], capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _plan(
    network: list[str], fleet: Path, catalog: str, *more: str
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*network, str(BIN / "deppy"), "fleet", "plan", str(fleet), "--catalog", catalog,
         "--ocp-version", "4.20", "-o", "jsonl", "--batch-size", "4", *more],
        capture_output=True,
        timeout=300,
    )  # fmt: skip


def _planned(done: subprocess.CompletedProcess[bytes]) -> bytes:
    assert done.returncode == 0, done.stderr.decode()
    assert b"Traceback" not in done.stderr, done.stderr.decode()
    return done.stdout


def test_a_catalog_directory_is_sent_to_workers_that_cannot_see_it(
    network: list[str], fleet: Path, scheduler: str
) -> None:
    embedded = _planned(_plan(network, fleet, str(COMMUNITY), "--workers", "1"))
    remote = _planned(_plan(network, fleet, str(COMMUNITY), "--scheduler", scheduler))
    assert remote == embedded
    assert [orjson.loads(line)["index"] for line in remote.splitlines()] == list(range(COUNT))
    assert sum(b'"error"' in line for line in remote.splitlines()) < COUNT // 2


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if registry_missing() is not None:
        pytest.skip(registry_missing() or "")
    root = tmp_path_factory.mktemp("layout")
    image = Layout(root)
    image.tag(image.image(split_catalog(COMMUNITY)), "v4.18")
    return root


def _registry(network: list[str], directory: Path, port: int) -> subprocess.Popen[bytes]:
    """docker-registry in the test's network (a helper of tests/registry.py waits for one on
    the host's loopback)."""
    directory.mkdir(exist_ok=True)
    config = _config(directory, port, secure=False, read_only=False)
    process = subprocess.Popen([*network, str(DOCKER_REGISTRY), "serve", str(config)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 30
    while subprocess.run([*network, "bash", "-c", f"exec 3<>/dev/tcp/127.0.0.1/{port}"],
                         capture_output=True).returncode:  # fmt: skip
        assert process.poll() is None and time.monotonic() < deadline, "no docker-registry"
        time.sleep(0.1)
    return process


def test_a_catalog_image_is_pulled_by_each_worker_and_an_unreachable_one_fails_its_batches(
    network: list[str], fleet: Path, scheduler: str, layout: Path, tmp_path: Path
) -> None:
    port = free_port()
    image = f"docker://127.0.0.1:{port}/catalogs/community:v4.18"
    registry = _registry(network, tmp_path / "registry", port)
    try:
        copy = ["skopeo", "copy", "--dest-tls-verify=false", f"oci:{layout}:v4.18", image]
        pushed = subprocess.run([*network, *copy], capture_output=True, text=True)
        assert pushed.returncode == 0, pushed.stderr
        embedded = _planned(_plan(network, fleet, image, "--tls-verify", "false", "--workers", "1"))
    finally:
        _stop(registry)
    # the command reads the tag's last digest from its cache (a warning); the workers cannot
    started = time.monotonic()
    down = _plan(network, fleet, image, "--tls-verify", "false", "--registry-timeout", "5",
                 "--scheduler", scheduler)  # fmt: skip
    assert time.monotonic() - started < 120
    assert down.returncode == 2, down.stderr.decode()
    assert b"Traceback" not in down.stderr
    records = [orjson.loads(line) for line in down.stdout.splitlines()]
    assert [r["index"] for r in records] == list(range(COUNT))
    assert all("this dask worker could not fetch the catalogs" in r["error"] for r in records)
    assert "127.0.0.1:" in records[0]["error"]
    registry = _registry(network, tmp_path / "registry", port)
    try:
        remote = _planned(_plan(network, fleet, image, "--tls-verify", "false", "--scheduler",
                                scheduler))  # fmt: skip
    finally:
        _stop(registry)
    assert remote == embedded


def test_an_export_travels_as_its_bytes_and_an_unreadable_one_as_its_words(
    fleet: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a remote worker gets for each cluster: the state it reads from the bytes is the
    file's (its ``where`` the command's path), and an export the command cannot read or send
    fails with the words the worker would have said reading it."""
    from deppy.workflows.fleet import inputs
    from deppy.workflows.fleet.inputs import ClusterRef, read_ref, with_content

    export = sorted(fleet.glob("*.json"))[0]
    ref = ClusterRef(0, export.name, path=str(export))
    sent = with_content(ref)
    assert sent.content == export.read_bytes()
    there, here = read_ref(sent, None), read_ref(ref, None)
    assert [getattr(there, f.name) for f in fields(there)] == [
        getattr(here, f.name) for f in fields(here)
    ]
    gone = tmp_path / "gone.json"
    gone.symlink_to(tmp_path / "nothing-there.json")
    dangling = ClusterRef(1, gone.name, path=str(gone))
    with pytest.raises(DeppyError) as locally:
        read_ref(dangling, None)
    with pytest.raises(DeppyError) as remotely:
        read_ref(with_content(dangling), None)
    assert str(remotely.value) == str(locally.value)
    monkeypatch.setattr(inputs, "EXPORT_LIMIT", 100)
    with pytest.raises(DeppyError, match=r"is larger than 0 MiB, the most a fleet plan sends"):
        read_ref(with_content(ref), None)


def test_a_stored_catalog_is_refused_before_any_scheduler_is_asked(fleet: Path) -> None:
    """Workers elsewhere cannot read this machine's store: one line, exit 2, and no wait on
    the scheduler (nothing listens at its address)."""
    nowhere = f"tcp://127.0.0.1:{free_port()}"
    for named in ([], ["--catalog", "community"]):
        done = subprocess.run([str(BIN / "deppy"), "fleet", "plan", str(fleet), *named,
                               "--scheduler", nowhere], capture_output=True, text=True,
                              timeout=60)  # fmt: skip
        assert done.returncode == 2, done.stderr
        (line,) = done.stderr.splitlines()
        assert "cannot read this machine's stored catalogs" in line or "a stored catalog" in line
