"""The CLI as people read it: tables that fit, quiet pipes, one vocabulary (issue 10)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.olm_builders import bundle, channel, entry, package, simple_package, write_catalog
from tests.workflow_helpers import run as cli

DIGEST = "sha256:" + "0123456789abcdef" * 4


def table_catalog(tmp_path: Path) -> str:
    versions = [f"0.9.{n}" for n in range(6)]
    entries = [
        entry(f"op.v{v}", f"op.v{versions[n - 1]}" if n else None) for n, v in enumerate(versions)
    ]
    bundles = [bundle("op", v) for v in versions]
    bundles[-1]["image"] = f"quay.io/example/op-bundle@{DIGEST}"
    bundles[0]["image"] = ""
    return str(
        write_catalog(tmp_path / "c", [package("op"), channel("op", "stable", *entries), *bundles])
    )


def test_the_answer_table_shortens_paths_and_digests_and_marks_no_image(tmp_path: Path) -> None:
    catalog = table_catalog(tmp_path)
    code, out, err = cli("resolve", "--catalog", catalog, "--installed", "op@0.9.0")
    assert code == 0, err
    header, row = out.splitlines()[1:3]
    assert header.split() == [
        "#",
        "package",
        "version",
        "channel",
        "catalog",
        "action",
        "bundle",
        "image",
    ]
    assert "upgrade 0.9.0 → … → 0.9.5, 5 steps" in row
    assert row.endswith("quay.io/example/op-bundle@sha256:0123456789ab…")
    code, out, err = cli("resolve", "--catalog", catalog, "--require", "op@0.9.0")
    assert code == 0, err
    assert out.splitlines()[2].endswith("install  —")
    code, out, _ = cli("resolve", "--catalog", catalog, "--installed", "op@0.9.0", "-o", "json")
    assert f'"image": "quay.io/example/op-bundle@{DIGEST}"' in out, "JSON keeps it whole"


def test_output_into_a_closed_pipe_ends_quietly_with_exit_0(tmp_path: Path) -> None:
    # more than a pipe holds (64 KiB), so deppy is still writing when head has gone
    versions = [f"1.{n}.0" for n in range(1200)]
    catalog = write_catalog(tmp_path / "big", simple_package("op", *versions))
    problem = tmp_path / "p.json"
    problem.write_text(json.dumps([{"id": f"v{n:06d}", "constraints": None} for n in range(20000)]))
    deppy = Path(sys.executable).parent / "deppy"
    for args in (f"show op --catalog {catalog}", f"solve {problem} -o json"):
        shell = f"{deppy} {args} | head -c 1 >/dev/null; echo ${{PIPESTATUS[0]}}"
        env = {"PATH": "/usr/bin:/bin", "DEPPY_HOME": str(tmp_path / "home")}
        done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, env=env)
        assert done.stdout.strip() == "0", done.stderr
        assert done.stderr == "", done.stderr


def screen_of(tmp_path: Path, objs: list[dict[str, object]], *require: str) -> list[str]:
    catalog = str(write_catalog(tmp_path / "screen", objs))
    args = [a for r in require for a in ("--require", r)]
    code, out, _ = cli("resolve", "--catalog", catalog, *args)
    assert code == 1
    code, data, _ = cli("resolve", "--catalog", catalog, *args, "-o", "json", "-v")
    assert len(json.loads(data)["explanation"]["constraints"]) <= 5, "a small core"
    lines = out.splitlines()
    assert len(lines) <= 10 and max(map(len, lines)) <= 100, out
    return lines


def test_a_small_conflict_fits_a_screen_and_names_every_cause(tmp_path: Path) -> None:
    def api_provider(name: str) -> list[dict[str, object]]:
        widget = {
            "type": "olm.gvk",
            "value": {"group": "example.com", "version": "v1", "kind": "Widget"},
        }
        return [
            package(name),
            channel(name, "stable", f"{name}.v1.0.0"),
            bundle(name, "1.0.0", widget),
        ]

    lines = screen_of(tmp_path, [*api_provider("alpha"), *api_provider("beta")], "alpha", "beta")
    assert any("API Widget (example.com/v1)" in line for line in lines)
    objs = simple_package("op", "1.0.0", "1.1.0", "1.2.0")
    lines = screen_of(tmp_path, objs, "op@1.0.0", "op@>=1.1.0")
    assert (
        "  - only one bundle per package: op 1.2.0 … 1.0.0 (3) cannot be installed together"
        in lines
    )
    assert "  - the requirement op >=1.1.0 matches only op 1.2.0, 1.1.0" in lines, "newest first"
    assert lines[-1].startswith("(-v for the long form")
    catalog = str(write_catalog(tmp_path / "screen", objs))
    _, out, _ = cli(
        "resolve", "--catalog", catalog, "--require", "op@1.0.0", "--require", "op@1.1.0", "-v"
    )
    assert "Solver constraints in the minimal conflict:" in out and "Requested:" in out


TRICKY = Path(__file__).resolve().parent / "data" / "store" / "tricky"
APPS = Path(__file__).resolve().parent / "data" / "olm" / "cli" / "apps"


def test_load_problems_are_listed_once_then_one_line_and_quiet_with_q() -> None:
    code, _, err = cli("catalog", "add", "tricky", str(TRICKY))
    listed = (
        "deppy: warning: catalog tricky:\n  1 invalid object skipped\n"
        "  1 integer kept without its exact digits\n  1 entry kept without"
    )
    assert code == 0 and err.startswith(listed), err
    problem = "deppy: warning: catalog tricky: 4 load problems (1 skipped, 3 kept in part)"
    for args in (("resolve", "--require", "beta"), ("show", "beta"), ("search", "beta")):
        code, out, err = cli(*args)
        assert code == 0, err
        assert err.splitlines()[:2] == [problem, "  (see: deppy catalog problems tricky)"], args
        assert not any("percona" in line or len(line) > 100 for line in err.splitlines())
        code, out, err = cli(*args, "-q")
        assert (code, err) == (0, ""), args
    code, out, _ = cli("catalog", "problems", "tricky")
    assert code == 1 and len(out.splitlines()) == 4 and "alpha.broken" in out
    code, out, _ = cli("catalog", "problems", str(TRICKY), "-o", "json")
    assert code == 1 and len(json.loads(out)["problems"]) == 4
    code, out, _ = cli("catalog", "problems", "nothing-here")
    assert code == 2


def test_one_vocabulary_catalog_names_sources_and_outputs(tmp_path: Path) -> None:
    cli("catalog", "add", "tricky", str(TRICKY))
    cli("catalog", "add", "apps", str(APPS))
    # --catalog takes a stored catalog's name wherever it takes a path
    code, out, _ = cli("resolve", "--catalog", "tricky", "--require", "beta", "-o", "json")
    assert code == 0 and {s["catalog"] for s in json.loads(out)["selection"]} == {"tricky"}
    code, out, _ = cli("show", "webapp", "--catalog", "apps", "-o", "yaml")
    assert code == 0 and out.startswith(
        "package: webapp\ncatalogs:\n- package: webapp\n  catalog: apps\n"
    )
    # --source wherever catalogs are used
    assert cli("show", "webapp", "--source", "tricky")[0] == 2
    assert cli("search", "webapp", "--source", "apps", "-o", "name")[1] == "webapp\n"
    assert cli("upgrades", "--installed", "webapp@1.0.0", "--source", "apps", "-o", "yaml")[0] == 0
    # -o name for lists, -o yaml wherever there is -o json
    assert sorted(cli("catalog", "list", "-o", "name")[1].split()) == ["apps", "tricky"]
    for args in (
        ("catalog", "list"),
        ("catalog", "check", "apps"),
        ("catalog", "problems", "apps"),
    ):
        code, out, _ = cli(*args, "-o", "yaml")
        assert out and not out.startswith("{"), args


def test_a_spinner_shows_on_a_terminal_only_when_loading_is_slow(tmp_path: Path) -> None:
    import os
    import pty

    from tests.conftest import shared_path

    community = shared_path("catalogs", "community-operators-prod-v4.18")
    deppy = str(Path(sys.executable).parent / "deppy")
    env = {**os.environ, "DEPPY_HOME": str(tmp_path / "home"), "TERM": "xterm"}

    def stderr_on_a_terminal(*args: str) -> str:
        primary, secondary = pty.openpty()
        done = subprocess.run(
            [deppy, *args], stdout=subprocess.DEVNULL, stderr=secondary, env=env, timeout=300
        )
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(primary)
        assert done.returncode in (0, 1)
        return b"".join(chunks).decode(errors="replace")

    slow = stderr_on_a_terminal("show", "etcd", "--catalog", str(community), "-q")
    assert "loading catalogs…" in slow
    quick = stderr_on_a_terminal("show", "op", "--catalog", table_catalog(tmp_path), "-q")
    assert "loading" not in quick
