"""``deppy show PACKAGE``: everything a user asks before installing or upgrading a package."""

from __future__ import annotations

import click

from deppy.cli.data_output import emit, say
from deppy.cli.main import cli
from deppy.cli.workflow_options import (
    catalog_options,
    catalog_source,
    columns,
    dump,
    warn_problems,
)
from deppy.workflows.graph import graph_as_dot, graph_as_text
from deppy.workflows.show import PackageView, package_graphs, package_views

DESCRIPTION_WIDTH = 100


@cli.command("show")
@click.argument("package")
@catalog_options
@click.option("--channel", help="Show only this channel's upgrade graph.")
@click.option(
    "-o",
    "--output",
    type=click.Choice(["text", "json", "yaml"]),
    default="text",
    show_default=True,
    help="text for people; json/yaml: the same description as data.",
)
@click.option(
    "--graph",
    "graph_format",
    type=click.Choice(["text", "dot"]),
    default="text",
    show_default=True,
    help="text: the whole description with each channel's upgrade tree; dot: only the upgrade "
    "graphs, as Graphviz DOT (deppy show P --graph dot | dot -Tsvg > p.svg).",
)
def show_cmd(
    package: str,
    catalogs: tuple[str, ...],
    sources: tuple[str, ...],
    channel: str | None,
    output: str,
    graph_format: str,
) -> None:
    """Show a package: channels, default channel, versions, deprecations, dependencies,
    provided APIs and each channel's upgrade graph."""
    quiet = graph_format == "dot" or output != "text"
    source = catalog_source(catalogs, quiet=quiet, sources=sources, problems_later=True)
    graphs = package_graphs(source, package, channel)
    warn_problems(source, source.catalogs_with(package))
    if graph_format == "dot":
        emit(graph_as_dot(graphs, package))
        return
    views = package_views(source, package, graphs)
    if output != "text":
        dump({"package": package, "catalogs": [view.as_dict() for view in views]}, output)
        return
    for n, view in enumerate(views):
        if n:
            say("")
        for line in _describe(view):
            say(line)


def _describe(view: PackageView) -> list[str]:
    title = f"{view.package} — {view.display_name}" if view.display_name else view.package
    lines = [f"{title} (catalog {view.catalog})"]
    if view.description.strip():
        flat = " ".join(view.description.split())
        cut = flat if len(flat) <= DESCRIPTION_WIDTH else flat[: DESCRIPTION_WIDTH - 1] + "…"
        lines.append(cut)
    lines.append(f"Default channel: {view.default_channel or '-'}")
    lines.append(
        "Channels: "
        + ", ".join(
            f"{g.name} ({_count(len(g.bundles))}, head {', '.join(g.heads) or '-'})"
            for g in view.graphs
        )
    )
    if view.deprecations:
        lines.append("Deprecations:")
        lines += [
            f"  {d.scope}: {d.message}"
            if d.scope == "package"
            else f"  {d.scope} {d.name}: {d.message}"
            for d in view.deprecations
        ]
    else:
        lines.append("Deprecations: none")
    lines += ["", "Versions (newest first):"]
    rows = [
        (
            str(v.bundle.version),
            v.bundle.name,
            ", ".join(v.channels) or "-",
            ", ".join(v.limits()) or "-",
            "; ".join(v.needs()) or "-",
        )
        for v in view.versions
    ]
    lines += [
        "  " + line for line in columns(("VERSION", "BUNDLE", "CHANNELS", "LIMITS", "NEEDS"), rows)
    ]
    head = view.head
    if head is not None:
        lines += ["", f"Provided APIs ({head.version}):"]
        lines += [f"  {gvk}" for gvk in sorted(head.provided_gvks)] or ["  none"]
    lines += ["", "Upgrade graphs:"]
    for graph in view.graphs:
        lines += ["  " + line for line in graph_as_text(graph)]
    return lines


def _count(bundles: int) -> str:
    return f"{bundles} bundle" if bundles == 1 else f"{bundles} bundles"
