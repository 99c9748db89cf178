"""``-o yaml`` costs about what ``-o json`` costs, whatever the strings (issue 26, group 14).

PyYAML's pure-Python emitter walks every character of a string in Python: an answer holding a
catalog's long strings took 10–20× as long in YAML as in JSON. YAML is written by libyaml's
emitter now; these tests check what stays true whatever the emitter — the YAML answer reads back
as the JSON answer — and that the per-character emitter is never entered. The speed itself is a
figure of ``benchmarks/output_formats.py``, not a timed test.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import yaml
from click.testing import CliRunner

from deppy.cli.main import cli, register_commands

LONG = (
    "# Demo\n\nA *long* description: \"quotes\", 'apostrophes', a tab\t, é, ✓, 𝄞, \x85 \u2028, "
    "[a link](https://example.com/x) and `code`. " * 2000
)


def long_catalog(root: Path) -> Path:
    root.mkdir()
    documents = [
        {"schema": "olm.package", "name": "demo", "defaultChannel": "stable"},
        {
            "schema": "olm.channel",
            "package": "demo",
            "name": "stable",
            "entries": [{"name": "demo.v1.0.0"}],
        },
        {
            "schema": "olm.bundle",
            "name": "demo.v1.0.0",
            "package": "demo",
            "image": "quay.io/demo:1.0.0",
            "properties": [
                {"type": "olm.package", "value": {"packageName": "demo", "version": "1.0.0"}},
                {
                    "type": "olm.csv.metadata",
                    "value": {"description": LONG, "annotations": {"long": LONG[::-1]}},
                },
            ],
        },
    ]
    (root / "catalog.json").write_text("\n".join(json.dumps(d) for d in documents))
    return root


def answer(*args: str) -> str:
    register_commands()
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_yaml_with_long_strings_reads_back_as_the_json_answer(tmp_path: Path) -> None:
    catalog = str(long_catalog(tmp_path / "catalog"))
    answers = []
    for command in (["show", "demo"], ["resolve", "--require", "demo"]):
        as_json = json.loads(answer(*command, "--catalog", catalog, "-o", "json"))
        as_yaml = yaml.safe_load(answer(*command, "--catalog", catalog, "-o", "yaml"))
        assert as_yaml == as_json
        answers.append(as_json)
    assert answers[0]["catalogs"][0]["description"] == LONG


def test_the_pure_python_emitter_is_never_entered(tmp_path: Path) -> None:
    catalog = str(long_catalog(tmp_path / "catalog"))
    entered: list[str] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename.endswith("yaml/emitter.py"):
            entered.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        text = answer("show", "demo", "--catalog", catalog, "-o", "yaml")
    finally:
        sys.setprofile(None)
    assert "demo" in text and entered == []
