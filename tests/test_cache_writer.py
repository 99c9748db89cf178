"""A command's output ends when the command does (issue 26, group 2).

The first ``--catalog DIR`` run forks a writer that keeps the parsed catalog while the command
answers. A script reads the answer through a pipe (``out=$(deppy …)``, a subprocess capture):
the pipe must reach end of file when deppy has answered, not when the writer is done; the
writer still writes a whole entry, which the next run reads.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import shared_path

DEPPY = str(Path(sys.executable).with_name("deppy"))
COMMUNITY = shared_path("catalogs", "community-operators-prod-v4.18")
RESOLVE = ["resolve", "--catalog", str(COMMUNITY), "--require", "etcd", "-o", "json"]


def captured(home: Path, *argv: str, **extra: str) -> tuple[int, bytes, bytes]:
    """The command run as a script runs it: stdin, stdout and stderr pipes, read until each
    ends (communicate returns at end of file on both, then reaps the command), and one more
    pipe the caller passes down as descriptor 3 (as ``3>&1`` in a shell), read to its end too."""
    extra_read, extra_write = os.pipe()
    process = subprocess.Popen(
        [DEPPY, *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        pass_fds=(extra_write,),
        env={**os.environ, "DEPPY_HOME": str(home), **extra},
    )
    os.close(extra_write)
    out, err = process.communicate(timeout=120)
    with os.fdopen(extra_read, "rb") as passed:
        assert passed.read() == b""
    return process.returncode, out, err


def writers_at_work(cache: Path) -> list[int]:
    """The pids of live writers: each names its temporary file ``.tmp-<pid>-…`` at once."""
    pids = []
    for temporary in cache.glob(".tmp-*"):
        pid = int(temporary.name.split("-")[1])
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        pids.append(pid)
    return pids


def test_the_output_ends_before_the_cache_writer_does(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cache = home / "cache"
    code, first, err = captured(home, *RESOLVE)
    assert code == 0, err.decode()
    # Every pipe is at end of file and the command is gone: a writer still at work now
    # holds none of them (before the fix, the pipes ended only when the writer exited).
    writers = writers_at_work(cache)
    assert writers, "no cache writer was at work when the command's output ended"
    deadline = time.monotonic() + 120
    while writers_at_work(cache):
        assert time.monotonic() < deadline, "the cache writer never finished"
        time.sleep(0.1)
    assert list(cache.glob(".tmp-*")) == []
    (entry,) = cache.glob("catalog-*")  # whole: renamed into place
    past = time.time() - 3600
    os.utime(entry, (past, past))
    code, again, err = captured(home, *RESOLVE)
    assert code == 0, err.decode()
    assert again == first
    assert entry.stat().st_atime > past + 60, "the second run did not read the kept entry"
    assert list(cache.glob("catalog-*")) == [entry] and writers_at_work(cache) == []
    code, uncached, _ = captured(home, *RESOLVE, DEPPY_CACHE="off")
    assert code == 0 and uncached == first
