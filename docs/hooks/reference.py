"""The site's reference pages, written from deppy's own code at build time (an MkDocs hook).

A page asks for a table with a marker line, ``<!-- deppy:reference NAME -->``; this hook
replaces the marker with text generated from the code that the table describes: the HTTP API
from the service's own OpenAPI document, the CRDs from the manifests ``deppy manifests``
writes, the metrics from the metric objects both long-running commands register, and the Event
reasons from the controller's table of them. Hand-written reference text drifts from the code;
this cannot. The CLI reference is mkdocs-click's (``::: mkdocs-click``), which needs every
command registered with the lazy ``deppy`` group first: ``on_config`` does that.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_CATALOG = ROOT / "src" / "deppy" / "data" / "catalog"
MARKER = re.compile(r"^<!-- deppy:reference ([a-z-]+) -->$", re.M)


def on_config(config: Any) -> Any:
    """Register every ``deppy`` subcommand, lazy ones included, so mkdocs-click (which reads a
    group's ``commands``) sees the whole tree."""
    import click

    from deppy.cli.group import cli, register_commands

    def attach(group: click.Group) -> None:
        context = click.Context(group)
        for name in group.list_commands(context):  # lazy groups attach their commands here
            command = group.get_command(context, name)
            if command is not None and command.short_help is None and command.help:
                command.short_help = first_sentence(command.help)
            if isinstance(command, click.Group):
                attach(command)

    register_commands()
    attach(cli)
    return config


SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z(\"']|\s*$)")


def first_sentence(help_text: str) -> str:
    """A command's summary for its group's list: the first sentence of its help. mkdocs-click
    shows the help's first line, which stops mid-sentence where a docstring's first sentence
    wraps ("Show a package: channels, default channel,")."""
    paragraph = " ".join(help_text.strip().split("\n\n", 1)[0].replace("\b", "").split())
    end = SENTENCE_END.search(paragraph)
    return paragraph[: end.end()] if end else paragraph


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replace each reference marker of a page with its generated text."""
    return MARKER.sub(lambda found: GENERATORS[found.group(1)](), markdown)


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    """mkdocs-click prints an option's default as written; click 8.3 gives an option without
    one the default ``Sentinel.UNSET``, which means nothing to a reader: show a dash."""
    return html.replace("<code>Sentinel.UNSET</code>", "—")


def cell(text: object) -> str:
    """Text that stays inside one Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ").strip()


def table(header: Iterable[str], rows: Iterable[Iterable[object]]) -> str:
    names = list(header)
    lines = ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines)


# -- the HTTP API --------------------------------------------------------------------------------
def openapi_document() -> dict[str, Any]:
    """The OpenAPI document ``deppy serve`` answers at ``/openapi.json``, from an app over the
    embedded example catalog (the document does not depend on the catalogs)."""
    from deppy.resolution.request_parsing import parse_catalog
    from deppy.service.app import create_app
    from deppy.service.config import ServiceConfig

    # No parsed-catalog cache: its writer runs in a process of its own, which could still be
    # writing into the temporary home while the directory is removed (seen under load).
    cache_switch = os.environ.get("DEPPY_CACHE")
    os.environ["DEPPY_CACHE"] = "off"
    try:
        with tempfile.TemporaryDirectory() as home:
            catalogs = (parse_catalog(f"{EXAMPLE_CATALOG}=example"),)
            config = ServiceConfig(catalogs=catalogs, reload_interval=0, store=Path(home))
            return create_app(config).openapi()
    finally:
        if cache_switch is None:
            del os.environ["DEPPY_CACHE"]
        else:
            os.environ["DEPPY_CACHE"] = cache_switch


def http_api() -> str:
    document = openapi_document()
    parts = [str(document.get("info", {}).get("description", "")).strip(), ""]
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            parts.append(f"### `{method.upper()} {path}`\n")
            summary = operation.get("summary") or ""
            description = operation.get("description") or ""
            parts.append("\n\n".join(text for text in (summary, description) if text) + "\n")
            parameters = operation.get("parameters") or []
            if parameters:
                rows = [
                    (
                        f"`{p['name']}`",
                        p.get("in", ""),
                        "yes" if p.get("required") else "no",
                        p.get("description", ""),
                    )
                    for p in parameters
                ]
                parts.append(table(["parameter", "in", "required", "what"], rows) + "\n")
            body = operation.get("requestBody", {}).get("content", {})
            if body:
                parts.append("Body: " + ", ".join(f"`{kind}`" for kind in body) + "\n")
            answers = operation.get("responses", {})
            statuses = [
                (f"`{code}`", answer.get("description", "")) for code, answer in answers.items()
            ]
            parts.append(table(["status", "what"], statuses) + "\n")
    parts.append(
        "The whole document, as `GET /openapi.json` serves it:\n\n"
        '??? note "openapi.json"\n\n'
        "    ```json\n"
        + "\n".join("    " + line for line in json.dumps(document, indent=2).splitlines())
        + "\n    ```\n"
    )
    return "\n".join(parts)


