"""The fleet summary for people: text that fits a screen, and one self-contained HTML page
(inline SVG charts: clusters per wave, blockers per package, versions in use per package; no
script, nothing fetched). Both are built from ``Rollup.summary()`` alone, so they agree with
``-o json``'s ``summary``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from deppy.explain.bar_chart import bar_chart_svg
from deppy.explain.html_page import html_page

__all__ = ["summary_html", "summary_text"]

SHOWN = 5  # rows per list in the text summary
CHARTED = 20  # rows per chart
WIDTH = 100


def _cut(text: str, width: int = WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _target_words(target: Mapping[str, Any] | None) -> str:
    if not target:
        return ""
    parts = []
    if target.get("openshiftVersion"):
        parts.append(f"OpenShift {target['openshiftVersion']}")
    elif target.get("kubernetesVersion"):
        parts.append(f"Kubernetes {target['kubernetesVersion']}")
    return " and ".join(parts)


def _listed(items: Sequence[Mapping[str, Any]], key: str = "package") -> str:
    shown = ", ".join(f"{i[key]} ({i['clusters']})" for i in items[:SHOWN])
    more = len(items) - SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def summary_text(summary: Mapping[str, Any], *, since: str | None = None) -> str:
    """About twenty lines whatever the fleet's size; ``-o json`` has everything."""
    target = _target_words(summary["target"])
    errors = summary["errors"]
    lines = [
        f"Fleet: {summary['clusters']} clusters, {summary['planned']} planned, "
        f"{len(errors)} with errors" + (f"; target {target}" if target else ""),
        f"  need no change: {summary['needNoChange']['count']}; "
        f"waves (clusters with the same plan): {len(summary['waves'])}",
    ]
    for wave in summary["waves"][:SHOWN]:
        actions = "; ".join(wave["actions"])
        lines.append(_cut(f"  wave {wave['wave']}: {wave['clusters']} clusters: {actions}"))
    lines.append(f"Installed: {_kinds(summary['kinds'])}")
    if summary["updates"]:
        lines.append(_cut(f"Updates available: {_listed(summary['updates'])}"))
    if target:
        if summary["blockers"]:
            lines.append(f"Blocking {target} (clusters; the version that unblocks):")
            for blocker in summary["blockers"][:SHOWN]:
                fixes = ", ".join(f["name"] for f in blocker["unblockedBy"][:3]) or "none"
                none = f"; {blocker['noFix']} with no fix" if blocker["noFix"] else ""
                lines.append(
                    _cut(f"  {blocker['package']}: {blocker['clusters']} -> {fixes}{none}")
                )
        else:
            lines.append(f"Nothing blocks {target}.")
    if summary["stranded"]:
        lines.append(_cut(f"Stranded (no way forward): {_listed(summary['stranded'])}"))
    if summary["moreRbac"]:
        lines.append(_cut(f"Updates asking for more RBAC: {_listed(summary['moreRbac'])}"))
    if summary["rbacUnknown"]:
        lines.append(
            f"RBAC not compared for {summary['rbacUnknown']} updates: their catalog does not "
            "carry the bundles' CSVs"
        )
    if since is not None and "since" in summary:
        changed = summary["since"]
        lines.append(f"Since {since}:")
        for kind, words in (
            ("updatesChanged", "updates changed"),
            ("newlyStranded", "newly stranded"),
            ("newlyBlocked", "newly blocked"),
            ("noLongerBlocked", "no longer blocked"),
        ):
            found = changed.get(kind, [])
            if found:
                lines.append(_cut(f"  {words}: {_listed(found, 'name')}"))
    failed = summary["operatorErrors"]
    if failed["count"]:
        installs = f"{failed['count']} install{'s' if failed['count'] != 1 else ''}"
        lines.append(f"Operator errors ({installs}; -o json lists them):")
        lines += [_cut(f"  {_error_line(e)}") for e in failed["first"][:3]]
    if errors:
        lines.append(f"Errors ({len(errors)} clusters; -o json lists each):")
        lines += [_cut(f"  {_error_line(e)}") for e in errors[:3]]
    return "\n".join(lines)


