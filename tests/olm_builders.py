"""Small File-Based Catalogs written from Python dicts, and a one-call resolver for tests.

Each scenario of the OLM rules builds its own catalog in ``tmp_path`` (one JSON stream per
catalog), so the data a test relies on sits next to its assertions.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.catalog.model import Catalog
from deppy.catalog.semver import Version
from deppy.explain import explanation_as_text
from deppy.resolution.answer import Resolution, SelectedBundle
from deppy.resolution.request import ClusterFacts, ResolutionRequest
from deppy.resolution.request_parsing import parse_exclude, parse_installed, parse_require
from deppy.resolution.resolver import resolve

Obj = dict[str, Any]

# "catalog/package/bundle": how the resolver names bundle variables for the solver. Explanations
# must never show these (tests check text, not this pattern's absence in general data).
SOLVER_ID = re.compile(r"[\w.()-]+/[\w.-]+/[\w.-]+\.v?\d")


def package(name: str, default: str | None = "stable") -> Obj:
    obj: Obj = {"schema": "olm.package", "name": name}
    if default is not None:
        obj["defaultChannel"] = default
    return obj


def entry(name: str, replaces: str | None = None, **more: Any) -> Obj:
    """A channel entry; ``skips`` and ``skipRange`` go in ``more``."""
    obj: Obj = {"name": name}
    if replaces:
        obj["replaces"] = replaces
    obj.update(more)
    return obj


def channel(pkg: str, name: str, *entries: Obj | str) -> Obj:
    return {
        "schema": "olm.channel",
        "package": pkg,
        "name": name,
        "entries": [entry(e) if isinstance(e, str) else e for e in entries],
    }


def bundle(pkg: str, version: str, *props: Obj, name: str | None = None) -> Obj:
    return {
        "schema": "olm.bundle",
        "name": name or f"{pkg}.v{version}",
        "package": pkg,
        "image": f"registry.example/{pkg}-bundle:{version}",
        "properties": [
            {"type": "olm.package", "value": {"packageName": pkg, "version": version}},
            *props,
        ],
    }


def provides(kind: str, group: str = "example.com", version: str = "v1") -> Obj:
    return {"type": "olm.gvk", "value": {"group": group, "version": version, "kind": kind}}


def needs_api(kind: str, group: str = "example.com", version: str = "v1") -> Obj:
    return {"type": "olm.gvk.required", "value": {"group": group, "version": version, "kind": kind}}


def needs_package(name: str, versions: str) -> Obj:
    return {
        "type": "olm.package.required",
        "value": {"packageName": name, "versionRange": versions},
    }


def label(text: str) -> Obj:
    return {"type": "olm.label", "value": {"label": text}}


def needs_label(text: str) -> Obj:
    return {"type": "olm.label.required", "value": {"label": text}}


def constraint(value: Obj) -> Obj:
    return {"type": "olm.constraint", "value": value}


def max_ocp(version: str) -> Obj:
    return {"type": "olm.maxOpenShiftVersion", "value": version}


def csv_metadata(**value: Any) -> Obj:
    return {"type": "olm.csv.metadata", "value": value}


def deprecations(pkg: str, *entries: tuple[str, str | None, str]) -> Obj:
    """``(schema, name, message)`` entries; name is None for the package itself."""
    return {
        "schema": "olm.deprecations",
        "package": pkg,
        "entries": [
            {"reference": {"schema": s, **({"name": n} if n else {})}, "message": m}
            for s, n, m in entries
        ],
    }


def simple_package(
    pkg: str, *versions: str, chan: str = "stable", props: Sequence[Obj] = ()
) -> list[Obj]:
    """A package whose versions form one replaces chain in one channel (oldest first)."""
    objs: list[Obj] = [package(pkg, chan)]
    entries: list[Obj] = []
    previous: str | None = None
    for version in versions:
        name = f"{pkg}.v{version}"
        entries.append(entry(name, previous))
        previous = name
    objs.append(channel(pkg, chan, *entries))
    objs += [bundle(pkg, v, *props) for v in versions]
    return objs


def write_catalog(root: Path, objs: Iterable[Obj]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(o) + "\n" for o in objs)
    (root / "catalog.json").write_text(text, encoding="utf-8")
    return root


def make_catalog(root: Path, objs: Iterable[Obj], *, name: str, priority: int = 0) -> Catalog:
    return load_catalog(write_catalog(root / name, objs), name=name, priority=priority)


def run(
    catalogs: Catalog | Sequence[Catalog] | CatalogSet,
    require: Sequence[str] = (),
    installed: Sequence[str] = (),
    *,
    ocp: str | None = None,
    kube: str | None = None,
    exclude: Sequence[str] = (),
    sources: Sequence[str] = (),
    rules: str = "deppy",
    namespace: str | None = None,
    catalog_namespaces: Sequence[tuple[str, str]] = (),
) -> Resolution:
    """Resolve with CLI-style SPEC strings, as a user would write them (under ``rules``)."""
    if isinstance(catalogs, Catalog):
        catalogs = [catalogs]
    catalog_set = catalogs if isinstance(catalogs, CatalogSet) else CatalogSet(catalogs)
    request = ResolutionRequest(
        required=tuple(parse_require(s) for s in require),
        installed=tuple(parse_installed(s) for s in installed),
        cluster=ClusterFacts(
            Version.parse_tolerant(ocp) if ocp else None,
            Version.parse_tolerant(kube) if kube else None,
        ),
        sources=tuple(sources),
        exclude=tuple(parse_exclude(s) for s in exclude),
        rules=rules,
        namespace=namespace,
        catalog_namespaces=tuple(catalog_namespaces),
    )
    return resolve(catalog_set, request)


def picked(resolution: Resolution) -> dict[str, str]:
    """package -> version of a resolved answer (fails with the explanation when unresolved)."""
    return {s.package: s.version for s in selection(resolution)}


def selection(resolution: Resolution) -> tuple[SelectedBundle, ...]:
    if resolution.selection is None:
        assert resolution.explanation is not None
        raise AssertionError(
            "expected a resolution:\n" + explanation_as_text(resolution.explanation)
        )
    return resolution.selection


def item(resolution: Resolution, pkg: str) -> SelectedBundle:
    found = [s for s in selection(resolution) if s.package == pkg]
    assert len(found) == 1, f"{pkg} selected {len(found)} times"
    return found[0]


def why_not(resolution: Resolution) -> str:
    """The explanation as a user reads it (fails when the request resolved)."""
    assert resolution.explanation is not None, f"expected no solution, got {picked(resolution)}"
    return explanation_as_text(resolution.explanation)


def cause_kinds(resolution: Resolution) -> set[str]:
    assert resolution.explanation is not None
    return {c.kind for c in resolution.explanation.causes}
