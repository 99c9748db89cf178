"""Rule sets: which candidates a requirement has, in which order, and why none — per request.

deppy's own rules are the default (``deppy_rules``); ``rules: olm-v0`` (``--rules olm-v0``, the
default for OLM v0 clusters) uses OLM v0's resolver (``olmv0.rules``); a ClusterExtension request
uses OLM v1's (``olmv1.rules``). The solver, the variable sources and the explanations are the
same for all: a rule set only answers these questions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Protocol

from deppy.errors import InputError
from deppy.resolution.deppy_rules import DeppyRules
from deppy.resolution.olmv0 import OLMv0Rules
from deppy.resolution.olmv1 import OLMv1Rules
from deppy.resolution.request import known_rules

if TYPE_CHECKING:
    from collections.abc import Sequence

    from deppy.catalog.model import Bundle
    from deppy.resolution.context import InstalledMoves, ResolutionContext
    from deppy.resolution.request import InstalledBundle, RequiredPackage, ResolutionRequest


class RuleSet(Protocol):
    name: str
    # whether runtime and system constraints (olm.maxOpenShiftVersion, minKubeVersion) apply to
    # installed bundles too (OLM v0 applies them to catalog bundles only)
    runtime_on_installed: bool

    def candidates(self, requirement: RequiredPackage, context: ResolutionContext) -> list[Bundle]:
        """The requirement's candidates, most preferred first."""
        ...

    def why_none(self, requirement: RequiredPackage, context: ResolutionContext) -> str:
        """Why there is no candidate at all (asked only when ``candidates`` is empty)."""
        ...

    def installed_moves(
        self, installed: InstalledBundle, current: Bundle, context: ResolutionContext
    ) -> InstalledMoves | None:
        """Where an installed bundle (``current`` where the catalogs have it) may go; None:
        along its channel's upgrade edges, as far as the request allows (``one_step``)."""
        ...

    def dependency_order(
        self, dependent: Bundle, found: Sequence[Bundle], context: ResolutionContext
    ) -> list[Bundle]:
        """A dependency's candidates (``found``: those that satisfy it), most preferred first."""
        ...

    def need_words(self, dependent: Bundle) -> list[str | None]:
        """The rule set's own words for each dependency of ``dependent`` (``needs_of``'s
        order), said beside deppy's when nothing satisfies one; empty: deppy's words only."""
        ...


RULE_SETS: Final[dict[str, RuleSet]] = {
    "deppy": DeppyRules(),
    "olm-v0": OLMv0Rules(),
    "olmv1": OLMv1Rules(),
}


def rule_set(request: ResolutionRequest) -> RuleSet:
    found = RULE_SETS.get(request.rules)
    if found is None:
        raise InputError(f"rules {request.rules!r}", "no such rule set", known_rules())
    return found


__all__ = ["RULE_SETS", "RuleSet", "rule_set"]
