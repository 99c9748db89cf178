"""A bundle's dependencies and the bundles that could satisfy each, in preference order.

olm.package.required, olm.gvk.required, olm.label.required and olm.constraint all become a
``Needs`` fact: what is needed in words, the candidates, and why the list is empty when it is.
A bundle's dependency is never satisfied by another bundle of its own package.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from deppy.catalog.model import GVK, Bundle, PackageRequirement
from deppy.catalog.semver import VersionRange
from deppy.errors import InputError
from deppy.resolution.context import InstalledMoves, ResolutionContext
from deppy.resolution.request import InstalledBundle
from deppy.resolution.variables import INVALID_CONSTRAINT, Needs

# A rule set's order of a dependency's candidates (``RuleSet.dependency_order``)
DependencyOrder = Callable[[Bundle, Sequence[Bundle], ResolutionContext], list[Bundle]]


def deppy_order(
    dependent: Bundle, found: Sequence[Bundle], context: ResolutionContext
) -> list[Bundle]:
    """deppy's own: the dependent's catalog first, then as ``CandidateOrder`` sorts."""
    return context.order.sort(found, prefer_catalog=dependent.catalog)


class DeppyChoices:
    """The answers deppy's rules and OLM v1's give alike (OLM v0's differ in each): runtime
    constraints apply to installed bundles too, an installed bundle moves along its channel's
    upgrade edges (``resolution.installed``), a dependency's candidates come in deppy's order,
    and only deppy's words say why a dependency is unmet. A rule set takes them by inheriting."""

    runtime_on_installed = True

    @staticmethod
    def installed_moves(
        installed: InstalledBundle, current: Bundle, context: ResolutionContext
    ) -> InstalledMoves | None:
        return None  # along the channel's upgrade edges (resolution.installed)

    @staticmethod
    def dependency_order(
        dependent: Bundle, found: Sequence[Bundle], context: ResolutionContext
    ) -> list[Bundle]:
        return deppy_order(dependent, found, context)

    @staticmethod
    def need_words(dependent: Bundle) -> list[str | None]:
        return []  # deppy's words only


def needs_of(
    bundle: Bundle, context: ResolutionContext, order: DependencyOrder = deppy_order
) -> list[Needs]:
    """``order``: the request's rule set's (the pipeline's node passes it; deppy's by default)."""
    needs = [_package_need(bundle, r, context, order) for r in bundle.required_packages]
    needs += [_api_need(bundle, gvk, context, order) for gvk in bundle.required_gvks]
    needs += [_label_need(bundle, label, context, order) for label in bundle.required_labels]
    needs += [_constraint_need(bundle, raw, context, order) for raw in bundle.constraints]
    return needs


def _others(bundle: Bundle, found: Iterable[Bundle]) -> list[Bundle]:
    """Candidates outside the bundle's package; the bundle itself still counts (a CSV that lists
    an API it owns among its required ones needs nothing else, as in OLM)."""
    return [b for b in found if b.package != bundle.package or b == bundle]


def _ordered(
    bundle: Bundle, found: Iterable[Bundle], context: ResolutionContext, order: DependencyOrder
) -> list[Bundle]:
    return order(bundle, _others(bundle, found), context)


def versions_missing(
    package: str, versions: VersionRange, text: str, context: ResolutionContext
) -> str | None:
    """Why no bundle of ``package`` matches: absent package, or which versions exist instead."""
    existing = context.catalogs.bundles_of(package)
    if not existing:
        return package_absent(package, context)
    if any(versions.contains(b.version) for b in existing):
        return None
    available = sorted({b.version for b in existing})
    shown = ", ".join(str(v) for v in available[-8:])
    more = f" (and {len(available) - 8} older)" if len(available) > 8 else ""
    return f"no version of {package} is in range {text}; available: {shown}{more}"


def package_absent(package: str, context: ResolutionContext) -> str:
    """Why a package has no bundle at all: no catalog has it, or its bundles were not loadable."""
    names = context.catalogs.names()
    listing = [c for c in names if context.catalogs.package(c, package) is not None]
    if listing:
        return (
            f"catalog {', '.join(listing)} lists package {package} but has no installable bundle "
            "of it (its channels name bundles the catalog does not contain)"
        )
    return f"no catalog ({', '.join(names)}) contains package {package}"


def _package_need(
    bundle: Bundle,
    requirement: PackageRequirement,
    context: ResolutionContext,
    order: DependencyOrder,
) -> Needs:
    need = f"package {requirement.package} {requirement.text}".strip()
    if requirement.package == bundle.package:
        return Needs(
            bundle, need, (), "a bundle cannot depend on its own package", requirement.package
        )
    found = [
        b
        for b in context.catalogs.bundles_of(requirement.package)
        if requirement.version_range.contains(b.version)
    ]
    missing = (
        None
        if found
        else versions_missing(
            requirement.package, requirement.version_range, requirement.text, context
        )
    )
    return Needs(
        bundle, need, tuple(_ordered(bundle, found, context, order)), missing, requirement.package
    )


def _api_need(
    bundle: Bundle, gvk: GVK, context: ResolutionContext, order: DependencyOrder
) -> Needs:
    providers = context.catalogs.providers_of(gvk)
    found = _others(bundle, providers)
    missing = None
    if not found:
        missing = (
            f"only other bundles of {bundle.package} provide the API {gvk}"
            if providers
            else f"no bundle in any catalog provides the API {gvk}"
        )
    return Needs(bundle, f"API {gvk}", tuple(_ordered(bundle, found, context, order)), missing)


def _label_need(
    bundle: Bundle, label: str, context: ResolutionContext, order: DependencyOrder
) -> Needs:
    found = _others(bundle, context.catalogs.labelled(label))
    missing = None if found else f"no bundle in any catalog carries the label {label}"
    return Needs(
        bundle,
        f"a bundle labelled {label}",
        tuple(_ordered(bundle, found, context, order)),
        missing,
    )


def _constraint_need(
    bundle: Bundle, raw: object, context: ResolutionContext, order: DependencyOrder
) -> Needs:
    from deppy.catalog.cel import CelBudgetExceeded, rule_budget
    from deppy.catalog.constraint_spec import parse_constraint

    where = f"{bundle.source}: bundle {bundle.name}: olm.constraint"
    try:
        spec = parse_constraint(raw, where=where)
    except InputError as error:
        context.warn(f"{error} (the bundle cannot be installed)")
        field = error.where.rpartition("olm.constraint")[2].strip("/") or "value"
        return Needs(bundle, INVALID_CONSTRAINT, (), f"field {field}: {error.what}")
    packages = spec.candidate_packages()
    pool: Iterable[Bundle] = (
        context.catalogs.all_bundles()
        if packages is None
        else (b for name in sorted(packages) for b in context.catalogs.bundles_of(name))
    )
    try:
        with rule_budget():  # one budget for the rule over the whole pool
            found = [b for b in pool if spec.matches(b)]
    except CelBudgetExceeded as error:
        context.warn(f"{where}: {error}; this dependency cannot be satisfied")
        return Needs(bundle, "an olm.constraint CEL rule", (), f"its CEL rule was {error}")
    missing = None
    if not _others(bundle, found):
        missing = spec.failure_message or f"no bundle in any catalog is {spec.describe()}"
    return Needs(bundle, spec.describe(), tuple(_ordered(bundle, found, context, order)), missing)
