"""Approval policies of the ``deppy.resolveset`` ProvisionerClass (seed "Approval").

* ``AllowAll``: every Instance is approved.
* ``DenyAll``: none is; a person approves (``deppy approve``, or a status patch).
* ``Android`` (the default): approved only when no bundle of the set asks for more permissions
  than the bundle it replaces. A new install (``NewInstall``), a bundle whose rules cannot be
  read (``PermissionsUnknown``), or any added rule (``PermissionsIncreased``) leaves the Instance
  unapproved, and the message lists why.

Reasons of ``Approved``: ``ApprovedByPolicy`` (AllowAll, or Android finding nothing new),
``ApprovalRequired`` (DenyAll), ``NewInstall``, ``PermissionsUnknown``,
``PermissionsIncreased``; ``ApprovedByUser`` (``deppy approve``) and ``Superseded``
(``proposals``) are written elsewhere.

The controller writes ``Approved`` once, when it creates an Instance; it never overwrites a
decision already there (a person's approval stands).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from deppy.catalog.model import Bundle
from deppy.catalog.permissions import UnreadablePermissions, added_rules, bundle_rules
from deppy.controller.approval.resolveset import SetEntry

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
        return Verdict(True, APPROVED_BY_POLICY, "approval AllowAll")
    if policy == DENY_ALL:
        return Verdict(
            False,
            "ApprovalRequired",
            "approval DenyAll: a person approves (deppy approve NAME -n NAMESPACE)",
        )
    return android(entries, replaced)


NEW_INSTALL = "NewInstall"
PERMISSIONS_UNKNOWN = "PermissionsUnknown"
PERMISSIONS_INCREASED = "PermissionsIncreased"
APPROVED_BY_POLICY = "ApprovedByPolicy"
# when bundles of one set are held back for different reasons, the reason is the first found here
_PRECEDENCE = (PERMISSIONS_INCREASED, PERMISSIONS_UNKNOWN, NEW_INSTALL)


def android(entries: Sequence[SetEntry], replaced: Lookup) -> Verdict:
    """Approved when no bundle asks for more than it replaces. Held back, the reason says what
    happened: ``PermissionsIncreased`` (rules added, listed), ``PermissionsUnknown`` (the
    catalog carries no CSV for the bundle, or for the one it replaces), ``NewInstall`` (nothing
    replaced: the rules it asks for are listed)."""
    found: dict[str, list[str]] = {}
    for entry in entries:
        if entry.kept:
            continue  # unchanged: it asks for what it already has
        try:
            reason, text = _held_back(entry, replaced)
        except UnreadablePermissions as error:  # rules of the wrong shape in a CSV
            reason, text = PERMISSIONS_UNKNOWN, f"{error}; a person approves (deppy approve)"
        if reason:
            found.setdefault(reason, []).append(text)
    if not found:
        return Verdict(
            True, APPROVED_BY_POLICY, "approval Android: no bundle asks for more than it replaces"
        )
    reason = next(r for r in _PRECEDENCE if r in found)
    texts = [t for r in _PRECEDENCE for t in found.get(r, [])]
    return Verdict(False, reason, "approval Android: " + " | ".join(texts))


def _held_back(entry: SetEntry, replaced: Lookup) -> tuple[str, str]:
    """Why this bundle needs a person (reason, text), or ("", "") when it does not."""
    bundle = entry.bundle
    new = bundle_rules(bundle)
    if new is None:
        return PERMISSIONS_UNKNOWN, (
            f"{bundle.name}: its permissions are unknown (catalog {bundle.catalog} carries no "
            "CSV for it)"
        )
    if entry.pivot_from is None:
        shown = "; ".join(r.text() for r in new[:SHOWN_RULES]) or "no rules"
        return NEW_INSTALL, f"{bundle.name}: new install asking for {shown}"
    old_bundle = replaced(bundle.package, entry.pivot_from)
    old = bundle_rules(old_bundle) if old_bundle is not None else None
    if old is None:
        return PERMISSIONS_UNKNOWN, (
            f"{bundle.name}: the permissions of {entry.pivot_from}, which it replaces, are unknown"
        )
    added = added_rules(new, old)
    if not added:
        return "", ""
    listed = "; ".join(r.text() for r in added[:SHOWN_RULES])
    more = f" and {len(added) - SHOWN_RULES} more" if len(added) > SHOWN_RULES else ""
    return (
        PERMISSIONS_INCREASED,
        f"{bundle.name} adds rules beyond {entry.pivot_from}: {listed}{more}",
    )
