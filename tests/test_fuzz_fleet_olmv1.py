"""The fuzz suite's doors added last (issue 36): ClusterExtension and ClusterCatalog files, the
service with OLM v1 bodies, and fleet exports directories. Same rules as tests/test_fuzz.py,
whose helpers and counter this module shares: deppy's own errors (one printable line) or an
answer, in bounded time and memory. ``make fuzz`` runs both; the long profile runs
``DOOR_FACTOR`` times its examples here, so these doors alone see over 20,000 inputs."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from deppy.errors import MAX_MESSAGE
from deppy.resolution.request_parsing import parse_catalog
from tests.olmv1_objects import cluster_extension
from tests.test_fuzz import (
    DATA,
    HOSTILE,
    _problem,
    checked,
    count,  # noqa: F401  (the module's counter and memory cap: an autouse fixture)
    mutated,
    service,  # noqa: F401  (the fixture)
)

DOOR_FACTOR = 3  # 3 x 3,000 examples per door in the long profile: 27,000 over the three
MORE = settings(max_examples=settings().max_examples * DOOR_FACTOR)
CATALOG = f"{DATA / 'catalog'}=example"

EXTENSION = orjson.dumps(
    cluster_extension(
        "observability", "observability-stack", "1.0.0", namespace="monitoring",
        version=">=1.0, <2", channels=["stable"], upgradeConstraintPolicy="CatalogProvided",
        selector={"matchLabels": {"olm.operatorframework.io/metadata.name": "example"}},
    )
)  # fmt: skip
CATALOG_DOCUMENT = b"""
---
apiVersion: olm.operatorframework.io/v1
kind: ClusterCatalog
metadata: {name: example}
spec: {priority: -5, availabilityMode: Available, source: {type: Image, image: {ref: x:1}}}
"""
LISTED = (
    b'{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "olm.operatorframework.io'
    b'\\/v1", "kind": "ClusterExtension", "metadata": {"name": "g"}, "spec": {"namespace": "g",'
    b' "serviceAccount": {"name": "i"}, "source": {"sourceType": "Catalog", "catalog": '
    b'{"packageName": "grafana-operator", "version": "5.x"}}}}]}'
)
OLMV1_SEEDS = [EXTENSION, EXTENSION + CATALOG_DOCUMENT, LISTED]
SUBSCRIPTION = b"""\
---
apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata: {name: prometheus, namespace: ops}
spec: {name: prometheus, channel: beta, source: example}
status: {installedCSV: prometheusoperator.0.32.0}
"""
EXPORT_SEEDS = [EXTENSION + CATALOG_DOCUMENT, EXTENSION + SUBSCRIPTION, SUBSCRIPTION, LISTED]
NAMES = st.sampled_from([b"a.yaml", b"b.json", b"c.yml"]) | st.binary(min_size=1, max_size=12).map(
    lambda raw: raw.replace(b"/", b"_").replace(b"\x00", b"_") + b".yaml"
)


def _one_line(message: str) -> None:
    assert "\n" not in message and len(message) <= MAX_MESSAGE + 300, message[:300]
    assert message.isprintable(), message[:300]


@MORE
@given(mutated(OLMV1_SEEDS + HOSTILE))
def test_olmv1_request_files(data: bytes) -> None:
    """What ``deppy resolve -f FILE --catalog DIR=NAME`` reads from a ClusterExtension file."""
    from deppy.workflows.olmv1 import extension_request, olmv1_documents_of

    def run() -> None:
        documents = olmv1_documents_of(data, "request.yaml")
        if documents is not None:
            extension_request(documents, "request.yaml", [parse_catalog(CATALOG)])

    checked("OLM v1 file", run)


@MORE
@given(mutated(OLMV1_SEEDS + HOSTILE), st.sampled_from(["application/yaml", "application/json"]))
def test_olmv1_service_bodies(service: Any, body: bytes, content_type: str) -> None:  # noqa: F811
    headers = {"Content-Type": content_type}
    checked(
        "OLM v1 HTTP",
        lambda: _problem(service.post("/api/v1/resolve", content=body, headers=headers)),
    )


@MORE
@given(
    st.lists(st.tuples(NAMES, mutated(EXPORT_SEEDS + HOSTILE)), min_size=1, max_size=3),
    st.sampled_from(["none", "fifo", "loop", "device"]),
)
def test_fleet_exports_directories(files: list[tuple[bytes, bytes]], oddity: str) -> None:
    """``deppy fleet plan DIR`` in this process: every entry one record (a plan or an error),
    every record JSON with a printable cluster name; nothing raises, nothing blocks."""
    from deppy.workflows.fleet.fanout import plan_fleet
    from deppy.workflows.fleet.inputs import cluster_refs
    from deppy.workflows.fleet.plan import FleetSettings

    with tempfile.TemporaryDirectory() as directory:
        root = os.fsencode(directory)
        for name, data in files:
            Path(os.fsdecode(root + b"/" + name)).write_bytes(data)
        odd = Path(directory) / "odd.yaml"
        if oddity == "fifo":
            os.mkfifo(odd)
        elif oddity == "loop":
            odd.symlink_to(odd)
        elif oddity == "device":
            odd.symlink_to("/dev/zero")
        settings_ = FleetSettings(catalogs=(CATALOG,), target_ocp="4.99")

        def run() -> None:
            refs = cluster_refs([directory])
            records = [
                orjson.loads(r)
                for b in plan_fleet(refs, settings_, workers=0)
                for r in b.data.splitlines()
            ]
            assert [r["index"] for r in records] == list(range(len(refs)))
            for record in records:
                assert str(record["cluster"]).isprintable()
                if "error" in record:
                    _one_line(str(record["error"]))

        checked("fleet directory", run)
