"""The resolver's answer: selected bundles with action and reasons, in install order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from deppy.catalog.model import Bundle
from deppy.catalog.properties import projected_properties
from deppy.catalog.semver.release import version_release_key
from deppy.errors import InputError
from deppy.explain import Explanation, explanation_as_dict
from deppy.resolution.context import ResolutionContext
from deppy.resolution.installed import upgrade_path
from deppy.resolution.request import (
    ExtensionTerms,
    InstalledBundle,
    RequiredPackage,
    ResolutionRequest,
)
from deppy.resolution.variables import Needs, OLMVariable, bundle_id


@dataclass(frozen=True, slots=True)
class Origin:
    """Who brought a selected bundle in: a requirement or an installed bundle of the request
    (``who`` as it describes itself), or another selected bundle (``who`` its name), and what
    it needed (``need``: "package etcd >=0.9.0", "API ...")."""

    kind: str  # required | installed | dependency
    who: str
    need: str


@dataclass(frozen=True, slots=True)
class SelectedBundle:
    package: str
    version: str
    bundle: str
    channel: str | None
    catalog: str
    image: str
    action: str  # install | upgrade | keep | replace | downgrade (OLM v1 SelfCertified)
    from_version: str | None
    path: tuple[str, ...]
    reasons: tuple[str, ...]
    source: Bundle | None = field(default=None, compare=False, repr=False)
    origins: tuple[Origin, ...] = field(default=(), compare=False, repr=False)
    path_versions: tuple[str, ...] = ()  # the versions along ``path``

    def action_text(self) -> str:
        """``upgrade 0.9.0 → 0.9.2``; a long path keeps its ends: ``upgrade 0.9.0 → … → 0.9.4,
        4 steps`` (``path`` and JSON have every step)."""
        if self.action in ("upgrade", "downgrade"):
            versions = self.path_versions or (self.from_version or "?", self.version)
            return f"{self.action} {path_text(versions)}"
        return self.action

    def as_dict(self) -> dict[str, Any]:
        return {
            "package": self.package,
            "version": self.version,
            "bundle": self.bundle,
            "channel": self.channel,
            "catalog": self.catalog,
            "image": self.image,
            "action": self.action,
            "from": self.from_version,
            "path": list(self.path),
            "pathVersions": list(self.path_versions),
            "reasons": list(self.reasons),
            # exactly the properties the resolution used (what a CSV's
            # operatorframework.io/properties annotation carries: property-projection.md)
            "properties": [
                {"type": p.type, "value": p.value}
                for p in (projected_properties(self.source) if self.source else ())
            ],
        }


SHOWN_STEPS = 3


def path_text(versions: Sequence[str], *, count: bool = True) -> str:
    """Versions along an upgrade path, with the middle left out past three steps (and then,
    with ``count``, how many steps there are)."""
    steps = len(versions) - 1
    if steps <= SHOWN_STEPS:
        return " → ".join(versions)
    return f"{versions[0]} → … → {versions[-1]}" + (f", {steps} steps" if count else "")


@dataclass(frozen=True, slots=True)
class Resolution:
    request: ResolutionRequest
    selection: tuple[SelectedBundle, ...] | None
    explanation: Explanation | None
    warnings: tuple[str, ...]

    @property
    def resolved(self) -> bool:
        return self.selection is not None

    def as_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {"resolved": self.resolved, "rules": self.request.rules}
        if self.selection is not None:
            result["selection"] = [s.as_dict() for s in self.selection]
        if self.explanation is not None:
            result["explanation"] = explanation_as_dict(self.explanation)
        result["warnings"] = list(self.warnings)
        return result


def assemble(
    selected_ids: Sequence[str],
    variables: dict[str, OLMVariable],
    context: ResolutionContext,
) -> tuple[SelectedBundle, ...]:
    """Selected bundle variables, dependencies before dependents, with why each is there."""
    chosen = [variables[i] for i in selected_ids if variables[i].kind == "bundle"]
    chosen_ids = {v.id for v in chosen}
    reasons: dict[str, list[str]] = {v.id: [] for v in chosen}
    origins: dict[str, list[Origin]] = {v.id: [] for v in chosen}
    depends_on: dict[str, list[str]] = {v.id: [] for v in chosen}
    channel_hint: dict[str, str | None] = {}
    installed_of: dict[str, InstalledBundle] = {}
    direct: set[str] = set()  # OLM v1: one step from the installed bundle, not a channel path
    for identifier in selected_ids:
        owner = variables[identifier]
        for fact in owner.facts:
            if not isinstance(fact, Needs):
                continue
            picked = [bundle_id(b) for b in fact.candidates if bundle_id(b) in chosen_ids]
            for target in picked[:1]:
                if target == identifier:
                    continue  # it provides an API it requires: no reason to list, no edge
                reasons[target].append(_reason(fact))
                origins[target].append(_origin(fact))
                if owner.kind == "bundle":
                    depends_on[owner.id].append(target)
                if isinstance(fact.dependent, RequiredPackage):
                    extension = fact.dependent.extension
                    channel_hint.setdefault(
                        target,
                        fact.dependent.channel
                        or _first_channel(extension, variables[target].bundle, context),
                    )
                    if extension is not None and extension.installed is not None:
                        installed_of[target] = extension.installed
                        direct.add(target)
                if isinstance(fact.dependent, InstalledBundle):
                    installed_of[target] = fact.dependent
    return tuple(
        replace(
            _entry(
                variables[i],
                reasons[i],
                channel_hint.get(i),
                installed_of.get(i),
                context,
                direct=i in direct,
            ),
            origins=tuple(dict.fromkeys(origins[i])),
        )
        for i in _install_order([v.id for v in chosen], depends_on)
    )


def _reason(fact: Needs) -> str:
    dependent = fact.dependent
    if isinstance(dependent, RequiredPackage):
        return f"required: {dependent.describe()}"
    if isinstance(dependent, InstalledBundle):
        return f"installed: {dependent.describe()}"
    return f"dependency of {dependent.package} {dependent.version} ({fact.need})"


def _origin(fact: Needs) -> Origin:
    dependent = fact.dependent
    if isinstance(dependent, RequiredPackage):
        return Origin("required", dependent.describe(), fact.need)
    if isinstance(dependent, InstalledBundle):
        return Origin("installed", dependent.describe(), fact.need)
    return Origin("dependency", dependent.name, fact.need)


def _install_order(order: list[str], depends_on: dict[str, list[str]]) -> list[str]:
    result: list[str] = []
    placed: set[str] = set()
    visiting: set[str] = set()

    def visit(node: str) -> None:
        if node in placed or node in visiting:
            return  # a dependency cycle installs in selection order
        visiting.add(node)
        for target in depends_on.get(node, ()):
            visit(target)
        visiting.discard(node)
        placed.add(node)
        result.append(node)

    for node in order:
        visit(node)
    return result


def _entry(
    variable: OLMVariable,
    reasons: list[str],
    channel: str | None,
    installed: InstalledBundle | None,
    context: ResolutionContext,
    *,
    direct: bool = False,
) -> SelectedBundle:
    bundle = variable.bundle
    if bundle is None:  # a replayed trace whose variables name a bundle its catalogs lack
        raise InputError(
            variable.variable.id,
            "the selection holds a bundle that none of the catalogs has",
            "the trace is damaged or cut: record it again with --trace",
        )
    action, from_version = "install", None
    path: tuple[str, ...] = ()
    versions: tuple[str, ...] = ()
    if installed is not None and direct:
        action, from_version, path, versions = _direct_step(installed, bundle)
    elif installed is not None:
        if bundle.version == installed.version:
            action = "keep"
        else:
            action, from_version = "upgrade", str(installed.version)
            steps = upgrade_path(installed, bundle, context)
            path = tuple(name for name, _ in steps)
            versions = tuple(str(version) for _, version in steps)
        channel = channel or installed.channel
    elif any(i.package == bundle.package for i in context.request.installed):
        action = "replace"
    return SelectedBundle(
        package=bundle.package,
        version=str(bundle.version),
        bundle=bundle.name,
        channel=_channel(bundle, channel, context),
        catalog=bundle.catalog,
        image=bundle.image,
        action=action,
        from_version=from_version,
        path=path,
        reasons=tuple(dict.fromkeys(reasons)),
        source=bundle,
        path_versions=versions,
    )


def _first_channel(
    extension: ExtensionTerms | None, bundle: Bundle | None, context: ResolutionContext
) -> str | None:
    """The first of a ClusterExtension's channels that offers the bundle."""
    if extension is None or bundle is None:
        return None
    return next((c for c in extension.channels if context.order.in_channel(bundle, c)), None)


def _direct_step(
    installed: InstalledBundle, bundle: Bundle
) -> tuple[str, str | None, tuple[str, ...], tuple[str, ...]]:
    """An OLM v1 move: keep, or one step up (a direct successor) or down (SelfCertified)."""
    now, then = version_release_key(installed.version), version_release_key(bundle.version)
    if now == then:
        return "keep", None, (), ()
    name = installed.bundle or f"{installed.package}.v{installed.version}"
    action = "upgrade" if then > now else "downgrade"
    path = (name, bundle.name)
    return action, str(installed.version), path, (str(installed.version), str(bundle.version))


def _channel(bundle: Bundle, requested: str | None, context: ResolutionContext) -> str | None:
    return context.order.preferred_channel(bundle, requested)
