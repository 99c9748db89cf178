"""A catalog's files read on two cores: each file recorded by one process, merged in file order.

Reading a file — parsing it (YAML from the parsed-catalog cache when kept) and turning its
objects into model values (:mod:`deppy.catalog.fbc.recording`) — depends on that file alone.
So from a few megabytes on, a forked worker records a share of the files while this process
records the rest, the shares weighed so both finish together (a byte of YAML costs about
:data:`YAML_COST` bytes of JSON). The worker appends each record, pickled, to an unnamed
temporary file as it goes and keeps nothing; this process reads them back when its own share
is done (unpickling costs a tenth of recording), then every record is merged in file order:
the catalog is the one a single process loads, with the same problems in the same order.

A single core, a platform without ``fork``, a thread other than the main one, or a worker
that fails leaves the work (or what is missing of it) to this process, with the same result.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Final

import orjson

from deppy.catalog.fbc.cache import STOPS, ParsedCache, may_fork, stops_held
from deppy.catalog.fbc.files import Doc, read_docs
from deppy.catalog.fbc.recording import PROBLEM, FileRecord, Recorder
from deppy.catalog.file_values import FileOrigin, file_origin

PARALLEL_MIN_BYTES: Final = 2 << 20
"""Below this (weighed) size the files are read here alone: a worker would cost more than it
saves."""

YAML_SUFFIXES: Final = (".yaml", ".yml")
YAML_COST: Final = 8
"""How much longer a byte of YAML takes to read than a byte of JSON (libyaml's events against
orjson, objects included)."""

WORKER_COST: Final = 1.4
"""What a file costs the worker against this process: it also pickles and writes its records
(and this process reads them back)."""

Parsed = tuple[list[Doc], list[tuple[str, str]]]
"""One file's documents and the problems met while splitting and parsing them."""


def file_records(
    root: Path, rels: Iterable[str], cache: ParsedCache | None, recorder: Recorder
) -> Iterator[FileRecord]:
    """The record of every file under ``root`` (relative paths ``rels``), in that order."""
    rels = list(rels)
    mine, theirs = _shares(root, rels, cache)
    worker = None
    records: dict[str, FileRecord] = {}
    try:
        with stops_held():
            worker = _start_worker(root, theirs, cache, recorder) if theirs else None
        for rel in mine if worker is not None else rels:
            records[rel] = _record(root, rel, cache, recorder)
        if worker is not None:
            records.update(_collect(worker))
            worker = None
    finally:
        if worker is not None:  # interrupted (--timeout, ^C): the worker goes too
            _stop(worker)
    for rel in rels:
        record = records.pop(rel, None)
        yield record if record is not None else _record(root, rel, cache, recorder)


def _record(root: Path, rel: str, cache: ParsedCache | None, recorder: Recorder) -> FileRecord:
    """One file read and recorded (an unreadable file is a problem of its own)."""
    path = _path(root, rel)
    label = str(root / rel) if rel else str(root)
    origin: FileOrigin | None = None
    if path.lower().endswith(YAML_SUFFIXES):
        parsed = _cached(path, cache) if cache is not None else None
        if parsed is None:
            done = _parse_file(root, rel, cache)
            parsed = done[0] if done is not None else None
    else:
        read = _read(path)
        parsed, origin = read if read is not None else (None, None)
    if parsed is None:
        return label, [(PROBLEM, "", _unreadable(path))]
    file_dir = (root / rel).parent if rel else root.parent
    return recorder.record(label, file_dir, *parsed, origin=origin)


def _unreadable(path: str) -> str:
    try:
        with open(path, "rb"):
            pass
    except OSError as err:
        return f"cannot read: {err.strerror}"
    return "cannot read"


def _read(path: str) -> tuple[Parsed, FileOrigin] | None:
    """A file's documents and problems, and the file as it was read."""
    try:
        with open(path, "rb") as file:
            origin = file_origin(os.path.abspath(path), os.fstat(file.fileno()))
            data = file.read()
    except OSError:
        return None
    problems: list[tuple[str, str]] = []
    return (read_docs(data, Path(path).suffix.lower(), problems), problems), origin


def _cached(path: str, cache: ParsedCache) -> Parsed | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    data = cache.file(cache.file_key(path, stat))
    return _decoded(data) if data is not None else None


def _path(root: Path, rel: str) -> str:
    return os.path.join(root, rel) if rel else str(root)


