"""OLM v0's rule set: the candidates its resolver offers a Subscription, an installed CSV and a
dependency, in its order, and its refusals in its own words.

Read from operator-framework/operator-lifecycle-manager at commit 992bb097749e (2026-08-19),
pkg/controller/registry/resolver: ``resolver.go`` (getSubscriptionVariables, getBundleVariables,
sortBundles, sortChannel), ``cache/cache.go`` (sortableSnapshots), ``cache/predicates.go`` and
``variable_types.go`` (docs/olm-v0/rules.md lists where deppy's own rules differ):

* a Subscription (a requirement): the bundles of its package in its catalog (every catalog,
  in OLM v0's catalog order, when none is named), in its channel (none named: every channel,
  the default one first, then by name), only its ``startingCSV`` when one is given; each channel
  walked from its head along ``replaces``, skipped entries left out (``channels``);
* an installed CSV with a Subscription: only what replaces it, skips it or whose skipRange
  includes its version, in that channel, head first — the next InstallPlan, one step —
  then staying (a downgrade too, where an older entry's skipRange includes the installed
  version, as OLM v0 does; the installed bundle's own entry matching stops the list there);
* a dependency: installed bundles first, then the dependent's own catalog, then catalog
  priority, then catalogs in the namespace resolved, then by name; within a catalog the
  default channel first, then by package and channel name, each channel head first;
* a bundle with the ``olm.deprecated`` property is never a candidate (OLM v0 prohibits it;
  ``olm.deprecations`` entries only mark a Subscription, they choose nothing);
* runtime and system constraints do not apply to what is installed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from deppy.catalog.model import Bundle, Channel
from deppy.resolution.context import InstalledMoves, ResolutionContext
from deppy.resolution.olmv0.channels import ChannelOrder, sort_channel
from deppy.resolution.request import InstalledBundle, RequiredPackage

DEPRECATED_PROPERTY = "olm.deprecated"


def olm_deprecated(bundle: Bundle) -> bool:
    """Whether OLM v0 prohibits the bundle (``bundle ... is deprecated``)."""
    return any(p.type == DEPRECATED_PROPERTY for p in bundle.properties)


@dataclass(frozen=True, slots=True)
class SubscriptionOutcome:
    """A Subscription's candidates in OLM v0's order, or why OLM v0 offers none."""

    candidates: tuple[Bundle, ...]
    refused: str | None = None  # OLM v0's words
    deprecated: tuple[Bundle, ...] = ()  # left out: OLM v0 prohibits them


def catalog_order(context: ResolutionContext, preferred: str | None) -> list[str]:
    """OLM v0's catalog order (cache.go, sortableSnapshots): ``preferred`` first, then higher
    priority, then those in the namespace resolved, then by name."""
    request = context.request
    source = context.catalogs

    def key(name: str) -> tuple[bool, int, bool, str]:
        elsewhere = request.catalog_namespace(name) != request.namespace
        return (name != preferred, -source.priority(name), elsewhere, name)

    return sorted(source.names(), key=key)


def channels_in_order(context: ResolutionContext, catalog: str, package: str) -> list[Channel]:
    """The package's channels in a catalog: the default channel first, then by name."""
    meta = context.catalogs.package(catalog, package)
    default = meta.default_channel if meta else None
    return sorted(
        context.catalogs.channels(catalog, package), key=lambda c: (c.name != default, c.name)
    )


def _walk(
    context: ResolutionContext, catalog: str, channel: Channel, only: str | None = None
) -> ChannelOrder:
    """The channel head first among the catalog's bundles of its package (only ``only`` when
    given: a startingCSV filters before OLM v0 sorts); memoised per resolution."""
    key = ("olm-v0 channel", catalog, channel.package, channel.name, only)
    found = context.memo.get(key)
    if isinstance(found, ChannelOrder):
        return found
    if only is not None:
        present: set[str] = {only}
    else:
        present = {b.name for b in _bundles(context, catalog, channel.package)}
    order = sort_channel(channel, present)
    context.memo[key] = order
    return order


