"""The resolution pipeline's OLM nodes (seed resolution-pipelines.md), one responsibility each.

Producers create variables from the request; processors read variables and emit more. Each
node is a plain object with ``produce(context)`` or ``process(context, variables)`` so the
pipeline engine can run, observe and replace them without knowing what they do.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from deppy.catalog.model import Bundle
from deppy.resolution.context import ResolutionContext
from deppy.resolution.dependencies import needs_of
from deppy.resolution.installed import InstalledLocation, locate_installed, upgrade_candidates
from deppy.resolution.request import InstalledBundle, RequiredPackage
from deppy.resolution.rule_sets import rule_set
from deppy.resolution.variables import (
    ClusterIncompatible,
    ClusterPolicy,
    Excluded,
    Fact,
    KeptInstalled,
    Needs,
    OLMVariable,
    OnePerAPI,
    OnePerPackage,
    Requested,
    bundle_id,
    make,
)
from deppy.solver import AtMost, Conflict, Constraint, Dependency, Mandatory


class RequiredPackageProducer:
    """One mandatory variable per requirement, depending on its candidates in preference order."""

    name = "required-package-producer"

    def produce(self, context: ResolutionContext) -> list[OLMVariable]:
        produced: list[OLMVariable] = []
        seen: dict[str, int] = {}
        for requirement in context.request.required:
            seen[requirement.package] = seen.get(requirement.package, 0) + 1
            suffix = f" #{seen[requirement.package]}" if seen[requirement.package] > 1 else ""
            label = f"required package {requirement.package}{suffix}"
            produced.append(self.variable(requirement, label, context))
        return produced

    @classmethod
    def variable(
        cls, requirement: RequiredPackage, label: str, context: ResolutionContext
    ) -> OLMVariable:
        """The mandatory variable of one requirement, depending on its candidates."""
        candidates = cls.candidates(requirement, context)
        missing = None if candidates else cls.why_none(requirement, context)
        need = Needs(
            requirement, requirement.describe(), tuple(candidates), missing, requirement.package
        )
        pairs: list[tuple[Constraint, Fact]] = [
            (Mandatory(), Requested(requirement)),
            (Dependency(*(bundle_id(b) for b in candidates)), need),
        ]
        return make("required", label, pairs)

    @staticmethod
    def candidates(requirement: RequiredPackage, context: ResolutionContext) -> list[Bundle]:
        """The requirement's candidates, most preferred first, by the request's rule set."""
        return rule_set(context.request).candidates(requirement, context)

    @staticmethod
    def why_none(requirement: RequiredPackage, context: ResolutionContext) -> str:
        """Why the requirement has no candidate at all, in the rule set's words."""
        return rule_set(context.request).why_none(requirement, context)


class InstalledPackageProducer:
    """One mandatory variable per installed bundle: stay, or upgrade along the channel."""

    name = "installed-package-producer"

    def produce(self, context: ResolutionContext) -> list[OLMVariable]:
        produced: list[OLMVariable] = []
        for installed in context.request.installed:
            current = locate_installed(installed, context)
            targets, refused = self.moves(installed, current, context)
            candidates = [] if refused else [*targets, current.bundle]
            moves = f"stays ({installed.held})" if installed.held else "stays or upgrades"
            located = _in_channel_used(installed, current)
            need = Needs(
                located,
                f"{located.describe()} {moves}",
                tuple(candidates),
                refused,
                installed.package,
            )
            pairs: list[tuple[Constraint, Fact]] = [
                (Mandatory(), KeptInstalled(installed)),
                (Dependency(*(bundle_id(b) for b in candidates)), need),
            ]
            identifier = f"installed package {installed.package} {installed.version}"
            produced.append(make("installed", identifier, pairs))
            if current.synthetic:
                produced.append(make("bundle", bundle_id(current.bundle), [], current.bundle))
        return produced

    @staticmethod
    def moves(
        installed: InstalledBundle, current: InstalledLocation, context: ResolutionContext
    ) -> tuple[list[Bundle], str | None]:
        """Where the installed bundle may go under the request's rules, or why it cannot even
        stay (OLM v0 resolves nothing for a channel it cannot sort)."""
        if installed.held:
            return [], None
        own = rule_set(context.request).installed_moves(installed, current.bundle, context)
        if own is None:
            return upgrade_candidates(installed, current, context), None
        return list(own.targets), own.refused


def _in_channel_used(installed: InstalledBundle, current: InstalledLocation) -> InstalledBundle:
    """``installed`` as the answer names it: in the channel it was found in, when the one
    given was corrected (``channel=stabel``, warned as "using stable"), so the "why" line
    says the channel the warning said (it said ``(channel stabel)``)."""
    used = current.channel
    if installed.channel is None or used is None or used.name == installed.channel:
        return installed
    return replace(installed, channel=used.name)


