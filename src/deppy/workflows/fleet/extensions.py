"""OLM v1 ClusterExtensions in a fleet plan, under OLM v1's own rules.

Each installed ClusterExtension of a cluster is what ``deppy upgrades -f EXTENSION --cluster
EXPORT`` answers for it alone: the cluster's ClusterCatalogs give labels, priorities and
availability (``extension_request_on_cluster``), and ``extension_upgrades`` walks OLM v1's
reconciliations — one bundle per reconciliation under ``CatalogProvided``, straight to the best
in range under ``SelfCertified`` — to where the extension ends up, or gives OLM v1's own message
when it finds no bundle (the install is then stranded: OLM v1 has no way forward for it). A walk
that reaches a bundle OLM v1 refuses (one declaring a dependency) stops there: the record says
``refused`` with OLM v1's message and the way out, and an extension that cannot move at all is
stranded.

With a target platform version, an installed bundle the target refuses (its
``olm.maxOpenShiftVersion``, its ``olm.minKubeVersion``) blocks it; the fix is the first
reconciliation on the extension's own path from which the target refuses nothing. When the
extension's terms never get there, the fix says how the spec must change — its version range
first, then its channels, then its upgradeConstraintPolicy — each change checked by walking the
path again under the changed terms.

Bad input stays with the extension it concerns (an error record beside the plan): no installed
bundle yet, a selector that matches no ClusterCatalog, a package in no catalog in use, a field
OLM v1 refuses. A ClusterCatalog that cannot be read fails the cluster, as it fails ``deppy
upgrades`` for every extension of it.

Clusters share extensions (the same terms, the same installed bundle), so the walks are kept
per extension request for the whole run, as the planner keeps its other reports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.model import Bundle
from deppy.catalog.semver import VersionError
from deppy.catalog.semver.extension_constraint import ExtensionConstraint
from deppy.cluster import ClusterState
from deppy.cluster.objects import describe, name_of, text
from deppy.errors import DeppyError
from deppy.resolution.olmv1 import catalog_from_object, nothing_walked
from deppy.resolution.request import (
    SELF_CERTIFIED,
    ClusterFacts,
    ExtensionTerms,
    RequiredPackage,
    ResolutionRequest,
)
from deppy.workflows.cluster_input import ClusterInput
from deppy.workflows.olmv1 import (
    RESOLVED_CATALOG_WAY_OUT,
    ExtensionUpgrade,
    extension_request_on_cluster,
    extension_upgrades,
)

__all__ = ["KIND", "ExtensionPlan", "ExtensionPlanner"]

KIND = "ClusterExtension"
CACHE_LIMIT = 200_000  # walks kept per planner; past it the cache starts again (bounded memory)

Refusals = Callable[[Bundle, ClusterFacts], tuple[str, ...]]
RbacChange = Callable[[Bundle, Bundle | None], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class _Planned:
    """One installed extension: its request, OLM v1's walk, and its installed bundle as the
    catalogs have it (None: in none of the catalogs its selector chose)."""

    requirement: RequiredPackage
    upgrade: ExtensionUpgrade
    bundle: Bundle | None

    @property
    def terms(self) -> ExtensionTerms:
        assert self.requirement.extension is not None
        return self.requirement.extension


@dataclass(frozen=True, slots=True)
class ExtensionPlan:
    """A cluster's ClusterExtensions: the operator records, the per-extension errors, the
    warnings met, and what the blockers are judged from."""

    operators: tuple[dict[str, Any], ...] = ()
    errors: tuple[dict[str, Any], ...] = ()
    warnings: tuple[str, ...] = ()
    planned: tuple[_Planned, ...] = ()


class ExtensionPlanner:
    """Plans the ClusterExtensions of clusters against one catalog release."""

    def __init__(self, source: BundleSource, refused: Refusals, rbac: RbacChange) -> None:
        self.source = source
        self.refused = refused
        self.rbac = rbac
        self.walks: dict[RequiredPackage, ExtensionUpgrade] = {}
        self.known: dict[str, bool] = {}  # package -> in these catalogs
        self.installed: dict[ExtensionTerms, Bundle | None] = {}

    def plan(self, state: ClusterState, found: ClusterInput) -> ExtensionPlan:
        """``found``: the cluster read against this planner's catalogs (their names are the
        ClusterCatalogs with content)."""
        if not state.cluster_extensions:
            return ExtensionPlan()
        for catalog in state.cluster_catalogs:  # unreadable: the cluster's error
            catalog_from_object(catalog, f"{state.where}: ClusterCatalog {name_of(catalog)}")
        operators: list[dict[str, Any]] = []
        errors: list[dict[str, Any]] = []
        planned: list[_Planned] = []
        requests, warnings = _requests(state, found)
        for extension, requirement in requests:
            name = name_of(extension) or describe(extension, KIND)
            package = text(extension, "spec", "source", "catalog", "packageName")
            if isinstance(requirement, str):
                errors.append(_error(name, package, requirement))
                continue
            terms = requirement.extension
            assert terms is not None
            if terms.installed is None:
                errors.append(
                    _error(
                        name,
                        package,
                        f"{KIND} {name} has no installed "
                        "bundle (status.install.bundle): OLM v1 has not installed it yet; "
                        "nothing to plan until it has",
                    )
                )
                continue
            upgrade = self.walk(requirement)
            if not terms.catalogs:  # OLM v1 walks no catalog: the selector or availability
                errors.append(
                    _error(
                        name,
                        package,
                        f"{KIND} {name}: {nothing_walked(terms)}; OLM v1 says: {upgrade.error}",
                    )
                )
                continue
            if not self._has(requirement.package):
                names = ", ".join(self.source.names()) or "none"
                errors.append(
                    _error(
                        name,
                        package,
                        f"{KIND} {name}: package "
                        f"{requirement.package} is in no catalog in use ({names}); OLM v1 "
                        f"says: {upgrade.error} — check spec.source.catalog.packageName "
                        "or give the catalog that has it (--catalog)",
                    )
                )
                continue
            item = _Planned(requirement, upgrade, self._installed_bundle(terms))
            planned.append(item)
            operators.append(self._operator(item))
        return ExtensionPlan(tuple(operators), tuple(errors), warnings, tuple(planned))

    def walk(self, requirement: RequiredPackage) -> ExtensionUpgrade:
        """``extension_upgrades`` for one extension (its answer depends on it alone)."""
        found = self.walks.get(requirement)
        if found is None:
            if len(self.walks) > CACHE_LIMIT:
                self.walks.clear()
            request = ResolutionRequest(required=(requirement,), rules="olmv1")
            (found,) = extension_upgrades(self.source, request)
            self.walks[requirement] = found
        return found

    def _has(self, package: str) -> bool:
        found = self.known.get(package)
        if found is None:
            found = self.known[package] = self.source.has_package(package)
        return found

    def _installed_bundle(self, terms: ExtensionTerms) -> Bundle | None:
        """The installed bundle in the catalogs ``terms`` selected (the highest priority's)."""
        if terms in self.installed:
            return self.installed[terms]
        if len(self.installed) > CACHE_LIMIT:
            self.installed.clear()
        found = self.installed[terms] = self._look_up(terms)
        return found

    def _look_up(self, terms: ExtensionTerms) -> Bundle | None:
        installed = terms.installed
        assert installed is not None
        priority = {c.name: c.priority for c in terms.catalogs}
        found = [
            b
            for b in self.source.bundles_of(installed.package)
            if b.catalog in priority
            and b.name == installed.bundle
            and b.version == installed.version
        ]
        found.sort(key=lambda b: (-priority[b.catalog], b.catalog))
        return found[0] if found else None

    def _operator(self, item: _Planned) -> dict[str, Any]:
        upgrade, terms, bundle = item.upgrade, item.terms, item.bundle
        path = upgrade.path
        newest = path[-1] if path else None
        if bundle is not None:
            rbac = self.rbac(bundle, newest)
        else:
            rbac = {"unknown": "the installed bundle is in no catalog in use"} if newest else {}
        return {
            "kind": KIND,
            "package": upgrade.package,
            "installed": upgrade.installed_version,
            "bundle": upgrade.installed,
            "catalog": bundle.catalog if bundle is not None else None,
            "channel": None,  # OLM v1 records none; ``channels`` are the extension's
            "inCatalog": bundle is not None,
            "next": path[0].name if path else None,
            "newest": newest.name if newest is not None else None,
            "newestVersion": str(newest.version) if newest is not None else None,
            "path": [upgrade.installed, *(b.name for b in path)] if path else [],
            "otherChannels": [],
            "stranded": upgrade.error is not None or (upgrade.refusal is not None and not path),
            "rbac": rbac,
            "extension": terms.name,
            "policy": terms.policy,
            "versionRange": terms.constraint.text if terms.constraint is not None else None,
            "channels": list(terms.channels),
            "resolutionError": upgrade.error,
            **_refusal(upgrade),
        }

    def blockers(self, plan: ExtensionPlan, asked: ClusterFacts) -> list[dict[str, Any]]:
        """The installed bundles ``asked`` (the target's own dimension) refuses, each with the
        reconciliation that unblocks it, in the order of the cluster's extensions."""
        blockers = []
        for item in plan.planned:
            if item.bundle is None:
                continue  # in no catalog: its platform limits are unknown
            reasons = self.refused(item.bundle, asked)
            if not reasons:
                continue
            blockers.append(
                {
                    "kind": KIND,
                    "package": item.upgrade.package,
                    "installed": item.upgrade.installed_version,
                    "bundle": item.upgrade.installed,
                    "reasons": list(reasons),
                    "unblockedBy": self._fix(item, asked),
                    "extension": item.terms.name,
                }
            )
        return blockers

    def _fix(self, item: _Planned, asked: ClusterFacts) -> dict[str, Any] | None:
        found = self._unblocking(item.upgrade, asked)
        if found is not None:
            return _fix(item.upgrade, found, [])
        for changes, terms in _wider(item.terms):
            upgrade = self.walk(replace(item.requirement, extension=terms))
            found = self._unblocking(upgrade, asked)
            if found is None:
                continue
            if changes[0]["field"] == _VERSION:  # a range that stops there, if one does
                narrowed = self._narrowed(item, terms, upgrade.path[found], asked)
                if narrowed is not None:
                    upgrade, found, changes[0]["to"] = narrowed
            return _fix(upgrade, found, changes)
        return None

    def _narrowed(
        self, item: _Planned, terms: ExtensionTerms, target: Bundle, asked: ClusterFacts
    ) -> tuple[ExtensionUpgrade, int, str] | None:
        """The range from the installed version to ``target``, if the walk under it (the other
        changes kept) reaches a bundle the target platform accepts."""
        installed = item.terms.installed
        assert installed is not None
        words = f">={installed.version}, <={target.version}"
        try:
            constraint = ExtensionConstraint.parse(words)
        except VersionError:  # pragma: no cover - built from two versions
            return None
        narrowed = replace(terms, constraint=constraint)
        upgrade = self.walk(replace(item.requirement, extension=narrowed))
        found = self._unblocking(upgrade, asked)
        return None if found is None else (upgrade, found, words)

    def _unblocking(self, upgrade: ExtensionUpgrade, asked: ClusterFacts) -> int | None:
        """The first step of the path from which the target refuses no bundle."""
        found = None
        for index in range(len(upgrade.path) - 1, -1, -1):
            if self.refused(upgrade.path[index], asked):
                break
            found = index
        return found


_VERSION = "spec.source.catalog.version"


def _requests(
    state: ClusterState, found: ClusterInput
) -> tuple[list[tuple[Mapping[str, Any], RequiredPackage | str]], tuple[str, ...]]:
    """Each ClusterExtension with its request, or the error that keeps it from one, and the
    warnings met. All at once, the common case; one at a time when one of them is bad input,
    so that the error stays with it (errors name the object and field; the plan record names
    the cluster)."""
    extensions = list(state.cluster_extensions)
    try:
        olm, _ = extension_request_on_cluster(extensions, "", state, found)
    except DeppyError:
        pass
    else:  # one request per ClusterExtension, in their order
        return list(zip(extensions, olm.request.required, strict=True)), olm.warnings
    result: list[tuple[Mapping[str, Any], RequiredPackage | str]] = []
    warnings: list[str] = []
    for extension in extensions:
        try:
            olm, _ = extension_request_on_cluster([extension], "", state, found)
        except DeppyError as error:
            result.append((extension, str(error)))
            continue
        result.append((extension, olm.request.required[0]))
        warnings += olm.warnings
    return result, tuple(dict.fromkeys(warnings))


def _wider(terms: ExtensionTerms) -> list[tuple[list[dict[str, Any]], ExtensionTerms]]:
    """Ever wider terms, each with the spec changes that make them: no version range, then no
    channels too, then ``SelfCertified`` too (a path OLM v1 takes only with them)."""
    found = []
    changes: list[dict[str, Any]] = []
    if terms.constraint is not None:
        changes.append({"field": _VERSION, "from": terms.constraint.text, "to": None})
        terms = replace(terms, constraint=None)
        found.append((list(changes), terms))
    if terms.channels:
        changes.append(
            {"field": "spec.source.catalog.channels", "from": list(terms.channels), "to": []}
        )
        terms = replace(terms, channels=())
        found.append((list(changes), terms))
    if terms.policy != SELF_CERTIFIED:
        changes.append(
            {
                "field": "spec.source.catalog.upgradeConstraintPolicy",
                "from": terms.policy,
                "to": SELF_CERTIFIED,
            }
        )
        found.append((list(changes), replace(terms, policy=SELF_CERTIFIED)))
    return [([dict(c) for c in cs], t) for cs, t in found]


def _fix(
    upgrade: ExtensionUpgrade, index: int, changes: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    step = upgrade.path[index]
    return {
        "bundle": step.name,
        "version": str(step.version),
        "catalog": step.catalog,
        "channel": None,
        "switchChannel": False,
        "path": [upgrade.installed, *(b.name for b in upgrade.path[: index + 1])],
        "specChange": [dict(c) for c in changes],
    }


def _refusal(upgrade: ExtensionUpgrade) -> dict[str, Any]:
    """Where OLM v1 stops on a bundle it refuses (one declaring a dependency), its message and
    the way out; nothing for an extension OLM v1 never refuses (records stay as they were)."""
    if upgrade.refused is None or upgrade.refusal is None:
        return {}
    return {
        "refused": {
            "bundle": upgrade.refused.name,
            "version": str(upgrade.refused.version),
            "property": upgrade.refusal.property_type,
            "message": upgrade.refusal.message,
            "wayOut": RESOLVED_CATALOG_WAY_OUT,
        }
    }


def _error(extension: str, package: str | None, message: str) -> dict[str, Any]:
    return {"kind": KIND, "extension": extension, "package": package, "error": message}
