"""What a user asks the OLM resolver: requirements, what is installed, and cluster facts.

These values are the contract between front doors (CLI specs, ActiveResolution files, HTTP)
and the resolver; parsing lives in ``request_parsing``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from deppy.catalog.semver import Version, VersionRange
from deppy.catalog.semver.extension_constraint import ExtensionConstraint

# The rule sets a user may ask for (``--rules``, ``spec.rules``), with what each reads; OLM v1's
# (``olmv1``) is chosen by ClusterExtension documents themselves, never by name.
CHOSEN_RULES = {
    "deppy": "deppy's own rules (the default; reads --require/--installed, ActiveResolution "
    "files and clusters)",
    "olm-v0": "OLM v0's resolver (reads the same as deppy: Subscriptions as required/installed, "
    "spec.namespace, catalog namespaces; the default for OLM v0 clusters)",
}


def known_rules() -> str:
    """The one line every refusal of a rule set's name ends with."""
    shown = "; ".join(f"{name}: {what}" for name, what in CHOSEN_RULES.items())
    return f"known rule sets: {shown}; OLM v1's are chosen by ClusterExtension documents"


CATALOG_PROVIDED = "CatalogProvided"
SELF_CERTIFIED = "SelfCertified"
UPGRADE_POLICIES = (CATALOG_PROVIDED, SELF_CERTIFIED)


@dataclass(frozen=True, slots=True)
class CatalogChoice:
    """A catalog an OLM v1 request may use: its name and its ClusterCatalog ``spec.priority``."""

    name: str
    priority: int = 0


@dataclass(frozen=True, slots=True)
class ExtensionTerms:
    """What one ClusterExtension asks beyond a package name, in OLM v1's own terms.

    ``catalogs`` are the ClusterCatalogs its selector chose (available ones only), with their
    priorities; ``unavailable`` those it chose that are ``Unavailable`` (OLM v1 walks none of
    them, and an explanation says so); ``installed`` is its ``status.install.bundle``;
    ``constraint`` its ``spec.source.catalog.version`` (None: any version).
    """

    name: str
    channels: tuple[str, ...] = ()
    constraint: ExtensionConstraint | None = None
    policy: str = CATALOG_PROVIDED
    installed: InstalledBundle | None = None
    catalogs: tuple[CatalogChoice, ...] = ()
    # available catalogs its selector leaves out: where a way out may look
    unselected: tuple[CatalogChoice, ...] = ()
    unavailable: tuple[CatalogChoice, ...] = ()
    namespace: str | None = None
    service_account: str | None = None
    # no ClusterCatalog its selector matches exists (an Unavailable one exists): where OLM v1
    # then finds no bundle and the spec asks for no other version than the installed one, its
    # controller keeps that one (operator-controller's handleResolutionError)
    no_catalog_left: bool = False
    # the ClusterExtension as written: a plan keeps every field deppy does not decide
    document: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)

    def describe(self) -> str:
        parts = [f"ClusterExtension {self.name}"]
        if self.channels:
            parts.append(f"channels [{' '.join(self.channels)}]")
        if self.policy != CATALOG_PROVIDED:
            parts.append(self.policy)
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class RequiredPackage:
    """A package the user wants, optionally narrowed by versions, channel and catalog.

    ``text`` is how the user wrote it, so explanations can quote the user's own words.
    """

    package: str
    versions: VersionRange = field(default_factory=VersionRange.any, compare=False)
    versions_text: str = ""
    channel: str | None = None
    catalog: str | None = None
    ignore_versions: tuple[Version, ...] = ()
    text: str = ""
    extension: ExtensionTerms | None = None  # an OLM v1 ClusterExtension's terms
    # an OLM v0 Subscription's spec.startingCSV: the bundle it installs first (olm-v0 rules)
    starting_csv: str | None = None
    # the Subscription's metadata.name, for OLM v0's own words (None: the package's name)
    subscription: str | None = None

    def describe(self) -> str:
        parts = [self.package]
        if self.versions_text:
            parts.append(self.versions_text)
        if self.extension is not None:
            parts.append(f"({self.extension.describe()})")
        if self.channel:
            parts.append(f"in channel {self.channel}")
        if self.catalog:
            parts.append(f"from catalog {self.catalog}")
        if self.starting_csv:
            parts.append(f"starting at {self.starting_csv}")
        if self.ignore_versions:
            parts.append("ignoring " + ", ".join(str(v) for v in self.ignore_versions))
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class InstalledBundle:
    """A bundle already on the cluster: it may stay or move forward, never backward.

    ``held`` (non-empty) says it may not move at all here, and why: who else holds it and how
    it moves (the controller's units: another unit's approved resolveset holds it, and only that
    unit's next approved proposal moves it, so one person's approval is never bypassed).
    """

    package: str
    version: Version
    channel: str | None = None
    catalog: str | None = None
    bundle: str | None = None
    text: str = ""
    held: str = ""
    subscription: str | None = None  # the OLM v0 Subscription's name (None: the package's)

    def describe(self) -> str:
        where = f" (channel {self.channel})" if self.channel else ""
        return f"{self.package} {self.version}{where}"


@dataclass(frozen=True, slots=True)
class PropertyRestriction:
    """Exclude bundles having a property of ``type`` whose value matches (e.g. a label)."""

    type: str
    value: str

    def describe(self) -> str:
        return f"{self.type}={self.value}"


@dataclass(frozen=True, slots=True)
class ClusterFacts:
    """What the cluster runs; None means "not stated" and disables that runtime check."""

    openshift_version: Version | None = None
    kube_version: Version | None = None

    def or_else(self, fallback: ClusterFacts) -> ClusterFacts:
        """Each version stated here, else ``fallback``'s (flags over a request file, a request
        over the cluster it runs on)."""
        return ClusterFacts(
            self.openshift_version or fallback.openshift_version,
            self.kube_version or fallback.kube_version,
        )


@dataclass(frozen=True, slots=True)
class ResolutionRequest:
    """One resolution: the ActiveResolution of deppy-phase-0.md, in values."""

    required: tuple[RequiredPackage, ...] = ()
    installed: tuple[InstalledBundle, ...] = ()
    cluster: ClusterFacts = field(default_factory=ClusterFacts)
    sources: tuple[str, ...] = ()  # catalog names to restrict to; empty means all
    exclude: tuple[PropertyRestriction, ...] = ()
    # OLM v0 moves an installed bundle one upgrade step per resolution; deppy by default goes
    # to the highest version its channel's edges reach (and shows the path)
    one_step: bool = False
    # which candidates, in which order, which errors: "deppy" (DESIGN.md, "OLM semantics"),
    # "olm-v0" (OLM v0's resolver, resolution/olmv0) or "olmv1" (a ClusterExtension request,
    # OLM v1's rules); see ``rule_sets``
    rules: str = "deppy"
    # OLM v0: the namespace resolved (its Subscriptions' own; a catalog there is preferred for
    # dependencies after catalog priority) and each catalog's namespace, by catalog name
    namespace: str | None = None
    catalog_namespaces: tuple[tuple[str, str], ...] = ()

    def catalog_namespace(self, catalog: str) -> str | None:
        return dict(self.catalog_namespaces).get(catalog)
