"""The documentation's examples work when pasted: every shell example marked runnable, in the
README and on every page of the site, prints what the page shows; the request file, pipeline
file and ClusterExtensions the pages show are checked against the repository's own data."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs_pages import ROOT, Example, examples, page
from tests.workflow_helpers import run

EXAMPLE = ROOT / "src" / "deppy" / "data" / "catalog"
RUNNABLE = examples()


def yaml_blocks(text: str) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", text, re.S)


def test_the_readme_and_the_site_have_runnable_examples() -> None:
    where = {example.where.split(":")[0] for example in RUNNABLE}
    assert "README.md" in where
    assert {"docs/olm-v0/resolve.md", "docs/olm-v1/clusterextensions.md"} <= where
    assert all(example.steps for example in RUNNABLE)


@pytest.mark.parametrize("example", RUNNABLE, ids=[e.where for e in RUNNABLE])
def test_a_runnable_example_prints_what_its_page_shows(example: Example, tmp_path: Path) -> None:
    """Run in a scratch directory holding the checkout's src/, tests/ and examples/ and the
    files the page writes, with ``deppy`` on PATH and an empty store."""
    for folder in ("src", "tests", "examples"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    for name, text in example.files:
        (tmp_path / name).write_text(text, encoding="utf-8")
    home = tmp_path / ".deppy-home"
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "DEPPY_HOME": str(home),
        "COLUMNS": "100",
    }
    for step in example.steps:
        done = subprocess.run(
            ["bash", "-c", f"{step.command} 2>&1"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.stdout == step.shown, f"{example.where}: $ {step.command}"


def test_the_clusterextension_example_file_is_the_one_the_olm_v1_page_shows() -> None:
    """The README's OLM v1 task names examples/observability.yaml; the page shows its text."""
    shown = dict(next(e for e in RUNNABLE if "clusterextensions.md" in e.where).files)
    example = (ROOT / "examples" / "observability.yaml").read_text(encoding="utf-8")
    assert shown["observability.yaml"] == example


def test_the_request_file_example_resolves(tmp_path: Path) -> None:
    request = next(b for b in yaml_blocks(page("olm-v0/resolve.md")) if "ActiveResolution" in b)
    path = tmp_path / "request.yaml"
    path.write_text(request.replace("path: src/deppy/data/catalog", f"path: {EXAMPLE}"))
    code, out, err = run("resolve", "-f", str(path))
    assert code == 0, err
    assert "upgrade 0.56.3 → 0.70.0" in out


def test_the_pipeline_file_example_resolves(tmp_path: Path) -> None:
    pipeline = next(b for b in yaml_blocks(page("library/pipelines.md")) if "kind: Pipeline" in b)
    path = tmp_path / "my-pipeline.yaml"
    path.write_text(pipeline)
    args = ("--catalog", str(EXAMPLE), "--require", "observability-stack")
    code, out, err = run("resolve", *args, "--pipeline", str(path), "-q")
    assert code == 0, err
    assert "grafana-operator     5.6.0" in out


def test_the_layout_names_files_that_exist() -> None:
    """A module moved or renamed leaves no stale path in "Layout": each backticked ``.py`` or
    folder exists, under ``src/deppy/`` or the repository; a bare file name belongs to the last
    folder named before it on its line."""
    section = page("contributing/layout.md")
    src = ROOT / "src" / "deppy"
    missing = []
    for line in section.splitlines():
        folder = src
        for token in re.findall(r"`([\w/*.]+(?:\.py|/))`", line):
            bases = (src, ROOT) if "/" in token else (folder,)
            found = [path for base in bases for path in base.glob(token)]
            if not found:
                missing.append(token)
            elif token.endswith("/"):
                folder = found[0]
    assert missing == []


def test_the_olm_v1_example_plans_and_explains(tmp_path: Path) -> None:
    """The OLM v1 page: its ClusterExtension file gives a plan of three ClusterExtensions, and
    (with version "~2.0") the explanation shown."""
    section = page("olm-v1/clusterextensions.md") + page("olm-v1/explanations.md")
    request = next(b for b in yaml_blocks(section) if "kind: ClusterExtension" in b)
    path = tmp_path / "observability.yaml"
    path.write_text(request, encoding="utf-8")
    catalog = f"{EXAMPLE}=example"
    code, out, err = run(
        "resolve", "-f", str(path), "--catalog", catalog, "-o", "clusterextensions"
    )
    assert code == 3 and out.count("kind: ClusterExtension") == 3, err  # OLM v1 refuses one
    path.write_text(request.replace('">=1.0, <2"', '"~2.0"'), encoding="utf-8")
    command = "deppy resolve -f observability.yaml --catalog src/deppy/data/catalog=example"
    explained = section.split(f'$ {command}   # with version: "~2.0"\n', 1)[1].split("```", 1)[0]
    code, out, _ = run("resolve", "-f", str(path), "--catalog", catalog)
    assert code == 1
    assert out == explained
