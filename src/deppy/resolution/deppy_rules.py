"""deppy's own rule set for a required package (DESIGN.md, "OLM semantics").

Candidates are the package's bundles in range, in a channel (the requested one when named),
outside ignored versions (only the ``startingCSV`` when a Subscription names one),
ordered by ``CandidateOrder``: catalog priority, the requested or
default channel, highest version first, deprecated last.
"""

from __future__ import annotations

from deppy.catalog.model import Bundle
from deppy.resolution.context import ResolutionContext
from deppy.resolution.dependencies import DeppyChoices, package_absent
from deppy.resolution.request import RequiredPackage


class DeppyRules(DeppyChoices):
    """Which candidates, in which order, and why none: deppy's answers."""

    name = "deppy"

    @staticmethod
    def candidates(requirement: RequiredPackage, context: ResolutionContext) -> list[Bundle]:
        order = context.order
        found = [
            b
            for b in context.catalogs.bundles_of(requirement.package)
            if requirement.versions.contains(b.version)
            and b.version not in requirement.ignore_versions
            and (requirement.catalog is None or b.catalog == requirement.catalog)
            and order.channels_containing(b)
            and (requirement.channel is None or order.in_channel(b, requirement.channel))
            and (requirement.starting_csv is None or b.name == requirement.starting_csv)
        ]
        return order.sort(found, channel=requirement.channel)

    @staticmethod
    def why_none(requirement: RequiredPackage, context: ResolutionContext) -> str:
        package = requirement.package
        catalogs = context.catalogs
        if not catalogs.has_package(package):
            return package_absent(package, context)
        bundles = catalogs.bundles_of(package)
        scope = ""
        if requirement.catalog is not None:
            bundles = [b for b in bundles if b.catalog == requirement.catalog]
            if not bundles:
                others = ", ".join(catalogs.catalogs_with(package))
                return f"catalog {requirement.catalog} has no package {package} (found in {others})"
            scope = f" in catalog {requirement.catalog}"
        if requirement.channel is not None:
            channels = sorted({c for b in bundles for c in context.order.channels_containing(b)})
            bundles = [b for b in bundles if context.order.in_channel(b, requirement.channel)]
            if not bundles:
                return (
                    f"package {package}{scope} has no channel {requirement.channel} "
                    f"(channels: {', '.join(channels)})"
                )
            scope = f" in channel {requirement.channel}{scope}"
        if requirement.starting_csv is not None:
            if not any(b.name == requirement.starting_csv for b in bundles):
                named = requirement.starting_csv
                return f"no bundle of {package}{scope} is named {named} (startingCSV)"
            bundles = [b for b in bundles if b.name == requirement.starting_csv]
        in_range = sorted({b.version for b in bundles if requirement.versions.contains(b.version)})
        if not in_range:
            available = sorted({b.version for b in bundles})
            shown = ", ".join(str(v) for v in available[-8:])
            more = f" (and {len(available) - 8} older)" if len(available) > 8 else ""
            return (
                f"no version of {package}{scope} is in range {requirement.versions_text}; "
                f"available{' there' if scope else ''}: {shown}{more}"
            )
        ranged = f" in range {requirement.versions_text}" if requirement.versions_text else ""
        return (
            f"every version of {package}{scope}{ranged} is ignored "
            f"({', '.join(str(v) for v in in_range)})"
        )
