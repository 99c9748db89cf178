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
from deppy.catalog.fbc import load_catalog, load_catalog_documents
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
from tests.test_store_support import full

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


ADDRESS_SPACE_LIMIT = 8 * 2**30


@pytest.fixture(scope="module", autouse=True)
def count() -> Iterator[None]:
    """Counts what ran; meanwhile the process may not grow past ADDRESS_SPACE_LIMIT, so a
    memory blow-up is a MemoryError (a finding) instead of the machine's OOM killer."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    capped = (
        ADDRESS_SPACE_LIMIT if hard == resource.RLIM_INFINITY else min(hard, ADDRESS_SPACE_LIMIT)
    )
    resource.setrlimit(resource.RLIMIT_AS, (capped, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
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
    mutated([*CATALOG_SEEDS, (TESTS / "olm" / "cli" / "infra" / "catalog.json").read_bytes()]),
    st.sampled_from(["catalog.json", "catalog.yaml"]),
)
def test_catalog_files_with_metadata_left_in_them(data: bytes, name: str) -> None:
    """A one-shot load (CSV metadata left in the file, read again when asked) gives the
    catalog a load into memory gives, or the same error."""
    with in_file(data, name) as path:

        def load() -> None:
            try:
                held = load_catalog(path.parent, name="fuzz")
            except DeppyError as error:
                with pytest.raises(type(error)):
                    load_catalog(path.parent, name="fuzz", file_backed=True)
                raise
            assert full(load_catalog(path.parent, name="fuzz", file_backed=True)) == full(held)

        checked("catalog left in its file", load)


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
    raw = data.draw(mutated([trace_seed]))
    with in_file(raw, "run.jsonl") as path:
        checked("trace file", lambda: _trace_command(command, path))


def _trace_command(command: str, path: Path) -> None:
    """``deppy trace|replay FILE``: an answer, or exit 2 with one line; never a traceback."""
    from click.testing import CliRunner

    from deppy.cli.main import cli

    result = CliRunner().invoke(cli, [command, str(path)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    if result.exit_code == 2:  # one line, and no half answer or summary before it
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert result.stdout == "", result.stdout[:300]


@given(st.data(), st.sampled_from(["trace", "replay"]))
def test_trace_records_holding_wrong_values(
    trace_seed: bytes, data: st.DataObject, command: str
) -> None:
    """A damaged trace that is still JSON, line by line (issue 45): a record's values replaced
    by other JSON (a payload that is a list or a number, warnings that hold objects), removed
    or wrapped in a list. The records with a notes record added, as a command writes one."""
    import json

    records = [json.loads(line) for line in trace_seed.splitlines()]
    records.append({"record": "notes", "warnings": ["a warning added after the pipeline"]})
    for _ in range(data.draw(st.integers(1, 2))):
        which = data.draw(st.integers(0, len(records) - 1))
        records[which] = data.draw(mutated_object([records[which]]))
    raw = "\n".join(json.dumps(r) for r in records).encode()
    with in_file(raw, "run.jsonl") as path:
        checked("trace record", lambda: _trace_command(command, path))


# -- catalog content further in (issue 19): the service, the controller, cluster CSVs, CEL ------
#
# Structured mutations: a valid object with a few of its values replaced by any JSON value,
# removed, or wrapped in a list, so the input passes the entry guard and reaches the code that
# reads fields (where a wrong type once raised AttributeError or TypeError).

HOSTILE_JSON = st.sampled_from(
    ["ten", "", "\x00", "-1", "inf", 1e308, -1, 0, 2**63, True, None, [], {}, "%%%", "H4sIAAAA"]
)
ANY_JSON = HOSTILE_JSON | JSON


def _positions(value: Any) -> list[tuple[Any, Any]]:
    """(container, key) of every nested value."""
    found: list[tuple[Any, Any]] = []
    stack = [value]
    while stack:
        node = stack.pop()
        keys = list(node) if isinstance(node, dict) else range(len(node))
        for key in keys:
            found.append((node, key))
            if isinstance(node[key], dict | list):
                stack.append(node[key])
    return found


@st.composite
def mutated_object(draw: st.DrawFn, seeds: list[Any]) -> Any:
    import copy

    value = copy.deepcopy(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 4))):
        positions = _positions(value) if isinstance(value, dict | list) else []
        if not positions:
            break
        container, key = draw(st.sampled_from(positions))
        action = draw(st.sampled_from(["replace", "replace", "delete", "wrap"]))
        if action == "replace":
            container[key] = draw(ANY_JSON)
        elif action == "wrap":
            container[key] = [container[key]]
        elif isinstance(container, dict):
            del container[key]
        else:
            container.pop(key)
    return value


def _meta(name: str = "a") -> dict[str, Any]:
    return {"name": name, "namespace": "ns", "uid": "u", "generation": 1}


PACKAGE_REF = {"type": "olm.catalog", "value": {"name": "c", "package": "etcd", "channel": "a"}}
CONTROLLER_SEEDS: dict[str, list[Any]] = {
    "ActiveResolution": [
        {"metadata": _meta(), "spec": {"sources": ["c"], "timeoutSeconds": 5,
         "constraints": ['required("etcd")', {"installed": {"name": "e", "version": "1.0.0"}}]}},
    ],
    "Input": [
        {"metadata": _meta(), "spec": {"inputClass": "subscription", "constraints": [
            PACKAGE_REF, {"type": "olm.packageVersion", "value": {"package": "etcd",
            "version": ">=1.0.0"}}, {"type": "olm.cel", "value": "properties.size() > 0"},
            {"type": "olm.name", "value": "etcd.v1.0.0"}]}},
    ],
    "InputClass": [
        {"metadata": _meta("k"), "parameters": {"force": False, "dryRun": True, "trace": False,
         "provisionerClass": "deppy.resolveset",
         "constraints": [{"type": "minKubeVersion", "value": ">= 1.20"}]}},
    ],
    "Operator": [
        {"metadata": _meta(), "spec": {"inputClass": "subscription", "version": "1.0.0",
         "catalog": {"name": "c", "package": "etcd", "channel": "a"},
         "constraints": [{"type": "olm.cel", "value": "true"}]}},
    ],
    "Catalog": [
        {"metadata": {"name": "c"}, "spec": {"priority": 1, "source": {"http": {
            "url": "http://127.0.0.1:1/c.json", "pollInterval": "10m"}}}},
        {"metadata": {"name": "c"}, "spec": {"source": {"configMap": {"namespace": "n",
         "names": ["m"]}}}},
        {"metadata": {"name": "c"}, "spec": {"source": {"path": "/nowhere"}}},
    ],
    "ConfigMap": [
        {"metadata": {"name": "m", "namespace": "n"}, "data": {"a.yaml": "schema: olm.package\n"},
         "binaryData": {"b.json.gz": "H4sIAAAAAAAAA6uuBQBDv6ajAgAAAA=="}},
    ],
}  # fmt: skip


def _controller_call(kind: str, body: Any) -> Callable[[], Any]:
    from deppy.catalog.catalog_set import CatalogSet
    from deppy.controller.catalogs import sources
    from deppy.controller.resolving import requests
    from deppy.resolution.request import ClusterFacts

    calls: dict[str, Callable[[], Any]] = {
        "ActiveResolution": lambda: requests.active_resolution_request(
            body, ClusterFacts(None, None)
        ),
        "Input": lambda: (
            requests.input_class_name(body),
            requests.input_requirements(body, CatalogSet([])),
        ),
        "InputClass": lambda: requests.class_parameters(body),
        "Operator": lambda: requests.operator_input_constraints(body),
        "Catalog": lambda: sources.catalog_source(body),
        "ConfigMap": lambda: sources.config_map_files([body]),
    }
    return calls[kind]


@given(st.sampled_from(sorted(CONTROLLER_SEEDS)).flatmap(
    lambda kind: st.tuples(st.just(kind), mutated_object(CONTROLLER_SEEDS[kind]))
))  # fmt: skip
def test_controller_specs(case: tuple[str, Any]) -> None:
    """What the controller reads from its objects: InputError (an InvalidSpec condition naming
    the field) or an answer, never another exception the controller would retry forever."""
    kind, body = case
    if not isinstance(body, dict):
        return
    checked(f"controller {kind}", _controller_call(kind, body))


CSV_SPEC_SEED = {
    "install": {"strategy": "deployment", "spec": {
        "permissions": [{"serviceAccountName": "p", "rules": [
            {"apiGroups": [""], "resources": ["pods", "secrets"], "verbs": ["get", "list"]}]}],
        "clusterPermissions": [{"serviceAccountName": "p", "rules": [
            {"nonResourceURLs": ["/metrics"], "verbs": ["get"]},
            {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"], "resourceNames": ["x"]}]}],
    }},
}  # fmt: skip


def _bundle_embedding(spec: Any, name: str) -> Any:
    import base64
    import json

    from deppy.catalog.model import Bundle
    from deppy.catalog.semver import Version

    csv = {"kind": "ClusterServiceVersion", "metadata": {"name": name}, "spec": spec}
    data = base64.b64encode(json.dumps(csv).encode()).decode()  # any int, as YAML could hold
    return Bundle(name, "p", Version.parse("1.0.0"), "img", "c", "c",
                  (Property("olm.bundle.object", {"data": data}),))  # fmt: skip


@given(mutated_object([CSV_SPEC_SEED]), mutated_object([CSV_SPEC_SEED]), st.booleans())
def test_approval_on_hostile_csvs(new_spec: Any, old_spec: Any, upgrade: bool) -> None:
    """Android approval reads the permissions of catalog CSVs: a verdict always, with a reason
    and one line, whatever the CSVs hold."""
    from deppy.controller.approval.policies import decide
    from deppy.controller.approval.resolveset import SetEntry

    new, old = _bundle_embedding(new_spec, "p.v2"), _bundle_embedding(old_spec, "p.v1")
    entry = SetEntry(new, "a", pivot_from="p.v1" if upgrade else None)

    def run() -> None:
        verdict = decide("Android", [entry], lambda package, name: old)
        assert verdict.reason and "\n" not in verdict.message
        if not upgrade:
            assert not verdict.approved  # a new install is never approved automatically

    checked("approval", run)


CLUSTER_OBJECT_SEEDS = [
    {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "Subscription",
     "metadata": {"name": "etcd", "namespace": "ops"},
     "spec": {"name": "etcd", "channel": "alpha", "source": "community"},
     "status": {"installedCSV": "etcd.v0.9.4"}},
    {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
     "metadata": {"name": "etcd.v0.9.4", "namespace": "ops",
                  "annotations": {"operatorframework.io/properties": '{"properties": []}'},
                  "labels": {"operators.coreos.com/etcd.ops": ""}},
     "spec": {"version": "0.9.4", "replaces": "etcd.v0.9.2",
              "customresourcedefinitions": {"owned": [{"name": "a.b", "kind": "A",
               "version": "v1"}], "required": [{"name": "c.d", "kind": "C", "version": "v1"}]}},
     "status": {"phase": "Succeeded"}},
    {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "CatalogSource",
     "metadata": {"name": "community", "namespace": "olm"},
     "spec": {"sourceType": "grpc", "image": "x", "priority": 1}},
    {"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "config.openshift.io/v1",
     "kind": "ClusterVersion", "metadata": {"name": "version"},
     "status": {"desired": {"version": "4.18.1"}}}]},
]  # fmt: skip


@given(st.lists(mutated_object(CLUSTER_OBJECT_SEEDS), min_size=1, max_size=4))
def test_cluster_objects(objects: list[Any]) -> None:
    """A cluster export whose objects have any field of any type: read, or one error line."""
    import json

    from deppy.cluster.export import read_cluster_files

    data = json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}).encode()
    with in_file(data, "state.json") as path:
        checked("cluster objects", lambda: read_cluster_files(path))


@given(mutated_object([CLUSTER_OBJECT_SEEDS[1]]), st.booleans())
def test_csv_annotations(csv: Any, as_json: bool) -> None:
    """``deppy properties`` on a CSV whose metadata, annotations or spec have any type."""
    import json

    import yaml

    from deppy.workflows.properties import annotate_csv, read_csv_file

    data = json.dumps(csv).encode() if as_json else yaml.safe_dump(csv).encode()
    with in_file(data, "csv.json" if as_json else "csv.yaml") as path:

        def run() -> None:
            found, is_json = read_csv_file(path)
            annotate_csv(found, None, package=None, as_json=is_json)

        checked("CSV annotation", run)


# -- the service: bodies, query parameters and archives through the whole HTTP stack ----------


@pytest.fixture(scope="module")
def service() -> Iterator[Any]:
    from tests.service_support import client, paths_app

    with client(paths_app(f"{DATA / 'catalog'}=example", max_body=256 * 1024)) as api:
        yield api


def _problem(response: Any) -> None:
    assert response.status_code < 500, (response.status_code, response.text[:500])
    if response.status_code >= 400:
        assert response.headers["content-type"].startswith("application/problem+json")
        detail = response.json().get("detail", "")
        assert "\n" not in detail and "Traceback" not in response.text


QUERY_TEXT = (
    SPEC_TEXT | st.text(max_size=30) | st.sampled_from(["-1", "1e309", "nan", "0", "x" * 3000])
)
GETS = st.sampled_from([
    ("/api/v1/packages", ["q", "limit"]),
    ("/api/v1/packages/{p}", ["channel", "catalog"]),
    ("/api/v1/packages/{p}/graph", ["channel", "catalog"]),
    ("/api/v1/packages/{p}/graph.svg", ["channel", "catalog"]),
    ("/api/v1/packages/{p}/bundles/{b}", ["catalog"]),
    ("/api/v1/catalogs/{p}/check", []),
    ("/api/v1/upgrades", ["ocpVersion", "kubeVersion", "installed", "timeout"]),
])  # fmt: skip


@given(GETS, st.sampled_from(["grafana-operator", "prometheus", "nope"]) | QUERY_TEXT,
       QUERY_TEXT, st.lists(QUERY_TEXT, max_size=3), st.data())  # fmt: skip
def test_http_query_parameters(
    service: Any, route: tuple[str, list[str]], p: str, b: str, values: list[str],
    data: st.DataObject,
) -> None:  # fmt: skip
    import urllib.parse

    path, names = route
    url = path.replace("{p}", urllib.parse.quote(p, safe="")).replace(
        "{b}", urllib.parse.quote(b, safe="")
    )
    params = [(data.draw(st.sampled_from(names)), v) for v in values] if names else []
    checked("HTTP query", lambda: _problem(service.get(url, params=params)))


@given(mutated(REQUEST_SEEDS + HOSTILE), st.sampled_from(["", "?verbose=true", "?trace=true",
       "?timeout=0.5", "?timeout=-1", "?next=ocp=4.99"]), st.sampled_from(["resolve",
       "resolve/graph"]))  # fmt: skip
def test_http_resolve(service: Any, body: bytes, query: str, route: str) -> None:
    headers = {"Content-Type": "application/yaml"}
    checked(
        "HTTP resolve",
        lambda: _problem(service.post(f"/api/v1/{route}{query}", content=body, headers=headers)),
    )


def _bundle_archive() -> bytes:
    import io
    import tarfile

    files = {
        "metadata/annotations.yaml": b"annotations:\n"
        b"  operators.operatorframework.io.bundle.package.v1: p\n"
        b"  operators.operatorframework.io.bundle.channels.v1: stable\n",
        "manifests/p.clusterserviceversion.yaml": b"kind: ClusterServiceVersion\n"
        b"metadata: {name: p.v1.0.0}\nspec: {version: 1.0.0}\n",
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


TAR_SEEDS = [__import__("gzip").decompress(_bundle_archive())]
GZIP_SEEDS = [_bundle_archive()]


@given(mutated(TAR_SEEDS + HOSTILE).map(lambda tar: __import__("gzip").compress(tar, mtime=0))
       | mutated(GZIP_SEEDS + HOSTILE))  # fmt: skip
def test_http_archives(service: Any, body: bytes) -> None:
    headers = {"Content-Type": "application/gzip"}
    checked(
        "HTTP archive",
        lambda: _problem(service.post("/api/v1/validate", content=body, headers=headers)),
    )


# -- deep or wide CEL rules in a catalog, carried to every output format -------------------------

CEL_LEAVES = st.sampled_from([
    "true", "p.type == 'olm.gvk'", "p.value.kind == 'K'", "size(p.value) > 1",
    "semver_compare(string(p.value.version), '1.0.0') >= 0", "p.value.x == bytes('x')",
    "p.value.description.matches('^(a+)+$')", "p.value == p.value", "p.x.y",
    "string(p.value) == 'x'", "p.value + p.value == p.value", "1 / 0 == 1",
])  # fmt: skip


@st.composite
def cel_rule(draw: st.DrawFn) -> str:
    """A rule nested deep (macros inside macros, negations, parentheses) or wide (many terms)."""
    leaf = draw(st.lists(CEL_LEAVES, min_size=1, max_size=200).map(
        lambda terms: f"({draw(st.sampled_from([' || ', ' && '])).join(terms)})"
    ))  # fmt: skip
    body = leaf
    for _ in range(draw(st.integers(0, 60))):
        body = draw(st.sampled_from([
            f"!({body})", f"({body})",
            f"properties.exists(p, {body})", f"properties.all(p, {body})",
            f"size(properties.map(p, properties.filter(q, {body}))) >= 0",
        ]))  # fmt: skip
    return f"properties.exists(p, {body})"


def _cel_catalog(root: Path, rule: str) -> None:
    import orjson

    lines = [
        {"schema": "olm.package", "name": "evil", "defaultChannel": "s"},
        {"schema": "olm.channel", "package": "evil", "name": "s",
         "entries": [{"name": "evil.v1.0.0"}]},
        {"schema": "olm.bundle", "package": "evil", "name": "evil.v1.0.0", "image": "i",
         "properties": [{"type": "olm.package", "value": {"packageName": "evil",
                         "version": "1.0.0"}},
                        {"type": "olm.constraint", "value": {"failureMessage": "f",
                         "cel": {"rule": rule}}}]},
        {"schema": "olm.package", "name": "dep", "defaultChannel": "s"},
        {"schema": "olm.channel", "package": "dep", "name": "s",
         "entries": [{"name": f"dep.v1.0.{n}"} for n in range(3)]},
        *({"schema": "olm.bundle", "package": "dep", "name": f"dep.v1.0.{n}", "image": "i",
           "properties": [{"type": "olm.package", "value": {"packageName": "dep",
                           "version": f"1.0.{n}"}},
                          {"type": "olm.csv.metadata", "value": {"description": "a" * 3000 + "!",
                           "keywords": ["x"] * 20}},
                          *({"type": "olm.gvk", "value": {"group": f"g{i}", "kind": "K",
                             "version": "v1"}} for i in range(12))]}
          for n in range(3)),
    ]  # fmt: skip
    (root / "catalog.json").write_bytes(b"\n".join(orjson.dumps(line) for line in lines))


@settings(max_examples=max(10, settings().max_examples // 10))
@given(cel_rule(), st.sampled_from(["text", "json", "yaml", "html", "table"]))
def test_cel_rules_in_a_catalog_to_every_output(rule: str, output: str) -> None:
    """A catalog's deep or wide CEL rule through ``deppy resolve -o FORMAT``: exit 0, 1 or 2,
    at most one error line, within the suite's deadline and memory ceiling."""
    from click.testing import CliRunner

    from deppy.cli.main import cli, register_commands

    register_commands()
    with tempfile.TemporaryDirectory() as directory:
        _cel_catalog(Path(directory), rule)
        args = ["resolve", "--catalog", directory, "--require", "evil", "-o", output]

        def run() -> None:
            result = CliRunner().invoke(cli, args)
            if result.exception is not None and not isinstance(result.exception, SystemExit):
                raise result.exception
            assert result.exit_code in (0, 1, 2), (result.exit_code, result.stderr[-500:])
            errors = [line for line in result.stderr.splitlines() if "error" in line]
            assert len(errors) <= 1 and "Traceback" not in result.stderr, result.stderr[-500:]

        checked("CEL in a catalog", run)


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


