"""Pipeline configuration: read from YAML, checked before anything runs, hashed into an id.

A pipeline file names nodes from a library of node types and wires them by ``inputs``. It is
rejected, with a message naming the node, when a type is unknown, an input is missing, the
wiring has a cycle or a node's output reaches no consumer. The pipeline id is a hash of the
normalised configuration, so any change to it gives a new id.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from deppy.errors import InputError, check_type, excerpt, only_fields
from deppy.input_limits import UnsafeInput, read_input, yaml_value
from deppy.pipeline.library import NodeConfig, NodeLibrary
from deppy.pipeline.states import NodeKind

API_VERSION = "deppy.io/v1alpha1"
KIND = "Pipeline"
_TOP_FIELDS = ("apiVersion", "kind", "metadata", "spec")
_METADATA_FIELDS = ("name", "description")
_NODE_FIELDS = ("name", "type", "inputs", "config")
# fields written one level off: where each belongs
_BELONGS = {
    "nodes": "spec",
    "description": "metadata",
    "type": "spec.nodes[]",
    "inputs": "spec.nodes[]",
    "config": "spec.nodes[]",
}


@dataclass(frozen=True, slots=True)
class PipelineSpec:
    name: str
    description: str
    nodes: tuple[NodeConfig, ...]
    where: str  # the file (or "trace FILE") it came from, for messages

    def as_data(self) -> dict[str, Any]:
        """The normalised configuration: what the id hashes and what traces record."""
        return {
            "apiVersion": API_VERSION,
            "kind": KIND,
            "metadata": {"name": self.name, "description": self.description},
            "spec": {
                "nodes": [
                    {
                        "name": n.name,
                        "type": n.type,
                        "inputs": list(n.inputs),
                        "config": dict(n.config),
                    }
                    for n in self.nodes
                ]
            },
        }

    @property
    def id(self) -> str:
        data = orjson.dumps(self.as_data(), option=orjson.OPT_SORT_KEYS)
        return hashlib.sha256(data).hexdigest()[:16]


def load_pipeline_file(path: str | Path) -> PipelineSpec:
    where = str(path)
    text = read_input(path, "the pipeline file")
    if where.endswith(".json"):  # the shipped default's twin: no YAML parser to import
        try:
            return parse_pipeline(orjson.loads(text), where)
        except orjson.JSONDecodeError as error:
            raise InputError(where, f"not valid JSON: {error}", "fix the syntax") from None
    import yaml  # deferred: ~15 ms of start-up that the default pipeline does not need

    try:
        data = yaml_value(text)
    except UnsafeInput as error:
        raise InputError(where, str(error), "deppy refuses such input") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else ""
        why = getattr(error, "problem", None) or "syntax"
        raise InputError(where, f"not valid YAML{line}: {why}", "fix the file") from None
    return parse_pipeline(data, where)


def parse_pipeline(data: Any, where: str) -> PipelineSpec:
    """Structure only; :func:`validate` checks the graph against a library."""
    if not isinstance(data, Mapping):
        raise InputError(where, "expected a Pipeline object", f"start the file with 'kind: {KIND}'")
    if data.get("kind") != KIND:
        raise InputError(
            where, f"field 'kind' must be {excerpt(KIND)}, got {excerpt(data.get('kind'))}"
        )
    check_type(data, where, API_VERSION, KIND)
    only_fields(data, _TOP_FIELDS, f"{where}:", _BELONGS)
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, Mapping) or not isinstance(metadata.get("name"), str):
        raise InputError(f"{where}: metadata", "field 'name' must be a string")
    only_fields(metadata, _METADATA_FIELDS, f"{where}: metadata", _BELONGS)
    description = metadata.get("description") or ""
    if not isinstance(description, str):
        raise InputError(f"{where}: metadata", "field 'description' must be a string")
    spec = data.get("spec")
    if isinstance(spec, Mapping):
        only_fields(spec, ("nodes",), f"{where}: spec", _BELONGS)
    raw_nodes = spec.get("nodes") if isinstance(spec, Mapping) else None
    if not isinstance(raw_nodes, list) or not raw_nodes:
        raise InputError(f"{where}: spec", "field 'nodes' must be a non-empty list of nodes")
    nodes = tuple(_node(raw, f"{where}: node #{n + 1}", where) for n, raw in enumerate(raw_nodes))
    spec_data = PipelineSpec(metadata["name"], description, nodes, where)
    try:
        orjson.dumps(spec_data.as_data())
    except TypeError as error:
        raise InputError(
            where, f"a node's config holds a value that is not JSON: {error}"
        ) from None
    return spec_data


def _node(raw: Any, where: str, file: str) -> NodeConfig:
    if not isinstance(raw, Mapping):
        raise InputError(where, "expected an object with 'name' and 'type'")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise InputError(where, "field 'name' must be a non-empty string")
    where = f"{file}: node {excerpt(name)}"
    only_fields(raw, _NODE_FIELDS, f"{where}:", _BELONGS)
    kind = raw.get("type")
    if not isinstance(kind, str) or not kind:
        raise InputError(where, "field 'type' must be a node type name")
    inputs = raw.get("inputs") or []
    if not isinstance(inputs, list) or not all(isinstance(i, str) for i in inputs):
        raise InputError(where, "field 'inputs' must be a list of node names")
    config = raw.get("config") or {}
    if not isinstance(config, Mapping):
        raise InputError(where, "field 'config' must be an object")
    return NodeConfig(name, kind, tuple(inputs), dict(config), where)


def validate(spec: PipelineSpec, library: NodeLibrary) -> list[str]:
    """Check names, types, inputs, acyclicity and reachability; the topological order.

    The order is deterministic: among nodes whose inputs are done, the one declared first runs
    first.
    """
    by_name: dict[str, NodeConfig] = {}
    for node in spec.nodes:
        if node.name in by_name:
            raise InputError(node.where, "another node has this name", "give each a unique name")
        by_name[node.name] = node
    kinds: dict[str, NodeKind] = {}
    for node in spec.nodes:
        node_type = library.get(node.type)
        if node_type is None:
            raise InputError(
                node.where,
                f"unknown node type {excerpt(node.type)}",
                f"known types: {', '.join(library.names())}",
            )
        kinds[node.name] = node_type.kind
    for node in spec.nodes:
        _check_inputs(node, kinds, by_name)
    order = _topological(spec, by_name)
    if not any(kind is NodeKind.CONSUMER for kind in kinds.values()):
        raise InputError(spec.where, "the pipeline has no consumer", "add an output-collector")
    _check_orphans(spec, kinds)
    return order


def _check_inputs(
    node: NodeConfig, kinds: Mapping[str, NodeKind], by_name: Mapping[str, NodeConfig]
) -> None:
    kind = kinds[node.name]
    if kind is NodeKind.PRODUCER and node.inputs:
        raise InputError(
            node.where, f"a producer ({node.type}) takes no inputs", "remove its 'inputs'"
        )
    if kind is not NodeKind.PRODUCER and not node.inputs:
        raise InputError(
            node.where,
            f"a {kind.value} ({node.type}) needs inputs",
            "list the nodes it reads in 'inputs'",
        )
    seen: set[str] = set()
    for name in node.inputs:
        if name not in by_name:
            raise InputError(
                node.where,
                f"input {excerpt(name)} is not a node of this pipeline",
                f"nodes: {', '.join(by_name)}",
            )
        if name in seen:
            raise InputError(node.where, f"input {excerpt(name)} is listed twice")
        seen.add(name)
        if kinds[name] is NodeKind.CONSUMER:
            raise InputError(
                node.where,
                f"input {excerpt(name)} is a consumer, which emits nothing",
                "read from a producer or a processor",
            )


def _topological(spec: PipelineSpec, by_name: Mapping[str, NodeConfig]) -> list[str]:
    order: list[str] = []
    done: set[str] = set()
    pending = [n.name for n in spec.nodes]
    while pending:
        ready = next((n for n in pending if all(i in done for i in by_name[n].inputs)), None)
        if ready is None:
            cycle = _cycle(pending, by_name)
            raise InputError(
                by_name[cycle[0]].where,
                f"its inputs form a cycle {' -> '.join([*cycle, cycle[0]])}",
                "a pipeline must be a directed acyclic graph",
            )
        order.append(ready)
        done.add(ready)
        pending.remove(ready)
    return order


def _cycle(pending: list[str], by_name: Mapping[str, NodeConfig]) -> list[str]:
    """A cycle among nodes that never became ready, in data-flow order, first-declared first."""
    left = set(pending)
    path: list[str] = []
    node = pending[0]
    while node not in path:
        path.append(node)
        node = next(i for i in by_name[node].inputs if i in left)
    cycle = path[path.index(node) :][::-1]
    start = min(range(len(cycle)), key=lambda k: pending.index(cycle[k]))
    return cycle[start:] + cycle[:start]


def _check_orphans(spec: PipelineSpec, kinds: Mapping[str, NodeKind]) -> None:
    feeds: dict[str, list[str]] = {n.name: [] for n in spec.nodes}
    for node in spec.nodes:
        for name in node.inputs:
            feeds[name].append(node.name)
    useful = {name for name, kind in kinds.items() if kind is NodeKind.CONSUMER}
    changed = True
    while changed:
        changed = False
        for name, targets in feeds.items():
            if name not in useful and any(t in useful for t in targets):
                useful.add(name)
                changed = True
    for node in spec.nodes:
        if node.name not in useful:
            where = "goes nowhere" if not feeds[node.name] else "reaches no consumer"
            raise InputError(
                node.where,
                f"orphan node: its output {where}",
                "make it an input of another node, or remove it",
            )
