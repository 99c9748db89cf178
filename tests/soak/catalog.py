"""The soak's catalog: a small File-Based Catalog that changes while the soak runs, as a catalog
maintainer changes one (new versions published with replaces and skips, a version deprecated, a
bundle removed, a package added), rendered as the JSON stream catalogd serves.

The soak keeps every revision it published, so an approved resolveset can be checked against
the content it was computed from, from these plain records (not from the controller's model).
"""

from __future__ import annotations

import base64
import copy
import hashlib
import random
from dataclasses import dataclass, field
from typing import Any

import orjson

GROUP = "soak.deppy.io"
READ_RULE = {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]}
EXTRA_RULE = {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}


@dataclass
class SoakBundle:
    package: str
    version: str
    channels: list[str]
    provides: list[str] = field(default_factory=list)  # kinds, in GROUP/v1
    requires_package: list[tuple[str, str]] = field(default_factory=list)  # (package, range)
    requires_kind: list[str] = field(default_factory=list)
    rules: list[dict[str, Any]] | None = None  # None: no CSV in the catalog

    @property
    def name(self) -> str:
        return f"{self.package}.v{self.version}"


@dataclass
class SoakPackage:
    name: str
    default_channel: str
    bundles: dict[str, SoakBundle] = field(default_factory=dict)  # version -> bundle
    removed: list[str] = field(default_factory=list)  # bundle names, skipped by their successor
    deprecated: list[str] = field(default_factory=list)  # bundle names


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def _csv(bundle: SoakBundle) -> dict[str, Any]:
    return {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {"name": bundle.name},
        "spec": {
            "version": bundle.version,
            "install": {
                "strategy": "deployment",
                "spec": {
                    "permissions": [{"serviceAccountName": bundle.package, "rules": bundle.rules}]
                },
            },
        },
    }


class SoakCatalog:
    """The current content; ``mutate`` changes it (seeded) and returns what it did."""

    def __init__(self) -> None:
        self.packages: dict[str, SoakPackage] = {}
        self.added = 0
        rules = [READ_RULE]
        self._package(
            "base",
            "stable",
            [("1.0.0", ["stable"]), ("1.1.0", ["stable"])],
            provides=["Base"],
            rules=rules,
        )
        self._package(
            "alpha",
            "stable",
            [("1.0.0", ["stable", "fast"]), ("1.1.0", ["stable", "fast"]), ("2.0.0", ["fast"])],
            provides=["Alpha"],
            requires_package=[("base", ">=1.0.0 <2.0.0")],
            rules=rules,
        )
        self._package(
            "beta",
            "stable",
            [("0.1.0", ["stable"]), ("0.2.0", ["stable"])],
            provides=["Beta"],
            requires_kind=["Base"],
            rules=None,
        )
        self._package(
            "gamma",
            "stable",
            [("1.0.0", ["stable"]), ("1.0.1", ["stable"]), ("1.0.2", ["stable"])],
            provides=["Gamma"],
            rules=rules,
        )
        self._package(
            "delta", "stable", [("3.0.0", ["stable"])], provides=["Delta", "Base"], rules=rules
        )

    def _package(
        self,
        name: str,
        default: str,
        versions: list[tuple[str, list[str]]],
        *,
        provides: list[str],
        requires_package: list[tuple[str, str]] | None = None,
        requires_kind: list[str] | None = None,
        rules: list[dict[str, Any]] | None,
    ) -> None:
        package = SoakPackage(name, default)
        for version, channels in versions:
            package.bundles[version] = SoakBundle(
                name,
                version,
                channels,
                list(provides),
                list(requires_package or []),
                list(requires_kind or []),
                copy.deepcopy(rules),
            )
        self.packages[name] = package

    # -- what the soak asks of it -----------------------------------------------------------
    def channels(self, package: str) -> list[str]:
        return sorted({c for b in self.packages[package].bundles.values() for c in b.channels})

    def versions(self, package: str) -> list[str]:
        return sorted(self.packages[package].bundles, key=_key)

    def bundle_names(self) -> set[str]:
        return {b.name for p in self.packages.values() for b in p.bundles.values()}

    def bundles(self) -> dict[str, SoakBundle]:
        return {b.name: b for p in self.packages.values() for b in p.bundles.values()}

    # -- changes -------------------------------------------------------------------------------
    def mutate(self, rng: random.Random) -> str:
        kind = rng.choices(["publish", "deprecate", "remove", "add"], [6, 2, 2, 1])[0]
        if kind == "add" and self.added < 4:
            self.added += 1
            name = f"extra{self.added}"
            self._package(
                name,
                "stable",
                [("0.1.0", ["stable"])],
                provides=[name.capitalize()],
                requires_package=[("gamma", ">=1.0.0")] if self.added % 2 else [],
                rules=[READ_RULE],
            )
            return f"catalog: package {name} added"
        package = self.packages[rng.choice(sorted(self.packages))]
        ordered = sorted(package.bundles, key=_key)
        if kind == "deprecate" and len(ordered) > 1:
            victim = package.bundles[rng.choice(ordered[:-1])].name
            if victim not in package.deprecated:
                package.deprecated.append(victim)
                return f"catalog: {victim} deprecated"
        if kind == "remove" and len(ordered) > 2:
            version = rng.choice(ordered[:-1])
            victim = package.bundles.pop(version).name
            package.removed.append(victim)
            return f"catalog: {victim} removed"
        head = package.bundles[ordered[-1]]
        major, minor, patch = _key(head.version)
        new = f"{major}.{minor + 1}.0" if rng.random() < 0.4 else f"{major}.{minor}.{patch + 1}"
        rules = copy.deepcopy(head.rules)
        if rules is not None and rng.random() < 0.25 and EXTRA_RULE not in rules:
            rules.append(EXTRA_RULE)
        package.bundles[new] = SoakBundle(
            package.name,
            new,
            list(head.channels),
            list(head.provides),
            list(head.requires_package),
            list(head.requires_kind),
            rules,
        )
        return f"catalog: {package.name}.v{new} published"

    # -- the FBC stream ------------------------------------------------------------------------
    def render(self) -> bytes:
        lines: list[dict[str, Any]] = []
        for package in (self.packages[n] for n in sorted(self.packages)):
            lines.append(
                {
                    "schema": "olm.package",
                    "name": package.name,
                    "defaultChannel": package.default_channel,
                }
            )
            ordered = [package.bundles[v] for v in sorted(package.bundles, key=_key)]
            for channel in sorted({c for b in ordered for c in b.channels}):
                lines.append(
                    _channel(package, channel, [b for b in ordered if channel in b.channels])
                )
            for bundle in ordered:
                lines.append(_bundle(bundle))
            if package.deprecated:
                lines.append(
                    {
                        "schema": "olm.deprecations",
                        "package": package.name,
                        "entries": [
                            {
                                "reference": {"schema": "olm.bundle", "name": name},
                                "message": f"{name} is deprecated: upgrade to a newer version",
                            }
                            for name in package.deprecated
                            if name in {b.name for b in ordered}
                        ],
                    }
                )
        return b"".join(orjson.dumps(line) + b"\n" for line in lines)

    def digest(self) -> str:
        return hashlib.sha256(self.render()).hexdigest()[:12]

    def snapshot(self) -> dict[str, SoakBundle]:
        """The bundles of this revision, by name (for checking sets computed from it)."""
        return copy.deepcopy(self.bundles())