def _bundles(context: ResolutionContext, catalog: str, package: str) -> list[Bundle]:
    return [b for b in context.catalogs.bundles_of(package) if b.catalog == catalog]


def subscription_outcome(
    requirement: RequiredPackage, context: ResolutionContext
) -> SubscriptionOutcome:
    """getSubscriptionVariables for a Subscription with nothing installed (memoised)."""
    key = ("olm-v0 subscription", requirement)
    found = context.memo.get(key)
    if isinstance(found, SubscriptionOutcome):
        return found
    outcome = _subscription(requirement, context)
    context.memo[key] = outcome
    return outcome


def _subscription(requirement: RequiredPackage, context: ResolutionContext) -> SubscriptionOutcome:
    package = requirement.package
    name = requirement.subscription or package
    if requirement.catalog is not None:
        catalogs = [requirement.catalog]
        refused = _counted(requirement, name, context)
        if refused is not None:
            return SubscriptionOutcome((), refused)
    else:
        catalogs = catalog_order(context, None)
    ordered: list[Bundle] = []
    for catalog in catalogs:
        by_name = {b.name: b for b in _bundles(context, catalog, package)}
        for channel in channels_in_order(context, catalog, package):
            if requirement.channel is not None and channel.name != requirement.channel:
                continue
            walked = _walk(context, catalog, channel, requirement.starting_csv)
            if walked.error is not None:
                return SubscriptionOutcome((), walked.error)
            ordered += [by_name[n] for n in walked.names]
    unique = list(dict.fromkeys(ordered))
    fitting = [
        b
        for b in unique
        if requirement.versions.contains(b.version) and b.version not in requirement.ignore_versions
    ]
    deprecated = tuple(b for b in fitting if olm_deprecated(b))
    return SubscriptionOutcome(tuple(b for b in fitting if not olm_deprecated(b)), None, deprecated)


def _counted(requirement: RequiredPackage, name: str, context: ResolutionContext) -> str | None:
    """OLM v0's four refusals of a Subscription's catalog, package, channel and startingCSV."""
    catalog = requirement.catalog or ""
    namespace = context.request.catalog_namespace(catalog) or ""
    bundles = _bundles(context, catalog, requirement.package)
    if not bundles and (
        catalog not in context.catalogs.names() or not _has_bundles(context, catalog)
    ):
        return (
            f"no operators found from catalog {catalog} in namespace {namespace} referenced by "
            f"subscription {name}"
        )
    if not bundles:
        return (
            f"no operators found in package {requirement.package} in the catalog referenced by "
            f"subscription {name}"
        )
    channels = context.catalogs.channels(catalog, requirement.package)
    if requirement.channel is not None:
        channels = [c for c in channels if c.name == requirement.channel]
    names = {b.name for b in bundles}
    offered = {e.name for c in channels for e in c.entries if e.name in names}
    if not offered:
        return (
            f"no operators found in channel {requirement.channel} of package "
            f"{requirement.package} in the catalog referenced by subscription {name}"
        )
    if requirement.starting_csv is not None and requirement.starting_csv not in offered:
        return (
            f"no operators found with name {requirement.starting_csv} in channel "
            f"{requirement.channel or ''} of package {requirement.package} in the catalog "
            f"referenced by subscription {name}"
        )
    return None


def _has_bundles(context: ResolutionContext, catalog: str) -> bool:
    """Whether a catalog serves any bundle (asked only when it lacks the package)."""
    return any(b.catalog == catalog for b in context.catalogs.all_bundles())


