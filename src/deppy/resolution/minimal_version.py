"""The ``minimal-version`` preference: dependencies stay as low as their dependents allow.

By default a dependency's candidates are tried newest first and an installed bundle prefers its
newest reachable upgrade. This processor re-emits the variables it receives with every such
candidate list turned around — lowest version first, catalog and channel preference kept,
deprecated bundles still last — so a dependency stays at the lowest version that satisfies its
dependents and an installed dependency stays where it is until a dependent needs newer.
Required packages keep their order (the package asked for still resolves to its newest).
Pipeline file: ``data/pipelines/minimal-version.yaml``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from deppy.catalog.model import Bundle
from deppy.resolution.context import ResolutionContext
from deppy.resolution.variables import Fact, Needs, OLMVariable, bundle_id, make
from deppy.solver import Constraint, Dependency


def lowest_first(candidates: Sequence[Bundle], context: ResolutionContext) -> list[Bundle]:
    groups: dict[tuple[str, str], int] = {}
    for bundle in candidates:
        groups.setdefault((bundle.catalog, bundle.package), len(groups))
    return sorted(
        candidates,
        key=lambda b: (
            context.order.deprecated(b),
            groups[(b.catalog, b.package)],
            b.version,
            b.name,
        ),
    )


class PreferLowestDependencies:
    name = "prefer-lowest-dependencies"

    def process(
        self, context: ResolutionContext, variables: Sequence[OLMVariable]
    ) -> list[OLMVariable]:
        produced: list[OLMVariable] = []
        for variable in variables:
            if variable.kind not in ("bundle", "installed"):
                produced.append(variable)
                continue
            pairs: list[tuple[Constraint, Fact]] = []
            for constraint, fact in zip(variable.variable.constraints, variable.facts, strict=True):
                if isinstance(fact, Needs) and isinstance(constraint, Dependency):
                    ordered = lowest_first(fact.candidates, context)
                    fact = dataclasses.replace(fact, candidates=tuple(ordered))
                    constraint = Dependency(*(bundle_id(b) for b in ordered))
                pairs.append((constraint, fact))
            produced.append(make(variable.kind, variable.id, pairs, variable.bundle))
        return produced