# ==========================================================================================

# Issue 26, groups 3, 4, 5, 6, 9 and 13 (branch fix26-files): the doors those groups came through.
# Every test here has "files26" in its name: `pytest tests/test_fuzz.py -k files26`.
# =================================================================================================

SMALL_PROBLEMS = [
    (ROOT / "examples" / "preference.json").read_bytes(),
    b'{"variables": [{"id": "a", "constraints": [{"type": "mandatory"}]}]}',
    b'[{"id": "a"}, {"id": "b", "constraints": []}]',
]
JSON_BREAKS = [b'"', b":", b",", b"\x01", b"\x1f", b"\\", b"{", b"]", b"\n", b"\t", b"\x00"]


@contextmanager
def _json_never_imported() -> Iterator[None]:
    """This process as ``deppy solve`` starts: CPython's C scanner without ``json.decoder`` in
    sys.modules (it looks the module up there to word its errors, without importing it)."""
    import sys

    hidden = {name: sys.modules.pop(name) for name in ("json.decoder",) if name in sys.modules}
    try:
        yield
    finally:
        sys.modules.update(hidden)


@st.composite
def broken_small_json(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SMALL_PROBLEMS)))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["insert", "delete", "cut"]))
        if kind == "insert":
            data[at:at] = draw(st.sampled_from(JSON_BREAKS))
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 3))]
        else:
            del data[at:]
    return bytes(data)


