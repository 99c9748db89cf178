"""The fleet report (issue 36): campaigns (updates by package, from -> to, how many clusters,
what blocks them, batches canary first) in text, JSON and HTML; the HTML carries everything
text and JSON carry and says where a table was cut; counts read "1 cluster"; the versions chart
has a legend and no repeated colour in a row. Built from plan records as the planner writes
them, summed up by the real rollup."""

from __future__ import annotations

import re
from typing import Any

from deppy.explain.bar_chart import OTHER_COLOUR, PALETTE
from deppy.workflows.fleet.report import summary_html, summary_text
from deppy.workflows.fleet.rollup import Rollup


def operator(package: str, installed: str, newest: str | None, *, rbac: bool = False) -> Any:
    return {
        "kind": "Subscription", "package": package, "installed": installed,
        "bundle": f"{package}.v{installed}", "newest": f"{package}.v{newest}" if newest else None,
        "newestVersion": newest, "stranded": False,
        "rbac": {"added": ["get pods"]} if rbac else {},
    }  # fmt: skip


def record(n: int, operators: list[Any], **more: Any) -> dict[str, Any]:
    found = {
        "index": n, "cluster": f"c{n}.json", "target": {"openshiftVersion": "4.20"},
        "operators": operators, "blockers": [], "stranded": [], "operatorErrors": [],
        "needsChange": any(o["newest"] for o in operators),
    }  # fmt: skip
    found.update(more)
    return found


def summed(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Two rollups merged, as batches from workers are: the same as one."""
    first, second = Rollup(), Rollup()
    for one in records[: len(records) // 2]:
        first.add(one)
    for one in records[len(records) // 2 :]:
        second.add(one)
    first.merge(second)
    return first.summary()


def fleet() -> list[dict[str, Any]]:
    """21 clusters, each a different mix (21 waves of one), sharing two updates."""
    records = []
    for n in range(21):
        operators = [operator("etcd", "0.9.2", "0.9.4", rbac=n % 4 == 0),
                     operator(f"only-{n}", "1.0.0", "1.1.0")]  # fmt: skip
        blockers = []
        if n % 3 == 0:
            operators.append(operator("gitlab", "2.3.0", "3.3.0"))
            blockers = [{"kind": "Subscription", "package": "gitlab", "installed": "2.3.0",
                         "bundle": "gitlab.v2.3.0", "reasons": ["r"],
                         "unblockedBy": {"version": "3.3.0", "switchChannel": False}}]  # fmt: skip
        records.append(record(n, operators, blockers=blockers))
    return records


def test_campaigns_group_updates_by_package_and_versions_canary_first() -> None:
    summary = summed(fleet())
    assert len(summary["waves"]) == 21
    campaigns = {c["package"]: c for c in summary["campaigns"]}
    etcd = campaigns["etcd"]
    assert (etcd["from"], etcd["to"], etcd["clusters"]) == ("0.9.2", "0.9.4", 21)
    assert etcd["blockers"] == {"blockingTarget": 0, "moreRbac": 6}
    assert [(b["batch"], b["clusters"]) for b in etcd["batches"]] == [
        ("canary", 1), ("early", 2), ("rest", 18),
    ]  # fmt: skip
    assert etcd["batches"][0]["members"] == ["c0.json"]
    assert etcd["batches"][1]["members"] == ["c1.json", "c2.json"]
    gitlab = campaigns["gitlab"]
    assert gitlab["clusters"] == 7 and gitlab["blockers"]["blockingTarget"] == 7
    assert summary["campaigns"][0]["package"] == "etcd"  # the largest first
    one = Rollup()
    for item in fleet():
        one.add(item)
    assert one.summary() == summary

    text = summary_text(summary)
    assert "Campaigns (23 updates by package" in text
    assert (
        "etcd 0.9.2 -> 0.9.4: 21 clusters (6 ask for more RBAC); canary c0.json, then 2, then 18"
        in text
    )
    assert "gitlab 2.3.0 -> 3.3.0: 7 clusters (7 block the target)" in text
    page = summary_html(summary, [])
    assert "Campaigns (updates by package; batches canary first)" in page
    assert "canary 1: c0.json; early 2: c1.json, c2.json; rest 18:" in page


def test_one_cluster_is_one_cluster() -> None:
    text = summary_text(summed([record(0, [operator("etcd", "0.9.2", "0.9.4")])]))
    assert text.startswith("Fleet: 1 cluster, 1 planned")
    assert "wave 1: 1 cluster: update etcd" in text
    assert "1 clusters" not in text


def test_the_html_carries_what_text_and_json_carry_and_says_what_it_cut() -> None:
    records = [record(n, [operator(f"p{n}", "1.0.0", "2.0.0")]) for n in range(130)]
    since = {
        "updatesChanged": [{"package": "p1", "before": None, "after": "p1.v2.0.0"}],
        "newlyStranded": ["q"], "newlyBlocked": [], "noLongerBlocked": [],
    }  # fmt: skip
    failed = [{"kind": "ClusterExtension", "extension": "x", "package": "p",
               "error": "no bundle installed"}]  # fmt: skip
    records.append(record(130, [operator("q", "1.0.0", None)], stranded=["q"], needsChange=True,
                          since=since, operatorErrors=failed))  # fmt: skip
    summary = summed(records)
    assert len(summary["waves"]) == 131
    page = summary_html(summary, [])
    for heading in ("Updates available", "Stranded installs", "Operator errors",
                    "Since --since: updates changed", "Since --since: newly stranded"):  # fmt: skip
        assert f"<h2>{heading}" in page, heading
    assert "no bundle installed" in page
    assert "… 31 more waves not shown here (-o json lists every one)" in page


def test_the_versions_chart_has_a_legend_and_no_colour_twice_in_a_row() -> None:
    versions = [f"1.{n}.0" for n in range(14)]
    records = [record(n, [operator("etcd", v, None)]) for n, v in enumerate(versions)]
    page = summary_html(summed(records), [])
    chart = page[page.index("Versions in use per package") :]
    chart = chart[: chart.index("</svg>")]
    assert "most installed version" in chart and "other versions" in chart
    bars = re.findall(r'<rect class="bar"[^>]*fill="(#[0-9a-f]{6})"', chart)
    assert bars == [*PALETTE, OTHER_COLOUR]  # one row: each colour once, the rest summed in grey


def test_the_page_has_a_heading_and_many_waves_chart_as_sizes() -> None:
    """29 clusters, each planned differently, are 29 waves of one cluster (issue 45): the chart
    drew 29 bars of length 1 whose labels (the actions) were cut. Many waves are charted as
    how many waves have each size, with whole labels; a few waves keep a bar each, labelled
    by number. The page shows its title as a heading."""
    many = summed([record(n, [operator(f"p{n}", "1.0.0", "2.0.0")]) for n in range(29)])
    page = summary_html(many, [])
    assert "<h1>Fleet plan</h1>" in page
    chart = page.split("<svg", 2)[1]
    assert 'aria-label="Waves by size (29 waves of clusters with identical plans)"' in chart
    assert chart.count('class="bar"') == 1 and ">waves of 1 cluster<" in chart
    assert "…" not in chart
    few = summed(
        [record(n, [operator("p", "1.0.0", "2.0.0" if n % 3 else "3.0.0")]) for n in range(9)]
    )
    chart = summary_html(few, []).split("<svg", 2)[1]
    assert 'aria-label="Clusters per wave (identical plans)"' in chart
    assert chart.count('class="bar"') == 2 and ">wave 1<" in chart and ">wave 2<" in chart
