"""Pipeline files: the shipped default, and every kind of mistake named at its node."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from deppy.cli import resolve_command  # noqa: F401  (registers the subcommand)
from deppy.cli.main import cli
from deppy.errors import InputError
from deppy.pipeline.config import load_pipeline_file
from deppy.resolution.node_library import default_pipeline, default_pipeline_path, load_pipeline

DEFAULT_NODES = [
    {"name": "required-packages", "type": "required-package-producer"},
    {"name": "installed-packages", "type": "installed-package-producer"},
    {
        "name": "bundles",
        "type": "bundles-and-dependencies",
        "inputs": ["required-packages", "installed-packages"],
    },
    {"name": "global", "type": "global-constraints", "inputs": ["installed-packages", "bundles"]},
    {
        "name": "solver",
        "type": "solver",
        "inputs": ["required-packages", "installed-packages", "bundles", "global"],
    },
    {"name": "output", "type": "output-collector", "inputs": ["solver"]},
]


def write(tmp_path: Path, nodes: list[dict[str, object]], name: str = "custom") -> Path:
    path = tmp_path / "pipeline.yaml"
    data = {
        "apiVersion": "deppy.io/v1alpha1",
        "kind": "Pipeline",
        "metadata": {"name": name},
        "spec": {"nodes": nodes},
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def error_of(path: Path) -> str:
    with pytest.raises(InputError) as caught:
        load_pipeline(str(path))
    return str(caught.value)


def test_the_default_pipeline_is_a_valid_file_of_the_library() -> None:
    pipeline = default_pipeline()
    assert pipeline.name == "olm-default"
    assert [s.name for s in pipeline.steps] == [
        "required-packages",
        "installed-packages",
        "bundles",
        "runtime",
        "global",
        "solver",
        "output",
    ]
    assert pipeline.boundary == {"solver", "output"}
    # the YAML people copy and the JSON twin deppy reads (no YAML parser at start-up) agree:
    # after editing default.yaml, write default.json from it (same objects, orjson indent 2)
    assert load_pipeline_file(default_pipeline_path()).id == pipeline.id


def test_a_valid_custom_pipeline_loads(tmp_path: Path) -> None:
    pipeline = load_pipeline(str(write(tmp_path, DEFAULT_NODES)))
    assert pipeline.id != default_pipeline().id


def test_any_change_gives_a_new_id(tmp_path: Path) -> None:
    first = load_pipeline(str(write(tmp_path, DEFAULT_NODES))).id
    assert load_pipeline(str(write(tmp_path, DEFAULT_NODES))).id == first
    assert load_pipeline(str(write(tmp_path, DEFAULT_NODES, name="renamed"))).id != first
    swapped = [*DEFAULT_NODES]
    swapped[4] = {
        **swapped[4],
        "inputs": ["installed-packages", "required-packages", "bundles", "global"],
    }
    assert load_pipeline(str(write(tmp_path, swapped))).id != first


def replace_node(name: str, **changes: object) -> list[dict[str, object]]:
    return [{**n, **changes} if n["name"] == name else n for n in DEFAULT_NODES]


@pytest.mark.parametrize(
    ("nodes", "expected"),
    [
        (
            replace_node("global", type="global-constraint"),
            "node 'global': unknown node type 'global-constraint'; known types: ",
        ),
        (
            replace_node("solver", inputs=["required-packages", "bundle"]),
            "node 'solver': input 'bundle' is not a node of this pipeline",
        ),
        (
            replace_node("bundles", inputs=None),
            "node 'bundles': a processor (bundles-and-dependencies) needs inputs",
        ),
        (
            replace_node("required-packages", inputs=["bundles"]),
            "node 'required-packages': a producer (required-package-producer) takes no inputs",
        ),
        (
            replace_node("bundles", inputs=["required-packages", "global"]),
            "node 'bundles': its inputs form a cycle bundles -> global -> bundles",
        ),
        (
            [*DEFAULT_NODES, {"name": "spare", "type": "required-package-producer"}],
            "node 'spare': orphan node: its output goes nowhere",
        ),
        (
            [
                *DEFAULT_NODES[:-1],
                {"name": "side", "type": "global-constraints", "inputs": ["bundles"]},
                DEFAULT_NODES[-1],
            ],
            "node 'side': orphan node: its output goes nowhere",
        ),
        (
            [*DEFAULT_NODES, {"name": "output", "type": "output-collector", "inputs": ["solver"]}],
            "node 'output': another node has this name",
        ),
        (
            [*DEFAULT_NODES, {"name": "more", "type": "global-constraints", "inputs": ["output"]}],
            "node 'more': input 'output' is a consumer, which emits nothing",
        ),
        (DEFAULT_NODES[:-1], "the pipeline has no consumer"),
        (
            replace_node("solver", config={"timeout": 3}),
            "node 'solver': config.timeout: unknown field",
        ),
        (
            replace_node("solver", input=["bundles"]),
            "node 'solver': input: unknown field; did you mean 'inputs'?",
        ),
    ],
    ids=[
        "unknown-type",
        "missing-input",
        "processor-without-inputs",
        "producer-with-inputs",
        "cycle",
        "orphan-producer",
        "orphan-processor",
        "duplicate-name",
        "consumer-as-input",
        "no-consumer",
        "unknown-config-field",
        "unknown-node-field",
    ],
)
def test_mistakes_are_rejected_naming_the_node(
    tmp_path: Path, nodes: list[dict[str, object]], expected: str
) -> None:
    path = write(tmp_path, nodes)
    message = error_of(path)
    assert message.startswith(f"{path}: ")
    assert expected in message
    assert "\n" not in message


def test_bad_yaml_and_bad_shapes_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("kind: Pipeline\nspec: [\n")
    assert error_of(path).startswith(f"{path}: not valid YAML (line ")
    path.write_text("kind: Workflow\n")
    assert "field 'kind' must be 'Pipeline'" in error_of(path)
    assert error_of(tmp_path / "missing.yaml").endswith(": no such file")


def test_resolve_rejects_a_bad_pipeline_with_one_line_and_exit_2(tmp_path: Path) -> None:
    path = write(tmp_path, replace_node("solver", inputs=["required-packages", "bundle"]))
    result = CliRunner().invoke(
        cli, ["resolve", "--require", "observability-stack", "--pipeline", str(path)]
    )
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith(f"deppy: error: {path}: node 'solver': input 'bundle' is not")
    assert "Traceback" not in result.stderr and result.stdout == ""
