"""A catalog diff for people: the counts first, then one line per changed package, on a screen.

Every name comes from the catalogs, so every line is made printable (control characters
escaped, as ``deppy show`` does) and fitted to the screen's width; past :data:`PACKAGE_LINES`
lines of packages the rest are counted and ``-o json`` named as the place to see them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from deppy.errors import printable
from deppy.explain.render import SCREEN_WIDTH
from deppy.workflows.catalog_diff.compare import CatalogDiff

__all__ = ["PACKAGE_LINES", "diff_lines"]

PACKAGE_LINES = 30  # lines for the packages: with the counts, a screen of 40
LINES_PER_PACKAGE = 4
NAMED = 2  # a few changes of a kind are named, more are counted


def diff_lines(diff: CatalogDiff, package_lines: int = PACKAGE_LINES) -> list[str]:
    """The diff as text: a title, the counts, then the changed packages in name order."""
    old, new = diff.old, diff.new
    title = f"catalog diff {old.catalog} → {new.catalog}"
    if diff.empty:
        sizes = f"{new.packages} packages, {new.bundles} bundles"
        return [_fit(title), _fit(f"no differences ({sizes})")]
    lines = [title, *_count_lines(diff)]
    changed = diff.packages()
    lines.append(f"changed packages: {len(changed)}")
    per_package = _per_package(diff)
    used = 0
    for n, package in enumerate(changed):
        mine = _package_lines(printable(package), [printable(p) for p in per_package[package]])
        if used + len(mine) > package_lines:
            more = len(changed) - n
            lines.append(
                f"  … and {more} more package{'s' * (more > 1)}: -o json lists every change"
            )
            break
        lines.extend(mine)
        used += len(mine)
    return [_fit(line) for line in lines]


def _package_lines(package: str, phrases: list[str]) -> list[str]:
    """``  package: phrase; phrase`` wrapped between phrases at the screen's width, at most
    :data:`LINES_PER_PACKAGE` lines (the last cut short with …)."""
    lines = [f"  {package}: {phrases[0]}"]
    for phrase in phrases[1:]:
        joined = f"{lines[-1]}; {phrase}"
        if len(joined) <= SCREEN_WIDTH:
            lines[-1] = joined
        else:
            lines[-1] += ";"
            lines.append(f"    {phrase}")
    if len(lines) > LINES_PER_PACKAGE:
        lines = lines[:LINES_PER_PACKAGE]
        lines[-1] = lines[-1][: SCREEN_WIDTH - 2] + " …"
    return lines


def _fit(line: str) -> str:
    shown = printable(line)
    return shown if len(shown) <= SCREEN_WIDTH else shown[: SCREEN_WIDTH - 1] + "…"


def _count(bundles: int) -> str:
    return f"{bundles} bundle{'s' * (bundles != 1)}"


def _plus_minus(added: int, removed: int) -> str:
    return f"+{added} -{removed}"


def _count_lines(diff: CatalogDiff) -> list[str]:
    old, new = diff.old, diff.new
    rows = [
        (
            "packages",
            f"{_plus_minus(len(diff.packages_added), len(diff.packages_removed))} "
            f"({old.packages} → {new.packages})",
        ),
        (
            "bundles",
            f"{_plus_minus(len(diff.bundles_added), len(diff.bundles_removed))} "
            f"({old.bundles} → {new.bundles})",
        ),
        (
            "channels",
            f"{_plus_minus(len(diff.channels_added), len(diff.channels_removed))}; "
            f"heads moved {len(diff.heads_moved)}; "
            f"default channel changed {len(diff.default_channels_changed)}",
        ),
        (
            "deprecations",
            _plus_minus(len(diff.deprecations_added), len(diff.deprecations_removed)),
        ),
        ("upgrade edges", _plus_minus(len(diff.edges_added), len(diff.edges_removed))),
        ("platform limits", f"changed {len(diff.limits_changed)}"),
    ]
    return [f"  {label:<16}{text}" for label, text in rows]


def _named(items: Sequence[str]) -> str:
    if len(items) <= NAMED:
        return ", ".join(items)
    return f"{', '.join(items[:NAMED])} and {len(items) - NAMED} more"


def _per_package(diff: CatalogDiff) -> dict[str, list[str]]:
    """Each changed package's phrases, in a fixed order of kinds."""
    found: dict[str, list[str]] = {}

    def say(package: str, text: str) -> None:
        found.setdefault(package, []).append(text)

    for p in diff.packages_added:
        say(p.package, f"new package ({_count(p.bundles)}, default channel {p.default_channel})")
    for p in diff.packages_removed:
        say(p.package, f"removed ({_count(p.bundles)})")
    whole = {p.package for p in (*diff.packages_added, *diff.packages_removed)}
    _bundle_phrases(diff, whole, say)
    for move in diff.heads_moved:
        say(
            move.package,
            f"head {move.channel} {move.old_version or move.old} → {move.new_version or move.new}",
        )
    _grouped(diff.channels_added, whole, "channels added", lambda c: c.channel, say)
    _grouped(diff.channels_removed, whole, "channels removed", lambda c: c.channel, say)
    for d in diff.default_channels_changed:
        say(d.package, f"default channel {d.old} → {d.new}")
    _grouped(diff.deprecations_added, whole, "deprecated", _deprecated_name, say)
    _grouped(diff.deprecations_removed, whole, "no longer deprecated", _deprecated_name, say)
    _edge_phrases(diff, whole, say)
    for limit in diff.limits_changed:
        say(limit.package, f"{limit.version} {limit.field} {limit.old} → {limit.new}")
    return found


def _deprecated_name(change: Any) -> str:
    return f"{change.scope} {change.name}" if change.scope != "package" else "the package"


def _grouped(changes: Sequence[Any], whole: set[str], label: str, name: Any, say: Any) -> None:
    by_package: dict[str, list[str]] = {}
    for change in changes:
        if change.package not in whole:
            by_package.setdefault(change.package, []).append(name(change))
    for package, names in by_package.items():
        say(package, f"{label} {_named(names)}")


def _bundle_phrases(diff: CatalogDiff, whole: set[str], say: Any) -> None:
    added: dict[str, list[str]] = {}
    removed: dict[str, list[str]] = {}
    for b in diff.bundles_added:
        if b.package not in whole:
            added.setdefault(b.package, []).append(str(b.version))
    for b in diff.bundles_removed:
        if b.package not in whole:
            removed.setdefault(b.package, []).append(str(b.version))
    for package in sorted(set(added) | set(removed)):
        parts = []
        if package in added:
            parts.append(f"+{_named(added[package][::-1])}")
        if package in removed:
            parts.append(f"-{_named(removed[package][::-1])}")
        say(package, f"bundles {' '.join(parts)}")


def _edge_phrases(diff: CatalogDiff, whole: set[str], say: Any) -> None:
    counts: dict[str, list[int]] = {}
    for e in diff.edges_added:
        if e.package not in whole:
            counts.setdefault(e.package, [0, 0])[0] += 1
    for e in diff.edges_removed:
        if e.package not in whole:
            counts.setdefault(e.package, [0, 0])[1] += 1
    for package, (added, removed) in counts.items():
        say(package, f"edges {_plus_minus(added, removed)}")
