"""Solver variables with their OLM meaning: what they stand for and what each constraint says."""

from __future__ import annotations

from dataclasses import dataclass

from deppy.catalog.model import Bundle
from deppy.resolution.facts import Fact
from deppy.solver import Constraint, Variable


@dataclass(frozen=True, slots=True)
class OLMVariable:
    """A solver variable plus its domain meaning.

    ``kind`` is one of required, installed, bundle, uniqueness, cluster; ``facts`` runs parallel to
    ``variable.constraints``.
    """

    kind: str
    variable: Variable
    facts: tuple[Fact, ...]
    bundle: Bundle | None = None

    @property
    def id(self) -> str:
        return self.variable.id

    def fact_of(self, constraint: Constraint) -> Fact | None:
        for own, fact in zip(self.variable.constraints, self.facts, strict=True):
            if own is constraint:
                return fact
        return None


def bundle_id(bundle: Bundle) -> str:
    return f"{bundle.catalog}/{bundle.package}/{bundle.name}"


def make(
    kind: str, identifier: str, pairs: list[tuple[Constraint, Fact]], bundle: Bundle | None = None
) -> OLMVariable:
    variable = Variable(identifier, [constraint for constraint, _ in pairs])
    return OLMVariable(kind, variable, tuple(fact for _, fact in pairs), bundle)
