"""How the operators on a cluster enter a resolution.

* Each Subscription with an installed CSV becomes an ``InstalledBundle`` — package (``spec.name``),
  channel, catalog (its CatalogSource), version and bundle name (the CSV) — exactly what
  ``--installed PACKAGE@VERSION,channel=C,catalog=NAME,bundle=CSV`` says, so the resolver treats
  it the same way: it may stay or move forward along its channel.
* Each OLM v1 ClusterExtension with an installed bundle becomes one too (no catalog: v1 chooses
  among ClusterCatalogs by selector).
* A CSV without a Subscription was installed by hand: it stays as it is. It becomes a bundle of
  the synthetic catalog ``(cluster)`` built from its projected properties (``projection``), in a
  channel ``(installed)`` of its own, plus an installed entry pinned to it. Being a bundle with
  its provided and required APIs, it takes part like any other: it satisfies the required APIs
  of other bundles, and the one-provider-per-API rule keeps a resolution from proposing a second
  provider of an API it serves. Having no upgrade edges, it can only stay.

The once-per-resolution note about synthesised properties is part of the warnings (seed
property-projection.md: logged once per resolution attempt, not once per CSV).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from deppy.catalog.model import Bundle, Catalog, Channel, ChannelEntry, Package
from deppy.catalog.properties import parse_version_tolerant
from deppy.catalog.semver import Version, VersionError
from deppy.cluster.objects import describe, dig, is_copied_csv, name_of, namespace_of, text
from deppy.cluster.projection import Projection, bundle_of_projection, project_csv
from deppy.cluster.state import ClusterState, catalog_name_map, cluster_version
from deppy.resolution.request import ClusterFacts, InstalledBundle, RequiredPackage

__all__ = [
    "HAND_INSTALLED_CATALOG",
    "HAND_INSTALLED_CHANNEL",
    "ClusterInstalled",
    "cluster_facts",
    "installed_from_state",
]

HAND_INSTALLED_CATALOG = "(cluster)"
HAND_INSTALLED_CHANNEL = "(installed)"
_LEAVING_PHASES = frozenset({"Replacing", "Deleting"})

Obj = Mapping[str, Any]


@dataclass(frozen=True, slots=True, eq=False)
class ClusterInstalled:
    """What is installed on a cluster, in resolution terms.

    ``installed`` is everything (what ``--installed`` flags would say, plus the pins of the
    hand-installed CSVs); ``subscribed`` only the Subscriptions and ClusterExtensions (what can
    be upgraded); ``catalog`` holds the hand-installed CSVs as bundles (None when there are none).
    """

    installed: tuple[InstalledBundle, ...]
    subscribed: tuple[InstalledBundle, ...]
    catalog: Catalog | None
    cluster: ClusterFacts
    warnings: tuple[str, ...]
    synthesised: int
    projections: tuple[Projection, ...]
    # Subscriptions with no installed CSV yet, as the requirements OLM v0 resolves for them
    # (package, channel, catalog, startingCSV): what resolve asks under olm-v0's rules
    pending: tuple[RequiredPackage, ...] = ()

    def with_catalogs(self, names: Sequence[str]) -> ClusterInstalled:
        """Subscriptions whose catalog is not among ``names`` (the catalogs a resolution uses)
        are looked up in every catalog instead, with a warning naming them."""
        known = set(names)
        if self.catalog is not None:
            known.add(self.catalog.name)
        warnings = list(self.warnings)
        changed: dict[InstalledBundle, InstalledBundle] = {}
        for item in self.subscribed:
            if item.catalog is not None and item.catalog not in known:
                shown = ", ".join(n for n in names) or "none"
                warnings.append(
                    f"{item.text}: its catalog {item.catalog} is not among the catalogs in use "
                    f"({shown}); {item.package} is looked up in all of them — name a --catalog "
                    f"{item.catalog} to follow the subscription's own catalog"
                )
                changed[item] = replace(item, catalog=None)
        if not changed:
            return self
        return replace(
            self,
            installed=tuple(changed.get(i, i) for i in self.installed),
            subscribed=tuple(changed.get(i, i) for i in self.subscribed),
            warnings=tuple(warnings),
        )


def cluster_facts(state: ClusterState) -> tuple[ClusterFacts, list[str]]:
    """The Kubernetes and OpenShift versions the cluster reports (None where unknown)."""
    kube, kube_problem = cluster_version(state.kube_version, f"{state.where}: Kubernetes version")
    ocp, ocp_problem = cluster_version(state.openshift_version, f"{state.where}: OpenShift version")
    return ClusterFacts(ocp, kube), [p for p in (kube_problem, ocp_problem) if p]


def installed_from_state(state: ClusterState, *, namespace: str | None = None) -> ClusterInstalled:
    """Installed bundles, the hand-installed CSVs' catalog and the warnings met, for a cluster
    (or for one ``namespace`` of it, and the cluster-wide ClusterExtensions)."""
    warnings: list[str] = list(state.problems)
    facts, version_problems = cluster_facts(state)
    warnings += version_problems
    csvs = [
        c
        for c in state.csvs
        if not is_copied_csv(c) and (namespace is None or namespace_of(c) == namespace)
    ]
    subscriptions = [
        s for s in state.subscriptions if namespace is None or namespace_of(s) == namespace
    ]
    names = catalog_name_map(state)
    subscribed: list[InstalledBundle] = []
    owned: set[tuple[str, str]] = set()
    by_name: dict[tuple[str, str], Obj] = {}  # the first CSV of each (namespace, name)
    for csv in csvs:
        by_name.setdefault((namespace_of(csv), name_of(csv)), csv)
    pending: list[RequiredPackage] = []
    for subscription in subscriptions:
        entry, csv_name, problem = _subscribed(subscription, by_name, names, state)
        if csv_name is not None:
            owned.add((namespace_of(subscription), csv_name))
        if problem:
            warnings.append(problem)
        if entry is not None:
            subscribed.append(entry)
        elif csv_name is None and text(subscription, "spec", "name") is not None:
            pending.append(_pending(subscription, names, state))
    for extension in state.cluster_extensions:
        entry, problem = _extension(extension)
        if problem:
            warnings.append(problem)
        if entry is not None:
            subscribed.append(entry)
    by_hand = [
        c
        for c in csvs
        if (namespace_of(c), name_of(c)) not in owned
        and dig(c, "status", "phase") not in _LEAVING_PHASES
    ]
    projections = [project_csv(c) for c in by_hand]
    for projection in projections:
        warnings += projection.warnings
    subscribed_packages = {e.package for e in subscribed}
    for projection in projections:
        if projection.package in subscribed_packages:
            warnings.append(
                f"{projection.csv} has no Subscription but its package {projection.package} is "
                "subscribed elsewhere on the cluster; the subscription stands for the package"
            )
    projections = [p for p in projections if p.package not in subscribed_packages]
    catalog, pins, problems = _hand_installed_catalog(projections)
    warnings += problems
    synthesised = sum(1 for p in projections if p.synthesised)
    if synthesised:
        warnings.append(
            f"{synthesised} installed operator{'s' if synthesised != 1 else ''} had no "
            "properties annotation; synthesised from "
            + ("their CSVs" if synthesised != 1 else "its CSV")
        )
    unique = _one_per_package(subscribed, warnings)
    return ClusterInstalled(
        installed=tuple(unique + pins),
        subscribed=tuple(unique),
        catalog=catalog,
        cluster=facts,
        warnings=tuple(dict.fromkeys(warnings)),
        synthesised=synthesised,
        projections=tuple(projections),
        pending=tuple(pending),
    )


def _pending(
    subscription: Obj, names: Mapping[tuple[str, str], str], state: ClusterState
) -> RequiredPackage:
    """A Subscription that has installed nothing yet, as the requirement OLM v0 resolves."""
    where = describe(subscription, "Subscription")
    package = text(subscription, "spec", "name") or ""
    return RequiredPackage(
        package,
        channel=text(subscription, "spec", "channel"),
        catalog=_catalog_of(subscription, names, state, where)[0],
        text=where,
        starting_csv=text(subscription, "spec", "startingCSV"),
        subscription=name_of(subscription),
    )


def _subscribed(
    subscription: Obj,
    csvs: Mapping[tuple[str, str], Obj],
    names: Mapping[tuple[str, str], str],
    state: ClusterState,
) -> tuple[InstalledBundle | None, str | None, str | None]:
    """The installed entry of a Subscription, the CSV it owns, and what was wrong."""
    where = describe(subscription, "Subscription")
    package = text(subscription, "spec", "name")
    csv_name = text(subscription, "status", "installedCSV")
    if package is None:
        return None, csv_name, f"{where} has no spec.name (the package); it is left out"
    if csv_name is None:
        return (
            None,
            None,
            f"{where} has not installed a CSV yet (status.installedCSV is empty); package "
            f"{package} is not counted as installed",
        )
    namespace = namespace_of(subscription)
    csv = csvs.get((namespace, csv_name))
    if csv is None:
        return (
            None,
            csv_name,
            f"{where}: its installed CSV {csv_name} is not in namespace {namespace}; package "
            f"{package} is not counted as installed — export the namespace's CSVs too",
        )
    version_text = text(csv, "spec", "version")
    version, problem = (None, None)
    if version_text is not None:
        version, problem = cluster_version_strict(version_text)
    if version is None:
        why = (
            f"its spec.version {version_text!r} is not a version ({problem})"
            if version_text
            else "it has no spec.version"
        )
        return (
            None,
            csv_name,
            f"{describe(csv, 'ClusterServiceVersion')} (of {where}): {why}; package {package} is "
            "not counted as installed — give the CSV a semver version",
        )
    catalog = _catalog_of(subscription, names, state, where)
    return (
        InstalledBundle(
            package=package,
            version=version,
            channel=text(subscription, "spec", "channel"),
            catalog=catalog[0],
            bundle=csv_name,
            text=where,
            subscription=name_of(subscription),
        ),
        csv_name,
        catalog[1],
    )


def cluster_version_strict(text_value: str) -> tuple[Version | None, str | None]:
    """A CSV's or bundle's version, read tolerantly as OLM reads it."""
    try:
        return parse_version_tolerant(text_value), None
    except VersionError as error:
        return None, str(error)


def _catalog_of(
    subscription: Obj, names: Mapping[tuple[str, str], str], state: ClusterState, where: str
) -> tuple[str | None, str | None]:
    source = text(subscription, "spec", "source")
    if source is None:
        return None, None
    source_namespace = text(subscription, "spec", "sourceNamespace") or namespace_of(subscription)
    found = names.get((source_namespace, source))
    if found is not None:
        return found, None
    if not state.catalog_sources and not state.cluster_catalogs:
        # An export without catalogs (or one read with --catalog in mind): keep the name given.
        return source, None
    return None, (
        f"{where} names CatalogSource {source_namespace}/{source}, which is not on the cluster; "
        f"its package is looked up in every catalog — fix spec.source/spec.sourceNamespace"
    )


def _extension(extension: Obj) -> tuple[InstalledBundle | None, str | None]:
    where = describe(extension, "ClusterExtension")
    package = text(extension, "spec", "source", "catalog", "packageName")
    bundle = dig(extension, "status", "install", "bundle")
    if package is None or not isinstance(bundle, Mapping):
        return None, None  # nothing installed yet: nothing to keep
    version_text, name = bundle.get("version"), bundle.get("name")
    version, problem = (
        cluster_version_strict(version_text) if isinstance(version_text, str) else (None, "missing")
    )
    if version is None:
        return (
            None,
            f"{where}: status.install.bundle.version is not a version ({problem}); left out",
        )
    channels = dig(extension, "spec", "source", "catalog", "channels")
    channel = channels[0] if isinstance(channels, list) and len(channels) == 1 else None
    return (
        InstalledBundle(
            package=package,
            version=version,
            channel=channel if isinstance(channel, str) else None,
            catalog=None,
            bundle=name if isinstance(name, str) and name else None,
            text=where,
        ),
        None,
    )


def _one_per_package(
    entries: Iterable[InstalledBundle], warnings: list[str]
) -> list[InstalledBundle]:
    """Identical entries once; a package installed at several versions (in several namespaces)
    keeps its newest, with a warning: deppy resolves the cluster as one."""
    by_package: dict[str, list[InstalledBundle]] = {}
    for entry in entries:
        by_package.setdefault(entry.package, []).append(entry)
    kept: list[InstalledBundle] = []
    for package, found in by_package.items():
        versions = sorted({e.version for e in found})
        best = max(found, key=lambda e: (e.version, e.text))
        if len(versions) > 1:
            listed = ", ".join(f"{e.text} ({e.version})" for e in found)
            warnings.append(
                f"package {package} is installed at {len(versions)} versions ({listed}); the "
                f"resolution keeps {best.version} — resolve one namespace with --namespace"
            )
        kept.append(best)
    return kept


def _hand_installed_catalog(
    projections: Sequence[Projection],
) -> tuple[Catalog | None, list[InstalledBundle], list[str]]:
    problems: list[str] = []
    bundles: dict[tuple[str, str], Bundle] = {}
    for projection in projections:
        bundle, more = bundle_of_projection(
            projection, catalog=HAND_INSTALLED_CATALOG, source=projection.csv
        )
        problems += more
        if bundle is None:
            continue
        same_package = [b for b in bundles.values() if b.package == bundle.package]
        if same_package and any(b.version != bundle.version for b in same_package):
            other = same_package[0]
            keep = bundle if bundle.version > other.version else other
            problems.append(
                f"package {bundle.package} is installed by hand at {other.version} and "
                f"{bundle.version} ({other.source}, {bundle.source}); the resolution keeps "
                f"{keep.version} — resolve one namespace with --namespace"
            )
            if keep is other:
                continue
            del bundles[other.key]
        bundles.setdefault(bundle.key, bundle)
    if not bundles:
        return None, [], problems
    ordered = dict(sorted(bundles.items()))
    packages: dict[str, Package] = {}
    channels: dict[tuple[str, str], Channel] = {}
    pins: list[InstalledBundle] = []
    for bundle in ordered.values():
        packages[bundle.package] = Package(
            bundle.package, HAND_INSTALLED_CHANNEL, source=bundle.source
        )
        key = (bundle.package, HAND_INSTALLED_CHANNEL)
        channels[key] = Channel(
            bundle.package, HAND_INSTALLED_CHANNEL, (ChannelEntry(bundle.name),), bundle.source
        )
        pins.append(
            InstalledBundle(
                package=bundle.package,
                version=bundle.version,
                channel=HAND_INSTALLED_CHANNEL,
                catalog=HAND_INSTALLED_CATALOG,
                bundle=bundle.name,
                text=f"{bundle.source} (installed without a Subscription)",
            )
        )
    catalog = Catalog(
        name=HAND_INSTALLED_CATALOG,
        priority=0,
        path="the cluster's ClusterServiceVersions without a Subscription",
        packages=dict(sorted(packages.items())),
        channels=dict(sorted(channels.items())),
        bundles=ordered,
    )
    return catalog, pins, problems
