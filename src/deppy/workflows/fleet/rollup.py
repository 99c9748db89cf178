"""The fleet's summary, built from the plan records one at a time (nothing else is kept).

* waves: clusters whose plans are identical (the same updates to the same bundles, the same
  blockers with the same fixes, the same stranded installs) form one wave, which a platform
  team can roll out as one change; largest first;
* blockers: per package, how many clusters it keeps from the target platform version and
  which versions unblock it;
* versions: per package, how many clusters run each version;
* kinds: how many installs are OLM v0 Subscriptions and how many OLM v1 ClusterExtensions;
* operator errors: installs that could not be planned (a ClusterExtension with no installed
  bundle, a selector matching no ClusterCatalog, a package in no catalog), the first of them;
* campaigns: the updates grouped by package and versions, with their rollout batches
  (``fleet.campaigns``);
* the clusters that need no change, those with errors, and what changes since the older
  catalog release when there is one.

Same records in the same order, same summary: every list is sorted by count, then name.
Rollups of consecutive runs of records merge (``merge``, in input order) into the rollup of
them all, so a worker sums its batch up where the records are still values and the client
only merges (parsing every record again there cost more than planning it on a worker).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from deppy.workflows.fleet.campaigns import Campaigns

__all__ = ["Rollup", "plan_key"]

SHOWN_MEMBERS = 1000  # cluster names kept per wave (the count is always exact)


def plan_key(record: Mapping[str, Any]) -> tuple[str, ...]:
    """What makes two clusters' plans the same: the actions the plan asks for, in words."""
    actions = [
        f"update {o['package']} {o['installed']} -> {o['newestVersion']}"
        if o["kind"] == "Subscription"
        else f"OLM v1 moves {o['package']} {o['installed']} -> {o['newestVersion']}"
        f" ({o['kind']} {o['extension']})"
        for o in record["operators"]
        if o["newest"]
    ]
    for blocker in record["blockers"]:
        fix = blocker["unblockedBy"]
        which = f" ({blocker['kind']} {blocker['extension']})" if "extension" in blocker else ""
        if fix is None:
            actions.append(f"blocked {blocker['package']} {blocker['installed']}{which}: no fix")
        else:
            way = f" (channel {fix['channel']})" if fix["switchChannel"] else ""
            changes = "".join(
                f"; set {c['field']} to {c['to'] if c['to'] is not None else '(none)'}"
                for c in fix.get("specChange", ())
            )
            actions.append(f"unblock {blocker['package']} -> {fix['version']}{way}{which}{changes}")
    actions += [f"stranded {p}" for p in record["stranded"]]
    actions += [
        f"fix {e['kind']} {e['extension']} ({e['package'] or 'no package'})"
        for e in record["operatorErrors"]
    ]
    return tuple(sorted(actions))


Counts = dict[str, int]


def _count(counts: Counts, name: str, n: int = 1) -> None:
    counts[name] = counts.get(name, 0) + n


def _add_counts(counts: Counts, more: Counts) -> None:
    for name, n in more.items():
        counts[name] = counts.get(name, 0) + n


