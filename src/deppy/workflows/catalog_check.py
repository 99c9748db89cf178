"""Which bundles of a catalog cannot be installed on their own, and why.

Each bundle is required exactly (its package, its version, its catalog) and resolved against the
catalog as a cluster would; a failure keeps the resolver's explanation and is sorted by its
leaf reasons (missing package, missing API, no version in range, cluster version, ...).

A whole catalog has thousands of bundles, so the work is shared and skipped where it cannot
matter: one candidate order (channel membership caches) serves every check, and a bundle that
needs nothing and that the cluster accepts is installable without asking the solver — only
bundles whose dependency closure can fail are resolved.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.channel_validation import channel_problem
from deppy.catalog.model import Bundle
from deppy.catalog.semver import VersionRange
from deppy.explain import Explanation, explanation_as_dict
from deppy.resolution.context import CandidateOrder, ResolutionContext
from deppy.resolution.explanation import explain
from deppy.resolution.nodes import RuntimeConstraints
from deppy.resolution.request import ClusterFacts, RequiredPackage, ResolutionRequest
from deppy.resolution.resolver import generate_variables
from deppy.resolution.variables import ClusterIncompatible, Excluded, Fact, Needs, bundle_id
from deppy.solver import NotSatisfiable, solve

__all__ = ["BundleCheck", "CatalogCheck", "Checker", "check_catalog", "require_exactly"]

MISSING_PACKAGE = "missing package"
MISSING_API = "missing API"
NO_VERSION = "no version in range"
MISSING_LABEL = "missing label"
CONSTRAINT = "unsatisfiable olm.constraint"
CLUSTER = "cluster version"
EXCLUDED = "excluded"
CONFLICT = "conflict"
REASONS = (MISSING_PACKAGE, MISSING_API, NO_VERSION, CLUSTER, MISSING_LABEL, CONSTRAINT)
MAIN_REASONS = REASONS[:4]  # always counted, even when none fails for them


def require_exactly(bundle: Bundle) -> RequiredPackage:
    """The requirement that only this bundle can satisfy: package, exact version, catalog."""
    text = f"{bundle.package}@{bundle.version},catalog={bundle.catalog}"
    return RequiredPackage(
        bundle.package,
        VersionRange.exactly(bundle.version),
        str(bundle.version),
        catalog=bundle.catalog,
        text=text,
    )


@dataclass(frozen=True, slots=True)
class BundleCheck:
    """A bundle that cannot be installed alone: its leaf reasons, the full explanation, and
    every dependency of its own that nothing can satisfy (the explanation, being minimal,
    names only one of them; a catalog maintainer wants them all)."""

    bundle: Bundle
    reasons: tuple[str, ...]
    explanation: Explanation
    unmet: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "package": self.bundle.package,
            "version": str(self.bundle.version),
            "bundle": self.bundle.name,
            "reasons": list(self.reasons),
            "unmet": list(self.unmet),
            "explanation": explanation_as_dict(self.explanation),
        }


@dataclass(frozen=True, slots=True)
class CatalogCheck:
    catalog: str
    cluster: ClusterFacts
    bundles: int
    resolved: int  # how many needed the solver; the others need nothing the catalog lacks
    failures: tuple[BundleCheck, ...]
    invalid_channels: tuple[str, ...] = ()  # what opm validate says of each invalid channel

    def by_reason(self) -> dict[str, int]:
        """Failing bundles per reason (a bundle with two reasons counts under both)."""
        counts = Counter(dict.fromkeys(MAIN_REASONS, 0))
        counts.update(reason for failure in self.failures for reason in failure.reasons)
        order = {reason: n for n, reason in enumerate(REASONS)}
        return dict(sorted(counts.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))

    def packages(self) -> list[str]:
        return sorted({f.bundle.package for f in self.failures})

    def as_dict(self) -> dict[str, Any]:
        return {
            "catalog": self.catalog,
            "bundles": self.bundles,
            "resolved": self.resolved,
            "failing": len(self.failures),
            "failingPackages": len(self.packages()),
            "byReason": self.by_reason(),
            "failures": [f.as_dict() for f in self.failures],
            "invalidChannels": list(self.invalid_channels),
        }


class Checker:
    """Checks bundles one by one against one source, sharing the candidate order."""

    def __init__(self, source: BundleSource, cluster: ClusterFacts) -> None:
        self.source = source
        self.cluster = cluster
        self.order = CandidateOrder(source)
        self._policy = ResolutionContext(source, ResolutionRequest(cluster=cluster), self.order)

    def may_fail(self, bundle: Bundle) -> bool:
        """Whether resolution could refuse the bundle: it needs something, or the cluster
        refuses it. A bundle with neither is installable alone by construction."""
        needs = (
            bundle.required_packages
            or bundle.required_gvks
            or bundle.required_labels
            or bundle.constraints
        )
        return bool(needs) or any(True for _ in RuntimeConstraints.violations(bundle, self._policy))

    def check(self, bundle: Bundle) -> BundleCheck | None:
        """None when the bundle can be installed on its own, else why not."""
        request = ResolutionRequest(required=(require_exactly(bundle),), cluster=self.cluster)
        context = ResolutionContext(self.source, request, self.order)
        variables = generate_variables(context)
        index = {v.id: v for v in variables}
        try:
            solve([v.variable for v in variables], where=f"check of {bundle.name}")
        except NotSatisfiable as unsat:
            facts = [
                fact
                for applied in unsat.constraints
                if applied.variable.id in index
                and (fact := index[applied.variable.id].fact_of(applied.constraint)) is not None
            ]
            own = index[bundle_id(bundle)].facts if bundle_id(bundle) in index else ()
            unmet = [f for f in own if isinstance(f, Needs) and not f.candidates]
            explanation = explain(unsat.constraints, index, context)
            texts = tuple(f"needs {f.need}: {f.missing or 'nothing offers it'}" for f in unmet)
            return BundleCheck(bundle, self.reasons([*facts, *unmet]), explanation, texts)
        return None

    def reasons(self, facts: Sequence[Fact]) -> tuple[str, ...]:
        """The leaf reasons of a failure; a clash of otherwise possible choices is a conflict."""
        found: list[str] = []
        for fact in facts:
            reason = self._reason(fact)
            if reason is not None and reason not in found:
                found.append(reason)
        return tuple(found) or (CONFLICT,)

    def _reason(self, fact: Fact) -> str | None:
        if isinstance(fact, ClusterIncompatible):
            return CLUSTER
        if isinstance(fact, Excluded):
            return EXCLUDED
        if not isinstance(fact, Needs) or fact.candidates:
            return None
        if fact.package is not None:
            return NO_VERSION if self.source.has_package(fact.package) else MISSING_PACKAGE
        dependent = fact.dependent
        if isinstance(dependent, Bundle):
            if any(fact.need == f"API {gvk}" for gvk in dependent.required_gvks):
                return MISSING_API
            if any(label in fact.need for label in dependent.required_labels):
                return MISSING_LABEL
        return CONSTRAINT


def check_catalog(
    source: BundleSource,
    catalog: str,
    cluster: ClusterFacts,
    progress: Callable[[int, int], None] | None = None,
) -> CatalogCheck:
    """Check every bundle of ``catalog`` (a name in ``source``); ``progress(done, total)`` is
    called as bundles are checked. Failures come by package name, newest version first."""
    bundles = [b for b in source.all_bundles() if b.catalog == catalog]
    bundles.sort(key=lambda b: b.name)
    bundles.sort(key=lambda b: b.version, reverse=True)
    bundles.sort(key=lambda b: b.package)
    checker = Checker(source, cluster)
    failures: list[BundleCheck] = []
    resolved = 0
    for done, bundle in enumerate(bundles, 1):
        if checker.may_fail(bundle):
            resolved += 1
            failure = checker.check(bundle)
            if failure is not None:
                failures.append(failure)
        if progress is not None:
            progress(done, len(bundles))
    invalid = [
        problem
        for package in sorted({b.package for b in bundles})
        for channel in sorted(source.channels(catalog, package), key=lambda c: c.name)
        if (problem := channel_problem(channel)) is not None
    ]
    return CatalogCheck(catalog, cluster, len(bundles), resolved, tuple(failures), tuple(invalid))