# -- the CRDs ------------------------------------------------------------------------------------
def schema_rows(schema: Mapping[str, Any], prefix: str) -> Iterable[tuple[str, str, str]]:
    """Every field of an OpenAPI schema, depth first: its path, type and description."""
    required = set(schema.get("required") or ())
    for name, field in (schema.get("properties") or {}).items():
        path = f"{prefix}.{name}" if prefix else name
        kind = str(field.get("type", "any"))
        if kind == "array":
            kind = f"array of {field.get('items', {}).get('type', 'any')}"
        if name in required:
            kind += " (required)"
        yield f"`{path}`", kind, str(field.get("description", ""))
        yield from schema_rows(field, path)
        items = field.get("items")
        if isinstance(items, Mapping):
            yield from schema_rows(items, f"{path}[]")


def crds() -> str:
    from deppy.controller.install.crds import all_crds

    parts = []
    for crd in all_crds():
        spec = crd["spec"]
        names = spec["names"]
        for version in spec["versions"]:
            parts.append(f"### {names['kind']} (`{spec['group']}/{version['name']}`)\n")
            short = ", ".join(f"`{n}`" for n in names.get("shortNames", ()))
            parts.append(
                f"{spec['scope']}; `kubectl get {names['plural']}`"
                + (f" (or {short})" if short else "")
                + ".\n"
            )
            columns = version.get("additionalPrinterColumns") or []
            if columns:
                shown = [(c["name"], f"`{c['jsonPath']}`") for c in columns]
                parts.append(table(["column", "from"], shown) + "\n")
            schema = version["schema"]["openAPIV3Schema"]
            parts.append(table(["field", "type", "what"], schema_rows(schema, "")) + "\n")
    return "\n".join(parts)


# -- metrics and Events --------------------------------------------------------------------------
def metric_rows(owner: object, registry: Any) -> list[tuple[str, str, str, str]]:
    """Name, type, labels and help of every metric ``owner`` registers in ``registry``: the
    metric objects it holds say their labels, and collectors' families say theirs."""
    from prometheus_client.metrics import MetricWrapperBase

    labels: dict[str, tuple[str, ...]] = {}
    for held in vars(owner).values():
        if isinstance(held, MetricWrapperBase):
            labels[held._name] = tuple(held._labelnames)
    rows = []
    for family in registry.collect():
        if family.name.startswith(("process_", "python_")):
            continue
        shown = family.name + ("_total" if family.type == "counter" else "")
        names = labels.get(family.name, getattr(family, "_labelnames", ()))
        label_text = ", ".join(f"`{name}`" for name in names)
        rows.append((f"`{shown}`", family.type, label_text, family.documentation))
    return sorted(rows)


def metrics() -> str:
    from deppy.controller.catalogs.cache import CatalogCache
    from deppy.controller.metrics import ControllerMetrics
    from deppy.resolution.request_parsing import parse_catalog
    from deppy.service.catalogs import CatalogState
    from deppy.service.metrics import ServiceMetrics

    header = ["metric", "type", "labels", "what"]
    with tempfile.TemporaryDirectory() as home:
        state = CatalogState((parse_catalog(f"{EXAMPLE_CATALOG}=example"),), Path(home))
        service = ServiceMetrics(state, 2)
        served = metric_rows(service, service.registry)
    controller = ControllerMetrics(CatalogCache())
    return (
        "### `deppy serve`: `GET /metrics`\n\n"
        + table(header, served)
        + "\n\n### `deppy controller`: `/metrics` on the health port\n\n"
        + table(header, metric_rows(controller, controller.registry))
        + "\n"
    )


def event_reasons() -> str:
    from deppy.controller.events import EVENT_REASONS

    rows = [
        (f"`{reason.reason}`", "Warning" if reason.warning else "Normal", reason.on, reason.when)
        for reason in EVENT_REASONS
    ]
    return table(["reason", "type", "on", "when"], rows) + "\n"


GENERATORS: dict[str, Callable[[], str]] = {
    "http-api": http_api,
    "crds": crds,
    "metrics": metrics,
    "event-reasons": event_reasons,
}
