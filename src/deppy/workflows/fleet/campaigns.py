"""Campaigns: the fleet's updates as a fleet owner plans them, "which updates, on how many
clusters, and which first".

Waves (identical plans) answer a question only when clusters share whole plans; across a
fleet whose clusters each run a different mix, 200 clusters gave 200 waves of one. A campaign
is one update instead: a package moving from one version to another (its kind: an OLM v0
Subscription, or an OLM v1 ClusterExtension moving along its own path), on every cluster that
needs that move, with what stands in its way there (the install blocks the target platform
version; the update asks for more RBAC, which someone must approve). Its clusters are rolled
out in batches, canary first: one cluster, then a tenth of them, then the rest (the clusters
named in input order: the first is the canary).

Campaigns sum up like the rest of the rollup: per batch on a worker, merged in input order on
the client (``merge``), the same result as adding the records one by one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["Campaigns", "batches"]

KEPT_MEMBERS = 1000  # cluster names kept per campaign (the count is always exact)
CANARY_SHARE = 10  # the second batch: a tenth of the campaign's clusters


class Campaigns:
    """Accumulates the updates of plan records into campaigns (``summary``)."""

    def __init__(self) -> None:
        # (kind, package, from, to) -> [clusters, blocking the target, more RBAC, members]
        self.found: dict[tuple[str, str, str, str], list[Any]] = {}

    def add(self, record: Mapping[str, Any]) -> None:
        blocking = {(b["kind"], b["package"], b["installed"]) for b in record["blockers"]}
        for operator in record["operators"]:
            if not operator["newest"]:
                continue
            kind, package, installed = operator["kind"], operator["package"], operator["installed"]
            key = (kind, package, installed, str(operator["newestVersion"]))
            campaign = self.found.setdefault(key, [0, 0, 0, []])
            campaign[0] += 1
            campaign[1] += (kind, package, installed) in blocking
            campaign[2] += bool(operator["rbac"].get("added"))
            if len(campaign[3]) < KEPT_MEMBERS:
                campaign[3].append(record["cluster"])

    def merge(self, later: Campaigns) -> None:
        """Adds the campaigns of the records that follow this one's."""
        for key, (count, blocking, rbac, members) in later.found.items():
            campaign = self.found.setdefault(key, [0, 0, 0, []])
            campaign[0] += count
            campaign[1] += blocking
            campaign[2] += rbac
            campaign[3] += members[: KEPT_MEMBERS - len(campaign[3])]

    def summary(self) -> list[dict[str, Any]]:
        """Largest campaign first (then by package and versions: the same bytes each run)."""
        ranked = sorted(self.found.items(), key=lambda kv: (-kv[1][0], kv[0]))
        return [
            {
                "package": package,
                "kind": kind,
                "from": old,
                "to": new,
                "clusters": count,
                "blockers": {"blockingTarget": blocking, "moreRbac": rbac},
                "batches": batches(count, members),
            }
            for (kind, package, old, new), (count, blocking, rbac, members) in ranked
        ]


def batches(count: int, members: list[str]) -> list[dict[str, Any]]:
    """The rollout order of a campaign's ``count`` clusters: a canary (one cluster), then a
    tenth of them, then the rest; each batch with its size and the clusters of it that were
    kept (``members``, the first ``KEPT_MEMBERS`` in input order)."""
    sizes = [1]
    if count > 1:
        second = max(1, -(-(count - 1) // CANARY_SHARE))
        sizes.append(min(second, count - 1))
    if count > sum(sizes):
        sizes.append(count - sum(sizes))
    found = []
    start = 0
    names = ("canary", "early", "rest")
    for name, size in zip(names, sizes, strict=False):
        found.append({"batch": name, "clusters": size, "members": members[start : start + size]})
        start += size
    return found