@given(broken_small_json() | mutated(SMALL_PROBLEMS))
def test_files26_solve_small_json(data: bytes) -> None:
    """Group 3: a small problem file read at start-up (the C scanner, no orjson) gives orjson's
    value or orjson's error — "invalid JSON" with its line and column — never a SystemError."""
    from deppy.input_limits import parse_json

    def outcome(small: bool) -> Any:
        try:
            return ("value", parse_json(data, "p.json", small=small))
        except DeppyError as error:
            return ("error", str(error))

    def run() -> None:
        with _json_never_imported():
            fast = outcome(small=True)
        assert fast == outcome(small=False), data[:200]
        if fast[0] == "error" and "invalid JSON" in fast[1]:
            assert " line " in fast[1] and " column " in fast[1], fast[1]
        with in_file(data, "p.json") as path, _json_never_imported():
            load_problem(path)

    checked("files26 small JSON at start-up", run)


@st.composite
def yaml_alias_bomb(draw: st.DrawFn) -> str:
    """A YAML document of aliases to a large scalar (a mapping of one, a list of a few, aliases
    of aliases, merge keys), in every place a YAML entry point reads."""
    size = draw(st.integers(1, 200_000))
    count = draw(st.integers(1, 3_000))
    anchor = draw(
        st.sampled_from(
            [
                f"&big {'x' * size}",
                f"&big '{'y' * size}'",
                f"&big {{k: {'z' * size}}}",
                f"&big [{'w' * size}, {'v' * (size // 2)}]",
            ]
        )
    )
    if draw(st.booleans()):
        layer = "&mid [" + ", ".join(["*big"] * draw(st.integers(1, 50))) + "]"
        use = "*mid"
    else:
        layer, use = "0", "*big"
    if draw(st.booleans()) and "{" in anchor:
        body = "".join(f"m{n}: {{<<: *big, n: {n}}}\n" for n in range(count))
    else:
        body = "b: [" + ", ".join([use] * count) + "]\n"
    return f"a: {anchor}\nl: {layer}\n{body}"