class BundlesAndDependencies:
    """A variable for every candidate bundle, and transitively for its dependencies' candidates."""

    name = "bundles-and-dependencies"

    def process(
        self, context: ResolutionContext, variables: Sequence[OLMVariable]
    ) -> list[OLMVariable]:
        done = {v.id for v in variables if v.kind == "bundle"}
        queue: deque[Bundle] = deque(
            bundle
            for v in variables
            for fact in v.facts
            if isinstance(fact, Needs)
            for bundle in fact.candidates
        )
        produced: list[OLMVariable] = []
        rules = rule_set(context.request)
        order = rules.dependency_order
        while queue:
            bundle = queue.popleft()
            identifier = bundle_id(bundle)
            if identifier in done:
                continue
            done.add(identifier)
            pairs: list[tuple[Constraint, Fact]] = []
            words = rules.need_words(bundle)
            for n, need in enumerate(needs_of(bundle, context, order)):
                word = words[n] if n < len(words) else None
                if word is not None and not need.candidates:  # the rule set's words beside
                    said = f"{need.missing} ({word})" if need.missing else word
                    need = replace(need, missing=said)
                pairs.append((Dependency(*(bundle_id(b) for b in need.candidates)), need))
                queue.extend(need.candidates)
            produced.append(make("bundle", identifier, pairs, bundle))
        return produced


class RuntimeConstraints:
    """Cluster facts and user restrictions: bundles that cannot or may not be installed."""

    name = "runtime-constraints"

    def process(
        self, context: ResolutionContext, variables: Sequence[OLMVariable]
    ) -> list[OLMVariable]:
        pairs: list[tuple[Constraint, Fact]] = []
        spared = self.installed_spared(context)
        for variable in variables:
            bundle = variable.bundle
            if variable.kind != "bundle" or bundle is None or bundle in spared:
                continue
            for fact in self.violations(bundle, context):
                pairs.append((Conflict(variable.id), fact))
        if not pairs:
            return []
        policy = ClusterPolicy(self.describe(context))
        return [make("cluster", "cluster constraints", [(Mandatory(), policy), *pairs])]

    @staticmethod
    def installed_spared(context: ResolutionContext) -> set[Bundle]:
        """The installed bundles, where the rule set applies no runtime constraint to them
        (OLM v0: system constraints are for catalog entries, not the cluster's own CSVs)."""
        if rule_set(context.request).runtime_on_installed:
            return set()
        return {locate_installed(i, context).bundle for i in context.request.installed}

    @staticmethod
    def describe(context: ResolutionContext) -> str:
        cluster = context.request.cluster
        parts = []
        if cluster.openshift_version is not None:
            parts.append(f"OpenShift {cluster.openshift_version}")
        if cluster.kube_version is not None:
            parts.append(f"Kubernetes {cluster.kube_version}")
        parts += [f"excluding {r.describe()}" for r in context.request.exclude]
        return "the cluster runs " + ", ".join(parts) if parts else "cluster policy"

    @staticmethod
    def violations(bundle: Bundle, context: ResolutionContext) -> Iterable[Fact]:
        cluster = context.request.cluster
        ocp = cluster.openshift_version
        if ocp is not None and bundle.max_openshift_version is not None:
            limit = bundle.max_openshift_version
            if (limit.major, limit.minor) < (ocp.major, ocp.minor):
                yield ClusterIncompatible(
                    bundle,
                    f"{bundle.package} {bundle.version} supports OpenShift up to "
                    f"{limit.major}.{limit.minor} (olm.maxOpenShiftVersion); the cluster runs "
                    f"{ocp.major}.{ocp.minor}",
                    "openshift",
                )
        kube = cluster.kube_version
        minimum = bundle.min_kube_version
        if kube is not None and minimum is not None and minimum > kube:
            yield ClusterIncompatible(
                bundle,
                f"{bundle.package} {bundle.version} needs Kubernetes {minimum} or newer "
                f"(minKubeVersion); the cluster runs {kube}",
                "kubernetes",
            )
        for restriction in context.request.exclude:
            if has_property(bundle, restriction.type, restriction.value):
                yield Excluded(bundle, restriction)


def has_property(bundle: Bundle, kind: str, value: str) -> bool:
    """Whether a property of type ``kind`` has ``value`` (as text), or an object holding it
    (``--exclude olm.package=etcd``, a filter's ``property``)."""
    for prop in bundle.properties:
        if prop.type != kind:
            continue
        raw = prop.value
        values = raw.values() if isinstance(raw, Mapping) else [raw]
        if any(str(v) == value for v in values):
            return True
    return False


class GlobalConstraints:
    """At most one bundle per package, and at most one package per provided API."""

    name = "global-constraints"

    def process(
        self, context: ResolutionContext, variables: Sequence[OLMVariable]
    ) -> list[OLMVariable]:
        by_package: dict[str, list[OLMVariable]] = {}
        by_api: dict[str, list[OLMVariable]] = {}
        for variable in variables:
            bundle = variable.bundle
            if variable.kind != "bundle" or bundle is None:
                continue
            by_package.setdefault(bundle.package, []).append(variable)
            for gvk in bundle.provided_gvks:
                by_api.setdefault(str(gvk), []).append(variable)
        produced: list[OLMVariable] = []
        for package, members in by_package.items():
            if len(members) > 1:
                one = OnePerPackage(package, tuple(m.bundle for m in members if m.bundle))
                constraint = AtMost(1, *(m.id for m in members))
                produced.append(
                    make("uniqueness", f"package {package} uniqueness", [(constraint, one)])
                )
        for api, members in by_api.items():
            if len({m.bundle.package for m in members if m.bundle}) > 1:
                fact = OnePerAPI(api, tuple(m.bundle for m in members if m.bundle))
                constraint = AtMost(1, *(m.id for m in members))
                produced.append(make("uniqueness", f"api {api} uniqueness", [(constraint, fact)]))
        return produced
