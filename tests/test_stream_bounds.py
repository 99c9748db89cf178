"""Catalog streams cost time linear in their size and memory near it (issue 26, groups 10
and 11): gzip streams of many members, and streams of blank lines, through every door that
reads them (``--catalog URL``, the controller's ConfigMap and HTTP sources, the service's
archives). The tests assert the mechanism (bytes handed to the inflater, bytes held at the
peak), never a time; ``benchmarks/stream_bounds.py`` prints the figures."""

from __future__ import annotations

import base64
import gzip
import io
import tarfile
import tempfile
import tracemalloc
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deppy.catalog.fbc.files import read_docs
from deppy.input_limits import UnsafeInput, streams
from deppy.input_limits.streams import gunzip_capped, read_capped

EMPTY_MEMBER = gzip.compress(b"", mtime=0)
PACKAGE = b'{"schema":"olm.package","name":"a"}\n'


class _CountingZlib:
    """The zlib module, with every byte handed to an inflater counted."""

    def __init__(self) -> None:
        self.handed = 0
        self.MAX_WBITS = zlib.MAX_WBITS
        self.error = zlib.error

    def decompressobj(self, *args: Any, **kwargs: Any) -> Any:
        inner = zlib.decompressobj(*args, **kwargs)
        outer = self

        class Counted:
            def decompress(self, data: Any, max_length: int = 0) -> bytes:
                outer.handed += len(data)
                return inner.decompress(data, max_length)

            def __getattr__(self, name: str) -> Any:
                return getattr(inner, name)

        return Counted()


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> Iterator[_CountingZlib]:
    counter = _CountingZlib()
    monkeypatch.setattr(streams, "zlib", counter)
    yield counter


def test_many_empty_gzip_members_are_read_in_linear_work(counting: _CountingZlib) -> None:
    """Each member was handed the whole rest of the stream (and copied it back as
    ``unused_data``): 4 MB of empty members took 30 s. Now each byte is handed a few times."""
    raw = EMPTY_MEMBER * 20_000 + gzip.compress(PACKAGE)
    assert gunzip_capped(raw) == PACKAGE
    assert counting.handed <= 4 * len(raw), (counting.handed, len(raw))


def test_the_gzip_reader_reads_what_gzip_reads() -> None:
    data = bytes(range(256)) * 5000
    for raw in (
        gzip.compress(data),
        gzip.compress(data[:1000]) + gzip.compress(b"") + gzip.compress(data),
        gzip.compress(data) + b"\0" * 4096 + gzip.compress(b"tail"),
        EMPTY_MEMBER * 300,
    ):
        assert gunzip_capped(raw) == gzip.decompress(raw)
    with pytest.raises(EOFError):
        gunzip_capped(gzip.compress(data)[:-5])
    members = getattr(streams, "MAX_GZIP_MEMBERS", 100_000)
    with pytest.raises(UnsafeInput, match="gzip members"):
        gunzip_capped(EMPTY_MEMBER * (members + 1))
    with pytest.raises(UnsafeInput, match="more than 1,000 bytes"):
        gunzip_capped(gzip.compress(b"x" * 1001), 1000)
    assert gunzip_capped(gzip.compress(b"x" * 1000), 1000) == b"x" * 1000


def _peak(run: Any) -> int:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


BLANK = 8 << 20


@pytest.mark.parametrize(
    ("stream", "suffix"),
    [
        (PACKAGE + b"\n" * BLANK + PACKAGE.replace(b'"a"', b'"b"'), ".json"),
        (b"\n" * BLANK + b"schema: olm.package\nname: a\n", ".yaml"),
        (PACKAGE + b" \t\r\n" * (BLANK // 4), ""),
    ],
)
def test_blank_lines_cost_no_memory_of_their_own(stream: bytes, suffix: str) -> None:
    """Splitting a stream into a list of its lines cost 8 bytes a line: 200 MiB of newlines
    (200 KB of gzip) took 1.9 GB. Lines are now found by searching the bytes."""
    found: list[Any] = []
    peak = _peak(lambda: found.extend(read_docs(stream, suffix, [])))
    assert [doc.obj["name"] for doc in found] == (["a", "b"] if suffix == ".json" else ["a"])
    assert peak < len(stream) // 4, (peak, len(stream))


def test_a_gzip_stream_is_held_once_as_it_inflates() -> None:
    """The inflated parts were kept in a list and joined: twice the content at the peak."""
    raw = gzip.compress(b"\n" * BLANK)
    assert _peak(lambda: gunzip_capped(raw)) < 1.5 * BLANK


def test_a_body_is_held_once_as_it_is_read() -> None:
    body = io.BytesIO(b"x" * BLANK)
    assert _peak(lambda: read_capped(body)) < 1.3 * BLANK
    with pytest.raises(UnsafeInput):
        read_capped(io.BytesIO(b"x" * 1001), 1000)


def test_the_controller_and_the_service_read_gzip_through_the_one_reader(
    counting: _CountingZlib,
) -> None:
    """A ConfigMap's ``catalog.json.gz`` and a service archive go through ``gunzip_capped``."""
    from deppy.controller.catalogs.sources import config_map_files
    from deppy.service.bodies import unpack_bundle
    from deppy.service.problems import Problem

    raw = EMPTY_MEMBER * 20_000 + gzip.compress(PACKAGE)
    config_map = {
        "metadata": {"name": "m", "namespace": "n"},
        "binaryData": {"catalog.json.gz": base64.b64encode(raw).decode()},
    }
    assert list(config_map_files([config_map]).values()) == [PACKAGE]
    assert 0 < counting.handed <= 4 * len(raw)
    counting.handed = 0
    tar = io.BytesIO()
    with tarfile.open(fileobj=tar, mode="w") as archive:
        info = tarfile.TarInfo("metadata/x")
        archive.addfile(info, io.BytesIO(b""))
    with tempfile.TemporaryDirectory() as into:
        try:
            unpack_bundle(EMPTY_MEMBER * 20_000 + gzip.compress(tar.getvalue()), Path(into))
        except Problem as problem:  # read, and found to hold no bundle
            assert problem.status == 422, problem
        assert (Path(into) / "metadata" / "x").is_file()
    assert 0 < counting.handed <= 4 * 20_000 * len(EMPTY_MEMBER) + 4 * len(tar.getvalue())
