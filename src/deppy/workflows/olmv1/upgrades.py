"""What OLM v1 would move each installed ClusterExtension to, under its upgrade policy, and
the path over successive reconciliations.

OLM v1 moves an extension once per resolution: under ``CatalogProvided`` to the best direct
successor of what is installed (one replaces/skips/skipRange edge), under ``SelfCertified``
straight to the best bundle in range. Repeating the same rule from each new version gives the
path to where the extension ends up, which is what a user watching the cluster sees.

The walk stops where OLM v1 chooses a bundle it then refuses (one declaring a dependency:
``catalog.olmv1.validation``): OLM v1 does not fall back to an older bundle, so the extension
stays where it is, retrying, with OLM v1's message.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.model import Bundle
from deppy.catalog.olmv1 import Refusal, refusal_of
from deppy.catalog.semver.release import version_release_key
from deppy.explain.model import Suggestion
from deppy.resolution.context import ResolutionContext
from deppy.resolution.olmv1 import extension_outcome
from deppy.resolution.request import InstalledBundle, RequiredPackage, ResolutionRequest
from deppy.solver import SolveTimeout
from deppy.workflows.resolve import resolve_with_options

MAX_STEPS = 100  # a cycle of edges ends the walk; no real channel is longer


@dataclass(frozen=True, slots=True)
class ExtensionUpgrade:
    """One installed ClusterExtension: where OLM v1 moves it next, and where it ends up."""

    extension: str
    package: str
    installed: str  # bundle name
    installed_version: str
    policy: str
    candidates: tuple[Bundle, ...]  # what the next resolution may pick, best first
    path: tuple[Bundle, ...]  # one bundle per reconciliation, the first is the next move
    error: str | None  # OLM v1's message when it finds no bundle
    # OLM v1 found no bundle and its controller keeps the installed one (``fell_back``)
    fell_back: bool = False
    # the bundle OLM v1 chooses next and refuses (the walk stops before it), and why
    refused: Bundle | None = None
    refusal: Refusal | None = None
    # where OLM v1 finds no bundle: the ways out ``deppy resolve`` offers (``with_ways_out``)
    ways_out: tuple[Suggestion, ...] = ()

    @property
    def next(self) -> Bundle | None:
        return self.path[0] if self.path else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "extension": self.extension,
            "package": self.package,
            "installed": {"name": self.installed, "version": self.installed_version},
            "policy": self.policy,
            "next": None if self.next is None else _bundle(self.next),
            "path": [_bundle(b) for b in self.path],
            "candidates": [_bundle(b) for b in self.candidates],
            "error": self.error,
            "refused": None
            if self.refused is None or self.refusal is None
            else {**_bundle(self.refused), "refusal": self.refusal.as_dict()},
            "suggestions": [{"text": s.text, "change": s.change} for s in self.ways_out],
        }


def _bundle(bundle: Bundle) -> dict[str, str]:
    return {"name": bundle.name, "version": str(bundle.version), "catalog": bundle.catalog}


def _moved(requirement: RequiredPackage, bundle: Bundle) -> RequiredPackage:
    assert requirement.extension is not None
    installed = InstalledBundle(bundle.package, bundle.version, bundle=bundle.name)
    return replace(requirement, extension=replace(requirement.extension, installed=installed))


def extension_upgrades(
    catalogs: BundleSource, request: ResolutionRequest
) -> list[ExtensionUpgrade]:
    """One report per ClusterExtension of ``request`` that has an installed bundle."""
    context = ResolutionContext.create(catalogs, request, suggest=False)
    reports = []
    for requirement in request.required:
        terms = requirement.extension
        if terms is None or terms.installed is None:
            continue
        installed = terms.installed
        first = extension_outcome(requirement, context)
        now = version_release_key(installed.version)
        path: list[Bundle] = []
        current, outcome = requirement, first
        seen = {installed.bundle}
        refused: tuple[Bundle | None, Refusal | None] = (None, None)
        while outcome.chosen is not None and len(path) < MAX_STEPS:
            chosen = outcome.chosen
            if chosen.name in seen or version_release_key(chosen.version) == now:
                break
            refusal = refusal_of(chosen)
            if refusal is not None:
                refused = (chosen, refusal)
                break
            path.append(chosen)
            seen.add(chosen.name)
            now = version_release_key(chosen.version)
            current = _moved(current, chosen)
            outcome = extension_outcome(current, context)
        reports.append(
            ExtensionUpgrade(
                extension=terms.name,
                package=requirement.package,
                installed=installed.bundle or "",
                installed_version=str(installed.version),
                policy=terms.policy,
                candidates=first.candidates,
                path=tuple(path),
                error=None if first.chosen is not None else first.error(requirement.package),
                refused=refused[0],
                refusal=refused[1],
                fell_back=first.fell_back,
            )
        )
    return reports


def with_ways_out(
    catalogs: BundleSource,
    request: ResolutionRequest,
    reports: list[ExtensionUpgrade],
    *,
    timeout: float | None = None,
) -> list[ExtensionUpgrade]:
    """``reports``, each where OLM v1 finds no bundle with the ways out ``deppy resolve``
    offers for its ClusterExtension: the same resolution (``resolve_with_options``), asked
    about that extension alone, so each way out is one that resolve has seen work (a selector
    naming one of two catalogs at one priority, another version). ``timeout`` bounds them all."""
    deadline = None if timeout is None else time.monotonic() + timeout
    asked = {r.extension.name: r for r in request.required if r.extension is not None}
    found = []
    for report in reports:
        requirement = asked.get(report.extension)
        left = None if deadline is None else deadline - time.monotonic()
        if report.error is None or requirement is None or (left is not None and left <= 0):
            found.append(report)
            continue
        try:
            resolution = resolve_with_options(
                catalogs, replace(request, required=(requirement,)), timeout=left,
                pipeline=None, trace=None,
            )  # fmt: skip
        except SolveTimeout:
            found.append(report)
            continue
        explanation = resolution.explanation
        ways = explanation.suggestions if explanation is not None else ()
        position = request.required.index(requirement)
        found.append(replace(report, ways_out=tuple(_renumbered(w, position) for w in ways)))
    return found


_OF_A_REQUIREMENT = {"replace-requirement", "drop-requirement", "change-extension", "new-extension"}


def _renumbered(way: Suggestion, position: int) -> Suggestion:
    """A way out found for one extension asked alone, its ``index`` made the extension's
    place among all of the request's (what a program applying it to the file counts)."""
    if way.change.get("kind") not in _OF_A_REQUIREMENT or "index" not in way.change:
        return way
    return replace(way, change={**way.change, "index": position})


__all__ = ["ExtensionUpgrade", "extension_upgrades", "with_ways_out"]