def _shares(root: Path, rels: list[str], cache: ParsedCache | None) -> tuple[list[str], list[str]]:
    """This process's files and the worker's (none when it would not pay), each in file
    order: largest first to whichever side has less to do, so both finish together."""
    weighed: list[tuple[int, str]] = []
    for rel in rels:
        path = _path(root, rel)
        try:
            stat = os.stat(path)
        except OSError:
            weighed.append((0, rel))
            continue
        yaml = path.lower().endswith(YAML_SUFFIXES)
        if yaml and cache is not None and cache.has_file(cache.file_key(path, stat)):
            yaml = False  # its documents are read back as JSON
        weighed.append((stat.st_size * YAML_COST if yaml else stat.st_size, rel))
    if sum(w for w, _ in weighed) < PARALLEL_MIN_BYTES or not _can_fork():
        return rels, []
    sides: tuple[list[str], list[str]] = ([], [])
    weights = [0, 0]
    for weight, rel in sorted(weighed, key=lambda item: (-item[0], item[1])):
        side = 0 if weights[0] <= weights[1] else 1
        sides[side].append(rel)
        weights[side] += weight if side == 0 else int(weight * WORKER_COST)
    order = {rel: i for i, rel in enumerate(rels)}
    return sorted(sides[0], key=order.__getitem__), sorted(sides[1], key=order.__getitem__)


def _can_fork() -> bool:
    return (os.cpu_count() or 1) >= 2 and may_fork()


def _parse_file(root: Path, rel: str, cache: ParsedCache | None) -> tuple[Parsed, bytes] | None:
    """One YAML file parsed (and kept in the cache), with its JSON form when kept (else
    ``b""``); None when unreadable."""
    path = _path(root, rel)
    try:
        with open(path, "rb") as file:
            stat = os.fstat(file.fileno())
            data = file.read()
    except OSError:
        return None
    problems: list[tuple[str, str]] = []
    docs = read_docs(data, Path(path).suffix.lower(), problems)
    if cache is None:
        return (docs, problems), b""
    encoded = _encoded(docs, problems)
    if encoded is None:
        return (docs, problems), b""
    if cache is not None:
        cache.keep_file(cache.file_key(path, stat), encoded)
    return (docs, problems), encoded


def _encoded(docs: list[Doc], problems: list[tuple[str, str]]) -> bytes | None:
    try:
        return orjson.dumps([[[d.where, d.line, d.obj] for d in docs], problems])
    except TypeError:  # not JSON values (never from deppy's guard): not kept
        return None


def _decoded(data: bytes) -> Parsed | None:
    try:
        docs, problems = orjson.loads(data)
        return [Doc(w, line, obj) for w, line, obj in docs], [(w, why) for w, why in problems]
    except (ValueError, TypeError):
        return None


# ---------------------------------------------------------------------------------------------
# The worker: a forked copy of this process that records its share, appending each record
# (pickled) to a temporary file both processes hold, then says on a pipe that it is done.

Worker = tuple[int, int, IO[bytes]]
"""The worker's pid, the read end of its pipe, the file it writes its records to."""


def _start_worker(
    root: Path, rels: list[str], cache: ParsedCache | None, recorder: Recorder
) -> Worker | None:
    parent = os.getpid()
    try:
        output = tempfile.TemporaryFile(prefix="deppy-records-")  # noqa: SIM115 - closed by _collect or _stop
    except OSError:
        return None
    try:
        read_end, write_end = os.pipe()
        pid = os.fork()
    except OSError:
        output.close()
        return None
    if pid == 0:  # the worker: never returns
        status = 1
        try:
            os.close(read_end)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)
            # One pickler for every record: its memo keeps a value shared between files
            # (CSV metadata a package's bundles repeat) one object when read back.
            pickler = pickle.Pickler(output, protocol=pickle.HIGHEST_PROTOCOL)
            for rel in rels:
                if os.getppid() != parent:  # the command was killed: nobody waits for this
                    break
                pickler.dump((rel, _record(root, rel, cache, recorder)))
            else:
                output.flush()
                os.write(write_end, b"done")
                status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    return pid, read_end, output


def _collect(worker: Worker) -> dict[str, FileRecord]:
    """The records the worker wrote (none when it failed); waits for it to end."""
    pid, read_end, output = worker
    said = b""
    try:
        while True:
            ready, _, _ = select.select([read_end], [], [], 0.1)  # interruptible (--timeout)
            if not ready:
                continue
            chunk = os.read(read_end, 16)
            if not chunk:
                break
            said += chunk
    finally:
        os.close(read_end)
        _, status = os.waitpid(pid, 0)
    records: dict[str, FileRecord] = {}
    with output:
        if status != 0 or said != b"done":
            return records
        output.seek(0)
        unpickler = pickle.Unpickler(output)
        while True:
            try:
                rel, record = unpickler.load()
            except EOFError:
                return records
            except Exception:  # a damaged record file: what is missing is recorded here
                return records
            records[rel] = record


def _stop(worker: Worker) -> None:
    pid, read_end, output = worker
    try:
        output.close()
        os.close(read_end)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass
