"""The README's examples work when pasted: its request file, its pipeline file and the
explanation it shows are checked against the repository's own data."""

from __future__ import annotations

import re
from pathlib import Path

from tests.workflow_helpers import run

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
EXAMPLE = ROOT / "src" / "deppy" / "data" / "catalog"


def yaml_blocks() -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", README, re.S)


def test_the_request_file_example_resolves(tmp_path: Path) -> None:
    request = next(b for b in yaml_blocks() if "kind: ActiveResolution" in b)
    path = tmp_path / "request.yaml"
    path.write_text(request.replace("path: src/deppy/data/catalog", f"path: {EXAMPLE}"))
    code, out, err = run("resolve", "-f", str(path))
    assert code == 0, err
    assert "upgrade 0.56.3 → 0.70.0" in out


def test_the_pipeline_file_example_resolves(tmp_path: Path) -> None:
    pipeline = next(b for b in yaml_blocks() if "kind: Pipeline" in b)
    path = tmp_path / "my-pipeline.yaml"
    path.write_text(pipeline)
    args = ("--catalog", str(EXAMPLE), "--require", "observability-stack")
    code, out, err = run("resolve", *args, "--pipeline", str(path), "-q")
    assert code == 0, err
    assert "grafana-operator     5.6.0" in out


def test_the_explanation_shown_is_what_deppy_prints() -> None:
    command = "deppy resolve --catalog tests/data/olm/cli/apps --require webapp"
    shown = README.split(f"$ {command}\n", 1)[1].split("```", 1)[0]
    code, out, _ = run(
        "resolve", "--catalog", str(ROOT / "tests/data/olm/cli/apps"), "--require", "webapp"
    )
    assert code == 1
    assert out == shown


def test_the_layout_names_files_that_exist() -> None:
    """A module moved or renamed leaves no stale path in "Layout": each backticked ``.py`` or
    folder exists, under ``src/deppy/`` or the repository; a bare file name belongs to the last
    folder named before it on its line."""
    section = README.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
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


def test_the_olm_v1_example_answers_plans_and_explains(tmp_path: Path) -> None:
    """The "OLM v1" section: its ClusterExtension file gives the answer shown, a plan, and
    (with version "~2.0") the explanation shown."""
    section = README.split("\n## OLM v1: ClusterExtension and ClusterCatalog\n", 1)[1]
    request = next(b for b in yaml_blocks() if "kind: ClusterExtension" in b)
    path = tmp_path / "observability.yaml"
    path.write_text(request, encoding="utf-8")
    catalog = f"{EXAMPLE}=example"
    command = "deppy resolve -f observability.yaml --catalog src/deppy/data/catalog=example"
    shown = section.split(f"$ {command}\n", 1)[1].split("```", 1)[0]
    code, out, err = run("resolve", "-f", str(path), "--catalog", catalog)
    assert code == 3, err  # resolved; OLM v1 refuses observability-stack as written
    table = "Resolution (install in this order):"
    assert out == table + shown.split(table, 1)[1]  # the warnings above it go to stderr
    code, out, _ = run("resolve", "-f", str(path), "--catalog", catalog, "-o", "clusterextensions")
    assert code == 3 and out.count("kind: ClusterExtension") == 3
    path.write_text(request.replace('">=1.0, <2"', '"~2.0"'), encoding="utf-8")
    explained = section.split(f'$ {command}   # with version: "~2.0"\n', 1)[1].split("```", 1)[0]
    code, out, _ = run("resolve", "-f", str(path), "--catalog", catalog)
    assert code == 1
    assert out == explained