ALIAS_DOORS = ["yaml", "catalog", "request", "pipeline", "problem", "cluster", "bundle"]


@settings(max_examples=max(10, settings().max_examples // 5))
@given(yaml_alias_bomb(), st.sampled_from(ALIAS_DOORS))
def test_files26_yaml_aliases_to_large_scalars(text: str, door: str) -> None:
    """Group 4: aliases are bounded by the text they add: what is accepted encodes to at most
    MAX_ALIAS_TEXT more than the file itself, whatever door it came through."""
    import orjson

    from deppy.cluster.export import read_cluster_files
    from deppy.input_limits import MAX_ALIAS_TEXT, UnsafeInput, yaml_documents

    data = text.encode()

    def run() -> None:
        if door == "yaml":
            try:
                documents = yaml_documents(data)
            except UnsafeInput:
                return
            assert len(orjson.dumps(documents)) <= MAX_ALIAS_TEXT + 4 * len(data)
        elif door == "catalog":
            load_catalog_documents({"catalog.yaml": b"schema: olm.package\n" + data},
                                   name="fuzz", where="fuzz")  # fmt: skip
        elif door == "request":
            with in_file(b"kind: ActiveResolution\n" + data, "request.yaml") as path:
                load_request_file(path)
        elif door == "pipeline":
            with in_file(b"kind: Pipeline\n" + data, "pipeline.yaml") as path:
                load_pipeline(str(path))
        elif door == "problem":
            with in_file(data, "p.yaml") as path:
                load_problem(path)
        elif door == "cluster":
            with in_file(b"kind: List\n" + data, "state.yaml") as path:
                read_cluster_files(path)
        else:
            with tempfile.TemporaryDirectory() as directory:
                root = Path(directory)
                (root / "metadata").mkdir()
                (root / "manifests").mkdir()
                (root / "metadata" / "annotations.yaml").write_bytes(data)
                load_bundle_dir(root)

    checked("files26 YAML aliases to large scalars", run)


@pytest.fixture(scope="module")
def files26_cache(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The embedded catalog, and a whole cache entry of it in each format."""
    import shutil

    from deppy.catalog.fbc.cache import ParsedCache
    from deppy.store.cache_entries import StoredEntries

    root = tmp_path_factory.mktemp("files26-cache")
    catalog = root / "catalog"
    shutil.copytree(DATA / "catalog", catalog)
    kept: dict[str, Any] = {"catalog": catalog, "direct": full(load_catalog(catalog, name="c"))}
    for form, files in (("pickled", None), ("stored", StoredEntries())):
        cache = ParsedCache(root / form, files=files)
        load_catalog(catalog, name="c", cache=cache)
        kept[form] = {p.name: p.read_bytes() for p in (root / form).iterdir()}
    return kept


@st.composite
def damaged_entry(draw: st.DrawFn, whole: bytes) -> tuple[str, bytes]:
    kind = draw(st.sampled_from(["flip", "flips", "cut", "empty", "fifo", "zero", "dir", "junk"]))
    data = bytearray(whole)
    if kind == "flip":
        data[draw(st.integers(0, len(data) - 1))] ^= 1 << draw(st.integers(0, 7))
    elif kind == "flips":
        for _ in range(draw(st.integers(2, 20))):
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    elif kind == "cut":
        del data[draw(st.integers(0, len(data) - 1)) :]
    elif kind == "empty":
        data = bytearray()
    elif kind == "junk":
        data = bytearray(draw(st.binary(max_size=2000)))
    return kind, bytes(data)


def _place_entry(path: Path, kind: str, data: bytes) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "dir":
        path.mkdir()
    else:
        path.write_bytes(data)


@settings(max_examples=max(10, settings().max_examples // 5))
@given(st.data(), st.sampled_from(["pickled", "stored"]), st.sampled_from(["catalog-", "file-"]))
def test_files26_damaged_cache_entries(
    files26_cache: dict[str, Any], data: st.DataObject, form: str, prefix: str
) -> None:
    """Groups 5 and 6: whatever lies under an entry's name, the catalog is the one a load
    without the cache gives, in bounded time, and the entry is written again."""
    from deppy.catalog.fbc.cache import ParsedCache
    from deppy.store.cache_entries import CachedCatalog, StoredEntries

    entries: dict[str, bytes] = files26_cache[form]
    names = sorted(n for n in entries if n.startswith(prefix)) or sorted(entries)
    name = data.draw(st.sampled_from(names))
    kind, damaged = data.draw(damaged_entry(entries[name]))
    with tempfile.TemporaryDirectory() as directory:
        where = Path(directory)
        for other, whole in entries.items():
            if other != name and not (prefix == "file-" and other.startswith("catalog-")):
                (where / other).write_bytes(whole)
        _place_entry(where / name, kind, damaged)
        files = StoredEntries() if form == "stored" else None
        cache = ParsedCache(where, files=files)

        def run() -> None:
            if form == "stored" and name.startswith("catalog-") and kind not in ("fifo", "dir"):
                try:  # the lazy door: refused at open, or every read gives checked bytes
                    source = CachedCatalog(where / name).source()
                    assert sorted(source.package_names())
                    for package in source.package_names():
                        source.bundles_of(package)
                except ValueError:
                    pass
            loaded = load_catalog(files26_cache["catalog"], name="c", cache=cache)
            assert full(loaded) == files26_cache["direct"]
            assert (
                full(load_catalog(files26_cache["catalog"], name="c", cache=cache))
                == (files26_cache["direct"])
            )

        checked("files26 damaged cache entries", run)


LONG_PARTS = st.sampled_from(["a" * 256, "é" * 128, "b" * 1000, "x" * 255, "€" * 86, "c"])


@given(
    st.lists(LONG_PARTS, min_size=1, max_size=3),
    st.sampled_from(["show", "search", "validate", "resolve", "cluster", "request", "catalog"]),
)
def test_files26_long_path_components(parts: list[str], command: str) -> None:
    """Group 9: a path whose names pass 255 bytes, given to any command, is one error line
    naming it (the kernel says so of the first name it looks up; past a missing name, and when
    every name fits, the command says the path is missing)."""
    from click.testing import CliRunner

    from deppy.cli.main import cli, register_commands

    register_commands()
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, *parts)
        argv = {
            "show": ["show", "--catalog", path, "etcd"],
            "search": ["search", "--catalog", path, "etcd"],
            "validate": ["validate", path],
            "resolve": ["resolve", "--catalog", path, "--require", "etcd"],
            "cluster": ["resolve", "--cluster", path, "--require", "etcd"],
            "catalog": ["catalog", "add", "long", path],
        }.get(command)
        if argv is None:
            request = Path(directory) / "request.yaml"
            request.write_text(
                "apiVersion: deppy.io/v1alpha1\nkind: ActiveResolution\nmetadata: {name: x}\n"
                f"spec:\n  catalogs: [{{name: c, path: '{path}'}}]\n"
                "  constraints: ['required(etcd)']\n"
            )
            argv = ["resolve", "-f", str(request)]

        def run() -> None:
            result = CliRunner().invoke(cli, argv, env={"DEPPY_HOME": directory})
            if result.exception is not None and not isinstance(result.exception, SystemExit):
                raise result.exception
            assert result.exit_code == 2, (result.exit_code, result.output[-500:])
            assert len(result.stderr.strip().splitlines()) == 1, result.stderr[-500:]
            if len(parts[0].encode()) > 255:  # a later one: the walk stops at a missing name
                assert "too long" in result.stderr, result.stderr[-500:]

        checked("files26 long path components", run)


MERGE_PIECES = [
    "a: <<\n",
    "a: [<<, x]\n",
    "a:\n- <<\n",
    '"<<": 1\n',
    "'<<': 2\n",
    "m:\n  <<: {x: 1, y: 2}\n  y: 3\n",
    "m:\n  <<: [{x: 1}, {z: 2}]\n",
    "m:\n  <<: x\n",
    "m:\n  <<: [x]\n",
    "m: {<<: {a: 1}, <<: {b: 2}}\n",
    "m:\n  <<: {<<: {deep: 1}}\n",
    "? <<\n: 1\n",
    "m: !!merge <<\n",
    "m: {k: <<}\n",
    "<<: {top: 1}\n",
]


@given(st.lists(st.sampled_from(MERGE_PIECES), min_size=1, max_size=4, unique=True))
def test_files26_merge_keys(pieces: list[str]) -> None:
    """Group 13: one document, one answer — with or without an unrelated anchor (which sends it
    from the fast path to the loader), the same value or a refusal of the same kind."""
    import yaml

    from deppy.input_limits import UnsafeInput, yaml_value

    text = "".join(f"k{n}:\n" + "".join("  " + line + "\n" for line in piece.splitlines())
                   for n, piece in enumerate(pieces))  # fmt: skip

    def answer(document: str) -> Any:
        try:
            return ("value", yaml_value(document))
        except (yaml.YAMLError, UnsafeInput) as error:
            return ("refused", type(error).__name__)

    def run() -> None:
        plain = answer(text)
        anchored = answer("unrelated: &u 0\n" + text)
        if plain[0] == "value" and anchored[0] == "value":
            assert anchored[1] == {"unrelated": 0, **plain[1]}, (text, plain, anchored)
        else:
            assert plain[0] == anchored[0], (text, plain, anchored)

    checked("files26 merge keys", run)


# =============================================================================================
# Issue 26, groups 7, 8, 10, 11, 12 (branch fix26-service): HTTP methods and tokens against
# `deppy serve`'s app, gzip streams of many members, blank-line streams, names holding control
# characters through the text reporters. Names start with test_fuzz26_service_.

CONTROL_TEXT = st.lists(
    st.sampled_from(
        [*"ab-.9", "\x1b]0;t\x07", "\x1b]52;c;aGk\x07", "\x07", "\x9b31m", "\x08", "\x1b[2J",
         "\u202e", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200f",
         "\u061c", "\x7f", "\x85", "\x9d8;;u\x9c", "\ud800", "é", "☃"]
    ),
    min_size=1,
    max_size=12,
).map("".join)  # fmt: skip


@pytest.fixture(scope="module")
def guarded_service() -> Iterator[Any]:
    from tests.service_support import client, paths_app

    app = paths_app(f"{DATA / 'catalog'}=example", token="api-☃", metrics_token="scrape-é")
    with client(app) as api:
        yield api


METHOD_CHARS = st.sampled_from([*"ABCXYZ!#$%&'*+-.^_`|~0", "GET", "POST", "HEAD"])


@given(
    st.lists(METHOD_CHARS, min_size=1, max_size=8).map("".join),
    st.sampled_from(["/api/v1/resolve", "/metrics", "/nowhere", "/api/v1/healthz", "/"]),
    st.binary(max_size=40)
    | st.sampled_from([b"Bearer api-\xe2\x98\x83", b"Bearer scrape-\xc3\xa9"]),
)
def test_fuzz26_service_http_methods_and_tokens(
    guarded_service: Any, method: str, path: str, authorization: bytes
) -> None:
    """Any method token and any Authorization bytes: an answer below 500, and the method
    label of the request counter stays within the standard methods and ``other``."""
    from deppy.service.metrics import METHODS

    authorization = authorization.replace(b"\r", b"").replace(b"\n", b"").replace(b"\0", b"")

    def run() -> None:
        headers = {"Authorization": authorization} if authorization.strip() else {}
        answer = guarded_service.request(method, path, headers=headers)
        assert answer.status_code < 500, (answer.status_code, answer.text[:300])
        if path == "/metrics" and answer.status_code == 200:
            assert authorization == b"Bearer scrape-\xc3\xa9"
        registry = guarded_service.app.state.service.metrics.registry
        methods = {
            sample.labels["method"]
            for family in registry.collect()
            if family.name == "deppy_http_requests"
            for sample in family.samples
        }
        assert methods <= {*METHODS, "other"}, methods

    checked("serve methods/tokens", run)


@given(st.binary(max_size=64), st.sampled_from(["--token-file", "--metrics-token-file"]))
def test_fuzz26_service_token_files(content: bytes, option: str) -> None:
    """Any token file: a token read, or one ``deppy: error:`` line naming the file."""
    from deppy.service.config import read_token

    with in_file(content, "token") as path:

        def run() -> None:
            token = read_token(str(path), option)
            assert token.isprintable() and token == token.strip() and token
            token.encode("utf-8")

        checked("token file", run)


@st.composite
def gzip_stream(draw: st.DrawFn) -> bytes:
    """Several gzip members (many of them empty), zero padding between some, the end maybe
    cut or damaged."""
    import gzip

    contents = draw(
        st.lists(st.sampled_from([b"", b"\n", b"{}\n", CATALOG_SEEDS[1][:200]]), max_size=30)
    )
    empties = draw(st.integers(0, 3000))
    parts = [gzip.compress(c, mtime=0) for c in contents] + [gzip.compress(b"", mtime=0)] * empties
    order = draw(st.permutations(range(len(parts))))
    raw = b"".join(parts[i] + b"\0" * draw(st.sampled_from([0, 0, 0, 7])) for i in order)
    cut = draw(st.sampled_from(["none", "none", "cut", "flip"]))
    if cut == "cut" and raw:
        raw = raw[: draw(st.integers(0, len(raw)))]
    elif cut == "flip" and raw:
        at = draw(st.integers(0, len(raw) - 1))
        raw = raw[:at] + bytes([raw[at] ^ 0xFF]) + raw[at + 1 :]
    return raw


@given(gzip_stream())
def test_fuzz26_service_gzip_members(raw: bytes) -> None:
    """deppy's gzip reader gives what gzip.decompress gives (or an error where it errs), and
    the controller's ConfigMap source reads the same through it."""
    import base64
    import gzip
    import zlib

    from deppy.controller.catalogs.sources import config_map_files
    from deppy.input_limits.streams import gunzip_capped

    def run() -> None:
        try:
            expected: bytes | None = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error):
            expected = None
        try:
            found: bytes | None = gunzip_capped(raw)
        except (EOFError, zlib.error):
            found = None
        if raw[:2] == b"\x1f\x8b" or expected is None:
            assert found == expected or (expected is None and found is not None)
        config_map = {
            "metadata": {"name": "m", "namespace": "n"},
            "binaryData": {"catalog.json.gz": base64.b64encode(raw).decode()},
        }
        config_map_files([config_map])

    checked("gzip members", run)


BLANKS = st.sampled_from([b"\n", b"\r\n", b" \n", b"\t\n", b"\x0b\n", b"\n" * 1000, b"\n" * 50_000])


@given(
    st.lists(BLANKS | st.sampled_from(CATALOG_SEEDS[1].splitlines(keepends=True)[:5]), max_size=60),
    st.sampled_from(["catalog.json", "catalog.yaml", ""]),
)  # fmt: skip
def test_fuzz26_service_blank_line_streams(pieces: list[bytes], name: str) -> None:
    """Streams mostly of blank lines: the same objects, at the same lines, as reading the
    stream line by line, at no more memory than a share of the stream."""
    import tracemalloc

    import orjson

    from deppy.catalog.fbc.files import read_docs

    data = b"".join(pieces)

    def run() -> None:
        tracemalloc.start()
        try:
            docs = read_docs(data, Path(name).suffix, [])
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 2 * len(data) + (1 << 20), (peak, len(data))
        lines = data.split(b"\n")
        if all(not line.strip() or line.lstrip().startswith(b"{") for line in lines):
            try:
                expected = [
                    (n, orjson.loads(line)) for n, line in enumerate(lines, 1) if line.strip()
                ]
            except orjson.JSONDecodeError:
                return
            assert [(d.line, d.obj) for d in docs] == expected

    checked("blank lines", run)


@given(CONTROL_TEXT, st.sampled_from(["require", "installed", "explanation"]))
def test_fuzz26_service_names_with_controls(name: str, door: str) -> None:
    """A name holding control characters, through the CLI's text output and the explanation
    reporters: every line printable, stdout and stderr alike."""
    from click.testing import CliRunner

    from deppy.cli.main import cli, register_commands
    from deppy.explain import Explanation, explanation_as_short_text, explanation_as_text
    from deppy.explain.model import Cause, Suggestion

    register_commands()
    catalog = str(DATA / "catalog")

    def shown(text: str) -> None:
        assert all(char.isprintable() or char == "\n" for char in text), repr(text[-300:])

    def run() -> None:
        if door == "explanation":
            explanation = Explanation(
                f"Cannot resolve {name}", (name,), (Cause("k", name, short=name),),
                (Suggestion(f"drop {name}"),), (name,), (Cause("k", name),),
            )  # fmt: skip
            shown(explanation_as_text(explanation, verbose=True))
            shown(explanation_as_short_text(explanation))
            return
        args = ["resolve", "--catalog", catalog]
        if door == "require":
            args += ["--require", name]
        else:
            args += ["--require", "grafana-operator", "--installed", f"{name}@1.0.0"]
        result = CliRunner().invoke(cli, args)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        assert result.exit_code in (0, 1, 2), result.output
        shown(result.stdout)
        shown(result.stderr)

    checked("names with controls", run)


# -- issue 26 (fix26-install): the YAML writer of -o yaml ----------------------------------------
# Every answer's YAML is written by libyaml's emitter now (deppy.input_limits.yaml_writer): any
# JSON value an answer can hold — strings of any code point, control characters, long lines,
# keys that look like other types — must read back as itself, in both of deppy's settings.

_JSON_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=300)
_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _JSON_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_JSON_TEXT, inner, max_size=4),
    max_leaves=20,
)


