"""``deppy show PACKAGE``: everything a user asks before installing or upgrading a package."""

from __future__ import annotations

import click

from deppy.catalog.catalog_set import BundleSource
from deppy.catalog.model import Bundle
from deppy.cli.main import cli
from deppy.cli.workflow_options import catalog_options, catalog_source, columns, dump
from deppy.errors import InputError
from deppy.workflows.catalog_loading import unknown_package
from deppy.workflows.graph import ChannelGraph, channel_graph, graph_as_dot, graph_as_text
from deppy.workflows.search import package_head

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
    help="text for people; json/yaml: channels, versions and upgrade edges as data.",
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
    source = catalog_source(catalogs, quiet=quiet, sources=sources)
    found = source.catalogs_with(package)
    if not found:
        raise unknown_package(source, package, f"package {package!r}")
    graphs = [
        channel_graph(source, c, catalog)
        for catalog in found
        for c in source.channels(catalog, package)
        if channel is None or c.name == channel
    ]
    graphs.sort(key=lambda g: (source.rank(g.catalog), not g.default, g.name))
    if channel is not None and not graphs:
        names = sorted({c.name for k in found for c in source.channels(k, package)})
        raise InputError(
            f"--channel {channel!r}",
            f"package {package} has no such channel",
            f"its channels: {', '.join(names)}",
        )
    if graph_format == "dot":
        click.echo(graph_as_dot(graphs, package))
        return
    if output != "text":
        dump(
            {"package": package, "catalogs": [_as_data(source, c, package, graphs) for c in found]},
            output,
        )
        return
    for n, catalog in enumerate(found):
        if n:
            click.echo("")
        ours = [g for g in graphs if g.catalog == catalog]
        for line in _describe(source, catalog, package, ours):
            click.echo(line)


def _describe(
    source: BundleSource, catalog: str, package: str, graphs: list[ChannelGraph]
) -> list[str]:
    meta = source.package(catalog, package)
    head = package_head(source, catalog, package)
    csv = head.csv_metadata if head is not None and head.csv_metadata else {}
    display = csv.get("displayName")
    title = f"{package} — {display}" if isinstance(display, str) and display else package
    lines = [f"{title} (catalog {catalog})"]
    description = (meta.description if meta else "") or csv.get("description") or ""
    if isinstance(description, str) and description.strip():
        flat = " ".join(description.split())
        cut = flat if len(flat) <= DESCRIPTION_WIDTH else flat[: DESCRIPTION_WIDTH - 1] + "…"
        lines.append(cut)
    lines.append(f"Default channel: {(meta.default_channel if meta else None) or '-'}")
    lines.append(
        "Channels: "
        + ", ".join(
            f"{g.name} ({_count(len(g.bundles))}, head {', '.join(g.heads) or '-'})" for g in graphs
        )
    )
    lines += _deprecations(source, catalog, package)
    bundles = [b for b in source.bundles_of(package) if b.catalog == catalog]
    bundles.sort(key=lambda b: (b.version, b.name), reverse=True)
    lines += ["", "Versions (newest first):"]
    rows = [_version_row(b, graphs) for b in bundles]
    lines += [
        "  " + line for line in columns(("VERSION", "BUNDLE", "CHANNELS", "LIMITS", "NEEDS"), rows)
    ]
    if head is not None:
        lines += ["", f"Provided APIs ({head.version}):"]
        lines += [f"  {gvk}" for gvk in sorted(head.provided_gvks)] or ["  none"]
    lines += ["", "Upgrade graphs:"]
    for graph in graphs:
        lines += ["  " + line for line in graph_as_text(graph)]
    return lines


def _as_data(
    source: BundleSource, catalog: str, package: str, graphs: list[ChannelGraph]
) -> dict[str, object]:
    meta = source.package(catalog, package)
    bundles = sorted(
        (b for b in source.bundles_of(package) if b.catalog == catalog),
        key=lambda b: (b.version, b.name),
        reverse=True,
    )
    ours = [g for g in graphs if g.catalog == catalog]
    return {
        "catalog": catalog,
        "defaultChannel": meta.default_channel if meta else None,
        "channels": [
            {
                "name": g.name,
                "heads": list(g.heads),
                "deprecated": g.deprecated,
                "bundles": [b.name for b in g.bundles],
                "edges": [{"from": e.source, "to": e.target, "kind": e.kind} for e in g.edges],
            }
            for g in ours
        ],
        "versions": [
            dict(
                zip(
                    ("version", "bundle", "channels", "limits", "needs"),
                    _version_row(b, ours),
                    strict=True,
                )
            )
            | {"image": b.image}
            for b in bundles
        ],
    }


def _count(bundles: int) -> str:
    return f"{bundles} bundle" if bundles == 1 else f"{bundles} bundles"


def _deprecations(source: BundleSource, catalog: str, package: str) -> list[str]:
    found: list[str] = []
    bundles = [b for b in source.bundles_of(package) if b.catalog == catalog]
    if bundles:
        whole = source.deprecation_of(bundles[0])
        if whole is not None and whole.schema == "olm.package":
            found.append(f"  package: {whole.message}")
    for channel in source.channels(catalog, package):
        message = source.channel_deprecated(catalog, package, channel.name)
        if message is not None:
            found.append(f"  channel {channel.name}: {message}")
    for bundle in sorted(bundles, key=lambda b: (b.version, b.name), reverse=True):
        entry = source.deprecation_of(bundle)
        if entry is not None and entry.schema == "olm.bundle":
            found.append(f"  bundle {bundle.name}: {entry.message}")
    return ["Deprecations:", *found] if found else ["Deprecations: none"]


def _version_row(bundle: Bundle, graphs: list[ChannelGraph]) -> tuple[str, ...]:
    channels = [g.name for g in graphs if bundle in g.bundles]
    limits = []
    if bundle.max_openshift_version is not None:
        limits.append(f"OpenShift <= {bundle.max_openshift_version}")
    if bundle.min_kube_version is not None:
        limits.append(f"Kubernetes >= {bundle.min_kube_version}")
    needs = [f"package {r}" for r in bundle.required_packages]
    needs += [f"API {gvk}" for gvk in bundle.required_gvks]
    needs += [f"label {label}" for label in bundle.required_labels]
    needs += ["an olm.constraint"] * len(bundle.constraints)
    return (
        str(bundle.version),
        bundle.name,
        ", ".join(channels) or "-",
        ", ".join(limits) or "-",
        "; ".join(needs) or "-",
    )
