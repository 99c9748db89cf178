"""Custom OLM pipelines: declarative nudges change the answer as declared; a failing node
fails the execution with its name; a deadline aborts it. Real catalog: operatorhubio 2021."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.catalog.model import Catalog
from deppy.cli import resolve_command, trace_command  # noqa: F401  (register the subcommands)
from deppy.cli.main import cli
from deppy.errors import InputError
from deppy.explain import explanation_as_text
from deppy.pipeline.config import load_pipeline_file
from deppy.pipeline.engine import Pipeline
from deppy.pipeline.events import Batch
from deppy.pipeline.library import NodeConfig, NodeLibrary, NodeType, Run
from deppy.pipeline.replay import replay
from deppy.pipeline.states import NodeKind, NodeState
from deppy.pipeline.trace import TraceWriter, parse_trace
from deppy.resolution.answer import Resolution
from deppy.resolution.context import ResolutionContext
from deppy.resolution.node_library import (
    DOMAIN,
    LIBRARY,
    default_pipeline,
    default_pipeline_path,
    load_pipeline,
)
from deppy.resolution.request import RequiredPackage, ResolutionRequest
from deppy.resolution.resolver import resolution_of, resolve, resolve_in_pipeline
from deppy.solver import SolveTimeout
from tests.conftest import shared_path

UPSTREAM = shared_path("catalogs", "operatorhubio-upstream-2021")
SOLVER_INPUTS = [
    "required-packages",
    "installed-packages",
    "nudges",
    "bundles",
    "runtime",
    "global",
]


@pytest.fixture(scope="module")
def upstream_catalog() -> Catalog:
    return load_catalog(UPSTREAM, name="upstream")


@pytest.fixture(scope="module")
def upstream(upstream_catalog: Catalog) -> CatalogSet:
    return CatalogSet([upstream_catalog])


@pytest.fixture(scope="module")
def mirrored(upstream_catalog: Catalog) -> CatalogSet:
    """The same catalog twice: "mirror" preferred (higher priority), "upstream" second."""
    mirror = load_catalog(UPSTREAM, name="mirror", priority=10)
    return CatalogSet([upstream_catalog, mirror])


def write(tmp_path: Path, nodes: list[dict[str, Any]]) -> Path:
    path = tmp_path / "pipeline.yaml"
    data = {"kind": "Pipeline", "metadata": {"name": "custom"}, "spec": {"nodes": nodes}}
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def with_nudges(tmp_path: Path, *rules: dict[str, Any]) -> Pipeline:
    """The default pipeline plus a static producer feeding bundles-and-dependencies and solver."""
    nodes = [
        {"name": "required-packages", "type": "required-package-producer"},
        {"name": "installed-packages", "type": "installed-package-producer"},
        {
            "name": "nudges",
            "type": "static-variable-producer",
            "config": {"variables": list(rules)},
        },
        {
            "name": "bundles",
            "type": "bundles-and-dependencies",
            "inputs": ["required-packages", "installed-packages", "nudges"],
        },
        {
            "name": "runtime",
            "type": "runtime-constraints",
            "inputs": ["installed-packages", "bundles"],
        },
        {
            "name": "global",
            "type": "global-constraints",
            "inputs": ["installed-packages", "nudges", "bundles"],
        },
        {"name": "solver", "type": "solver", "inputs": SOLVER_INPUTS},
        {"name": "output", "type": "output-collector", "inputs": ["solver"]},
    ]
    return load_pipeline(str(write(tmp_path, nodes)))


def with_filter(tmp_path: Path, config: dict[str, Any]) -> Pipeline:
    """Every variable passes the filter before the constraints and the solver."""
    nodes = [
        {"name": "required-packages", "type": "required-package-producer"},
        {"name": "installed-packages", "type": "installed-package-producer"},
        {
            "name": "bundles",
            "type": "bundles-and-dependencies",
            "inputs": ["required-packages", "installed-packages"],
        },
        {
            "name": "filter",
            "type": "filter-processor",
            "inputs": ["required-packages", "installed-packages", "bundles"],
            "config": config,
        },
        {"name": "runtime", "type": "runtime-constraints", "inputs": ["filter"]},
        {"name": "global", "type": "global-constraints", "inputs": ["filter"]},
        {"name": "solver", "type": "solver", "inputs": ["filter", "runtime", "global"]},
        {"name": "output", "type": "output-collector", "inputs": ["solver"]},
    ]
    return load_pipeline(str(write(tmp_path, nodes)))


def wanted(*packages: str) -> ResolutionRequest:
    return ResolutionRequest(required=tuple(RequiredPackage(p) for p in packages))


def picked(resolution: Resolution) -> dict[str, str]:
    assert resolution.selection is not None, resolution.explanation
    return {s.package: s.version for s in resolution.selection}


def explained(resolution: Resolution) -> str:
    assert resolution.explanation is not None, resolution.selection
    return explanation_as_text(resolution.explanation)


def test_prohibit_steers_the_answer_and_is_explained(upstream: CatalogSet, tmp_path: Path) -> None:
    assert picked(resolve(upstream, wanted("etcd"))) == {"etcd": "0.9.4"}
    pipeline = with_nudges(
        tmp_path, {"prohibit": {"package": "etcd", "versions": ">=0.9.4"}, "reason": "bad backups"}
    )
    assert picked(resolve_in_pipeline(upstream, wanted("etcd"), pipeline=pipeline)) == {
        "etcd": "0.9.2"
    }
    everything = with_nudges(tmp_path, {"prohibit": {"package": "etcd"}, "reason": "no etcd"})
    text = explained(resolve_in_pipeline(upstream, wanted("etcd"), pipeline=everything))
    assert "etcd 0.9.2 is excluded by your restriction nudges=no etcd" in text
    assert "lift the restriction nudges=no etcd" in text


def test_require_adds_a_package_like_a_requirement(upstream: CatalogSet, tmp_path: Path) -> None:
    pipeline = with_nudges(tmp_path, {"require": {"package": "prometheus", "versions": "<0.30.0"}})
    answer = picked(resolve_in_pipeline(upstream, wanted("etcd"), pipeline=pipeline))
    assert answer == {"etcd": "0.9.4", "prometheus": "0.27.0"}


def test_conflict_makes_two_packages_exclusive(upstream: CatalogSet, tmp_path: Path) -> None:
    pipeline = with_nudges(
        tmp_path,
        {"conflict": [{"package": "etcd"}, {"package": "prometheus"}]},
    )
    alone = resolve_in_pipeline(upstream, wanted("etcd"), pipeline=pipeline)
    assert picked(alone) == {"etcd": "0.9.4"}  # the conflict names bundles nobody selects
    both = resolve_in_pipeline(upstream, wanted("etcd", "prometheus"), pipeline=pipeline)
    text = explained(both)
    assert (
        "only one bundle of package etcd or prometheus (in conflict by pipeline node nudges) "
        "can be installed"
    ) in text
    assert "cannot be satisfied together" in text


def test_a_nudged_resolution_replays(upstream: CatalogSet, tmp_path: Path) -> None:
    pipeline = with_nudges(tmp_path, {"conflict": [{"package": "etcd"}, {"package": "prometheus"}]})
    stream = io.BytesIO()
    request = wanted("etcd", "prometheus")
    resolution = resolve_in_pipeline(
        upstream, request, pipeline=pipeline, sink=TraceWriter(stream, DOMAIN)
    )
    again = resolution_of(replay(parse_trace(stream.getvalue(), "t"), DOMAIN))
    assert again.as_dict() == resolution.as_dict()


def test_filter_drops_a_catalog(mirrored: CatalogSet, tmp_path: Path) -> None:
    preferred = resolve(mirrored, wanted("etcd"))
    assert {s.catalog for s in preferred.selection or ()} == {"mirror"}
    pipeline = with_filter(tmp_path, {"drop": [{"catalog": "mirror"}]})
    answer = resolve_in_pipeline(mirrored, wanted("etcd"), pipeline=pipeline)
    assert [(s.package, s.version, s.catalog) for s in answer.selection or ()] == [
        ("etcd", "0.9.4", "upstream")
    ]
    kept = with_filter(tmp_path, {"keep": [{"catalog": "upstream"}]})
    again = resolve_in_pipeline(mirrored, wanted("etcd"), pipeline=kept)
    assert again.as_dict() == answer.as_dict()


def test_filter_by_version_and_what_it_leaves(upstream: CatalogSet, tmp_path: Path) -> None:
    pipeline = with_filter(tmp_path, {"drop": [{"package": "etcd", "versions": ">=0.9.0"}]})
    assert picked(resolve_in_pipeline(upstream, wanted("etcd"), pipeline=pipeline)) == {
        "etcd": "0.6.1"
    }
    everything = with_filter(tmp_path, {"drop": [{"package": "etcd"}]})
    text = explained(resolve_in_pipeline(upstream, wanted("etcd"), pipeline=everything))
    assert "every candidate was dropped by pipeline node filter" in text


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"variables": []}, "config.variables: expected a non-empty list"),
        (
            {"variables": [{"forbid": {"package": "x"}}]},
            "config.variables[0].forbid: unknown field",
        ),
        (
            {"variables": [{"prohibit": {"package": "x", "versions": ">=1.0.0 <<2"}}]},
            "config.variables[0].prohibit: versions: invalid version range",
        ),
        (
            {"variables": [{"conflict": [{"package": "x"}]}]},
            "config.variables[0].conflict: expected a list of two bundle selectors",
        ),
        (
            {"variables": [{"prohibit": {"pakage": "x"}}]},
            "config.variables[0].prohibit.pakage: unknown field; did you mean 'package'?",
        ),
        ({"variable": []}, "config.variable: unknown field; did you mean 'variables'?"),
    ],
)
def test_static_producer_config_errors_name_node_and_field(
    tmp_path: Path, config: dict[str, Any], expected: str
) -> None:
    nodes = [
        {"name": "nudges", "type": "static-variable-producer", "config": config},
        {"name": "solver", "type": "solver", "inputs": ["nudges"]},
        {"name": "output", "type": "output-collector", "inputs": ["solver"]},
    ]
    path = write(tmp_path, nodes)
    with pytest.raises(InputError) as caught:
        load_pipeline(str(path))
    assert str(caught.value).startswith(f"{path}: node 'nudges': ")
    assert expected in str(caught.value)


class Boom:
    def __init__(self, config: NodeConfig) -> None:
        pass

    def process(self, run: Run, batch: Batch[Any]) -> list[Any]:
        raise InputError("catalog upstream", "the bundle index is corrupt")


class Slow:
    def __init__(self, config: NodeConfig) -> None:
        pass

    def process(self, run: Run, batch: Batch[Any]) -> list[Any]:
        raise SolveTimeout()


def broken(middle: str) -> Pipeline:
    """The default pipeline with its global-constraints node replaced by ``middle``."""
    library = NodeLibrary(dict(LIBRARY.types))
    library.register(NodeType("boom", NodeKind.PROCESSOR, Boom, "fails"))
    library.register(NodeType("slow", NodeKind.PROCESSOR, Slow, "runs out of time"))
    spec = load_pipeline_file(default_pipeline_path())
    nodes = tuple(replace(n, type=middle) if n.name == "global" else n for n in spec.nodes)
    return Pipeline(replace(spec, nodes=nodes), library)


def test_a_failing_node_fails_the_execution_and_aborts_the_rest(upstream: CatalogSet) -> None:
    pipeline = broken("boom")
    result = pipeline.run(ResolutionContext.create(upstream, wanted("etcd")))
    assert result.failed_node == "global"
    assert result.message == (
        "node 'global' (boom) failed: catalog upstream: the bundle index is corrupt"
    )
    states = result.states
    assert states["global"] is NodeState.FAILED
    assert {s for n, s in states.items() if n != "global"} == {NodeState.ABORTED}
    with pytest.raises(InputError, match="the bundle index is corrupt"):
        resolve_in_pipeline(upstream, wanted("etcd"), pipeline=pipeline)


def test_an_expired_deadline_aborts_every_olm_node(upstream: CatalogSet) -> None:
    result = broken("slow").run(ResolutionContext.create(upstream, wanted("etcd")))
    assert result.expired and set(result.states.values()) == {NodeState.ABORTED}
    result = default_pipeline().run(ResolutionContext.create(upstream, wanted("etcd")), deadline=0)
    assert result.expired and set(result.states.values()) == {NodeState.ABORTED}
    with pytest.raises(SolveTimeout):
        resolve_in_pipeline(upstream, wanted("etcd"), timeout=1e-9)


def test_a_node_failure_in_the_cli_is_one_line_and_is_traced(tmp_path: Path) -> None:
    """A filter that does not see the required-package variables leaves them naming bundles it
    dropped: the solver node fails, the trace records it, and replay fails the same way."""
    nodes = [
        {"name": "required-packages", "type": "required-package-producer"},
        {"name": "bundles", "type": "bundles-and-dependencies", "inputs": ["required-packages"]},
        {
            "name": "filter",
            "type": "filter-processor",
            "inputs": ["bundles"],
            "config": {"drop": [{"package": "etcd"}]},
        },
        {"name": "solver", "type": "solver", "inputs": ["required-packages", "filter"]},
        {"name": "output", "type": "output-collector", "inputs": ["solver"]},
    ]
    pipeline, trace = write(tmp_path, nodes), tmp_path / "failed.jsonl"
    args = ["resolve", "--catalog", f"{UPSTREAM}=upstream", "--require", "etcd"]
    result = CliRunner().invoke(cli, [*args, "--pipeline", str(pipeline), "--trace", str(trace)])
    assert result.exit_code == 2
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith("deppy: error: resolution: variable 'required package etcd': ")
    assert "refers to unknown variable 'upstream/etcd/" in error
    summary = CliRunner().invoke(cli, ["trace", str(trace)])
    assert summary.exit_code == 0
    assert "execution failed — node 'solver' (solver) failed: resolution: variable" in (
        summary.stdout
    )
    assert "aborted" in summary.stdout and "failed" in summary.stdout
    again = CliRunner().invoke(cli, ["replay", str(trace)])
    assert again.exit_code == 2 and again.stderr.strip().splitlines()[-1] == error
    refused = tmp_path / "refused.jsonl"
    bad_source = [*args, "--source", "nowhere", "--trace", str(refused)]
    assert CliRunner().invoke(cli, bad_source).exit_code == 2
    assert not refused.exists()  # refused before the pipeline ran: no empty trace left