@given(_JSON_VALUES, st.booleans(), st.sampled_from([100, 1 << 20]))
def test_yaml_answers_read_back_as_the_value(value: Any, unicode: bool, width: int) -> None:
    import yaml

    from deppy.input_limits.yaml_writer import yaml_text

    def run() -> None:
        text = yaml_text(value, width=width, allow_unicode=unicode)
        assert yaml.safe_load(text) == value, text[:300]

    checked("yaml writer", run)


# -- issue 26 (fix26-install): kubeconfigs -------------------------------------------------------
# Every command that talks to a cluster (resolve --kubeconfig, cluster export, controller,
# approve) reads its kubeconfig through deppy.cluster.kubeconfig.kube_configuration: whatever
# the file holds, the answer is a configuration or deppy's one-line InputError. The seeds point
# at 127.0.0.1:1 and use no exec or auth-provider plugin (loading never connects).

_KUBECONFIG_SEEDS = [
    b"apiVersion: v1\nkind: Config\ncurrent-context: c\n"
    b"clusters:\n- name: k\n  cluster:\n    server: https://127.0.0.1:1\n"
    b"    certificate-authority-data: aGVsbG8K\n    insecure-skip-tls-verify: false\n"
    b"contexts:\n- name: c\n  context: {cluster: k, user: u, namespace: ns}\n"
    b"users:\n- name: u\n  user: {token: abc, client-key-data: aGVsbG8K}\n",
    b"apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: []\ncontexts: []\nusers: []\n",
    b"",
]


