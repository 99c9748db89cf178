"""deppy's own fuzz suite (issue 11): every entry point that takes outside input, fed mutated and
generated input, may only answer or raise deppy's own error types, with a one-line message, in
bounded time and memory.

A short profile runs with the tests; ``make fuzz`` runs the long one (DEPPY_FUZZ=long: minutes)
and prints how many inputs ran without a finding. Hypothesis keeps what it finds in its example
database, so a finding is replayed first on the next run.
"""

from __future__ import annotations

import os
import resource
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deppy.catalog.bundle_dir import load_bundle_dir
from deppy.catalog.cel import CelCompileError, CelEvaluationError, compile_rule, properties_of
from deppy.catalog.constraint_spec import parse_constraint
from deppy.catalog.fbc import load_catalog_documents
from deppy.catalog.model import Property
from deppy.catalog.semver import Version, VersionError, VersionRange
from deppy.errors import MAX_MESSAGE, DeppyError
from deppy.problem import load_problem
from deppy.resolution.node_library import load_pipeline
from deppy.resolution.request_parsing import (
    load_request_file,
    parse_catalog,
    parse_exclude,
    parse_installed,
    parse_require,
)

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "src" / "deppy" / "data"
TESTS = Path(__file__).parent / "data"

settings.register_profile(
    "short",
    max_examples=40,
    deadline=timedelta(seconds=10),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "long",
    max_examples=3000,
    deadline=timedelta(seconds=10),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("DEPPY_FUZZ", "short"))

MEMORY_CEILING_MB = 3000  # peak RSS of the whole test process: an expansion bomb passes this
RAN: dict[str, int] = {}


def seeds(*paths: Path) -> list[bytes]:
    return [p.read_bytes() for p in paths]


CATALOG_SEEDS = seeds(
    DATA / "catalog" / "grafana.yaml",
    DATA / "catalog" / "prometheus.json",
    TESTS / "workflows" / "search" / "catalog.yaml",
    TESTS / "store" / "tricky" / "catalog.yaml",
)
REQUEST_SEEDS = seeds(DATA / "request.yaml", TESTS / "olm" / "cli" / "request.yaml")
PIPELINE_SEEDS = seeds(DATA / "pipelines" / "default.yaml")
PROBLEM_SEEDS = [
    (ROOT / "examples" / "preference.json").read_bytes(),
    b"p cnf 3 4\n1 0\n-1 2 3 0\n-2 0\n-3 0\n",
    b"- id: a\n  constraints: [{type: mandatory}, {type: atmost, n: 1, ids: [b, c]}]\n",
]
HOSTILE = [
    b"[" * 3000,
    b"{" * 3000,
    b"&a [*a]",
    b"a: &a [x, x]\nb: &b [*a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b]\n",
    b"\xff\xfe\x00",
    b'"\\ud800"',
    b"\x1b[31m",
    b"9" * 5000,
    b"p cnf 99999999999 1\n",
    b"1: a\ntrue: b\n",
    b"\n---\n",
    b"? [a]\n: b\n",
]


@st.composite
def mutated(draw: st.DrawFn, corpus: list[bytes]) -> bytes:
    """A seed with a few byte-level mutations: flips, deletions, duplications, hostile splices."""
    data = bytearray(draw(st.sampled_from(corpus)))
    for _ in range(draw(st.integers(0, 6))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["flip", "delete", "insert", "repeat", "hostile"]))
        if kind == "flip" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 64))]
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
        elif kind == "repeat":
            chunk = data[at : at + draw(st.integers(1, 32))]
            data[at:at] = chunk * draw(st.integers(1, 200))
        else:
            data[at:at] = draw(st.sampled_from(HOSTILE))
    return bytes(data)


def checked(name: str, run: Callable[[], Any], *allowed: type[BaseException]) -> None:
    """Run one input: deppy's errors (and ``allowed``) are answers; anything else is a finding.
    Messages are one printable line; the process stays under the memory ceiling."""
    try:
        run()
    except DeppyError as error:
        message = str(error)
        assert "\n" not in message and len(message) <= MAX_MESSAGE + 100, message[:300]
        assert message.isprintable(), message[:300]
    except allowed:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    assert peak < MEMORY_CEILING_MB, f"peak RSS {peak:.0f} MB"
    RAN[name] = RAN.get(name, 0) + 1


@pytest.fixture(scope="module", autouse=True)
def count() -> Iterator[None]:
    yield
    total = sum(RAN.values())
    detail = ", ".join(f"{name} {n}" for name, n in sorted(RAN.items()))
    print(f"\nfuzz: {total} inputs ran without a finding ({detail})")


