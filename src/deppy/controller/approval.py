"""Approval policies of the ``deppy.resolveset`` ProvisionerClass (seed "Approval").

* ``AllowAll``: every Instance is approved.
* ``DenyAll``: none is; a person approves (``deppy approve``, or a status patch).
* ``Android`` (the default): approved only when no bundle of the set asks for more permissions
  than the bundle it replaces. A new install, a bundle whose rules cannot be read, or any added
  rule leaves the Instance unapproved, and the message lists why.

The controller writes ``Approved`` once, when it creates an Instance; it never overwrites a
decision already there (a person's approval stands).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from deppy.catalog.model import Bundle
from deppy.controller.permissions import UnreadablePermissions, added_rules, bundle_rules
from deppy.controller.resolveset import SetEntry

ALLOW_ALL, DENY_ALL, ANDROID = "AllowAll", "DenyAll", "Android"
POLICIES = (ALLOW_ALL, DENY_ALL, ANDROID)
SHOWN_RULES = 10


@dataclass(frozen=True, slots=True)
class Verdict:
    approved: bool
    reason: str
    message: str

    def condition(self) -> dict[str, str]:
        return {
            "type": "Approved",
            "status": "True" if self.approved else "False",
            "reason": self.reason,
            "message": self.message,
        }


Lookup = Callable[[str, str], Bundle | None]  # (package, bundle name) -> bundle


def decide(policy: str, entries: Sequence[SetEntry], replaced: Lookup) -> Verdict:
    if policy == ALLOW_ALL:
        return Verdict(True, "ApprovedByPolicy", "approval AllowAll")
    if policy == DENY_ALL:
        return Verdict(
            False,
            "ApprovalRequired",
            "approval DenyAll: a person approves (deppy approve NAME -n NAMESPACE)",
        )
    return android(entries, replaced)


def android(entries: Sequence[SetEntry], replaced: Lookup) -> Verdict:
    reasons: list[str] = []
    unreadable: list[str] = []  # PermissionsUnknown: rules of the wrong shape in a CSV
    for entry in entries:
        bundle = entry.bundle
        if entry.kept:
            continue  # unchanged: it asks for what it already has
        try:
            new = bundle_rules(bundle)
            old_bundle = replaced(bundle.package, entry.pivot_from) if entry.pivot_from else None
            old = bundle_rules(old_bundle) if old_bundle is not None else None
        except UnreadablePermissions as error:
            unreadable.append(f"{error}; a person approves (deppy approve)")
            continue
        if new is None:
            reasons.append(
                f"{bundle.name}: its permissions are unknown (catalog {bundle.catalog} carries "
                "no CSV for it)"
            )
            continue
        if entry.pivot_from is None:
            shown = "; ".join(r.text() for r in new[:SHOWN_RULES]) or "no rules"
            reasons.append(f"{bundle.name}: new install asking for {shown}")
            continue
        if old is None:
            reasons.append(
                f"{bundle.name}: the permissions of {entry.pivot_from}, which it replaces, are "
                "unknown"
            )
            continue
        added = added_rules(new, old)
        if added:
            listed = "; ".join(r.text() for r in added[:SHOWN_RULES])
            more = f" and {len(added) - SHOWN_RULES} more" if len(added) > SHOWN_RULES else ""
            reasons.append(f"{bundle.name} adds rules beyond {entry.pivot_from}: {listed}{more}")
    if unreadable:
        message = " | ".join(unreadable + reasons)
        return Verdict(False, "PermissionsUnknown", "approval Android: " + message)
    if reasons:
        return Verdict(False, "PermissionsIncreased", "approval Android: " + " | ".join(reasons))
    return Verdict(
        True, "NoNewPermissions", "approval Android: no bundle asks for more than it replaces"
    )