def installed_moves(
    installed: InstalledBundle, current: Bundle, context: ResolutionContext
) -> InstalledMoves:
    """What OLM v0 offers a Subscription with an installed CSV: what replaces it, skips it or
    whose skipRange includes its version, in its channel, head first (one step)."""
    package = installed.package
    catalog = installed.catalog
    if catalog is None or catalog not in context.catalogs.names():
        having = [c for c in catalog_order(context, None) if _bundles(context, c, package)]
        catalog = current.catalog if current.catalog in having else next(iter(having), None)
    if catalog is None:
        return InstalledMoves()
    by_name = {b.name: b for b in _bundles(context, catalog, package)}
    targets: list[Bundle] = []
    for channel in channels_in_order(context, catalog, package):
        if installed.channel is not None and channel.name != installed.channel:
            continue
        walked = _walk(context, catalog, channel)
        if walked.error is not None:
            return InstalledMoves((), f"OLM v0: {walked.error}")
        entries = {e.name: e for e in channel.entries}
        for name in walked.names:
            entry = entries[name]
            follows = (
                entry.replaces == current.name
                or current.name in entry.skips
                or (entry.skip_range is not None and entry.skip_range.contains(current.version))
            )
            bundle = by_name[name]
            if follows and name == current.name:
                # its own skipRange includes it: the catalog's copy is the Subscription's
                # current CSV, and OLM v0 makes no InstallPlan (step_resolver: up to date)
                return InstalledMoves(tuple(dict.fromkeys(targets)))
            if follows and not olm_deprecated(bundle):
                targets.append(bundle)
    return InstalledMoves(tuple(dict.fromkeys(targets)))


def dependency_order(
    dependent: Bundle, found: Sequence[Bundle], context: ResolutionContext
) -> list[Bundle]:
    """getBundleVariables' order of a dependency's candidates: installed first, then catalog by
    catalog (``catalog_order`` with the dependent's catalog preferred), within a catalog the
    default channel first, then by package and channel, each channel head first; bundles on
    no channel walk (skipped, deprecated, a channel OLM v0 cannot sort) are left out."""
    wanted = {b for b in found if not olm_deprecated(b)}
    if not wanted:
        return []
    by_catalog: dict[str, set[str]] = {}
    for bundle in wanted:
        by_catalog.setdefault(bundle.catalog, set()).add(bundle.package)
    ordered: list[Bundle] = []
    for catalog in catalog_order(context, dependent.catalog):
        packages = by_catalog.get(catalog)
        if not packages:
            continue
        ordered += _catalog_walk(context, catalog, packages, wanted)
    installed = _installed_names(context)
    first = [b for b in ordered if (b.package, b.name) in installed]
    return list(dict.fromkeys(first + ordered))


def _catalog_walk(
    context: ResolutionContext, catalog: str, packages: Iterable[str], wanted: set[Bundle]
) -> list[Bundle]:
    groups: list[tuple[bool, str, str, Channel]] = []
    for package in packages:
        meta = context.catalogs.package(catalog, package)
        default = meta.default_channel if meta else None
        names = {b.name for b in wanted if b.catalog == catalog and b.package == package}
        for channel in context.catalogs.channels(catalog, package):
            if any(e.name in names for e in channel.entries):
                groups.append((channel.name != default, package, channel.name, channel))
    groups.sort(key=lambda g: g[:3])
    ordered: list[Bundle] = []
    for _, package, _, channel in groups:
        walked = _walk(context, catalog, channel)
        if walked.error is not None:
            context.warn(f"OLM v0 stops this resolution: {walked.error}")
            continue
        by_name = {b.name: b for b in wanted if b.catalog == catalog and b.package == package}
        ordered += [by_name[n] for n in walked.names if n in by_name]
    return ordered


def _installed_names(context: ResolutionContext) -> set[tuple[str, str]]:
    """(package, bundle name) of what is installed: OLM v0 prefers it for any dependency."""
    key = ("olm-v0 installed",)
    found = context.memo.get(key)
    if isinstance(found, set):
        return found
    names: set[tuple[str, str]] = set()
    for item in context.request.installed:
        if item.bundle is not None:
            names.add((item.package, item.bundle))
        else:
            names.update(
                (b.package, b.name)
                for b in context.catalogs.bundles_of(item.package)
                if b.version == item.version
            )
    context.memo[key] = names
    return names


