"""One cluster in, one plan record out: what a fleet plan says about each cluster.

The record is built from the answers of the single-cluster workflows, not from a second
implementation of them: the cluster is read as ``deppy upgrades --cluster`` reads it
(``cluster_input_with``), each installed operator's updates are ``upgrade_reports`` at the
cluster's own versions, and with a target platform version again at the target (as ``deppy
upgrades --ocp-version TARGET`` answers), the installed bundle's refusals at the target are
``cluster_refusals``, and the RBAC comparison is the controller's (``deppy.catalog.permissions``).
That is OLM v0's Subscriptions — under OLM v0's own rules by default (``rules``: the next step
is OLM v0's next InstallPlan, the path its InstallPlans; ``--rules deppy`` for deppy's path);
the cluster's ClusterExtensions are planned under OLM v1's rules beside them (``extensions``),
and each operator record says its ``kind``.

What makes thousands of clusters cheap is that clusters share installs: an installed operator's
report depends only on the installed entry, the catalogs and the cluster versions, so a
:class:`Planner` keeps each report per (installed entry, versions) and each RBAC comparison per
(from, to) bundle. A worker process holds one planner for the whole run (``planner_for``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.model import Bundle
from deppy.catalog.permissions import UnreadablePermissions, added_rules, bundle_rules
from deppy.cluster import ClusterState
from deppy.errors import DeppyError
from deppy.resolution.context import ResolutionContext
from deppy.resolution.request import ClusterFacts, InstalledBundle, ResolutionRequest
from deppy.resolution.request_parsing import parse_catalog, parse_version
from deppy.workflows.fleet.extensions import ExtensionPlan, ExtensionPlanner
from deppy.workflows.fleet.inputs import ClusterRef, read_ref
from deppy.workflows.upgrades import (
    ChannelUpdates,
    GraphMemo,
    UpgradeReport,
    cluster_refusals,
    upgrade_reports,
)

if TYPE_CHECKING:
    from deppy.oci.options import PullOptions

__all__ = ["FleetSettings", "Planner", "forget_planners", "planner_for"]

CACHE_LIMIT = 200_000  # reports kept per planner; past it the cache starts again (bounded memory)


@dataclass(frozen=True, slots=True)
class FleetSettings:
    """What every worker needs to plan any cluster: picklable, hashable, small.

    ``catalogs`` and ``since`` are ``--catalog`` specs (absolute paths or stored names), read
    on the worker; ``since`` empty means no comparison with an older catalog release.
    ``pull``: the command's registry options, for workers that pull catalog images themselves
    (a remote dask cluster's, ``fleet.shipping``); None where the command pulled them.
    ``catalog_sets`` are the catalogs exports name as images, read by the command
    (``fleet.images``): a cluster's ``ClusterRef.catalog_set`` picks its set in place of
    ``catalogs``."""

    catalogs: tuple[str, ...] = ()
    since: tuple[str, ...] = ()
    target_ocp: str | None = None
    target_kube: str | None = None
    kubeconfig: str | None = None
    rules: str | None = None  # None: olm-v0 for a cluster with Subscriptions, else deppy
    pull: PullOptions | None = None
    catalog_sets: tuple[tuple[str, ...], ...] = ()

    def check(self) -> None:
        """Fails fast, before any worker starts, on what would fail every cluster: a target
        that is no version, a catalog that does not exist."""
        from deppy.workflows.catalog_loading import check_catalog_named

        self.target()
        for option, specs in (("--catalog", self.catalogs), ("--since", self.since)):
            for spec in specs:
                check_catalog_named(spec, option)

    def target(self) -> ClusterFacts | None:
        if self.target_ocp is None and self.target_kube is None:
            return None
        return ClusterFacts(
            parse_version(self.target_ocp, "--ocp-version", tolerant=True)
            if self.target_ocp
            else None,
            parse_version(self.target_kube, "--kube-version", tolerant=True)
            if self.target_kube
            else None,
        )


_Reports = tuple[UpgradeReport | None, tuple[str, ...]]


class _Side:
    """One catalog release and its caches."""

    def __init__(self, source: BundleSource) -> None:
        self.source = source
        self.reports: dict[tuple[object, ...], _Reports] = {}
        self.refusals: dict[tuple[str, str, ClusterFacts], tuple[str, ...]] = {}
        self.contexts: dict[ClusterFacts, ResolutionContext] = {}
        self.graphs = GraphMemo()
        self.refused_sets: dict[tuple[str, ClusterFacts], frozenset[str]] = {}
        self.known: dict[str, bool] = {}  # package -> in these catalogs
        self.limited: dict[str, bool] = {}  # package -> has a bundle some versions refuse

    def report(self, item: InstalledBundle, facts: ClusterFacts, rules: str) -> _Reports:
        """``upgrade_reports`` for one installed entry (the same answer, warnings included, as
        for the whole cluster: each entry's report depends on that entry alone); None for a
        package this release does not have."""
        if not self.has(item.package):
            return None, ()
        key = (item.package, item.version, item.channel, item.catalog, item.bundle,
               self._refused_in(item.package, facts), rules)  # fmt: skip
        found = self.reports.get(key)
        if found is None:
            if len(self.reports) > CACHE_LIMIT:
                self.reports.clear()
            reports, said = upgrade_reports(
                self.source, [item], facts, graphs=self.graphs, rules=rules
            )
            found = self.reports[key] = (reports[0], tuple(said))
        return found  # the report's ``installed`` may be another cluster's identical entry

    def has(self, package: str) -> bool:
        found = self.known.get(package)
        if found is None:
            found = self.known[package] = self.source.has_package(package)
        return found

    def _refused_in(self, package: str, facts: ClusterFacts) -> frozenset[str]:
        """The package's bundles these cluster versions refuse. Clusters at versions that
        refuse the same bundles get the same updates and paths (only the wording of the
        refusals, which the plan does not show, names the versions), so they share a report.
        """
        limited = self.limited.get(package)
        if limited is None:  # asked per package: a lazily loaded catalog stays mostly unread
            limited = self.limited[package] = any(
                b.max_openshift_version is not None or b.min_kube_version is not None
                for b in self.source.bundles_of(package)
            )
        if not limited:
            return frozenset()  # no bundle of it has a platform limit
        key = (package, facts)
        found = self.refused_sets.get(key)
        if found is None:
            found = self.refused_sets[key] = frozenset(
                b.name for b in self.source.bundles_of(package) if self.refused(b, facts)
            )
        return found

    def refused(self, bundle: Bundle, facts: ClusterFacts) -> tuple[str, ...]:
        key = (bundle.catalog, bundle.name, facts)
        found = self.refusals.get(key)
        if found is None:
            context = self.contexts.get(facts)
            if context is None:
                request = ResolutionRequest(cluster=facts)
                context = self.contexts[facts] = ResolutionContext.create(self.source, request)
            found = self.refusals[key] = cluster_refusals(bundle, context)
        return found


class Planner:
    """Plans clusters against catalogs loaded once; see the module docstring."""

    def __init__(
        self,
        source: BundleSource,
        *,
        target: ClusterFacts | None = None,
        old: BundleSource | None = None,
        kubeconfig: str | None = None,
        rules: str | None = None,
    ) -> None:
        self.rules = rules
        self.new = _Side(source)
        self.old = _Side(old) if old is not None else None
        self.target = target
        self.kubeconfig = kubeconfig
        self.rbac: dict[tuple[str, str, str, str], dict[str, Any]] = {}
        self.extensions = ExtensionPlanner(source, self.new.refused, self._rbac)
        self.old_extensions = (
            ExtensionPlanner(old, self.old.refused, self._rbac)
            if old is not None and self.old is not None
            else None
        )

    @classmethod
    def load(cls, settings: FleetSettings, catalog_set: int | None = None) -> Planner:
        from deppy.workflows.catalog_loading import load_catalogs

        specs = settings.catalogs if catalog_set is None else settings.catalog_sets[catalog_set]
        source = load_catalogs([parse_catalog(s) for s in specs])
        old = load_catalogs([parse_catalog(s) for s in settings.since]) if settings.since else None
        return cls(
            source,
            target=settings.target(),
            old=old,
            kubeconfig=settings.kubeconfig,
            rules=settings.rules,
        )

    def plan(self, ref: ClusterRef) -> dict[str, Any]:
        """The cluster's plan record, or its error record: bad input never ends a run."""
        try:
            return self._plan(ref)
        except DeppyError as error:
            return {"index": ref.index, "cluster": ref.name, "error": str(error)}

    def _plan(self, ref: ClusterRef) -> dict[str, Any]:
        from deppy.workflows.cluster_input import cluster_input_with

        state = read_ref(ref, self.kubeconfig)
        # Subscriptions under OLM v0's rules here, ClusterExtensions under OLM v1's (extensions)
        subscribed = replace(state, cluster_extensions=()) if state.cluster_extensions else state
        found = cluster_input_with(subscribed, self.new.source)
        request = found.request(ResolutionRequest(), upgradable_only=True)
        rules = found.rules(self.rules, request)
        facts = request.cluster
        items = request.installed
        for item in items:  # an unknown package fails the cluster, as `deppy upgrades` does
            if not self.new.has(item.package):
                upgrade_reports(self.new.source, [item], facts)
        warnings = list(found.warnings)
        now = self._reports(self.new, items, facts, warnings, rules)
        extended = self.extensions.plan(state, found)
        warnings += extended.warnings
        operators = [self._operator(r) for r in now] + list(extended.operators)
        target = facts if self.target is None else self.target.or_else(facts)
        blockers = []
        if self.target is not None:
            later = self._reports(self.new, items, target, warnings, rules)
            blockers = self._blockers(self.new, later, self.target)
            blockers += self.extensions.blockers(extended, self.target)
            blockers = [_at_target(b) for b in blockers]
        record: dict[str, Any] = {
            "index": ref.index,
            "cluster": ref.name,
            "source": state.where,
            "rules": rules,
            "openshiftVersion": _text(facts.openshift_version),
            "kubernetesVersion": _text(facts.kube_version),
            "target": _target_text(self.target, target),
            "operators": operators,
            "blockers": blockers,
            "stranded": [o["package"] for o in operators if o["stranded"]],
            "moreRbac": [
                {
                    "package": o["package"],
                    "from": o["bundle"],
                    "to": o["newest"],
                    "added": o["rbac"]["added"],
                }
                for o in operators
                if o["rbac"].get("added")
            ],
            "operatorErrors": list(extended.errors),
            "needsChange": any(o["newest"] or o["stranded"] for o in operators)
            or bool(blockers)
            or bool(extended.errors),
            "warnings": list(dict.fromkeys(warnings)),
        }
        if self.old is not None:
            before = self._extensions_before(state, subscribed)
            record["since"] = self._since(self.old, items, facts, target, operators, blockers,
                                          before, rules)  # fmt: skip
        return record

    def _extensions_before(self, state: ClusterState, subscribed: ClusterState) -> ExtensionPlan:
        """The cluster's ClusterExtensions planned against the older catalog release."""
        from deppy.workflows.cluster_input import cluster_input_with

        if self.old is None or self.old_extensions is None or not state.cluster_extensions:
            return ExtensionPlan()
        found = cluster_input_with(subscribed, self.old.source)
        return self.old_extensions.plan(state, found)

    def _reports(
        self,
        side: _Side,
        items: Sequence[InstalledBundle],
        facts: ClusterFacts,
        warnings: list[str],
        rules: str,
    ) -> list[UpgradeReport]:
        result = []
        for item in items:
            report, said = side.report(item, facts, rules)
            warnings += said
            if report is not None:
                result.append(report)
        return result

    def _operator(self, report: UpgradeReport) -> dict[str, Any]:
        here = report.channel
        newest = here.newest if here is not None else None
        if newest is not None and newest.name == report.bundle.name:
            newest = None
        path = list(here.path) if here is not None and newest is not None else []
        plans = report.install_plans
        if plans is not None:  # OLM v0's: one InstallPlan per step, as far as it goes
            newest = plans.steps[-1] if plans.steps else None
            path = [report.bundle, *plans.steps] if plans.steps else []
        cross = [_channel_brief(c) for c in report.other_channels if c.updates]
        refused = {"refused": plans.refused} if plans is not None and plans.refused else {}
        return {
            "kind": "Subscription",
            "package": report.installed.package,
            "installed": str(report.installed.version),
            "bundle": report.bundle.name,
            "catalog": here.catalog if here is not None else report.bundle.catalog,
            "channel": here.channel if here is not None else None,
            "inCatalog": report.in_catalog,
            "next": path[1].name if len(path) > 1 else None,
            "newest": newest.name if newest is not None else None,
            "newestVersion": str(newest.version) if newest is not None else None,
            "path": [b.name for b in path],
            "otherChannels": cross,
            "stranded": not report.in_catalog
            and not (here is not None and here.updates)
            and not cross,
            "rbac": self._rbac(report.bundle, newest),
            **refused,
        }

    def _rbac(self, old: Bundle, new: Bundle | None) -> dict[str, Any]:
        """What the update asks for beyond what the installed bundle has: ``added`` rules,
        or ``unknown`` with why (a catalog without the CSVs cannot say)."""
        if new is None:
            return {}
        key = (old.catalog, old.name, new.catalog, new.name)
        found = self.rbac.get(key)
        if found is None:
            found = self.rbac[key] = _rbac_change(old, new)
        return found

    def _blockers(
        self, side: _Side, later: Sequence[UpgradeReport], asked: ClusterFacts
    ) -> list[dict[str, Any]]:
        """The installed bundles the target refuses, judged on the target's own dimension
        alone (``asked``: an install the cluster's current Kubernetes already refuses does not
        block an OpenShift upgrade); ``later`` are the reports at the target, whose newest is
        the version that unblocks."""
        blockers = []
        for report in later:
            reasons = side.refused(report.bundle, asked)
            if not reasons:
                continue
            fix = None
            if report.channel is not None and report.channel.newest is not None:
                fix = _fix(report.channel, switch=False)
            else:
                fix = next(
                    (_fix(c, switch=True) for c in report.other_channels if c.newest is not None),
                    None,
                )
            blockers.append(
                {
                    "kind": "Subscription",
                    "package": report.installed.package,
                    "installed": str(report.installed.version),
                    "bundle": report.bundle.name,
                    "reasons": list(reasons),
                    "unblockedBy": fix,
                }
            )
        # the order to apply: each path's steps in order, and the operators one after the other
        # in the order of their Subscriptions; all of them before the platform upgrade
        return blockers

    def _since(
        self,
        old: _Side,
        items: Sequence[InstalledBundle],
        facts: ClusterFacts,
        target: ClusterFacts,
        operators: Sequence[Mapping[str, Any]],
        blockers: Sequence[Mapping[str, Any]],
        extensions: ExtensionPlan,
        rules: str,
    ) -> dict[str, Any]:
        """What changes for this cluster when the new catalog release replaces the old one
        (``extensions``: the cluster's ClusterExtensions planned against the old one)."""
        ignored: list[str] = []
        before = {
            _identity(o): o
            for o in [self._operator(r) for r in self._reports(old, items, facts, ignored, rules)]
            + list(extensions.operators)
        }
        blocked_before: set[str] = set()
        if self.target is not None and self.old_extensions is not None:
            later = self._reports(old, items, target, ignored, rules)
            blocked = self._blockers(old, later, self.target)
            blocked += self.old_extensions.blockers(extensions, self.target)
            blocked_before = {b["package"] for b in blocked}
        new_updates, stranded = [], []
        for operator in operators:
            package = operator["package"]
            was = before.get(_identity(operator))
            was_newest = was["newest"] if was is not None else None
            if operator["newest"] != was_newest:
                new_updates.append(
                    {"package": package, "before": was_newest, "after": operator["newest"]}
                )
            if operator["stranded"] and (was is None or not was["stranded"]):
                stranded.append(package)
        blocked_now = [b["package"] for b in blockers]
        return {
            "updatesChanged": new_updates,
            "newlyStranded": stranded,
            "newlyBlocked": [p for p in blocked_now if p not in blocked_before],
            "noLongerBlocked": sorted(blocked_before - set(blocked_now)),
        }


def _at_target(blocker: Mapping[str, Any]) -> dict[str, Any]:
    """A blocker's reasons as the target's: the refusals are worked out at the target version,
    whose words ("the cluster runs 4.20") said the cluster already runs what it is asked to
    move to."""
    reasons = [r.replace("the cluster runs", "the target is") for r in blocker["reasons"]]
    return {**blocker, "reasons": reasons}


def _identity(operator: Mapping[str, Any]) -> tuple[str, str]:
    """Which install an operator record is: a Subscription by its package, a ClusterExtension
    by its name."""
    return operator["kind"], operator.get("extension") or operator["package"]


def _fix(channel: ChannelUpdates, *, switch: bool) -> dict[str, Any]:
    newest = channel.newest
    assert newest is not None
    return {
        "bundle": newest.name,
        "version": str(newest.version),
        "catalog": channel.catalog,
        "channel": channel.channel,
        "switchChannel": switch,
        "path": [b.name for b in channel.path],
    }


def _channel_brief(channel: ChannelUpdates) -> dict[str, Any]:
    newest = channel.newest
    return {
        "catalog": channel.catalog,
        "channel": channel.channel,
        "newest": newest.name if newest is not None else None,
    }


def _rbac_change(old: Bundle, new: Bundle) -> dict[str, Any]:
    try:
        old_rules, new_rules = bundle_rules(old), bundle_rules(new)
    except UnreadablePermissions as error:
        return {"unknown": str(error)}
    if old_rules is None or new_rules is None:
        return {"unknown": "no CSV in the catalog"}
    return {"added": [rule.text() for rule in added_rules(new_rules, old_rules)]}


def _text(value: object | None) -> str | None:
    return None if value is None else str(value)


def _target_text(asked: ClusterFacts | None, target: ClusterFacts) -> dict[str, Any] | None:
    if asked is None:
        return None
    return {
        "openshiftVersion": _text(target.openshift_version),
        "kubernetesVersion": _text(target.kube_version),
    }


_PLANNERS: dict[tuple[FleetSettings, int | None], Planner] = {}


def planner_for(settings: FleetSettings, catalog_set: int | None = None) -> Planner:
    """This process's planner for ``settings`` (and a cluster's ``catalog_set``): catalogs
    are loaded once per process (a dask worker keeps its planners, and their caches, from one
    batch to the next)."""
    key = (settings, catalog_set)
    found = _PLANNERS.get(key)
    if found is None:
        if _PLANNERS and next(iter(_PLANNERS))[0] != settings:
            _PLANNERS.clear()  # one run at a time per process: an older run's catalogs can go
        found = _PLANNERS[key] = Planner.load(settings, catalog_set)
    return found


def forget_planners() -> None:
    """Drop this process's planner (a warm-up that cannot be kept, see ``fleet.warm_up``)."""
    _PLANNERS.clear()