@given(mutated(_KUBECONFIG_SEEDS), st.sampled_from([None, "c", "other"]))
def test_kubeconfigs(data: bytes, context: str | None) -> None:
    from deppy.cluster.kubeconfig import kube_configuration

    with in_file(data, "kubeconfig") as path:
        checked("kubeconfig", lambda: kube_configuration(str(path), context))


# -- issue 26 (fix26-install): package descriptions in the web UI --------------------------------
# GET /api/v1/packages/{p}/description.html renders a catalog's CSV Markdown
# (deppy.service.description): whatever the text, the HTML has only the tags Markdown makes, no
# attribute that runs code, links only to http(s) — and it is made in bounded time.

_MARKDOWN_PIECES = st.sampled_from(
    [
        "# ",
        "\n",
        "\n\n",
        "[",
        "]",
        "(",
        ")",
        "![",
        "<",
        ">",
        "*",
        "_",
        "`",
        "```\n",
        "> ",
        "- ",
        "1. ",
        "\\",
        "&",
        "&#x6A;",
        '"',
        "'",
        " ",
        "javascript:",
        "JaVaScRiPt:",
        "data:text/html,",
        "vbscript:",
        "https://ok.example/",
        "//evil.example/",
        "mailto:a@b",
        "<script>",
        "</script>",
        "<img src=x onerror=alert(1)>",
        "<a href='javascript:x'>",
        'onclick="x"',
        "[r]: ",
        "\t",
        "\x00",
        "\u202e",
        "x",
        "word ",
    ]
)


@given(st.lists(_MARKDOWN_PIECES | st.text(max_size=8), max_size=80).map("".join))
def test_package_descriptions_render_to_safe_html(text: str) -> None:
    import re

    from deppy.service.description import description_html

    allowed = {"h3", "h4", "h5", "h6", "p", "a", "em", "strong", "code", "pre", "ul", "ol"}
    allowed |= {"li", "blockquote", "hr", "br"}

    def run() -> None:
        html = description_html(text)
        tags = {t.lower() for t in re.findall(r"<\s*/?\s*([A-Za-z][A-Za-z0-9]*)", html)}
        assert tags <= allowed, html[:300]
        hrefs = re.findall(r'<a href="([^"]*)"', html)
        assert html.count("<a ") == len(hrefs), html[:300]
        assert all(h.startswith(("http://", "https://")) for h in hrefs), html[:300]
        assert not re.search(r"<[^>]*\son[a-z]+\s*=", html), html[:300]

    checked("package descriptions", run)