def _kinds(kinds: Mapping[str, int]) -> str:
    """``1 Subscription, 6 ClusterExtensions``: the installs of each kind (OLM v0, OLM v1)."""
    counts = [(kinds.get("Subscription", 0), "Subscription"),
              (kinds.get("ClusterExtension", 0), "ClusterExtension")]  # fmt: skip
    return ", ".join(f"{n} {kind}{'s' if n != 1 else ''}" for n, kind in counts)


def _error_line(error: Mapping[str, Any]) -> str:
    """The error, which names its file itself when it comes from reading it."""
    message, cluster = str(error["error"]), str(error["cluster"])
    return message if message.startswith(cluster) else f"{cluster}: {message}"


def summary_html(
    summary: Mapping[str, Any], facts: Sequence[tuple[str, str]], *, title: str = "Fleet plan"
) -> str:
    """The page: facts, the three charts, then the tables behind them."""
    target = _target_words(summary["target"])
    waves = summary["waves"][:CHARTED]
    figures = [
        bar_chart_svg(
            "Clusters per wave (identical plans)",
            [
                (f"wave {w['wave']}: {'; '.join(w['actions'])}", [("", w["clusters"])])
                for w in waves
            ],
        ),
        bar_chart_svg(
            f"Blockers per package ({target or 'no target given'})",
            [
                (
                    b["package"],
                    [(f["name"], f["clusters"]) for f in b["unblockedBy"]]
                    + ([("no fix", b["noFix"])] if b["noFix"] else []),
                )
                for b in summary["blockers"][:CHARTED]
            ],
        ),
        bar_chart_svg(
            "Versions in use per package (most installed packages)",
            [
                (package, [(v["name"], v["clusters"]) for v in versions])
                for package, versions in sorted(
                    summary["versions"].items(),
                    key=lambda kv: (-sum(v["clusters"] for v in kv[1]), kv[0]),
                )[:CHARTED]
            ],
        ),
    ]
    counts = [
        ("clusters", str(summary["clusters"])),
        ("planned", str(summary["planned"])),
        ("with errors", str(len(summary["errors"]))),
        ("need no change", str(summary["needNoChange"]["count"])),
        ("waves", str(len(summary["waves"]))),
        ("installs", _kinds(summary["kinds"])),
    ]
    tables = [
        (
            "Waves",
            ["wave", "clusters", "actions", "some members"],
            [
                [str(w["wave"]), str(w["clusters"]), "; ".join(w["actions"]),
                 ", ".join(w["members"][:5])]
                for w in summary["waves"][:100]
            ],
        ),
        (
            "Blockers",
            ["package", "clusters", "unblocked by (clusters)", "no fix"],
            [
                [b["package"], str(b["clusters"]),
                 ", ".join(f"{f['name']} ({f['clusters']})" for f in b["unblockedBy"]),
                 str(b["noFix"])]
                for b in summary["blockers"]
            ],
        ),
        (
            "Stranded installs",
            ["package", "clusters"],
            [[s["package"], str(s["clusters"])] for s in summary["stranded"]],
        ),
        (
            "Updates asking for more RBAC",
            ["package", "clusters"],
            [[s["package"], str(s["clusters"])] for s in summary["moreRbac"]],
        ),
        (
            "Operator errors",
            ["cluster", "kind", "name", "package", "error"],
            [[e["cluster"], e["kind"], e["extension"], e["package"] or "", e["error"]]
             for e in summary["operatorErrors"]["first"]],
        ),
        (
            "Errors",
            ["cluster", "error"],
            [[e["cluster"], e["error"]] for e in summary["errors"]],
        ),
    ]  # fmt: skip
    return html_page(
        title,
        facts=[*facts, *counts],
        figures=figures,
        tables=[t for t in tables if t[2]],
    )
