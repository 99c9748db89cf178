"""Hostile input cannot crash, hang or exhaust deppy (issue 11): one test per class of attack.

Entry points that once killed the process run in a child process, so a regression fails this
test instead of taking pytest down with it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.cel import CelBudgetExceeded, compile_rule, properties_of
from deppy.catalog.constraint_spec import parse_constraint
from deppy.catalog.fbc import load_catalog
from deppy.catalog.model import Property
from deppy.errors import InputError, printable
from deppy.input_limits import MAX_ALIAS_NODES, MAX_DEPTH, UnsafeInput, json_value, yaml_value
from deppy.resolution.request import ResolutionRequest
from deppy.resolution.request_parsing import parse_require
from deppy.resolution.resolver import resolve
from tests.test_store_support import DEPPY

DATA = Path(__file__).parent / "data" / "olm" / "cli"
DEEP_YAML = "a:\n" + "".join("  " * i + "- \n" for i in range(1, 20_000)) + "b: [" * 30_000
FLOW_DEEP = "[" * 50_000 + "]" * 50_000
ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + n)}: &{chr(98 + n)} [{', '.join(['*' + chr(97 + n)] * 10)}]\n" for n in range(8)
)


def deppy(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DEPPY_HOME=str(home))
    return subprocess.run([*DEPPY, *args], env=env, capture_output=True, text=True, timeout=120)


def refused(result: subprocess.CompletedProcess[str], *words: str) -> str:
    """Exit 2, no traceback, a short stderr saying why."""
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr
    assert len(result.stderr) < 10_000
    for word in words:
        assert word in result.stderr, result.stderr
    return result.stderr


# -- 1. crashes: deep YAML at every entry point, alias bombs -----------------------------------


@pytest.fixture
def deep(tmp_path: Path) -> Path:
    path = tmp_path / "deep.yaml"
    path.write_text(FLOW_DEEP)
    return path


def test_deep_yaml_is_refused_at_every_entry_point(tmp_path: Path, deep: Path) -> None:
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    shutil.copy(deep, catalog / "catalog.yaml")
    bundle = tmp_path / "bundle"
    (bundle / "metadata").mkdir(parents=True)
    (bundle / "manifests").mkdir()
    shutil.copy(deep, bundle / "metadata" / "annotations.yaml")
    home = tmp_path / "home"
    runs = {
        "catalog add": deppy("catalog", "add", "deep", str(catalog), home=home),
        "resolve --catalog": deppy(
            "resolve", "--catalog", str(catalog), "--require", "x", home=home
        ),
        "solve": deppy("solve", str(deep), home=home),
        "resolve -f": deppy("resolve", "-f", str(deep), home=home),
        "--pipeline": deppy(
            "resolve", "--pipeline", str(deep), "--catalog", str(DATA / "apps"), "--require",
            "webapp", home=home,
        ),
        "validate": deppy("validate", str(bundle), "--catalog", str(DATA / "apps"), home=home),
    }  # fmt: skip
    for name, result in runs.items():
        assert result.returncode in (1, 2), (name, result.returncode, result.stderr[-500:])
        assert "Traceback" not in result.stderr, name
        assert f"nested more than {MAX_DEPTH} levels" in result.stderr, (name, result.stderr)


def test_block_nesting_and_alias_bombs_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UnsafeInput, match="nested more than"):
        yaml_value(DEEP_YAML)
    with pytest.raises(UnsafeInput, match=f"more than {MAX_ALIAS_NODES} nodes"):
        yaml_value(ALIAS_BOMB)
    with pytest.raises(UnsafeInput, match="refers to its own anchor"):
        yaml_value("&a [*a]")
    pipeline = tmp_path / "bomb.yaml"
    pipeline.write_text("kind: Pipeline\n" + ALIAS_BOMB)
    result = deppy("solve", str(pipeline), home=tmp_path)
    refused(result, "aliases expand")


# -- 2. unbounded expansion: messages quote little and escape what they quote ------------------


def test_a_huge_bad_value_is_quoted_short_and_escaped(tmp_path: Path) -> None:
    version = "1.0.0-\x1b[31m" + "x" * 10_000_000
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(
        "schema: olm.package\nname: p\ndefaultChannel: s\n---\n"
        "schema: olm.channel\npackage: p\nname: s\nentries: [{name: p.v1}]\n---\n"
        "schema: olm.bundle\npackage: p\nname: p.v1\nproperties:\n"
        f"- {{type: olm.package, value: {{packageName: p, version: '{version}'}}}}\n"
    )
    result = deppy("resolve", "--catalog", str(catalog), "--require", "p", home=tmp_path)
    assert "\x1b" not in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr) < 5_000


def test_printable_escapes_control_characters_and_keeps_both_ends() -> None:
    assert printable("a\nb\x1b[0m\ud800") == "a\\nb\\x1b[0m\\ud800"
    long = "where: " + "x" * 10_000 + " the fix"
    shown = printable(long)
    assert len(shown) < 2_100 and shown.startswith("where: ") and shown.endswith(" the fix")


# -- 3. tracebacks become one-line messages naming the file and the field -----------------------


def test_json_nested_past_orjson_goes_no_deeper_than_a_problem(tmp_path: Path) -> None:
    good = '{"schema": "olm.package", "name": "p"}'
    deep = '{"schema": "olm.bundle", "x": ' + "[" * 3000 + "]" * 3000 + "}"
    (tmp_path / "catalog.json").write_text(f'{good}\n{{\n  "a": 1 \n}}\n{deep}\n')
    with pytest.raises(InputError) as info:
        load_catalog(tmp_path)
    assert f"nested more than {MAX_DEPTH} levels" in str(info.value)
    with pytest.raises(UnsafeInput):
        json_value("[" * 500 + "]" * 500)


def test_lone_surrogates_and_bad_text_are_input_errors(tmp_path: Path) -> None:
    (tmp_path / "catalog.json").write_text('{"schema": "olm.package", "name": "\\ud800"}\n{\n}\n')
    with pytest.raises(InputError, match="surrogate"):
        load_catalog(tmp_path)
    pipeline = tmp_path / "pipeline.yaml"
    pipeline.write_bytes(b"kind: Pipeline\nmetadata: {name: \xff\xfe}\n")
    refused(
        deppy("resolve", "--pipeline", str(pipeline), "--require", "x", home=tmp_path),
        str(pipeline),
    )
    result = subprocess.run(
        [*DEPPY, "resolve", "--require", os.fsdecode(b"p\xff"), "-o", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, DEPPY_HOME=str(tmp_path)),
    )
    refused(result, "not valid UTF-8")


def test_cel_literal_of_thousands_of_digits_is_a_compile_error() -> None:
    rule = {"cel": {"rule": "1" * 5000 + " == 1"}}
    with pytest.raises(InputError, match="does not fit in int64"):
        parse_constraint(rule, where="bundle p.v1, property 0")


def test_mixed_type_yaml_keys_become_text(tmp_path: Path) -> None:
    assert yaml_value("1: a\ntrue: b\nnull: c\nx: d\n1.5: e\n") == {
        "1": "a",
        "true": "b",
        "null": "c",
        "x": "d",
        "1.5": "e",
    }
    pipeline = tmp_path / "pipeline.yaml"
    pipeline.write_text("kind: Pipeline\n1: x\nmetadata: {name: p}\nspec: {nodes: []}\n")
    refused(deppy("solve", str(pipeline), home=tmp_path))


def test_dimacs_headers_with_other_digits_are_refused(tmp_path: Path) -> None:
    for header in ("p cnf ² 1", "p cnf 1 ١", "p cnf 99999999999 1", f"p cnf {'9' * 5001} 1"):
        cnf = tmp_path / "p.cnf"
        cnf.write_text(f"{header}\n1 0\n")
        refused(deppy("solve", str(cnf), home=tmp_path), str(cnf))


def test_a_non_string_channels_annotation_is_a_problem(tmp_path: Path) -> None:
    from deppy.catalog.bundle_dir import load_bundle_dir

    (tmp_path / "metadata").mkdir()
    (tmp_path / "metadata" / "annotations.yaml").write_text(
        "annotations:\n"
        "  operators.operatorframework.io.bundle.package.v1: p\n"
        "  operators.operatorframework.io.bundle.channels.v1: [stable]\n"
    )
    loaded = load_bundle_dir(tmp_path)
    assert any("must be a string" in p.why for p in loaded.problems)


# -- 4. hangs: DIMACS sized by content, CEL on a budget ----------------------------------------


def test_dimacs_is_sized_by_what_the_file_holds(tmp_path: Path) -> None:
    cnf = tmp_path / "big.cnf"
    cnf.write_text("p cnf 10000000 1\n1 0\n")
    result = deppy("solve", "--timeout", "20", str(cnf), home=tmp_path)
    assert result.returncode == 0 and "1 selected" in result.stdout


def test_a_cel_rule_past_its_budget_is_cut_off_and_named(tmp_path: Path) -> None:
    props = [
        Property("olm.gvk", {"group": f"g{i}", "version": "v1", "kind": "K"}) for i in range(60)
    ]
    nested = (
        "properties.exists(a, properties.exists(b, properties.exists(c, bytes(c.type) == b'x')))"
    )
    program = compile_rule(nested)

    class Holder:
        properties = props

    with pytest.raises(CelBudgetExceeded, match="cut off"):
        program.evaluate(properties_of(Holder()))
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(
        "schema: olm.package\nname: p\ndefaultChannel: s\n---\n"
        "schema: olm.channel\npackage: p\nname: s\nentries: [{name: p.v1}]\n---\n"
        "schema: olm.bundle\npackage: p\nname: p.v1\nproperties:\n"
        "- {type: olm.package, value: {packageName: p, version: 1.0.0}}\n"
        + "".join(f"- {{type: olm.label, value: {{label: l{i}}}}}\n" for i in range(60))
        + f'- {{type: olm.constraint, value: {{cel: {{rule: "{nested}"}}}}}}\n'
    )
    resolution = resolve(
        CatalogSet([load_catalog(catalog)]), ResolutionRequest(required=(parse_require("p"),))
    )
    assert not resolution.resolved
    assert any("cut off" in w and "p.v1" in w for w in resolution.warnings), resolution.warnings


# -- 5. deadlines cover the whole command ------------------------------------------------------


@pytest.mark.parametrize("value", ["inf", "nan", "1e309", "0", "-1"])
def test_timeout_must_be_finite_and_positive(value: str, tmp_path: Path) -> None:
    result = deppy("solve", "--timeout", value, str(tmp_path / "x.json"), home=tmp_path)
    assert result.returncode == 2 and "finite, positive number of seconds" in result.stderr


def test_the_deadline_interrupts_work_outside_the_solver() -> None:
    """Loading and encoding run outside the solver's own deadline checks: the watchdog of
    --timeout interrupts any Python work (here a loop that would never end)."""
    from deppy.cli.deadline import whole_command

    expected = r"--timeout 0\.2: the command did not finish in time"
    with pytest.raises(InputError, match=expected), whole_command(0.2):
        while True:
            pass


# -- 6. a full disk: said so, and reads keep working -------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 3 MB filesystem (tmpfs) to fill up; skipped where mounting is not allowed."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_a_full_disk_is_named_and_reads_keep_working(small_disk: Path) -> None:
    home = small_disk / "home"
    assert deppy("catalog", "add", "apps", str(DATA / "apps"), home=home).returncode == 0
    with (small_disk / "filler").open("wb") as filler, contextlib.suppress(OSError):
        while True:
            filler.write(b"\0" * 65536)
            filler.flush()
    error = refused(
        deppy("catalog", "add", "infra", str(DATA / "infra"), home=home), "disk is full"
    )
    assert "rollback" not in error and "add the catalogs again" not in error
    listed = deppy("catalog", "list", home=home)
    assert listed.returncode == 0 and "apps" in listed.stdout and "infra" not in listed.stdout
    found = deppy("search", "webapp", home=home)
    assert found.returncode == 0 and "webapp" in found.stdout


def test_trace_variables_are_listed_after_the_table(tmp_path: Path) -> None:
    trace = tmp_path / "run.jsonl"
    resolved = deppy(
        "resolve", "--catalog", str(DATA / "apps"), "--catalog", str(DATA / "infra"),
        "--require", "webapp", "--trace", str(trace), home=tmp_path,
    )  # fmt: skip
    assert resolved.returncode in (0, 1), resolved.stderr
    shown = deppy("trace", str(trace), "--variables", home=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "variables produced by" in shown.stdout
    listed = [line.strip() for line in shown.stdout.splitlines() if line.startswith("  ")]
    assert any(line.startswith("webapp") or "webapp" in line for line in listed), shown.stdout


def test_names_with_control_characters_are_invalid_objects(tmp_path: Path) -> None:
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(
        "schema: olm.package\nname: p\ndefaultChannel: s\n---\n"
        'schema: olm.package\nname: "q\\e[31m"\n---\n'
        "schema: olm.channel\npackage: p\nname: s\nentries: [{name: p.v1}]\n---\n"
        "schema: olm.bundle\npackage: p\nname: p.v1\nproperties:\n"
        "- {type: olm.package, value: {packageName: p, version: 1.0.0}}\n"
    )
    loaded = load_catalog(catalog)
    assert sorted(loaded.packages) == ["p"]
    (problem,) = [p for p in loaded.problems if "control" in p.why]
    assert "\x1b" not in str(problem) and "\\x1b" in str(problem)


def test_a_deep_cluster_export_file_is_an_input_error(tmp_path: Path) -> None:
    """Found by the fuzz suite: the export reader's JSON path let the guard's refusal escape."""
    from deppy.cluster.export import read_cluster_files

    path = tmp_path / "state.json"
    path.write_text("[" * 200 + "]" * 200)
    with pytest.raises(InputError, match="nested more than"):
        read_cluster_files(path)


NOT_FILES = {
    "fifo": ("is a FIFO (named pipe)", lambda p: os.mkfifo(p)),
    "link to /dev/zero": ("is a character device", lambda p: p.symlink_to("/dev/zero")),
    "directory": ("is a directory", lambda p: p.mkdir()),
}
FILE_DOORS = {
    "resolve -f": ("resolve", "-f", "{}"),
    "upgrades -f": ("upgrades", "-f", "{}"),
    "solve": ("solve", "{}"),
    "properties": ("properties", "{}"),
    "--pipeline": ("resolve", "--require", "x", "--pipeline", "{}"),
    "--catalog": ("resolve", "--require", "x", "--catalog", "{}"),
    "catalog add": ("catalog", "add", "x", "{}"),
    "validate": ("validate", "{}"),
}


@pytest.mark.parametrize("door", FILE_DOORS, ids=list(FILE_DOORS))
@pytest.mark.parametrize("kind", NOT_FILES, ids=list(NOT_FILES))
def test_a_path_that_is_no_regular_file_is_one_line_saying_what_it_is(
    tmp_path: Path, door: str, kind: str
) -> None:
    """Issue 39: a request file that is a FIFO blocked forever, /dev/zero ran out of memory;
    every file deppy reads by name is looked at (without blocking) before it is read."""
    what, make = NOT_FILES[kind]
    path = tmp_path / "input"
    make(path)
    args = [a.replace("{}", str(path)) for a in FILE_DOORS[door]]
    if kind == "directory" and door in ("--catalog", "catalog add", "validate"):
        return  # a directory is what these take
    if kind == "directory" and door in ("properties", "--pipeline"):
        return  # click's own check refuses it (its words, exit 2)
    result = deppy(*args, home=tmp_path / "home")  # a hang fails in its timeout
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"deppy: error: {path}: {what}, not ")
    assert len(result.stderr.splitlines()) == 1


def test_a_pipe_is_read_as_standard_input_with_dash(tmp_path: Path) -> None:
    """A FIFO given by name is refused (it may never be written); ``-f -`` is the way to hand
    deppy a pipe (``kubectl get clusterextension x -o yaml | deppy resolve -f -``), as kubectl
    takes it. The refusal says so; the answer from standard input is the file's, byte for byte."""
    request = Path(__file__).parents[1] / "src" / "deppy" / "data" / "request.yaml"
    env = dict(os.environ, DEPPY_HOME=str(tmp_path / "home"))
    from_file = deppy("resolve", "-f", str(request), home=tmp_path / "home")
    from_pipe = subprocess.run(
        [*DEPPY, "resolve", "-f", "-"],
        input=request.read_text(encoding="utf-8"),
        env=env,
        cwd=request.parent,  # its catalogs' paths: relative to the file, or to here for -f -
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert from_file.returncode == from_pipe.returncode == 0, from_pipe.stderr
    assert from_pipe.stdout == from_file.stdout
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    refusal = refused(deppy("resolve", "-f", str(fifo), home=tmp_path / "home"))
    assert refusal.rstrip().endswith("or - to read standard input")
