"""YAML aliases are bounded by the text they add, not only by the nodes (issue 26, group 4).

A ~1 MB file with a few thousand aliases to one large string adds few nodes — it passed the
node guard — but every alias repeats the string in the values built and in every encoding of
them (a cache entry, ``-o json``, a pipeline's spec): gigabytes, then a crash in the encoder or
an OOM kill. The guard now weighs the characters aliases add too, wherever YAML enters. The
bombs here are small (12 MB once expanded) so the old code survives the test to fail it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from deppy.input_limits import MAX_ALIAS_TEXT, UnsafeInput, yaml_documents, yaml_value
from tests.conftest import shared_path
from tests.service_support import client, paths_app
from tests.test_store_support import DEPPY

LARGE = "x" * 30_000
ALIASES = 400  # 400 x 30,000 = 12,000,000 characters: past MAX_ALIAS_TEXT
MESSAGE = f"aliases expand to more than {MAX_ALIAS_TEXT:,} characters"


def aliases(anchor: str = "big") -> str:
    return "[" + ", ".join([f"*{anchor}"] * ALIASES) + "]"


def test_aliases_of_a_large_string_are_refused() -> None:
    with pytest.raises(UnsafeInput, match=MESSAGE):
        yaml_value(f"a: &big {LARGE}\nb: {aliases()}\n")


def test_aliases_of_aliases_are_weighed_by_all_their_text() -> None:
    inner = f"a: &big {LARGE}\nb: &twenty [" + ", ".join(["*big"] * 20) + "]\n"
    with pytest.raises(UnsafeInput, match=MESSAGE):
        yaml_value(inner + "c: [" + ", ".join(["*twenty"] * 20) + "]\n")


def test_keys_and_merges_count_too() -> None:
    mapping = f"a: &big {{k: {LARGE}}}\n"
    merges = "".join(f"m{n}: {{<<: *big, n: {n}}}\n" for n in range(ALIASES))
    with pytest.raises(UnsafeInput, match=MESSAGE):
        yaml_documents(mapping + merges)


def test_what_aliases_add_is_counted_over_the_whole_stream() -> None:
    half = ALIASES // 2
    document = f"a: &big {LARGE}\nb: [" + ", ".join(["*big"] * half) + "]\n"
    yaml_value(document)  # 6 MB: within the limit
    with pytest.raises(UnsafeInput, match=MESSAGE):
        yaml_documents(document + "---\n" + document)


def test_small_reuse_by_alias_is_read() -> None:
    text = "defaults: &d {channel: stable, weight: 1}\na: *d\nb: {<<: *d, weight: 2}\n"
    assert yaml_value(text)["b"] == {"channel": "stable", "weight": 2}


def deppy(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DEPPY_HOME=str(home))
    return subprocess.run([*DEPPY, *args], env=env, capture_output=True, text=True, timeout=120)


def test_a_byte_bomb_is_refused_at_every_entry_point(tmp_path: Path) -> None:
    bomb = f"schema: olm.package\nname: bomb\ndescription: &big {LARGE}\nicon: {aliases()}\n"
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    (catalog / "catalog.yaml").write_text(bomb)
    request = tmp_path / "request.yaml"
    request.write_text(
        "apiVersion: deppy.io/v1alpha1\nkind: ActiveResolution\n"
        f"metadata: {{name: x, annotations: {{a: &big {LARGE}}}}}\n"
        f"spec:\n  constraints: ['required(etcd)']\n  exclude: {aliases()}\n"
    )
    pipeline = tmp_path / "pipeline.yaml"
    pipeline.write_text(f"kind: Pipeline\nnote: &big {LARGE}\nstages: {aliases()}\n")
    bundle = tmp_path / "bundle"
    (bundle / "metadata").mkdir(parents=True)
    (bundle / "manifests").mkdir()
    (bundle / "metadata" / "annotations.yaml").write_text(
        f"annotations: {{a: &big {LARGE}}}\nmore: {aliases()}\n"
    )
    export = tmp_path / "cluster.yaml"
    export.write_text(f"kind: List\nnote: &big {LARGE}\nitems: {aliases()}\n")
    apps = shared_path("catalogs", "operatorhubio-upstream-2021")
    home = tmp_path / "home"
    runs = {
        "catalog add": deppy("catalog", "add", "bomb", str(catalog), home=home),
        "resolve --catalog": deppy(
            "resolve", "--catalog", str(catalog), "--require", "bomb", "-o", "json", home=home
        ),
        "resolve -f": deppy("resolve", "-f", str(request), "--catalog", str(apps), home=home),
        "--pipeline": deppy(
            "resolve", "--pipeline", str(pipeline), "--catalog", str(apps), "--require", "etcd",
            home=home,
        ),
        "solve": deppy("solve", str(pipeline), home=home),
        "validate": deppy("validate", str(bundle), "--catalog", str(apps), home=home),
        "--cluster": deppy(
            "resolve", "--cluster", str(export), "--catalog", str(apps), "--require", "etcd",
            home=home,
        ),
    }  # fmt: skip
    for name, result in runs.items():
        assert "Traceback" not in result.stderr, (name, result.stderr[-2000:])
        assert MESSAGE in result.stderr, (name, result.returncode, result.stderr[-2000:])
        assert result.returncode in (1, 2), (name, result.returncode)
        assert len(result.stdout) < 100_000, name


def test_a_byte_bomb_body_is_a_4xx_in_the_service(tmp_path: Path) -> None:
    app = paths_app(f"{shared_path('catalogs', 'operatorhubio-upstream-2021')}=hub")
    body = (
        f"metadata: {{annotations: {{a: &big {LARGE}}}}}\n"
        f"spec:\n  constraints: ['required(etcd)']\n  exclude: {aliases()}\n"
    )
    with client(app) as api:
        response = api.post(
            "/api/v1/resolve", content=body, headers={"Content-Type": "application/yaml"}
        )
    assert 400 <= response.status_code < 500, response.text[:2000]
    assert MESSAGE in response.text
