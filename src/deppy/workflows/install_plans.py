"""The InstallPlans OLM v0 would make for an installed bundle, one after another.

OLM v0 moves a Subscription one step per resolution: each InstallPlan installs the first bundle
of its channel (head first) that replaces, skips or skipRange-includes the installed one and
that the cluster can run; approving it, the next resolution starts from there. ``deppy
upgrades`` and ``deppy fleet plan`` under ``--rules olm-v0`` show that sequence beside the
channel's updates (``upgrades``), so "what will OLM do when I approve this?" has OLM v0's answer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from deppy.catalog.model import Bundle
from deppy.resolution.context import ResolutionContext
from deppy.resolution.installed import locate_installed
from deppy.resolution.nodes import RuntimeConstraints
from deppy.resolution.olmv0 import OLMv0Rules
from deppy.resolution.request import InstalledBundle

# a channel longer than this is no channel a cluster walks (and a broken one cannot loop us)
MOST_STEPS = 10_000

__all__ = ["InstallPlans", "install_plans"]


@dataclass(frozen=True, slots=True)
class InstallPlans:
    """Each InstallPlan's bundle in order (empty: up to date), or OLM v0's refusal."""

    steps: tuple[Bundle, ...]
    refused: str | None = None

    def as_dict(self) -> dict[str, object]:
        found: dict[str, object] = {"installPlans": [b.name for b in self.steps]}
        if self.refused is not None:
            found["refused"] = self.refused
        return found


def install_plans(installed: InstalledBundle, context: ResolutionContext) -> InstallPlans:
    """OLM v0's InstallPlans from ``installed`` on the context's cluster, one per step."""
    if installed.held:
        return InstallPlans(())
    current = locate_installed(installed, context).bundle
    seen = {current.name}
    steps: list[Bundle] = []
    while len(steps) < MOST_STEPS:
        moves = OLMv0Rules.installed_moves(installed, current, context)
        if moves is None:  # pragma: no cover - OLM v0 always answers
            break
        if moves.refused is not None:
            return InstallPlans(tuple(steps), moves.refused)
        runnable = [
            b
            for b in moves.targets
            if b.name not in seen and not any(RuntimeConstraints.violations(b, context))
        ]
        if not runnable:
            break
        current = runnable[0]
        seen.add(current.name)
        steps.append(current)
        installed = replace(installed, version=current.version, bundle=current.name)
    return InstallPlans(tuple(steps))
