"""``deppy trace FILE`` summarises a recorded execution; ``deppy replay FILE`` re-runs it."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from deppy.cli.answer_output import render
from deppy.cli.data_output import say
from deppy.cli.main import EXIT_UNRESOLVABLE, cli
from deppy.cli.workflow_options import dump, output_option, trace_option, warn
from deppy.errors import InputError, excerpt
from deppy.pipeline.constraint_codec import decode_constraint
from deppy.pipeline.domain import find_domain
from deppy.pipeline.replay import DAMAGE, replay
from deppy.pipeline.trace import Trace, read_trace, trace_file
from deppy.resolution.resolver import resolution_of
from deppy.terminal_text import terminal_text

SHOWN_IDS = 6


@cli.command("replay")
@click.argument("file", type=click.Path(path_type=Path))
@output_option("text", "json", "yaml", "table")
@click.option("-v", "--verbose", is_flag=True, help="Also show the solver-level constraints.")
@trace_option("Record the replay as a trace too.")
def replay_cmd(file: Path, output: str, verbose: bool, trace: Path | None) -> None:
    """Re-run a recorded resolution from its trace FILE alone (no catalog needed).

    The recorded inputs of the solver are fed back through the solver and the output
    collector, which ask the catalog questions the trace recorded; the answer is the one
    `deppy resolve` printed with the same -o. Exit 0 resolved, 1 unresolvable, 2 bad input.
    """
    recorded = read_trace(file)
    domain = find_domain(str(recorded.header["domain"]), str(file))
    try:
        if trace is None:
            result = replay(recorded, domain)
        else:
            with trace_file(trace, domain) as writer:
                result = replay(recorded, domain, sink=writer)
        resolution = resolution_of(result)
        if recorded.notes:  # what the command added to its answer after the pipeline
            warnings = tuple(dict.fromkeys((*recorded.notes, *resolution.warnings)))
            resolution = replace(resolution, warnings=warnings)
        resolution.as_dict()  # everything the answer shows, worked out before a line of it
    except DAMAGE as error:  # each record read, but what they hold does not fit together
        raise recorded.damaged("its records do not fit together", error) from None
    for warning in resolution.warnings:
        warn(warning)
    render(resolution, output, verbose=verbose)
    raise SystemExit(0 if resolution.resolved else EXIT_UNRESOLVABLE)


@cli.command("trace")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--variables", is_flag=True, help="List every variable each node produced (by id).")
@output_option("text", "json", "yaml")
def trace_cmd(file: Path, variables: bool, output: str) -> None:
    """Summarise a trace FILE: nodes, states, counts, timings, variables and solver outcome."""
    recorded = read_trace(file)
    try:
        if output != "text":
            dump(_as_data(recorded), output)
            return
        _show(recorded, variables)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        raise InputError(
            str(file),
            f"the trace is damaged ({type(error).__name__}: {excerpt(str(error))})",
            "record it again with deppy resolve --trace FILE",
        ) from None


def _as_data(recorded: Trace) -> dict[str, object]:
    header, result = recorded.header, recorded.result or {}
    return {
        "pipeline": header.get("pipeline"),
        "pipelineId": header.get("pipeline_id"),
        "executionId": header.get("execution_id"),
        "created": header.get("created"),
        "outcome": result.get("outcome"),
        "message": result.get("message"),
        "nodes": result.get("nodes", []),
        "events": dict(sorted(_Summary(recorded).event_types.items())),
    }


def _show(recorded: Trace, variables: bool) -> None:
    import io

    from rich.console import Console  # deferred: `deppy resolve` imports this module
    from rich.table import Table

    summary = _Summary(recorded)
    # Rendered to text first (no markup: a name is never read as [style]), then written once
    # whole as all text for people is, every line printable: a trace that fails half-way
    # through leaves no half a report on stdout.
    rendered = io.StringIO()
    console = Console(
        file=rendered, width=140, highlight=False, soft_wrap=False, markup=False, emoji=False
    )

    header = recorded.header
    console.print(
        f"pipeline {header.get('pipeline', '?')} (id {header['pipeline_id']}), "
        f"execution {header['execution_id']}, recorded {header.get('created', '?')}"
    )
    result = recorded.result or {}
    outcome = result.get("outcome", "incomplete (the trace has no result record)")
    message = f" — {result['message']}" if result.get("message") else ""
    console.print(f"execution {outcome}{message}")
    table = Table(title="Nodes (in execution order)", title_justify="left")
    for column in ("node", "type", "state", "in", "out", "ms", "produced"):
        table.add_column(column, overflow="fold")
    for node in result.get("nodes", []):
        name = node["name"]
        cells = (
            name,
            node["type"],
            node["state"] + (f"\n{node['reason']}" if node.get("reason") else ""),
            str(node["received"]),
            str(node["emitted"]),
            _ms(node),
            summary.produced_text(name, everything=False),
        )  # escaped before rich measures them, so the columns line up
        table.add_row(*(terminal_text(str(cell)) for cell in cells))
    console.print(table)
    if variables:  # plain lines after the table: folding a cell of 100,000 ids took minutes
        for node in result.get("nodes", []):
            ids = summary.produced.get(node["name"]) or []
            if ids:
                rendered.write(f"variables produced by {node['name']} ({len(ids)}):\n")
                rendered.write("".join(f"  {i}\n" for i in ids))
    for name, error in summary.errors():
        console.print(f"error from {name}: {error}")
    for line in summary.solver_outcome():
        console.print(line)
    console.print(
        f"{len(recorded.events)} events; "
        + ", ".join(f"{n} {kind}" for kind, n in sorted(summary.event_types.items()))
    )
    say(rendered.getvalue(), nl=False)


def _ms(node: dict[str, Any]) -> str:
    started, finished = node.get("started"), node.get("finished")
    if started is None or finished is None:
        return "-"
    return f"{(finished - started) * 1000:.2f}"


class _Summary:
    """What a trace says, read from its JSON alone (no domain code needed)."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self.records: dict[str, dict[str, Any]] = {}  # variable id -> latest full record
        self.produced: dict[str, list[str]] = {}  # node -> variable ids it emitted
        self.cores: dict[str, list[tuple[str, int]]] = {}
        self.event_types: Counter[str] = Counter()
        self._errors: dict[str, str] = {}
        result_nodes = (trace.result or {}).get("nodes", [])
        self._consumers = {n["name"] for n in result_nodes if n.get("kind") == "consumer"}
        payloads: dict[str, dict[str, Any]] = {}
        for event in trace.events:
            self.event_types[str(event.get("type"))] += 1
            if event.get("type") == "error":
                error = event.get("error") or {}
                self._errors.setdefault(str(event.get("creator")), str(error.get("message")))
                continue
            payload = event.get("payload")
            if payload is None:
                payload = payloads.get(str(event.get("payload_of")), {})
            else:
                payloads[str(event["id"])] = payload
                for item in payload.get("variables", []):
                    if isinstance(item, dict):
                        self.records[str(item["id"])] = item
            sender = str(event.get("sender"))
            if sender not in self.produced:
                self.produced[sender] = [_id(i) for i in payload.get("variables", [])]
                if "core" in payload:
                    self.cores[sender] = [(str(i), int(n)) for i, n in payload["core"]]

    def produced_text(self, node: str, *, everything: bool) -> str:
        ids = self.produced.get(node)
        if ids is None:
            return "(consumer)" if node in self._consumers else "-"
        kinds = Counter(str(self.records.get(i, {}).get("kind", "?")) for i in ids)
        counts = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items())) or "nothing"
        shown = ids if everything else ids[:SHOWN_IDS]
        more = "" if everything or len(ids) <= SHOWN_IDS else f"\n… and {len(ids) - SHOWN_IDS} more"
        return counts + ("\n" + "\n".join(shown) if shown else "") + more

    def errors(self) -> list[tuple[str, str]]:
        return sorted(self._errors.items())

    def solver_outcome(self) -> list[str]:
        lines: list[str] = []
        config = self.trace.header.get("config", {})
        solvers = [
            n["name"] for n in config.get("spec", {}).get("nodes", []) if n.get("type") == "solver"
        ]
        for name in solvers:
            if name not in self.produced:
                lines.append(f"solver {name}: no outcome recorded")
            elif name in self.cores:
                core = self.cores[name]
                lines.append(f"solver {name}: unsatisfiable; a minimal core of {len(core)}:")
                lines += [f"  {self._describe(i, n)}" for i, n in core]
            else:
                selected = self.produced[name]
                lines.append(f"solver {name}: satisfiable; selected {len(selected)} variables:")
                lines += [f"  {i}" for i in selected]
        return lines

    def _describe(self, identifier: str, position: int) -> str:
        record = self.records.get(identifier)
        try:
            assert record is not None
            return decode_constraint(record["constraints"][position]).describe(identifier)
        except (AssertionError, KeyError, IndexError, TypeError):
            return f"{identifier}: constraint #{position}"


def _id(item: Any) -> str:
    return str(item["id"]) if isinstance(item, dict) else str(item)
