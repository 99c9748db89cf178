""" "Did you mean …?" for a required package that no catalog has.

A package is often asked for by another name than its own: the catalog's directory, the
product's display name, a word of it, an API it provides ("isovalent-networking" for the
package ``clife``, display name "Isovalent Networking"). The closest package names and the
packages whose name, display name, keywords or provided APIs match the asked name (the search of
``deppy search``, description matches left out) become ways out of the explanation — each one
resolved first, like every suggestion, so one shown is one seen to work.

This lives above the resolver (it reads the search, a workflow): the three front doors ask for
it through ``resolve_with_options``, so the CLI, the service and the web UI say the same.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import replace

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.search_index import DESCRIPTION
from deppy.errors import DeppyError
from deppy.explain import Explanation, Suggestion
from deppy.resolution.answer import Resolution
from deppy.resolution.request import ResolutionRequest
from deppy.resolution.suggestions import (
    ChangeExtension,
    ReplaceRequirement,
    suggestion,
)
from deppy.workflows.search import search

__all__ = [
    "closest_packages",
    "did_you_mean",
    "near_paths",
    "where_to_look",
    "with_names_suggested",
]

SHOWN = 3  # names offered per misnamed requirement


def closest_packages(source: BundleSource, asked: str) -> list[tuple[str, str]]:
    """(package, display name) of the packages most likely meant by ``asked``, best first:
    search hits on the name as asked and with its dashes as spaces (name, display name,
    keyword, API), then the closest names by spelling."""
    found: dict[str, str] = {}
    for term in dict.fromkeys((asked, asked.replace("-", " ").replace("_", " "))):
        for hit in search(source, term):
            if hit.tier < DESCRIPTION and hit.package != asked:
                found.setdefault(hit.package, hit.display_name)
    names = source.package_names()
    for name in difflib.get_close_matches(asked, names, n=SHOWN, cutoff=0.6):
        if name != asked:
            found.setdefault(name, "")
    return list(found.items())[: SHOWN * 2]


def did_you_mean(source: BundleSource, asked: str) -> str:
    """``did you mean clife (Isovalent Networking), cilium? `` for an error message, or ""."""
    return _offered(closest_packages(source, asked)[:SHOWN])


def _offered(close: list[tuple[str, str]]) -> str:
    named = [
        f"{name} ({display})" if display and display != name else name for name, display in close
    ]
    return f"did you mean {', '.join(named)}? " if named else ""


def where_to_look(source: BundleSource, asked: str) -> str:
    """The hint of an error about a package no catalog has: the names it was probably meant
    as, and the search to run for the first of them (the search of the misspelt name finds
    what did_you_mean found already); the search of ``asked`` when no name is close."""
    close = closest_packages(source, asked)[:SHOWN]
    return f"{_offered(close)}try deppy search {close[0][0] if close else asked}"


NEIGHBOURS_READ = 10_000  # names of a missing path's directory compared with its own, at most


def near_paths(path: str) -> list[str]:
    """The paths beside a missing ``path`` whose last name is spelt almost as its own (a
    release's digits swapped: ``community-operators-prod-v4.81`` for ``…-v4.18``), best
    first; [] when none is close or the directory cannot be read."""
    import itertools
    import os
    from pathlib import Path

    given = Path(path)
    try:
        with os.scandir(given.parent) as entries:
            names = [e.name for e in itertools.islice(entries, NEIGHBOURS_READ)]
    except OSError:
        return []
    close = difflib.get_close_matches(given.name, names, n=SHOWN, cutoff=0.8)
    return [str(given.parent / name) for name in close if not name.startswith(".")]


def with_names_suggested(
    source: BundleSource,
    resolution: Resolution,
    resolve: Callable[[ResolutionRequest], Resolution | None],
) -> Resolution:
    """``resolution`` with, first among its ways out, the packages a requirement that no
    catalog has probably meant, each seen to resolve in the requirement's place; ``source``
    is every catalog the command knows (``resolve`` applies the request's sources)."""
    explanation = resolution.explanation
    if explanation is None:
        return resolution
    request = resolution.request
    chosen = source.restricted(request.sources) if request.sources else source
    found: list[Suggestion] = []
    for index, requirement in enumerate(request.required):
        if source.has_package(requirement.package):
            continue  # a catalog has it: not a name to correct
        shown = 0
        meant_names = closest_packages(chosen, requirement.package)
        if requirement.extension is not None:
            meant_names = _close_only(requirement.package, meant_names)
        for name, display in meant_names:
            if shown == SHOWN:
                break
            meant = f"{name} ({display})" if display and display != name else name
            ranged = f"{name}@{requirement.versions_text}" if requirement.versions_text else name
            changes: list[ReplaceRequirement | ChangeExtension] = [
                ReplaceRequirement(index, spec, ask=meant) for spec in dict.fromkeys((ranged, name))
            ]
            if requirement.extension is not None:  # OLM v1: the field to change
                why = f"did you mean {meant}?"
                changes = [ChangeExtension(index, "packageName", name, requirement.extension, why)]
            for change in changes:
                try:
                    changed = change.apply(request)
                except DeppyError:
                    continue
                outcome = resolve(changed)
                if outcome is None:
                    return _with(resolution, explanation, found)
                if outcome.resolved:
                    found.append(suggestion(change, request))
                    shown += 1
                    break
    return _with(resolution, explanation, found)


CLOSE = 0.8  # spelling similarity (difflib's ratio) of a name offered after the best one
AS_CLOSE = 0.05  # ... and at most this much less similar than the best one


def _close_only(asked: str, found: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The best guess, and the others only where they are spelled about as much like
    ``asked`` as it is, or its words are their display name: a ClusterExtension names one
    package, and neither a search hit on a word ("operator") nor a name sharing a long suffix
    ("ack-ssm-controller" for "ack-s3-controllr") is likely the one meant."""
    if not found:
        return []
    words = asked.replace("-", " ").replace("_", " ").casefold()

    def ratio(name: str) -> float:
        return difflib.SequenceMatcher(None, asked, name).ratio()

    floor = max(CLOSE, ratio(found[0][0]) - AS_CLOSE)
    return found[:1] + [
        (name, display)
        for name, display in found[1:]
        if ratio(name) >= floor or display.casefold() == words
    ]


def _with(resolution: Resolution, explanation: Explanation, found: list[Suggestion]) -> Resolution:
    if not found:
        return resolution
    suggestions = tuple(dict.fromkeys((*found, *explanation.suggestions)))
    return replace(resolution, explanation=replace(explanation, suggestions=suggestions))
