"""A catalog's YAML files parsed ahead of loading: from the parsed-catalog cache, else on two cores.

YAML is the slow part of loading (libyaml reads ~25 MB/s through deppy's guard, orjson reads
JSON at ~200 MB/s), and the files are independent: so before objects are loaded in file order,
the YAML files (``.yaml``/``.yml``) not found in the cache are parsed by a forked worker process
and by this one, which meanwhile also parses the JSON files, the shares set so both finish
together. The worker sends each file's
documents back as JSON (every parsed value is a JSON value, see ``deppy.input_limits``), the
same text the cache keeps, so a document reads back equal to what a direct parse gives.

Parallel parsing pays from a few megabytes of YAML on (forking and sending cost ~10 ms); a
single core, a platform without ``fork``, or a worker that fails leaves the work to this
process, with the same result.
"""

from __future__ import annotations

import os
import select
import signal
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

import orjson

from deppy.catalog.fbc.cache import ParsedCache, may_fork
from deppy.catalog.fbc.files import Doc, read_docs

PARALLEL_MIN_BYTES: Final = 2 << 20
"""Uncached YAML below this is parsed here alone: a worker would cost more than it saves."""

YAML_SUFFIXES: Final = (".yaml", ".yml")
JSON_SPEEDUP: Final = 8
"""How much faster a byte of JSON parses than a byte of YAML (orjson against libyaml's events)."""

Parsed = tuple[list[Doc], list[tuple[str, str]]]
"""One file's documents and the problems met while splitting and parsing them."""


def parsed_yaml_files(
    root: Path, rels: Iterable[str], cache: ParsedCache | None
) -> dict[str, Parsed]:
    """The parsed YAML files under ``root`` by relative path — and, while a worker parses
    YAML, the JSON files this process parsed meanwhile (in file order). Files that cannot be
    read are left out (loading reads them again and reports why)."""
    parsed: dict[str, Parsed] = {}
    todo: list[tuple[str, int]] = []
    others: list[tuple[str, int]] = []
    for rel in rels:
        path = _path(root, rel)
        try:
            stat = os.stat(path)
        except OSError:
            continue
        if not path.lower().endswith(YAML_SUFFIXES):
            others.append((rel, stat.st_size))
            continue
        if cache is not None:
            data = cache.file(cache.file_key(path, stat))
            if data is not None:
                hit = _decoded(data)
                if hit is not None:
                    parsed[rel] = hit
                    continue
        todo.append((rel, stat.st_size))
    mine, theirs = _shares(todo, sum(size for _, size in others))
    worker = _start_worker(root, theirs, cache) if theirs else None
    try:
        for rel in mine:
            done = _parse_file(root, rel, cache)
            if done is not None:
                parsed[rel] = done[0]
        if worker is not None:
            for rel, _ in others:  # JSON while the worker works: loading then waits less
                if _finished(worker):
                    break
                done = _parse_file(root, rel, None)
                if done is not None:
                    parsed[rel] = done[0]
            parsed.update(_collect(worker))
            worker = None
    finally:
        if worker is not None:  # interrupted (--timeout, ^C): the worker goes too
            _stop(worker)
    for rel in theirs:  # what the worker did not send (it failed): parsed here
        if rel not in parsed:
            done = _parse_file(root, rel, cache)
            if done is not None:
                parsed[rel] = done[0]
    return parsed


def _path(root: Path, rel: str) -> str:
    return os.path.join(root, rel) if rel else str(root)


def _shares(todo: list[tuple[str, int]], other_bytes: int) -> tuple[list[str], list[str]]:
    """This process's YAML files and the worker's, largest files first, so both finish
    together: this process also parses the other files (JSON, ~8x faster a byte) meanwhile."""
    total = sum(size for _, size in todo)
    if total < PARALLEL_MIN_BYTES or not _can_fork():
        return [rel for rel, _ in todo], []
    mine: list[str] = []
    theirs: list[str] = []
    weights = [other_bytes // JSON_SPEEDUP, 0]
    for rel, size in sorted(todo, key=lambda item: (-item[1], item[0])):
        side = 0 if weights[0] <= weights[1] else 1
        (mine if side == 0 else theirs).append(rel)
        weights[side] += size
    return mine, theirs


def _can_fork() -> bool:
    return (os.cpu_count() or 1) >= 2 and may_fork()


def _parse_file(
    root: Path, rel: str, cache: ParsedCache | None, *, encode: bool = False
) -> tuple[Parsed, bytes] | None:
    """One file parsed (and kept in the cache), with its JSON form when kept or ``encode``d
    (else ``b""``); None when unreadable."""
    path = _path(root, rel)
    try:
        with open(path, "rb") as file:
            stat = os.fstat(file.fileno())
            data = file.read()
    except OSError:
        return None
    problems: list[tuple[str, str]] = []
    docs = read_docs(data, Path(path).suffix.lower(), problems)
    if cache is None and not encode:
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
    except TypeError:  # not JSON values (never from deppy's guard): neither kept nor sent
        return None


def _decoded(data: bytes) -> Parsed | None:
    try:
        docs, problems = orjson.loads(data)
        return [Doc(w, line, obj) for w, line, obj in docs], [(w, why) for w, why in problems]
    except (ValueError, TypeError):
        return None


# ---------------------------------------------------------------------------------------------
# The worker: a forked copy of this process that parses its share and writes the results to a
# pipe as one JSON array of [relative path, file's JSON form] pairs.


def _start_worker(root: Path, rels: list[str], cache: ParsedCache | None) -> tuple[int, int] | None:
    parent = os.getpid()
    try:
        read_end, write_end = os.pipe()
        pid = os.fork()
    except OSError:
        return None
    if pid == 0:  # the worker: never returns
        status = 1
        try:
            os.close(read_end)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            results: list[bytes] = []
            for rel in rels:
                if os.getppid() != parent:  # the command was killed: nobody waits for this
                    break
                done = _parse_file(root, rel, cache, encode=True)
                if done is not None and done[1]:
                    results.append(b"[" + orjson.dumps(rel) + b"," + done[1] + b"]")
            else:
                payload = b"[" + b",".join(results) + b"]"
                view = memoryview(payload)
                while view:
                    view = view[os.write(write_end, view) :]
                status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    return pid, read_end


def _finished(worker: tuple[int, int]) -> bool:
    """Whether the worker has sent its results (or ended): its pipe has something to read."""
    ready, _, _ = select.select([worker[1]], [], [], 0)
    return bool(ready)


def _collect(worker: tuple[int, int]) -> dict[str, Parsed]:
    """What the worker sent (nothing when it failed); waits for it to end."""
    pid, read_end = worker
    chunks: list[bytes] = []
    try:
        while True:
            ready, _, _ = select.select([read_end], [], [], 0.1)  # interruptible (--timeout)
            if not ready:
                continue
            chunk = os.read(read_end, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_end)
        _, status = os.waitpid(pid, 0)
    if status != 0:
        return {}
    try:
        pairs: Any = orjson.loads(b"".join(chunks))
    except ValueError:
        return {}
    parsed: dict[str, Parsed] = {}
    for rel, (docs, problems) in pairs:
        parsed[rel] = ([Doc(w, line, obj) for w, line, obj in docs], [(w, y) for w, y in problems])
    return parsed


def _stop(worker: tuple[int, int]) -> None:
    pid, read_end = worker
    try:
        os.close(read_end)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass
