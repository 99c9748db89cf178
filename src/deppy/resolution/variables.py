"""Solver variables with their OLM meaning: what each stands for, and the fact each of its
constraints states in OLM terms.

The solver explains a failure with applied constraints; every OLM constraint carries one of these
facts so the explanation can speak of packages, versions, channels, catalogs and cluster versions
instead of solver identifiers.
"""

from __future__ import annotations

from dataclasses import dataclass

from deppy.catalog.model import Bundle
from deppy.resolution.request import InstalledBundle, PropertyRestriction, RequiredPackage
from deppy.solver import Constraint, Variable


@dataclass(frozen=True, slots=True)
class Requested:
    """The user asked for this package (the root of every failure that involves it)."""

    requirement: RequiredPackage


@dataclass(frozen=True, slots=True)
class KeptInstalled:
    """This bundle is installed and must stay or be upgraded."""

    installed: InstalledBundle


INVALID_CONSTRAINT = "a valid olm.constraint"
"""The ``need`` of a bundle whose olm.constraint cannot be read: nothing satisfies it, so the
bundle cannot be installed; ``missing`` then names the field and what is wrong with it."""


@dataclass(frozen=True, slots=True)
class Needs:
    """``dependent`` needs one of ``candidates`` to satisfy ``need`` (in preference order).

    ``need`` is plain words ("package foo in range >=1.0.0", "API Kind (g/v)"); ``missing``
    says why the list is empty or short, e.g. which versions exist outside the range.
    """

    dependent: Bundle | RequiredPackage | InstalledBundle
    need: str
    candidates: tuple[Bundle, ...]
    missing: str | None = None
    package: str | None = None  # the package asked for, when the need names one


@dataclass(frozen=True, slots=True)
class ClusterIncompatible:
    """The bundle cannot run on this cluster (olm.maxOpenShiftVersion / minKubeVersion)."""

    bundle: Bundle
    reason: str
    category: str  # "openshift" | "kubernetes"


@dataclass(frozen=True, slots=True)
class Excluded:
    """The user's restriction excludes the bundle."""

    bundle: Bundle
    restriction: PropertyRestriction


@dataclass(frozen=True, slots=True)
class OnePerPackage:
    """At most one bundle of a package can be installed."""

    package: str
    bundles: tuple[Bundle, ...]


@dataclass(frozen=True, slots=True)
class OnePerAPI:
    """At most one bundle may provide an API (GVK) on a cluster."""

    api: str
    bundles: tuple[Bundle, ...]


@dataclass(frozen=True, slots=True)
class ClusterPolicy:
    """The anchor that makes cluster facts and restrictions apply."""

    description: str


Fact = (
    Requested
    | KeptInstalled
    | Needs
    | ClusterIncompatible
    | Excluded
    | OnePerPackage
    | OnePerAPI
    | ClusterPolicy
)


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