class Rollup:
    """Accumulates records (``add``) into the fleet summary (``summary``).

    Its counts are plain dicts, not ``Counter``s: a worker sends one rollup per batch and the
    client merges them, and plain dicts pickle and unpickle several times faster (a
    ``Counter`` is rebuilt through Python code, one per package per batch)."""

    def __init__(self) -> None:
        self.total = 0
        self.errors: list[dict[str, str]] = []
        self.no_change: list[str] = []
        self.waves: dict[tuple[str, ...], list[Any]] = {}  # key -> [count, names]
        self.blocked: Counts = {}
        self.unblocked_by: dict[str, Counts] = {}
        self.no_fix: Counts = {}
        self.versions: dict[str, Counts] = {}
        self.updates: Counts = {}
        self.stranded: Counts = {}
        self.more_rbac: Counts = {}
        self.rbac_unknown = 0
        self.since: dict[str, Counts] = {}
        self.target: dict[str, Any] | None = None
        self.kinds: Counts = {}
        self.rules: Counts = {}  # clusters planned under each rule set
        self.operator_errors = 0
        self.first_operator_errors: list[dict[str, Any]] = []
        self.campaigns = Campaigns()

    def add(self, record: Mapping[str, Any]) -> None:
        self.total += 1
        if "error" in record:
            self.errors.append({"cluster": record["cluster"], "error": record["error"]})
            return
        if record["target"] is not None and self.target is None:
            self.target = record["target"]
        _count(self.rules, record.get("rules", "deppy"))
        versions = self.versions
        for operator in record["operators"]:
            package = operator["package"]
            _count(self.kinds, operator["kind"])
            _count(versions.setdefault(package, {}), operator["installed"])
            if operator["newest"]:
                _count(self.updates, package)
            if operator["rbac"].get("added"):
                _count(self.more_rbac, package)
            elif "unknown" in operator["rbac"]:
                self.rbac_unknown += 1
        self.campaigns.add(record)
        for package in record["stranded"]:
            _count(self.stranded, package)
        for error in record["operatorErrors"]:
            self.operator_errors += 1
            if len(self.first_operator_errors) < SHOWN_MEMBERS:
                self.first_operator_errors.append({"cluster": record["cluster"], **error})
        for blocker in record["blockers"]:
            package = blocker["package"]
            _count(self.blocked, package)
            fix = blocker["unblockedBy"]
            if fix is None:
                _count(self.no_fix, package)
            else:
                _count(self.unblocked_by.setdefault(package, {}), fix["version"])
        for kind, items in (record.get("since") or {}).items():
            counts = self.since.setdefault(kind, {})
            for item in items:
                _count(counts, item["package"] if isinstance(item, Mapping) else item)
        if not record["needsChange"]:
            self.no_change.append(record["cluster"])
            return
        wave = self.waves.setdefault(plan_key(record), [0, []])
        wave[0] += 1
        if len(wave[1]) < SHOWN_MEMBERS:
            wave[1].append(record["cluster"])

    def merge(self, later: Rollup) -> None:
        """Adds ``later``, the rollup of the records that follow this one's: the same as
        adding those records here one by one."""
        self.total += later.total
        self.errors += later.errors
        self.no_change += later.no_change
        for key, (count, members) in later.waves.items():
            wave = self.waves.setdefault(key, [0, []])
            wave[0] += count
            wave[1] += members[: SHOWN_MEMBERS - len(wave[1])]
        for mine, theirs in ((self.blocked, later.blocked), (self.no_fix, later.no_fix),
                             (self.updates, later.updates), (self.stranded, later.stranded),
                             (self.more_rbac, later.more_rbac),
                             (self.kinds, later.kinds), (self.rules, later.rules)):  # fmt: skip
            _add_counts(mine, theirs)
        self.operator_errors += later.operator_errors
        room = SHOWN_MEMBERS - len(self.first_operator_errors)
        self.first_operator_errors += later.first_operator_errors[:room]
        for own, more in ((self.unblocked_by, later.unblocked_by),
                          (self.versions, later.versions), (self.since, later.since)):  # fmt: skip
            for name, counts in more.items():
                _add_counts(own.setdefault(name, {}), counts)
        self.rbac_unknown += later.rbac_unknown
        self.campaigns.merge(later.campaigns)
        if self.target is None:
            self.target = later.target

    def summary(self) -> dict[str, Any]:
        waves = sorted(self.waves.items(), key=lambda kv: (-kv[1][0], kv[0]))
        return {
            "clusters": self.total,
            "planned": self.total - len(self.errors),
            "errors": self.errors,
            "target": self.target,
            "needNoChange": {"count": len(self.no_change), "clusters": self.no_change},
            "waves": [
                {"wave": n + 1, "clusters": count, "actions": list(key), "members": members}
                for n, (key, (count, members)) in enumerate(waves)
            ],
            "blockers": [
                {
                    "package": package,
                    "clusters": count,
                    "unblockedBy": _counted(self.unblocked_by.get(package, {})),
                    "noFix": self.no_fix.get(package, 0),
                }
                for package, count in _ranked(self.blocked)
            ],
            "updates": [{"package": p, "clusters": n} for p, n in _ranked(self.updates)],
            "campaigns": self.campaigns.summary(),
            "stranded": [{"package": p, "clusters": n} for p, n in _ranked(self.stranded)],
            "moreRbac": [{"package": p, "clusters": n} for p, n in _ranked(self.more_rbac)],
            "rbacUnknown": self.rbac_unknown,
            "kinds": dict(sorted(self.kinds.items())),
            "rules": dict(sorted(self.rules.items())),
            "operatorErrors": {
                "count": self.operator_errors,
                "first": self.first_operator_errors,
            },
            "versions": {
                package: _counted(counts) for package, counts in sorted(self.versions.items())
            },
            **(
                {"since": {kind: _counted(c) for kind, c in sorted(self.since.items())}}
                if self.since
                else {}
            ),
        }


def _ranked(counts: Counts) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def _counted(counts: Counts) -> list[dict[str, Any]]:
    return [{"name": name, "clusters": n} for name, n in _ranked(counts)]
