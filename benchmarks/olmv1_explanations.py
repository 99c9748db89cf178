"""OLM v1 explanations on a corpus of ClusterExtension requests that cannot be met.

The corpus is built from the shared community catalog (as ClusterCatalog ``community``), for
every ``--every``-th package whose default channel has three or more bundles, one request of
each kind issue 36 measured: a version that does not exist (between two that do), a channel
without the version asked, a downgrade under ``CatalogProvided``, a misspelt ``packageName``, a
selector that matches no ClusterCatalog, and a selector that matches only an ``Unavailable``
one. Each is resolved as the service resolves a body (objects → request → answer); each way out
of the JSON answer is applied to the objects (``workflows/olmv1/changes.py``, what the web UI's
"Try this" does) and the result resolved again.

Prints the share of requests with a way out that works, the share of ways out that work, per
kind, and how often the one screen of text shows a way out that keeps the version asked (for
downgrades: SelfCertified; for channels: the channel that has the version). Usage:
python benchmarks/olmv1_explanations.py [--every N]
(``DEPPY_SRC=OTHER/src`` measures another version of deppy the same way).
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DEPPY_SHARED", ROOT.parent / "shared"))
COMMUNITY = SHARED / "catalogs" / "community-operators-prod-v4.18"
NAME_LABEL = "olm.operatorframework.io/metadata.name"


def extension(
    package: str, installed: Any = None, meant: str = "", **catalog: Any
) -> dict[str, Any]:
    """A ClusterExtension "ext"; ``meant``: the package a misspelt name stands for (kept in an
    annotation, which deppy does not read)."""
    source = {"sourceType": "Catalog", "catalog": {"packageName": package, **catalog}}
    spec = {"namespace": "ns", "source": source}
    document: dict[str, Any] = {"apiVersion": "olm.operatorframework.io/v1",
                                "kind": "ClusterExtension", "metadata": {"name": "ext"},
                                "spec": spec}  # fmt: skip
    if meant:
        document["metadata"]["annotations"] = {"meant": meant}
    if installed is not None:
        bundle = {"name": installed[0], "version": installed[1]}
        document["status"] = {"install": {"bundle": bundle}}
    return document


def unavailable() -> dict[str, Any]:
    return {"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterCatalog",
            "metadata": {"name": "community"},
            "spec": {"availabilityMode": "Unavailable", "source": {"type": "Image"}}}  # fmt: skip


def corpus(source: Any, every: int) -> list[tuple[str, list[dict[str, Any]]]]:
    """(kind, objects) for every ``every``-th package with a default channel of 3+ bundles."""
    cases: list[tuple[str, list[dict[str, Any]]]] = []
    eligible = []
    for name in sorted(source.package_names()):
        package = source.package("community", name)
        channels = {c.name: c for c in source.channels("community", name)}
        default = channels.get(package.default_channel) if package else None
        if default is not None and len(default.entries) >= 3:
            eligible.append((name, default, channels))
    for name, default, channels in eligible[::every]:
        bundles = {b.name: b for b in source.bundles_of(name)}
        versions = sorted({b.version for b in bundles.values()})
        in_default = [bundles[e.name] for e in default.entries if e.name in bundles]
        in_default.sort(key=lambda b: b.version)
        v = versions[len(versions) // 2]
        missing = f"{v.major}.{v.minor}.{v.patch + 1}"
        if all(str(x) != missing for x in versions):
            cases.append(("version", [extension(name, version=missing)]))
        for other in sorted(channels):
            held = {e.name for e in channels[other].entries}
            lacking = [b for b in in_default if b.name not in held]
            if other != default.name and lacking:
                asked = str(lacking[0].version)
                cases.append(("channel", [extension(name, version=asked, channels=[other])]))
                break
        head = in_default[-1]
        below = f"<{head.version.major}.{head.version.minor}.{head.version.patch}"
        cases.append(
            ("downgrade", [extension(name, (head.name, str(head.version)), version=below)])
        )
        misspelt = name[:-2] + name[-1] if len(name) > 4 else name + "x"
        cases.append(("package", [extension(misspelt, meant=name)]))
        cases.append(("selector", [extension(name, selector={"matchLabels": {"env": "prod"}})]))
        named = {"matchLabels": {NAME_LABEL: "community"}}
        cases.append(("unavailable", [unavailable(), extension(name, selector=named)]))
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=8, help="every N-th eligible package")
    args = parser.parse_args()
    from deppy.errors import DeppyError
    from deppy.explain import explanation_as_dict, explanation_as_short_text
    from deppy.resolution.olmv1 import request_from_objects
    from deppy.resolution.request_parsing import CatalogSpec
    from deppy.workflows.catalog_loading import load_catalogs
    from deppy.workflows.olmv1 import apply_olmv1_change
    from deppy.workflows.resolve import resolve_with_options

    started = time.perf_counter()
    source = load_catalogs([CatalogSpec(str(COMMUNITY), name="community", priority=0)])
    cases = corpus(source, args.every)
    print(f"community catalog and {len(cases)} requests: {time.perf_counter() - started:.1f} s")

    def answer(objects: list[dict[str, Any]]) -> Any:
        request = request_from_objects(objects, "case", [("community", 0)]).request
        return resolve_with_options(source, request, timeout=None, pipeline=None, trace=None)

    unmet, with_way, shown, working, kept_in_text = Counter(), Counter(), Counter(), Counter(), 0
    refused, unrelated, missed, offered = Counter(), 0, [], 0
    for kind, objects in cases:
        try:
            resolution = answer(copy.deepcopy(objects))
        except DeppyError:
            refused[kind] += 1  # bad input (exit 2): no explanation, no way out
            unmet[kind] += 1
            continue
        if resolution.resolved or resolution.explanation is None:
            continue
        unmet[kind] += 1
        found = False
        for way in explanation_as_dict(resolution.explanation)["suggestions"]:
            change = way["change"]
            if change["kind"] in ("add-catalog", "edit-pipeline"):
                continue  # advice: nothing to apply
            shown[kind] += 1
            meant = objects[-1]["metadata"].get("annotations", {}).get("meant")
            if meant and change.get("value") != meant:
                unrelated += 1
                print(f"  {meant}: also offered {change.get('value')}", file=sys.stderr)
            try:
                objects_after = apply_olmv1_change(objects, change)
                works = answer(objects_after).resolved
            except DeppyError:
                works = False
            if works:
                working[kind] += 1
                found = True
        with_way[kind] += found
        screen = explanation_as_short_text(resolution.explanation).split("Try", 1)[-1]
        wanted = {"downgrade": "SelfCertified", "channel": "spec.source.catalog.channels: ["}
        if kind in wanted and wanted[kind] in str(explanation_as_dict(resolution.explanation)):
            offered += 1
            if wanted[kind] in screen:
                kept_in_text += 1
            else:
                missed.append(objects[-1]["spec"]["source"]["catalog"])
    total = sum(unmet.values()) or 1
    print(f"requests that cannot be met: {sum(unmet.values())} of {len(cases)}")
    print(
        f"with a way out that works: {sum(with_way.values())} "
        f"({100 * sum(with_way.values()) / total:.0f}%)"
    )
    print(
        f"ways out that work: {sum(working.values())} of {sum(shown.values())} "
        f"({100 * sum(working.values()) / (sum(shown.values()) or 1):.0f}%)"
    )
    print(f"downgrade/channel requests offered a way out keeping the version (SelfCertified, "
          f"another channel) in JSON: {offered}; shown in text too: {kept_in_text}")  # fmt: skip
    print(f"package-name ways out naming another package than the one meant: {unrelated}")
    for catalog in missed:
        print(f"  text hides the way out keeping the version: {catalog}")
    for kind in sorted(unmet):
        print(
            f"  {kind:12} {unmet[kind]:3} unmet, {with_way[kind]:3} with a way out, "
            f"{working[kind]}/{shown[kind]} ways out work, {refused[kind]} refused as bad input"
        )
    print(f"time: {time.perf_counter() - started:.1f} s; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    # DEPPY_SRC: another checkout's src/ (with workflows/olmv1/changes.py) for a before/after
    sys.path.insert(0, os.environ.get("DEPPY_SRC", str(ROOT / "src")))
    main()