@contextmanager
def in_file(data: bytes, name: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / name
        path.write_bytes(data)
        yield path


@given(mutated(CATALOG_SEEDS + HOSTILE), st.sampled_from(["catalog.yaml", "catalog.json", ""]))
def test_catalog_streams(data: bytes, name: str) -> None:
    def load() -> None:
        catalog = load_catalog_documents({name: data}, name="fuzz", where="fuzz")
        for problem in catalog.problems:
            assert "\n" not in str(problem) and str(problem).isprintable()

    checked("catalog", load)


@given(
    mutated(CATALOG_SEEDS + HOSTILE),
    st.sampled_from(["annotations", "csv"]),
)
def test_bundle_directories(data: bytes, which: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        (root / "metadata").mkdir()
        (root / "manifests").mkdir()
        annotations = (
            b"annotations:\n  operators.operatorframework.io.bundle.package.v1: p\n"
            b"  operators.operatorframework.io.bundle.channels.v1: stable\n"
        )
        csv = b"kind: ClusterServiceVersion\nmetadata: {name: p.v1.0.0}\nspec: {version: 1.0.0}\n"
        if which == "annotations":
            annotations = data
        else:
            csv = b"kind: ClusterServiceVersion\n" + data
        (root / "metadata" / "annotations.yaml").write_bytes(annotations)
        (root / "manifests" / "p.clusterserviceversion.yaml").write_bytes(csv)
        checked("bundle dir", lambda: load_bundle_dir(root))


@given(mutated(REQUEST_SEEDS + HOSTILE))
def test_request_files(data: bytes) -> None:
    with in_file(data, "request.yaml") as path:
        checked("request file", lambda: load_request_file(path))


@given(mutated(PIPELINE_SEEDS + HOSTILE))
def test_pipeline_files(data: bytes) -> None:
    with in_file(data, "pipeline.yaml") as path:
        checked("pipeline file", lambda: load_pipeline(str(path)))


@given(mutated(PROBLEM_SEEDS + HOSTILE), st.sampled_from(["p.json", "p.yaml", "p.cnf", "p"]))
def test_problem_files(data: bytes, name: str) -> None:
    with in_file(data, name) as path:
        checked("problem file", lambda: load_problem(path))


SPEC_TEXT = st.lists(
    st.sampled_from([*"abcxyz-._0123456789@,=<>!|^~* ", "channel=", "within=", "\x1b", "²", "v"]),
    max_size=30,
).map("".join)


@given(SPEC_TEXT, st.sampled_from([parse_require, parse_installed, parse_exclude, parse_catalog]))
def test_spec_strings(text: str, parse: Callable[[str], Any]) -> None:
    checked("SPEC string", lambda: parse(text))


@given(SPEC_TEXT | st.text(max_size=40))
def test_versions_and_ranges(text: str) -> None:
    checked("version/range", lambda: (VersionRange.parse(text), Version.parse(text)), VersionError)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=20,
)
CONSTRAINT_KEYS = st.sampled_from(
    ["gvk", "package", "all", "any", "not", "cel", "constraints", "rule", "group", "kind",
     "version", "packageName", "versionRange", "failureMessage"]
)  # fmt: skip
CONSTRAINT = st.recursive(
    JSON,
    lambda inner: st.dictionaries(CONSTRAINT_KEYS, inner, max_size=3) | st.lists(inner, max_size=3),
    max_leaves=15,
)


@given(CONSTRAINT)
def test_olm_constraints(value: Any) -> None:
    checked("olm.constraint", lambda: parse_constraint(value, where="fuzz"))


CEL_TOKENS = st.sampled_from(
    ["properties", ".exists(p, ", ".all(x, ", ".map(x, ", ")", "p.type", "p.value", " == ", " && ",
     " || ", "!", "'olm.package'", "1", "9" * 30, "1.5", "b'x'", "bytes(", "size(", "[", "]", ",",
     "semver_compare(", "'1.0.0'", "x", " + ", " / 0", "has(", "{", "}", ":", "\\u", "\"", "?"]
)  # fmt: skip
BUNDLE_PROPERTIES = [
    Property("olm.package", {"packageName": "p", "version": "1.0.0"}),
    *(Property("olm.gvk", {"group": f"g{i}", "version": "v1", "kind": "K"}) for i in range(30)),
]


class _Bundle:
    properties = BUNDLE_PROPERTIES


@given(st.lists(CEL_TOKENS, max_size=20).map("".join))
def test_cel_rules(rule: str) -> None:
    def run() -> None:
        try:
            program = compile_rule(rule)
        except CelCompileError:
            return
        program.evaluate(properties_of(_Bundle()))

    checked("CEL rule", run, CelEvaluationError)


# -- the service's and the cluster's inputs (HTTP bodies, export files, property annotations) ---


@given(
    mutated(REQUEST_SEEDS + HOSTILE),
    st.sampled_from(["application/json", "application/yaml", "", "text/plain"]),
)
def test_http_request_bodies(data: bytes, content_type: str) -> None:
    from deppy.service.bodies import parse_request
    from deppy.service.problems import Problem

    def run() -> None:
        try:
            parse_request(data, content_type, ["apps"])
        except Problem as problem:
            assert "\n" not in str(problem.args[0] if problem.args else "")

    checked("HTTP body", run)


EXPORT_SEEDS = [
    b"apiVersion: v1\nkind: List\nitems:\n- apiVersion: operators.coreos.com/v1alpha1\n"
    b"  kind: Subscription\n  metadata: {name: etcd, namespace: ops}\n"
    b"  spec: {name: etcd, channel: alpha, source: community}\n",
    b'{"apiVersion": "v1", "kind": "List", "items": []}',
]


@given(mutated(EXPORT_SEEDS + HOSTILE), st.sampled_from(["state.yaml", "state.json"]))
def test_cluster_export_files(data: bytes, name: str) -> None:
    from deppy.cluster.export import read_cluster_files

    with in_file(data, name) as path:
        checked("cluster file", lambda: read_cluster_files(path))


@given(mutated([b'{"properties": [{"type": "olm.package", "value": {"packageName": "p"}}]}']))
def test_property_annotations(data: bytes) -> None:
    from deppy.cluster.projection import parse_annotation

    checked("properties annotation", lambda: parse_annotation(data), ValueError)


@pytest.fixture(scope="module")
def trace_seed(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A real trace: the CLI test catalogs, resolved with --trace."""
    from click.testing import CliRunner

    from deppy.cli.main import cli, register_commands

    register_commands()
    path = tmp_path_factory.mktemp("trace") / "run.jsonl"
    apps, infra = TESTS / "olm" / "cli" / "apps", TESTS / "olm" / "cli" / "infra"
    args = ["resolve", "--catalog", str(apps), "--catalog", str(infra), "--require", "webapp"]
    CliRunner().invoke(cli, [*args, "--trace", str(path)])
    return path.read_bytes()


@given(st.data(), st.sampled_from(["trace", "replay"]))
def test_trace_files(trace_seed: bytes, data: st.DataObject, command: str) -> None:
    from click.testing import CliRunner

    from deppy.cli.main import cli

    raw = data.draw(mutated([trace_seed]))
    with in_file(raw, "run.jsonl") as path:

        def run() -> None:
            result = CliRunner().invoke(cli, [command, str(path)])
            if result.exception is not None and not isinstance(result.exception, SystemExit):
                raise result.exception
            if result.exit_code == 2:
                assert len(result.stderr.strip().splitlines()) == 1, result.stderr

        checked("trace file", run)


# -- catalog values carried to every output format (issue 19, item 2) --------------------------
# What a YAML catalog may hold in a property value — bytes, integers past 64 bits, timestamps,
# NaN, sets, odd keys — must reach every writer as a JSON value or be refused at the guard.

CATALOG_VALUES = st.sampled_from(
    [
        "!!binary aGVsbG8=",
        "123456789012345678901234567890",
        "-99999999999999999999",
        "18446744073709551615",
        "1" + "0" * 400,
        "2021-03-04T05:06:07Z",
        "2021-03-04",
        "2001-12-14 21:59:43.10 -5",
        ".nan",
        "-.inf",
        "1.0e+400",
        "!!set {a, b}",
        "!!omap [{a: 1}]",
        "0o17",
        "0x_1F",
        "190:20:30",
        "~",
        "yes",
        '"\\u00e9\\U0001F600"',
        '"\\ud800"',
        "{1: a, true: b, null: c, 2021-03-04: d, 1.5: e}",
        "[&x a, *x]",
        "!!str 1",
        "!custom x",
        "'\x1b[31m'",
    ]
)
VALUE_OUTPUTS = [
    ("resolve", "json"),
    ("resolve", "yaml"),
    ("resolve", "text"),
    ("resolve", "table"),
    ("resolve", "html"),
    ("show", "json"),
    ("show", "yaml"),
    ("show", "text"),
]


@given(st.lists(CATALOG_VALUES, min_size=1, max_size=3), st.sampled_from(VALUE_OUTPUTS))
def test_catalog_values_reach_every_output_format(
    values: list[str], output: tuple[str, str]
) -> None:
    from click.testing import CliRunner

    from deppy.cli.main import cli, register_commands

    register_commands()
    properties = "".join(
        f"  - {{type: custom.v{i}, value: {value}}}\n" for i, value in enumerate(values)
    )
    catalog = (
        "schema: olm.package\nname: demo\ndefaultChannel: stable\n---\n"
        "schema: olm.channel\npackage: demo\nname: stable\nentries:\n  - name: demo.v1.0.0\n---\n"
        "schema: olm.bundle\nname: demo.v1.0.0\npackage: demo\nimage: quay.io/demo:1.0.0\n"
        "properties:\n  - {type: olm.package, value: {packageName: demo, version: 1.0.0}}\n"
        + properties
    )
    command, form = output
    with in_file(catalog.encode(), "catalog.yaml") as path:
        args = ["--catalog", str(path.parent), "-o", form]
        argv = (
            ["resolve", *args, "--require", "demo"]
            if command == "resolve"
            else ["show", "demo", *args]
        )

        def run() -> None:
            result = CliRunner().invoke(cli, argv, env={"DEPPY_CACHE": "off"})
            if result.exception is not None and not isinstance(result.exception, SystemExit):
                raise result.exception
            assert result.exit_code in (0, 1, 2), result.output
            if result.exit_code == 2:
                assert len(result.stderr.strip().splitlines()) == 1, result.stderr

        checked("catalog values", run)