def _channel(package: SoakPackage, channel: str, members: list[SoakBundle]) -> dict[str, Any]:
    """Each bundle replaces the previous one in the channel; one that follows removed bundles
    skips them (OLM's way to keep an upgrade edge over a hole), and every second patch release
    also skips the one before its predecessor."""
    entries: list[dict[str, Any]] = []
    removed = set(package.removed)
    for i, bundle in enumerate(members):
        entry: dict[str, Any] = {"name": bundle.name}
        if i > 0:
            entry["replaces"] = members[i - 1].name
            skips = sorted(r for r in removed if _between(r, members[i - 1], bundle))
            if i > 1 and _key(bundle.version)[-1] % 2 == 0 and _key(bundle.version)[-1] > 0:
                skips.append(members[i - 2].name)
            if skips:
                entry["skips"] = sorted(set(skips))
        entries.append(entry)
    return {"schema": "olm.channel", "package": package.name, "name": channel, "entries": entries}


def _between(name: str, low: SoakBundle, high: SoakBundle) -> bool:
    version = _key(name.split(".v", 1)[1])
    return _key(low.version) < version < _key(high.version)


def _bundle(bundle: SoakBundle) -> dict[str, Any]:
    properties: list[dict[str, Any]] = [
        {"type": "olm.package", "value": {"packageName": bundle.package, "version": bundle.version}}
    ]
    for kind in bundle.provides:
        properties.append(
            {"type": "olm.gvk", "value": {"group": GROUP, "version": "v1", "kind": kind}}
        )
    for package, versions in bundle.requires_package:
        properties.append(
            {
                "type": "olm.package.required",
                "value": {"packageName": package, "versionRange": versions},
            }
        )
    for kind in bundle.requires_kind:
        properties.append(
            {"type": "olm.gvk.required", "value": {"group": GROUP, "version": "v1", "kind": kind}}
        )
    if bundle.rules is not None:
        data = base64.b64encode(orjson.dumps(_csv(bundle))).decode()
        properties.append({"type": "olm.bundle.object", "value": {"data": data}})
    return {
        "schema": "olm.bundle",
        "name": bundle.name,
        "package": bundle.package,
        "image": f"registry.soak.example/{bundle.package}:v{bundle.version}",
        "properties": properties,
    }
