"""What the next cluster version would do to a resolution ("what-if" of deppy-phase-0.md).

The same request is resolved at the cluster's current versions and at the next ones; each
package of the current answer is then unchanged, changes version or breaks. A newer OpenShift
only takes bundles away (olm.maxOpenShiftVersion) and a newer Kubernetes only adds some
(minKubeVersion), so every change has a cause in the cluster facts, and it is named. When the
whole request fails at the next versions, each requirement and installed bundle is resolved on
its own as well, so the report can say which of them breaks and which would still be fine.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.model import Bundle
from deppy.catalog.semver import Version
from deppy.errors import InputError
from deppy.explain import Explanation, explanation_as_dict, explanation_as_text
from deppy.resolution.answer import Resolution, SelectedBundle
from deppy.resolution.context import ResolutionContext
from deppy.resolution.request import ClusterFacts, ResolutionRequest
from deppy.resolution.request_parsing import parse_version
from deppy.resolution.resolver import resolve
from deppy.solver import SolveTimeout
from deppy.workflows.upgrades import cluster_refusals

__all__ = ["PackageChange", "WhatIf", "next_cluster", "parse_next", "what_if", "whatif_as_text"]

UNCHANGED, CHANGES, BREAKS, ADDED, REMOVED = "unchanged", "changes", "breaks", "added", "removed"


def _next_minor(version: Version | None, *, short: bool) -> Version | None:
    if version is None:
        return None
    text = f"{version.major}.{version.minor + 1}" + ("" if short else ".0")
    return Version(version.major, version.minor + 1, 0, text=text)


def next_cluster(cluster: ClusterFacts) -> ClusterFacts:
    """The next minor of each stated version: OpenShift 4.18 -> 4.19, Kubernetes 1.31 -> 1.32."""
    return ClusterFacts(
        _next_minor(cluster.openshift_version, short=True),
        _next_minor(cluster.kube_version, short=False),
    )


CLI_VERSIONS = "add --ocp-version (e.g. 4.18) and/or --kube-version (e.g. 1.31.0)"


def parse_next(value: str, current: ClusterFacts, *, versions: str = CLI_VERSIONS) -> ClusterFacts:
    """``--dry-run-next`` alone means the next minors; ``ocp=V,kube=V`` names the target.
    ``versions`` says where the current versions are given (the CLI's flags, the service's
    ``spec.cluster``): each door names its own, never the other's."""
    where = f"--dry-run-next {value!r}"
    if value in ("", "next"):
        if current.openshift_version is None and current.kube_version is None:
            raise InputError(
                "--dry-run-next",
                "the next version is counted from the current one, and none is given",
                versions,
            )
        return next_cluster(current)
    found: dict[str, Version] = {}
    for part in value.split(","):
        key, sep, text = part.partition("=")
        if not sep or key.strip() not in ("ocp", "kube"):
            raise InputError(where, f"cannot read {part.strip()!r}", "write ocp=4.19,kube=1.32.0")
        found[key.strip()] = parse_version(text.strip(), where, tolerant=True)
    return ClusterFacts(
        found.get("ocp", current.openshift_version), found.get("kube", current.kube_version)
    )


def describe_cluster(cluster: ClusterFacts) -> str:
    parts = []
    if cluster.openshift_version is not None:
        parts.append(f"OpenShift {cluster.openshift_version}")
    if cluster.kube_version is not None:
        parts.append(f"Kubernetes {cluster.kube_version}")
    return ", ".join(parts) or "no stated versions"


@dataclass(frozen=True, slots=True)
class PackageChange:
    """One package's fate: ``why`` names the cluster fact behind a change; a break carries the
    resolver's explanation."""

    package: str
    status: str
    before: str | None
    after: str | None
    why: tuple[str, ...] = ()
    explanation: Explanation | None = None

    def as_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "package": self.package,
            "status": self.status,
            "before": self.before,
            "after": self.after,
            "why": list(self.why),
        }
        if self.explanation is not None:
            result["explanation"] = explanation_as_dict(self.explanation)
        return result


@dataclass(frozen=True, slots=True)
class WhatIf:
    current: ClusterFacts
    next: ClusterFacts
    before: Resolution
    after: Resolution
    changes: tuple[PackageChange, ...]

    @property
    def breaks(self) -> bool:
        return not self.after.resolved

    def as_dict(self) -> dict[str, Any]:
        return {
            "current": describe_cluster(self.current),
            "next": describe_cluster(self.next),
            "resolvedNow": self.before.resolved,
            "resolvedNext": self.after.resolved,
            "packages": [c.as_dict() for c in self.changes],
            "now": self.before.as_dict(),
            "then": self.after.as_dict(),
        }


def what_if(
    source: BundleSource,
    request: ResolutionRequest,
    target: ClusterFacts,
    *,
    timeout: float | None = None,
) -> WhatIf:
    """Resolve at the current and at the ``target`` cluster versions and compare per package.

    ``timeout`` bounds all the resolutions together (``SolveTimeout`` past it)."""
    clock = _Clock(timeout)
    before = clock.resolve(source, request)
    later = replace(request, cluster=target)
    after = clock.resolve(source, later)
    changes: list[PackageChange] = []
    if before.selection is not None:
        judge = _Judge(source, request, later, clock)
        if after.selection is not None:
            changes = judge.compare(before.selection, after.selection)
        else:
            changes = judge.isolate(before.selection)
    return WhatIf(request.cluster, target, before, after, tuple(changes))


