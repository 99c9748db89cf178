"""Resolved catalogs: building a 10-bundle one into an OCI layout, and pushing it to a loopback
registry (Debian's docker-registry).

The plan: ten copies of the community catalog's rabbitmq-messaging-topology-operator v1.19.3
(real properties and olm.csv.metadata; each copy's package, bundle names and provided API
groups renamed so that all ten can be installed together), each requiring
rabbitmq-cluster-operator (package and API), resolved by deppy. Timed, each ROUNDS times:

* build: the resolved catalog from the resolution, its image, written to a new ``oci:`` layout
  (goal: median <= 1 s);
* push: the same image pushed to a new repository of a plain-HTTP registry on 127.0.0.1, every
  blob uploaded (goal: median <= 2 s).

Usage: python benchmarks/resolved_catalog.py [--rounds R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.registry import registry_missing, running_registry  # noqa: E402

from deppy.catalog.catalog_set import CatalogSet  # noqa: E402
from deppy.catalog.fbc import load_catalog  # noqa: E402
from deppy.input_limits import read_input, yaml_documents  # noqa: E402
from deppy.oci import parse_destination, publish  # noqa: E402
from deppy.resolution.request import ResolutionRequest  # noqa: E402
from deppy.resolution.request_parsing import parse_require  # noqa: E402
from deppy.resolution.resolver import resolve  # noqa: E402
from deppy.workflows.olmv1.resolved_catalog import resolved_catalog  # noqa: E402

SHARED = Path(os.environ.get("DEPPY_SHARED", ROOT.parent / "shared"))
COMMUNITY = SHARED / "catalogs" / "community-operators-prod-v4.18"
TOPOLOGY = "rabbitmq-messaging-topology-operator"
BUNDLE = f"{TOPOLOGY}.v1.19.3"
COPIES = 10


def copy_of(obj: dict[str, Any], n: int) -> dict[str, Any]:
    """The package, channel or bundle object renamed for copy ``n`` (its own APIs too)."""
    name = f"{TOPOLOGY}-{n}"
    if obj["schema"] == "olm.package":
        return {**obj, "name": name}
    if obj["schema"] == "olm.channel":
        return {**obj, "package": name, "entries": [{"name": f"{BUNDLE}-{n}"}]}
    properties = []
    for prop in obj["properties"]:
        value = prop["value"]
        if prop["type"] == "olm.package":
            value = {**value, "packageName": name}
        elif prop["type"] == "olm.gvk":
            value = {**value, "group": f"c{n}.{value['group']}"}
        properties.append({**prop, "value": value})
    return {**obj, "name": f"{BUNDLE}-{n}", "package": name, "properties": properties}


def plan_catalog(directory: Path) -> CatalogSet:
    import orjson

    topology = yaml_documents(read_input(COMMUNITY / TOPOLOGY / "catalog.yaml"))
    wanted = [
        o for o in topology
        if o["schema"] == "olm.package"
        or (o["schema"] == "olm.channel" and o["name"] == "stable")
        or o.get("name") == BUNDLE
    ]  # fmt: skip
    cluster_operator = yaml_documents(
        read_input(COMMUNITY / "rabbitmq-cluster-operator" / "catalog.yaml")
    )
    objects = [*cluster_operator, *(copy_of(o, n) for n in range(COPIES) for o in wanted)]
    directory.mkdir(parents=True)
    (directory / "catalog.json").write_bytes(b"".join(orjson.dumps(o) + b"\n" for o in objects))
    return CatalogSet([load_catalog(directory, name="community-copies")])


def median_s(samples: list[float]) -> str:
    low, high = min(samples), max(samples)
    return f"median {statistics.median(samples):.3f} s (min {low:.3f}, max {high:.3f})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        catalogs = plan_catalog(root / "catalog")
        request = ResolutionRequest(
            required=tuple(parse_require(f"{TOPOLOGY}-{n}") for n in range(COPIES))
        )
        resolution = resolve(catalogs, request)
        assert resolution.selection is not None, "the plan does not resolve"
        built: list[float] = []
        for n in range(rounds):
            started = time.perf_counter()
            found = resolved_catalog(resolution, catalogs)
            assert found is not None and len(found.bundles) == COPIES
            image = found.image()
            publish(image, parse_destination(f"oci:{root / f'layout-{n}'}:t1"))
            built.append(time.perf_counter() - started)
        size = sum(len(b.data) for b in image.blobs) / 1024
        text = sum(len(f) for f in found.files().values()) / 1024
        print(
            f"{COPIES}-bundle resolved catalog ({text:.0f} KiB of FBC, a {size:.0f} KiB image), "
            f"{rounds} rounds"
        )
        print(f"build into oci:   {median_s(built)}   goal <= 1 s")
        missing = registry_missing()
        if missing is not None:
            print(f"push: skipped ({missing})")
            return
        pushed: list[float] = []
        with running_registry(root / "registry") as registry:
            for n in range(rounds):
                destination = parse_destination(f"docker://{registry.address}/deppy/r{n}:t1")
                started = time.perf_counter()
                publish(image, destination, tls_verify=False)
                pushed.append(time.perf_counter() - started)
        print(f"push to loopback: {median_s(pushed)}   goal <= 2 s")


if __name__ == "__main__":
    main()
