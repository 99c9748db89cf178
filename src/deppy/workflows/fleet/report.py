"""The fleet summary for people: text that fits a screen, and one self-contained HTML page
(inline SVG charts: clusters per wave, blockers per package, versions in use per package; no
script, nothing fetched). Both are built from ``Rollup.summary()`` alone, so they agree with
``-o json``'s ``summary``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from deppy.explain.bar_chart import OTHER_COLOUR, PALETTE, bar_chart_svg
from deppy.explain.html_page import html_page

__all__ = ["summary_html", "summary_text"]

OTHER_LABEL = "other versions"

SHOWN = 5  # rows per list in the text summary
CHARTED = 20  # rows per chart
WIDTH = 100


def _n(count: int, word: str) -> str:
    """``1 cluster``, ``2 clusters``."""
    return f"{count} {word}{'' if count == 1 else 's'}"


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
        f"Fleet: {_n(summary['clusters'], 'cluster')}, {summary['planned']} planned, "
        f"{len(errors)} with errors" + (f"; target {target}" if target else ""),
        f"  need no change: {summary['needNoChange']['count']}; "
        f"waves (clusters with the same plan): {len(summary['waves'])}",
    ]
    for wave in summary["waves"][:SHOWN]:
        actions = "; ".join(wave["actions"])
        lines.append(_cut(f"  wave {wave['wave']}: {_n(wave['clusters'], 'cluster')}: {actions}"))
    lines.append(f"Installed: {_kinds(summary['kinds'])}")
    campaigns = summary.get("campaigns", [])
    if campaigns:
        lines.append(f"Campaigns ({len(campaigns)} updates by package, largest first; each "
                     "rolled out canary first):")  # fmt: skip
        lines += [_cut(f"  {_campaign_line(c)}") for c in campaigns[:SHOWN]]
        if len(campaigns) > SHOWN:
            lines.append(f"  and {len(campaigns) - SHOWN} more (-o json or -o html lists each)")
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
        for kind, words in _SINCE:
            found = changed.get(kind, [])
            if found:
                lines.append(_cut(f"  {words}: {_listed(found, 'name')}"))
    failed = summary["operatorErrors"]
    if failed["count"]:
        installs = f"{failed['count']} install{'s' if failed['count'] != 1 else ''}"
        lines.append(f"Operator errors ({installs}; -o json lists them):")
        lines += [_cut(f"  {_error_line(e)}") for e in failed["first"][:3]]
    if errors:
        lines.append(f"Errors ({_n(len(errors), 'cluster')}; -o json lists each):")
        lines += [_cut(f"  {_error_line(e)}") for e in errors[:3]]
    return "\n".join(lines)


def _campaign_line(campaign: Mapping[str, Any]) -> str:
    """``etcd 0.9.2 -> 0.9.4: 12 clusters (3 block the target); canary c1, then 2, then 9``."""
    stops = campaign["blockers"]
    said = [
        f"{stops['blockingTarget']} block the target" if stops["blockingTarget"] else "",
        f"{stops['moreRbac']} ask for more RBAC" if stops["moreRbac"] else "",
    ]
    said = [s for s in said if s]
    why = f" ({'; '.join(said)})" if said else ""
    canary, *later = campaign["batches"]
    order = ", then ".join(
        [f"canary {', '.join(canary['members']) or canary['clusters']}"]
        + [str(b["clusters"]) for b in later]
    )
    kind = "" if campaign["kind"] == "Subscription" else f" [{campaign['kind']}]"
    return (f"{campaign['package']}{kind} {campaign['from']} -> {campaign['to']}: "
            f"{_n(campaign['clusters'], 'cluster')}{why}; {order}")  # fmt: skip


def _kinds(kinds: Mapping[str, int]) -> str:
    """``1 Subscription, 6 ClusterExtensions``: the installs of each kind (OLM v0, OLM v1)."""
    counts = [(kinds.get("Subscription", 0), "Subscription"),
              (kinds.get("ClusterExtension", 0), "ClusterExtension")]  # fmt: skip
    return ", ".join(f"{n} {kind}{'s' if n != 1 else ''}" for n, kind in counts)


def _error_line(error: Mapping[str, Any]) -> str:
    """The error, which names its file itself when it comes from reading it."""
    message, cluster = str(error["error"]), str(error["cluster"])
    return message if message.startswith(cluster) else f"{cluster}: {message}"


WAVE_ROWS = 100  # waves in the HTML table; the rest are counted and sent to -o json
CUT = "-o json lists every one"


def _cut_row(columns: int, shown: int, total: int, what: str) -> list[list[str]]:
    """The row that says a table was cut: how many were left out, and where they are."""
    if total <= shown:
        return []
    return [[f"… {total - shown} more {what} not shown here ({CUT})"] + [""] * (columns - 1)]


def _versions_chart(versions: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """Versions in use per package, most installed packages first: each package's most
    installed versions in distinct colours (the legend says which rank each colour is), the
    rest summed as "other versions" in grey."""
    ranked = sorted(versions.items(), key=lambda kv: (-sum(v["clusters"] for v in kv[1]), kv[0]))
    shown = len(PALETTE)
    rows = []
    for package, counts in ranked[:CHARTED]:
        segments = [(v["name"], v["clusters"]) for v in counts[:shown]]
        rest = sum(v["clusters"] for v in counts[shown:])
        rows.append((package, segments + ([(OTHER_LABEL, rest)] if rest else [])))
    ordinals = ["most installed version", "2nd", "3rd"] + [f"{n}th" for n in range(4, shown + 1)]
    legend = [*zip(PALETTE, ordinals, strict=False), (OTHER_COLOUR, OTHER_LABEL)]
    return bar_chart_svg(
        "Versions in use per package (most installed packages)", rows, legend=legend
    )


def summary_html(
    summary: Mapping[str, Any], facts: Sequence[tuple[str, str]], *, title: str = "Fleet plan"
) -> str:
    """The page: facts, the three charts, then the tables behind them; everything text and
    JSON carry, and where a table is cut, a row saying so."""
    target = _target_words(summary["target"])
    waves = summary["waves"]
    figures = [
        _waves_chart(waves),
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
        _versions_chart(summary["versions"]),
    ]
    counts = [
        ("clusters", str(summary["clusters"])),
        ("planned", str(summary["planned"])),
        ("with errors", str(len(summary["errors"]))),
        ("need no change", str(summary["needNoChange"]["count"])),
        ("waves", str(len(waves))),
        ("campaigns", str(len(summary.get("campaigns", [])))),
        ("installs", _kinds(summary["kinds"])),
    ]
    failed = summary["operatorErrors"]
    tables = [
        (
            "Campaigns (updates by package; batches canary first)",
            ["package", "kind", "from", "to", "clusters", "blocking the target",
             "asking for more RBAC", "batches (clusters: some members)"],
            [
                [c["package"], c["kind"], c["from"], c["to"], str(c["clusters"]),
                 str(c["blockers"]["blockingTarget"]), str(c["blockers"]["moreRbac"]),
                 "; ".join(f"{b['batch']} {b['clusters']}: {', '.join(b['members'][:5])}"
                           for b in c["batches"])]
                for c in summary.get("campaigns", [])
            ],
        ),
        (
            "Waves",
            ["wave", "clusters", "actions", "some members (-o json: up to 1,000)"],
            [
                [str(w["wave"]), str(w["clusters"]), "; ".join(w["actions"]),
                 ", ".join(w["members"][:5])]
                for w in waves[:WAVE_ROWS]
            ] + _cut_row(4, WAVE_ROWS, len(waves), "waves"),
        ),
        (
            "Updates available",
            ["package", "clusters"],
            [[u["package"], str(u["clusters"])] for u in summary["updates"]],
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
            "Stranded installs (no way forward)",
            ["package", "clusters"],
            [[s["package"], str(s["clusters"])] for s in summary["stranded"]],
        ),
        (
            "Updates asking for more RBAC",
            ["package", "clusters"],
            [[s["package"], str(s["clusters"])] for s in summary["moreRbac"]],
        ),
        *_since_tables(summary.get("since")),
        (
            "Operator errors",
            ["cluster", "kind", "name", "package", "error"],
            [[e["cluster"], e["kind"], e["extension"], e["package"] or "", e["error"]]
             for e in failed["first"]]
            + _cut_row(5, len(failed["first"]), failed["count"], "operator errors"),
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


WAVES_CHARTED = 10  # waves drawn one bar each; past that, how many waves have each size


def _waves_chart(waves: Sequence[Mapping[str, Any]]) -> str:
    """Clusters per wave for a few waves, each labelled by its number (its actions, too long
    for a label, are in the Waves table). Many waves (clusters that each differ make one wave
    each: 29 bars of 1, their labels cut) are drawn as how many waves have each size."""
    if len(waves) <= WAVES_CHARTED:
        return bar_chart_svg(
            "Clusters per wave (identical plans)",
            [(f"wave {w['wave']}", [("", w["clusters"])]) for w in waves],
        )
    sizes = Counter(int(w["clusters"]) for w in waves)
    return bar_chart_svg(
        f"Waves by size ({len(waves)} waves of clusters with identical plans)",
        [
            (f"waves of {size} cluster{'s' if size != 1 else ''}", [("", count)])
            for size, count in sorted(sizes.items(), reverse=True)[:CHARTED]
        ],
    )


_SINCE = (
    ("updatesChanged", "updates changed"),
    ("newlyStranded", "newly stranded"),
    ("newlyBlocked", "newly blocked"),
    ("noLongerBlocked", "no longer blocked"),
)


def _since_tables(
    since: Mapping[str, Sequence[Mapping[str, Any]]] | None,
) -> list[tuple[str, list[str], list[list[str]]]]:
    """What changed since the older catalog release (``--since``), one table per kind."""
    if not since:
        return []
    return [
        (f"Since --since: {words}", ["package", "clusters"],
         [[i["name"], str(i["clusters"])] for i in since.get(kind, [])])
        for kind, words in _SINCE
    ]  # fmt: skip