class _Clock:
    """One deadline shared by several resolutions."""

    def __init__(self, timeout: float | None) -> None:
        self.deadline = None if timeout is None else time.monotonic() + timeout

    def resolve(self, source: BundleSource, request: ResolutionRequest) -> Resolution:
        if self.deadline is None:
            return resolve(source, request)
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise SolveTimeout()
        return resolve(source, request, timeout=left)


class _Judge:
    """Compares selections and names the cluster fact behind each difference."""

    def __init__(
        self,
        source: BundleSource,
        now: ResolutionRequest,
        later: ResolutionRequest,
        clock: _Clock,
    ) -> None:
        self.clock = clock
        self.source = source
        self.later = later
        self.now_context = ResolutionContext.create(source, now)
        self.later_context = ResolutionContext.create(source, later)

    def compare(
        self, before: Iterable[SelectedBundle], after: Iterable[SelectedBundle]
    ) -> list[PackageChange]:
        then = {s.package: s for s in after}
        changes: list[PackageChange] = []
        for item in before:
            changes.append(self._one(item, then.pop(item.package, None)))
        for item in then.values():
            changes.append(
                PackageChange(item.package, ADDED, None, item.version, tuple(item.reasons))
            )
        return changes

    def _one(self, now: SelectedBundle, then: SelectedBundle | None) -> PackageChange:
        if then is None:
            return PackageChange(now.package, REMOVED, now.version, None, ("no longer needed",))
        if (then.bundle, then.catalog) == (now.bundle, now.catalog):
            return PackageChange(now.package, UNCHANGED, now.version, then.version)
        why = self._blocked(now.source, self.later_context)
        if then.source is not None:
            why += tuple(
                f"refused now, allowed at the next version: {reason}"
                for reason in self._blocked(then.source, self.now_context)
            )
        return PackageChange(
            now.package, CHANGES, now.version, then.version, why or ("a dependency changed",)
        )

    @staticmethod
    def _blocked(bundle: Bundle | None, context: ResolutionContext) -> tuple[str, ...]:
        return () if bundle is None else cluster_refusals(bundle, context)

    def isolate(self, before: Iterable[SelectedBundle]) -> list[PackageChange]:
        """The request breaks as a whole: resolve each root alone to see which ones break."""
        alone: dict[str, Resolution] = {}
        for required in self.later.required:
            same = tuple(i for i in self.later.installed if i.package == required.package)
            only = replace(self.later, required=(required,), installed=same)
            alone.setdefault(required.package, self.clock.resolve(self.source, only))
        for installed in self.later.installed:
            only = replace(self.later, required=(), installed=(installed,))
            alone.setdefault(installed.package, self.clock.resolve(self.source, only))
        changes: list[PackageChange] = []
        for item in before:
            own = alone.get(item.package)
            if own is not None and own.explanation is not None:
                changes.append(
                    PackageChange(
                        item.package,
                        BREAKS,
                        item.version,
                        None,
                        tuple(c.text for c in own.explanation.causes),
                        own.explanation,
                    )
                )
                continue
            found = _selected_in(item.package, alone.values())
            if found is None:
                needed = ", ".join(item.reasons)
                why = (f"breaks with what needs it ({needed})",)
                changes.append(PackageChange(item.package, BREAKS, item.version, None, why))
            else:
                changes.append(self._one(item, found))
        return changes


def _selected_in(package: str, resolutions: Iterable[Resolution]) -> SelectedBundle | None:
    for resolution in resolutions:
        for item in resolution.selection or ():
            if item.package == package:
                return item
    return None


STATUS_TEXT = {
    UNCHANGED: "unchanged",
    CHANGES: "changes version",
    BREAKS: "breaks",
    ADDED: "newly needed",
    REMOVED: "no longer needed",
}


def whatif_as_text(report: WhatIf) -> str:
    lines = [
        f"Now: {describe_cluster(report.current)}. Next: {describe_cluster(report.next)}.",
    ]
    if report.before.explanation is not None:
        lines += ["", "The request cannot be resolved even now:"]
        lines.append(explanation_as_text(report.before.explanation))
        return "\n".join(lines)
    lines.append("")
    severity = {BREAKS: 0, CHANGES: 1, ADDED: 2, REMOVED: 3, UNCHANGED: 4}
    for change in sorted(report.changes, key=lambda c: severity[c.status]):
        lines.append(f"{change.package}: {_headline(change)}")
        lines += [f"  - {reason}" for reason in change.why]
        if change.explanation is not None and change.explanation.suggestions:
            lines.append("  what would make it work:")
            lines += [f"  - {s.text}" for s in change.explanation.suggestions]
    explained = any(c.explanation is not None for c in report.changes)
    if report.after.explanation is not None and not explained:
        lines += ["", "At the next version the request as a whole cannot be resolved:", ""]
        lines.append(explanation_as_text(report.after.explanation))
    counts = {status: 0 for status in STATUS_TEXT}
    for change in report.changes:
        counts[change.status] += 1
    summary = ", ".join(f"{n} {STATUS_TEXT[s]}" for s, n in counts.items() if n)
    lines += ["", f"Summary: {summary or 'nothing selected'}."]
    return "\n".join(lines)


def _headline(change: PackageChange) -> str:
    if change.status == UNCHANGED:
        return f"unchanged ({change.before})"
    if change.status == CHANGES:
        return f"changes version {change.before} -> {change.after}"
    if change.status == BREAKS:
        return f"breaks (now {change.before})"
    if change.status == ADDED:
        return f"newly needed ({change.after})"
    return f"no longer needed (now {change.before})"
