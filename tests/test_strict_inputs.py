"""Request and pipeline files are read strictly: a field deppy does not know, one written at the
wrong level, or another apiVersion/kind is an error naming the path and the closest valid name —
never silently ignored while the answer is computed without it (issue 10, item 1)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from deppy.cli.main import cli, register_commands
from deppy.errors import InputError
from deppy.resolution.node_library import load_pipeline
from deppy.resolution.request_parsing import load_request_file

register_commands()

REQUEST = """\
apiVersion: deppy.io/v1alpha1
kind: ActiveResolution
metadata: {name: strict}
spec:
  cluster: {openshiftVersion: "4.18"}
  constraints: [required(etcd)]
"""


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            ('openshiftVersion: "4.18"', 'openshiftVerison: "4.18"'),
            "spec.cluster.openshiftVerison: unknown field; did you mean 'openshiftVersion'?",
        ),
        (("  constraints:", "  excludes: []\n  constraints:"), "spec.excludes: unknown field; "),
        (
            ("spec:\n", "exclude: []\nspec:\n"),
            "request.yaml: exclude: misplaced field; it belongs in spec",
        ),
        (
            ("  constraints:", "  kubernetesVersion: 1.31.0\n  constraints:"),
            "spec.kubernetesVersion: misplaced field; it belongs in spec.cluster",
        ),
        (("metadata: {name: strict}", "metadata: {nmae: strict}"), "metadata.nmae: unknown field"),
        (("deppy.io/v1alpha1", "v1"), "apiVersion: expected 'deppy.io/v1alpha1', got 'v1'"),
        (("kind: ActiveResolution", "kind: Pipeline"), "kind: expected 'ActiveResolution'"),
        (
            ("[required(etcd)]", "[{required: {name: etcd, chanel: alpha}}]"),
            "spec.constraints[0].required.chanel: unknown field; did you mean 'channel'?",
        ),
        (("[required(etcd)]", "[{require: {name: etcd}}]"), "did you mean 'required'?"),
        (
            ("  constraints:", "  catalogs: [{path: x, prio: 1}]\n  constraints:"),
            "spec.catalogs[0].prio: unknown field; did you mean 'priority'?",
        ),
        (
            ("  constraints:", "  exclude: [{type: olm.label, valeu: beta}]\n  constraints:"),
            "spec.exclude[0].valeu: unknown field; did you mean 'value'?",
        ),
    ],
)
def test_a_request_file_field_deppy_does_not_know_is_an_error(
    tmp_path: Path, change: tuple[str, str], expected: str
) -> None:
    assert expected in error_of(load_request_file, tmp_path / "request.yaml", REQUEST, change)


def error_of(load: Callable[[Path], object], path: Path, text: str, change: tuple[str, str]) -> str:
    path.write_text(text.replace(*change), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load(path)
    return str(caught.value)


def test_the_cli_exits_2_on_a_misspelt_request_field(tmp_path: Path) -> None:
    path = tmp_path / "request.yaml"
    path.write_text(REQUEST.replace("openshiftVersion", "openshiftVerison"), encoding="utf-8")
    result = CliRunner().invoke(cli, ["resolve", "-f", str(path)])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert "spec.cluster.openshiftVerison" in result.stderr and "openshiftVersion" in result.stderr


PIPELINE = """\
apiVersion: deppy.io/v1alpha1
kind: Pipeline
metadata: {name: strict}
spec:
  nodes:
    - {name: required-packages, type: required-package-producer}
    - {name: bundles, type: bundles-and-dependencies, inputs: [required-packages]}
    - {name: solver, type: solver, inputs: [required-packages, bundles]}
    - {name: output, type: output-collector, inputs: [solver]}
"""


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("deppy.io/v1alpha1", "deppy.io/v2"), "apiVersion: expected 'deppy.io/v1alpha1'"),
        (
            ("metadata:", "metdata: {}\nmetadata:"),
            "metdata: unknown field; did you mean 'metadata'?",
        ),
        (("  nodes:", "  node: []\n  nodes:"), "spec.node: unknown field; did you mean 'nodes'?"),
        (("{name: strict}", "{name: strict, descripton: x}"), "did you mean 'description'?"),
        (("spec:\n", "nodes: []\nspec:\n"), "nodes: misplaced field; it belongs in spec"),
        (
            ("type: solver,", "typ: solver, type: solver,"),
            "typ: unknown field; did you mean 'type'?",
        ),
    ],
)
def test_a_pipeline_file_field_deppy_does_not_know_is_an_error(
    tmp_path: Path, change: tuple[str, str], expected: str
) -> None:
    load = lambda path: load_pipeline(str(path))  # noqa: E731
    assert expected in error_of(load, tmp_path / "pipeline.yaml", PIPELINE, change)
