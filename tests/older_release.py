"""An "older release" of the community catalog, derived from v4.18 by seeded, listed changes.

Only community-operators-prod-v4.18 is in ../shared/catalogs, so the tests and the benchmark of
``deppy catalog diff`` build the OLD side from it (NEW is v4.18 itself). ``derive_older`` writes
an FBC directory (one JSON stream per package) and returns what it changed, so a diff of OLD
against v4.18 can be checked against it exactly. From v4.18 to make OLD, with ``random.Random
(seed)`` choosing which packages and bundles (each list in name order before choosing):

- ``removed_packages``: packages left out of OLD entirely (NEW adds them);
- ``removed_heads``: the head of the default channel of other packages, left out of OLD with
  its channel entries (NEW adds the bundle and moves those channel heads forward);
- ``lifted_limits``: bundles whose olm.maxOpenShiftVersion OLD drops (NEW adds a limit);
- ``changed_limits``: bundles whose olm.maxOpenShiftVersion is ``4.12`` in OLD;
- ``changed_kube``: bundles whose CSV minKubeVersion is ``1.11.0`` in OLD;
- ``defaults``: packages whose default channel is another of their channels in OLD;
- ``deprecated``: bundles OLD deprecates (v4.18 deprecates nothing: NEW un-deprecates them);
- ``retired``: a package only OLD has (``retired-operator``, two bundles: NEW removes it).
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from deppy.input_limits import yaml_documents

SHARED = Path(os.environ.get("DEPPY_SHARED", Path(__file__).resolve().parents[2] / "shared"))
COMMUNITY = SHARED / "catalogs" / "community-operators-prod-v4.18"
SEED = 29
RETIRED = "retired-operator"
OLD_OPENSHIFT = "4.12"
OLD_KUBE = "1.11.0"
DEPRECATION_MESSAGE = "withdrawn in this release"


@dataclass
class Derivation:
    """What ``derive_older`` changed (each a sorted list)."""

    removed_packages: list[str] = field(default_factory=list)
    removed_heads: list[tuple[str, str, str]] = field(
        default_factory=list
    )  # package, channel, bundle
    lifted_limits: list[tuple[str, str, str]] = field(default_factory=list)  # package, bundle, new
    changed_limits: list[tuple[str, str, str]] = field(default_factory=list)  # package, bundle, new
    changed_kube: list[tuple[str, str, str]] = field(default_factory=list)  # package, bundle, new
    defaults: list[tuple[str, str, str]] = field(default_factory=list)  # package, old, new
    deprecated: list[tuple[str, str]] = field(default_factory=list)  # package, bundle
    retired: list[str] = field(default_factory=list)  # bundles of RETIRED


def _objects(path: Path) -> list[dict[str, Any]]:
    data = path.read_bytes()
    if data.lstrip().startswith(b"{"):
        return [orjson.loads(line) for line in data.splitlines() if line.strip()]
    return [o for o in yaml_documents(data) if o]


def read_packages(root: Path = COMMUNITY) -> dict[str, list[dict[str, Any]]]:
    """Every object of the catalog by package directory, as plain JSON values."""
    found: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(root.rglob("catalog.*")):
        objects = [orjson.loads(orjson.dumps(o, default=str)) for o in _objects(path)]
        found.setdefault(path.parent.name, []).extend(objects)
    return found


def _of(objects: list[dict[str, Any]], schema: str) -> list[dict[str, Any]]:
    return [o for o in objects if o.get("schema") == schema]


def _head(channel: dict[str, Any]) -> str | None:
    named = {e.get("replaces") for e in channel["entries"]} | {
        s for e in channel["entries"] for s in e.get("skips") or ()
    }
    heads = [e["name"] for e in channel["entries"] if e["name"] not in named]
    return heads[0] if len(heads) == 1 else None


def _max_openshift(bundle: dict[str, Any]) -> dict[str, Any] | None:
    return next(
        (p for p in bundle.get("properties") or [] if p.get("type") == "olm.maxOpenShiftVersion"),
        None,
    )


def _set_max_openshift(bundle: dict[str, Any], value: str | None) -> None:
    """The limit as a property and in the CSV's olm.properties annotation (the community
    catalog says it in both; OLM refuses a bundle whose two say different things)."""

    def edited(props: list[dict[str, Any]]) -> list[dict[str, Any]]:
        kept = [p for p in props if p.get("type") != "olm.maxOpenShiftVersion"]
        return (
            kept if value is None else [*kept, {"type": "olm.maxOpenShiftVersion", "value": value}]
        )

    bundle["properties"] = edited(bundle.get("properties") or [])
    annotations = (_csv_metadata(bundle) or {}).get("annotations") or {}
    if "olm.properties" in annotations:
        annotations["olm.properties"] = orjson.dumps(
            edited(orjson.loads(annotations["olm.properties"]))
        ).decode()


def _csv_metadata(bundle: dict[str, Any]) -> dict[str, Any] | None:
    found = next(
        (p for p in bundle.get("properties") or [] if p.get("type") == "olm.csv.metadata"), None
    )
    return found["value"] if found is not None else None


def derive_older(out: Path, seed: int = SEED) -> Derivation:
    """Write the older catalog to ``out`` (a new directory) and say what differs."""
    rng = random.Random(seed)
    packages = read_packages()
    done = Derivation()
    names = sorted(packages)
    done.removed_packages = sorted(rng.sample(names, 8))
    kept = [n for n in names if n not in done.removed_packages]
    for name in done.removed_packages:
        del packages[name]
    _remove_heads(packages, kept, rng, done)
    _change_limits(packages, kept, rng, done)
    _change_defaults(packages, kept, rng, done)
    _deprecate(packages, kept, rng, done)
    packages[RETIRED] = _retired(done)
    out.mkdir(parents=True)
    for name, objects in sorted(packages.items()):
        (out / name).mkdir()
        lines = b"".join(orjson.dumps(o) + b"\n" for o in objects)
        (out / name / "catalog.json").write_bytes(lines)
    return done


def _remove_heads(
    packages: dict[str, list[dict[str, Any]]], kept: list[str], rng: random.Random, done: Derivation
) -> None:
    """Drop the single head of the default channel (a channel of 2+ entries) of 20 packages."""
    choices = []
    for name in kept:
        objects = packages[name]
        package = _of(objects, "olm.package")[0]
        default = package.get("defaultChannel")
        channel = next((c for c in _of(objects, "olm.channel") if c["name"] == default), None)
        if channel is not None and len(channel["entries"]) > 1 and _head(channel):
            choices.append((name, _head(channel)))
    for name, head in sorted(rng.sample(choices, 20)):
        objects = packages[name]
        for channel in _of(objects, "olm.channel"):
            if any(e["name"] == head for e in channel["entries"]):
                if _head(channel) == head:
                    done.removed_heads.append((name, channel["name"], head))
                channel["entries"] = [e for e in channel["entries"] if e["name"] != head]
        packages[name] = [
            o for o in objects if not (o.get("schema") == "olm.bundle" and o["name"] == head)
        ]
    done.removed_heads.sort()


def _bundles(packages: dict[str, list[dict[str, Any]]], kept: list[str]) -> list[dict[str, Any]]:
    return [b for name in kept for b in _of(packages[name], "olm.bundle")]


def _change_limits(
    packages: dict[str, list[dict[str, Any]]], kept: list[str], rng: random.Random, done: Derivation
) -> None:
    limited = [b for b in _bundles(packages, kept) if _max_openshift(b) is not None]
    limited.sort(key=lambda b: (b["package"], b["name"]))
    chosen = rng.sample(limited, 10)
    for bundle in chosen[:5]:  # the limit is new in NEW
        prop = _max_openshift(bundle)
        assert prop is not None
        done.lifted_limits.append((bundle["package"], bundle["name"], str(prop["value"])))
        _set_max_openshift(bundle, None)
    for bundle in chosen[5:]:
        prop = _max_openshift(bundle)
        assert prop is not None
        if str(prop["value"]).strip("\"'") == OLD_OPENSHIFT:
            continue
        done.changed_limits.append((bundle["package"], bundle["name"], str(prop["value"])))
        _set_max_openshift(bundle, OLD_OPENSHIFT)
    kube = [
        b
        for b in _bundles(packages, kept)
        if (_csv_metadata(b) or {}).get("minKubeVersion") not in (None, "", OLD_KUBE)
    ]
    kube.sort(key=lambda b: (b["package"], b["name"]))
    for bundle in rng.sample(kube, 5):
        metadata = _csv_metadata(bundle)
        assert metadata is not None
        done.changed_kube.append((bundle["package"], bundle["name"], metadata["minKubeVersion"]))
        metadata["minKubeVersion"] = OLD_KUBE
    done.lifted_limits.sort()
    done.changed_limits.sort()
    done.changed_kube.sort()


def _change_defaults(
    packages: dict[str, list[dict[str, Any]]], kept: list[str], rng: random.Random, done: Derivation
) -> None:
    several = [n for n in kept if len(_of(packages[n], "olm.channel")) > 1]
    for name in sorted(rng.sample(several, 3)):
        package = _of(packages[name], "olm.package")[0]
        others = sorted(
            c["name"]
            for c in _of(packages[name], "olm.channel")
            if c["name"] != package["defaultChannel"]
        )
        done.defaults.append((name, others[0], package["defaultChannel"]))
        package["defaultChannel"] = others[0]


def _deprecate(
    packages: dict[str, list[dict[str, Any]]], kept: list[str], rng: random.Random, done: Derivation
) -> None:
    bundles = sorted((b["package"], b["name"]) for b in _bundles(packages, kept))
    done.deprecated = sorted(rng.sample(bundles, 6))
    by_package: dict[str, list[str]] = {}
    for package, bundle in done.deprecated:
        by_package.setdefault(package, []).append(bundle)
    for package, names in by_package.items():
        packages[package].append(
            {
                "schema": "olm.deprecations",
                "package": package,
                "entries": [
                    {
                        "reference": {"schema": "olm.bundle", "name": name},
                        "message": DEPRECATION_MESSAGE,
                    }
                    for name in names
                ],
            }
        )


def _retired(done: Derivation) -> list[dict[str, Any]]:
    done.retired = [f"{RETIRED}.v1.0.0", f"{RETIRED}.v1.1.0"]
    bundles = [
        {
            "schema": "olm.bundle",
            "name": name,
            "package": RETIRED,
            "image": f"quay.io/example/{RETIRED}:{version}",
            "properties": [
                {"type": "olm.package", "value": {"packageName": RETIRED, "version": version}}
            ],
        }
        for name, version in zip(done.retired, ("1.0.0", "1.1.0"), strict=True)
    ]
    channel = {
        "schema": "olm.channel",
        "package": RETIRED,
        "name": "stable",
        "entries": [
            {"name": done.retired[0]},
            {"name": done.retired[1], "replaces": done.retired[0]},
        ],
    }
    return [
        {"schema": "olm.package", "name": RETIRED, "defaultChannel": "stable"},
        channel,
        *bundles,
    ]