def need_words(dependent: Bundle) -> list[str | None]:
    """OLM v0's words for each of a bundle's dependencies, in ``needs_of``'s order (packages,
    APIs, labels, olm.constraint; None where deppy does not restate them):
    ``OLM v0: bundle NAME requires an operator PREDICATE``, as getBundleVariables names the
    constraint."""
    prefix = f"OLM v0: bundle {dependent.name} requires an operator"
    words: list[str | None] = [
        f"{prefix} with package: {r.package} and with version in range: {r.text}"
        for r in dependent.required_packages
    ]
    words += [
        f"{prefix} providing an API with group: {g.group}, version: {g.version}, kind: {g.kind}"
        for g in dependent.required_gvks
    ]
    words += [f"{prefix} with label: {label}" for label in dependent.required_labels]
    words += [_constraint_words(raw) for raw in dependent.constraints]
    return words


# the fields of operator-framework/api's constraints.Constraint, which OLM v0 decodes with
# unknown fields disallowed
_CONSTRAINT_FIELDS = frozenset({"failureMessage", "gvk", "package", "all", "any", "not", "cel"})


def _constraint_words(raw: object) -> str | None:
    """OLM v0's error for an olm.constraint with a field it does not know (Go's JSON decoder
    names the first); None for the rest, which deppy explains in its own words."""
    if not isinstance(raw, dict):
        return None
    unknown = next((key for key in raw if key not in _CONSTRAINT_FIELDS), None)
    if unknown is None:
        return None
    return f'OLM v0: parse olm.constraint: json: unknown field "{unknown}"'


def why_none(requirement: RequiredPackage, context: ResolutionContext) -> str:
    """OLM v0's words when it has them; else which of deppy's narrowing left nothing."""
    outcome = subscription_outcome(requirement, context)
    if outcome.refused is not None:
        return f"OLM v0: {outcome.refused}"
    if outcome.deprecated:
        shown = ", ".join(f"bundle {b.name} is deprecated" for b in outcome.deprecated)
        return f"OLM v0 prohibits every candidate of {requirement.package}: {shown}"
    if not context.catalogs.has_package(requirement.package):
        names = ", ".join(context.catalogs.names())
        return f"no catalog ({names}) contains package {requirement.package}"
    narrowed = requirement.versions_text or ""
    if requirement.ignore_versions:
        narrowed += " ignoring " + ", ".join(str(v) for v in requirement.ignore_versions)
    return (
        f"no bundle of {requirement.package} on OLM v0's channel walk is {narrowed.strip()}"
        if narrowed
        else f"OLM v0 finds no bundle of {requirement.package} on any channel walk"
    )


class OLMv0Rules:
    """Which candidates, in which order, and why none: OLM v0's answers."""

    name = "olm-v0"
    runtime_on_installed = False

    @staticmethod
    def candidates(requirement: RequiredPackage, context: ResolutionContext) -> list[Bundle]:
        return list(subscription_outcome(requirement, context).candidates)

    @staticmethod
    def why_none(requirement: RequiredPackage, context: ResolutionContext) -> str:
        return why_none(requirement, context)

    @staticmethod
    def installed_moves(
        installed: InstalledBundle, current: Bundle, context: ResolutionContext
    ) -> InstalledMoves | None:
        return installed_moves(installed, current, context)

    @staticmethod
    def dependency_order(
        dependent: Bundle, found: Sequence[Bundle], context: ResolutionContext
    ) -> list[Bundle]:
        return dependency_order(dependent, found, context)

    @staticmethod
    def need_words(dependent: Bundle) -> list[str | None]:
        return need_words(dependent)


__all__ = [
    "DEPRECATED_PROPERTY",
    "OLMv0Rules",
    "SubscriptionOutcome",
    "catalog_order",
    "dependency_order",
    "installed_moves",
    "need_words",
    "olm_deprecated",
    "subscription_outcome",
]
