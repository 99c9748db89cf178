"""Rule sets: which candidates a requirement has, in which order, and why none — per request.

deppy's own rules are the default (``deppy_rules``); a ClusterExtension request uses OLM v1's
(``olmv1.rules``). The solver, the variable sources and the explanations are the same for both:
a rule set only answers these two questions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Protocol

from deppy.errors import InputError
from deppy.resolution.deppy_rules import DeppyRules
from deppy.resolution.olmv1 import OLMv1Rules

if TYPE_CHECKING:
    from deppy.catalog.model import Bundle
    from deppy.resolution.context import ResolutionContext
    from deppy.resolution.request import RequiredPackage, ResolutionRequest


class RuleSet(Protocol):
    name: str

    def candidates(self, requirement: RequiredPackage, context: ResolutionContext) -> list[Bundle]:
        """The requirement's candidates, most preferred first."""
        ...

    def why_none(self, requirement: RequiredPackage, context: ResolutionContext) -> str:
        """Why there is no candidate at all (asked only when ``candidates`` is empty)."""
        ...


RULE_SETS: Final[dict[str, RuleSet]] = {"deppy": DeppyRules(), "olmv1": OLMv1Rules()}


def rule_set(request: ResolutionRequest) -> RuleSet:
    found = RULE_SETS.get(request.rules)
    if found is None:
        raise InputError(
            f"rules {request.rules!r}", "no such rule set", f"known: {', '.join(RULE_SETS)}"
        )
    return found


__all__ = ["RULE_SETS", "RuleSet", "rule_set"]
