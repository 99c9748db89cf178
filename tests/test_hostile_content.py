"""Catalog content is untrusted input too (issue 19): what a catalog, a CSV, a cluster export or a
custom resource holds cannot hang deppy, blow up its memory or end in a traceback.

Each test reproduces one finding of the fuzz campaign that found them; run against the code
before the fix, each fails.
"""

from __future__ import annotations

import base64
import gzip
import http.server
import os
import re
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from deppy.catalog.cel import CelBudgetExceeded, CelEvaluationError, compile_rule, properties_of
from deppy.catalog.model import Property
from deppy.errors import InputError
from tests.test_store_support import DEPPY


def deppy(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DEPPY_HOME=str(home))
    return subprocess.run([*DEPPY, *args], env=env, capture_output=True, text=True, timeout=120)


def one_error_line(result: subprocess.CompletedProcess[str], *words: str) -> str:
    """Exit 2 and exactly one line on stderr, ``deppy: error: …``, naming ``words``."""
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("deppy: error: "), result.stderr[-2000:]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


# -- 1. CEL: the cost of errors, of comparing and of copying is charged; messages stay short ---


class Bundle:
    """A bundle as a CEL rule sees it: its properties only."""

    def __init__(self, *properties: Property) -> None:
        self.properties = properties


def bundle_like_grafana() -> Bundle:
    """15 properties, one of them a CSV's metadata with 16 KB of description (as the community
    catalog's grafana-operator bundles have)."""
    gvks = [
        Property("olm.gvk", {"group": "g", "version": "v1", "kind": f"K{i}"}) for i in range(13)
    ]
    metadata = Property("olm.csv.metadata", {"description": "grafana " * 2000, "keywords": ["a"]})
    return Bundle(
        Property("olm.package", {"packageName": "p", "version": "1.0.0"}), *gvks, metadata
    )


def test_a_cel_error_never_renders_the_value_it_failed_on() -> None:
    """Selecting a field of a list makes cel-python say what the list is: for properties mapped
    three deep, that message was 150 MB built outside the budget (40 s and 5.7 GB for a whole
    catalog); now it quotes a few items."""
    import tracemalloc

    nested = "properties.map(p, properties.map(q, properties.map(r, properties)))"
    program = compile_rule(f"{nested}.x == bytes('x')")
    tracemalloc.start()
    try:
        with pytest.raises(CelEvaluationError) as failed:
            program.evaluate(properties_of(bundle_like_grafana()))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(str(failed.value)) < 1000, len(str(failed.value))
    assert peak < 30 * 2**20, f"{peak / 2**20:.0f} MB"


NESTED_ERRORS = """
import sys
from deppy.catalog.cel import CelEvaluationError, compile_rule, properties_of
from deppy.catalog.model import Property

class Bundle:
    properties = [Property("olm.gvk", {"group": "g", "version": "v1", "kind": f"K{i}"})
                  for i in range(15)]

rule = "size(properties.map(p, properties.filter(q, p.value.x == bytes('x')))) >= 0"
for _ in range(3):
    rule = f"properties.exists(p, {rule})"
try:
    compile_rule(rule).evaluate(properties_of(Bundle()))
except CelEvaluationError as error:
    print(error)
"""


def test_errors_of_errors_are_not_rendered_whole() -> None:
    """cel-python's error values print the errors they came from: ``&&`` and macros over
    errors of nested macros made a 200-character rule's message exponential (2.4 GB, then
    MemoryError). Run under a 1.5 GB address-space limit, in a child process."""
    import resource
    import sys

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1536 * 2**20, 1536 * 2**20))

    done = subprocess.run(
        [sys.executable, "-c", NESTED_ERRORS], capture_output=True, text=True, timeout=120,
        preexec_fn=limit,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-1000:]
    assert "cut off" in done.stdout or "no such overload" in done.stdout, done.stdout[-500:]


@pytest.mark.parametrize("interpreted", [False, True], ids=["compiled", "cel-python"])
def test_comparing_large_values_is_charged_to_the_budget(interpreted: bool) -> None:
    """``==`` walks both sides: 225 comparisons of a 20,000-entry list are 4.5 million steps,
    past the budget, where they once ran for seconds at the cost of one node each."""
    big = Property("olm.big", [{"k": i} for i in range(20_000)])
    slow = " && bytes('x') == bytes('x')" if interpreted else ""
    rule = f"properties.all(a, properties.all(b, properties[0] == properties[0])){slow}"
    bundle = Bundle(big, *(Property("olm.label", {"label": f"l{i}"}) for i in range(14)))
    with pytest.raises(CelBudgetExceeded):
        compile_rule(rule).evaluate(properties_of(bundle))


@pytest.mark.parametrize("interpreted", [False, True], ids=["compiled", "cel-python"])
def test_concatenation_is_charged_for_what_it_copies(interpreted: bool) -> None:
    """Each ``+`` of a 1 MB string copies it: 225 copies kept in a list were 450 MB; the budget
    now pays for the characters copied, so a rule's memory is bounded by its budget."""
    big = Property("olm.big", {"text": "x" * 2**20})
    slow = " && bytes('x') == bytes('x')" if interpreted else ""
    text = "properties[0].value.text"
    rule = f"size(properties.map(a, properties.map(b, {text} + {text}))) > 0{slow}"
    bundle = Bundle(big, *(Property("olm.label", {"label": f"l{i}"}) for i in range(14)))
    with pytest.raises(CelBudgetExceeded):
        compile_rule(rule).evaluate(properties_of(bundle))


def test_a_rule_pays_one_budget_over_all_the_bundles_it_is_checked_against(tmp_path: Path) -> None:
    """Just under the per-bundle budget on each of 60 bundles: 52 million steps (on the 5,572
    bundles of the community catalog, 90 s) once; now the rule's own budget runs out and the
    resolution says so."""
    from deppy.catalog.catalog_set import CatalogSet
    from deppy.catalog.fbc import load_catalog
    from deppy.resolution.request import ResolutionRequest
    from deppy.resolution.request_parsing import parse_require
    from deppy.resolution.resolver import resolve

    rule = "properties.exists(a, properties.exists(b, b.type == 'x'))"
    labels = "".join(f"- {{type: olm.label, value: {{label: l{i}}}}}\n" for i in range(199))
    dependencies = "".join(
        f"---\nschema: olm.bundle\npackage: d\nname: d.v1.0.{n}\nproperties:\n"
        f"- {{type: olm.package, value: {{packageName: d, version: 1.0.{n}}}}}\n{labels}"
        for n in range(60)
    )
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(
        "schema: olm.package\nname: p\ndefaultChannel: s\n---\n"
        "schema: olm.channel\npackage: p\nname: s\nentries: [{name: p.v1}]\n---\n"
        "schema: olm.bundle\npackage: p\nname: p.v1\nproperties:\n"
        "- {type: olm.package, value: {packageName: p, version: 1.0.0}}\n"
        f'- {{type: olm.constraint, value: {{cel: {{rule: "{rule}"}}}}}}\n'
        "---\nschema: olm.package\nname: d\ndefaultChannel: s\n---\n"
        "schema: olm.channel\npackage: d\nname: s\nentries: ["
        + ", ".join(f"{{name: d.v1.0.{n}}}" for n in range(60))
        + "]\n"
        + dependencies
    )
    resolution = resolve(
        CatalogSet([load_catalog(catalog)]), ResolutionRequest(required=(parse_require("p"),))
    )
    assert not resolution.resolved
    assert any("over the bundles it is checked against" in w for w in resolution.warnings), (
        resolution.warnings
    )


def test_a_number_too_long_to_read_is_a_problem_naming_its_object() -> None:
    """A JSON catalog stream with a 5,000-digit number (found by the fuzz suite): Python's
    json refuses the conversion with a ValueError, once a traceback; now the object is skipped
    as invalid, named by its line."""
    from deppy.catalog.fbc import load_catalog_documents
    from deppy.errors import InputError

    stream = (
        b'{"schema": "olm.package", "name": "p"}\n'
        b'{"schema": "olm.bundle", "package": "p", "name": "p.v1", "x": ' + b"9" * 5000 + b"}\n"
    )
    with pytest.raises(InputError, match="object at line 2: a number of more than 4,300 digits"):
        load_catalog_documents({"catalog.json": stream}, name="c", where="c")


# -- 5. cluster input: a kind that is not text, a CSV whose metadata is not a mapping -----------


def test_a_cluster_object_whose_kind_is_a_list_is_one_error_line(tmp_path: Path) -> None:
    state = tmp_path / "state.yaml"
    state.write_text("apiVersion: v1\nkind: [Subscription]\nmetadata: {name: etcd}\n")
    result = deppy("resolve", "--cluster", str(state), "--require", "etcd", home=tmp_path)
    one_error_line(result, "state.yaml", "kind", "list")


@pytest.mark.parametrize(
    ("metadata", "field"),
    [("[a]", "metadata"), ("{name: etcd.v1.0.0, annotations: [a]}", "metadata.annotations")],
)
def test_a_csv_whose_metadata_is_not_a_mapping_is_one_error_line(
    tmp_path: Path, metadata: str, field: str
) -> None:
    csv = tmp_path / "etcd.clusterserviceversion.yaml"
    csv.write_text(
        "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\n"
        f"metadata: {metadata}\nspec: {{version: 1.0.0}}\n"
    )
    line = one_error_line(deppy("properties", str(csv), home=tmp_path), "ClusterServiceVersion")
    assert f": {field}: expected a mapping" in line


# -- 6. deppy serve: IPv6 loopback in brackets, port 0, an address that cannot be used ---------


def serving(tmp_path: Path, *args: str) -> tuple[subprocess.Popen[str], str]:
    """Start ``deppy serve ARGS`` and wait for its "serving on" line; returns the URL."""
    catalog = Path(__file__).parents[1] / "src" / "deppy" / "data" / "catalog"
    env = dict(os.environ, DEPPY_HOME=str(tmp_path))
    process = subprocess.Popen(
        [*DEPPY, "serve", "--catalog", str(catalog), *args],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    for line in process.stderr:
        found = re.search(r"serving on (\S+)", line)
        if found:
            return process, found.group(1)
    process.wait(timeout=30)
    pytest.fail(f"deppy serve stopped with {process.returncode} before serving")


def answers(url: str) -> bool:
    import urllib.request

    for _ in range(50):
        try:
            with urllib.request.urlopen(url + "openapi.json", timeout=5) as response:
                return bool(response.status == 200)
        except OSError:
            time.sleep(0.1)
    return False


@pytest.mark.skipif(not socket.has_ipv6, reason="this machine has no IPv6")
def test_serve_listens_on_ipv6_loopback_and_prints_the_port_chosen(tmp_path: Path) -> None:
    process, url = serving(tmp_path, "--host", "[::1]", "--port", "0")
    try:
        assert re.fullmatch(r"http://\[::1\]:[1-9][0-9]*/", url), url
        assert answers(url)
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_serve_on_port_0_prints_the_port_it_listens_on(tmp_path: Path) -> None:
    process, url = serving(tmp_path, "--port", "0")
    try:
        assert re.fullmatch(r"http://localhost:[1-9][0-9]*/", url), url
        assert answers(url.replace("localhost", "127.0.0.1"))
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_serve_on_an_address_it_cannot_use_is_one_error_line(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("secret\n")
    unknown = deppy("serve", "--host", "no-such-host.invalid", "--token-file", str(token),
                    home=tmp_path)  # fmt: skip
    one_error_line(unknown, "--host no-such-host.invalid", "cannot listen")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        one_error_line(deppy("serve", "--port", port, home=tmp_path), port, "--port 0")


# -- 3. approval on a CSV whose permissions cannot be read ---------------------------------------


def bundle_with_csv(spec: object) -> Any:
    """A catalog bundle embedding a CSV (olm.bundle.object) whose ``spec`` is given."""
    import base64
    import json

    from deppy.catalog.model import Bundle as CatalogBundle
    from deppy.catalog.semver import Version

    csv = {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
           "metadata": {"name": "p.v1.0.0"}, "spec": spec}  # fmt: skip
    data = base64.b64encode(json.dumps(csv).encode()).decode()
    return CatalogBundle(
        "p.v1.0.0", "p", Version.parse("1.0.0"), "img", "c", "c",
        (Property("olm.bundle.object", {"data": data}),),
    )  # fmt: skip


ACCOUNT = {"serviceAccountName": "p", "rules": [{"apiGroups": [""], "resources": ["pods"],
           "verbs": ["get"]}]}  # fmt: skip


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"install": {"spec": {"permissions": "abc"}}}, "spec.install.spec.permissions"),
        ({"install": {"spec": {"permissions": [{"rules": "abc"}]}}}, "permissions[0].rules"),
        ({"install": {"spec": {"clusterPermissions": [7]}}}, "clusterPermissions[0]"),
        ({"install": {"spec": {"permissions": [{"rules": [{"verbs": "*"}]}]}}}, "rules[0].verbs"),
        ({"install": []}, "spec.install"),
        ([], "spec"),
    ],
)
def test_a_bundle_whose_permissions_cannot_be_read_is_not_approved(spec: Any, field: str) -> None:
    from deppy.controller.approval.policies import decide
    from deppy.controller.approval.resolveset import SetEntry

    new = bundle_with_csv(spec)
    old = bundle_with_csv({"install": {"spec": {"permissions": [ACCOUNT]}}})
    for entry, lookup in [
        (SetEntry(new, "alpha"), None),
        (SetEntry(new, "alpha", pivot_from="p.v0"), old),
        (SetEntry(old, "alpha", pivot_from="p.v0"), new),  # the replaced one is unreadable
    ]:
        verdict = decide("Android", [entry], lambda package, name, found=lookup: found)
        assert not verdict.approved and verdict.reason == "PermissionsUnknown", verdict
        assert field in verdict.message and "p.v1.0.0" in verdict.message, verdict.message


# -- 4. controller spec parsing: a wrongly typed field is InvalidSpec naming it ------------------


def input_body(spec: Any, **metadata: Any) -> dict[str, Any]:
    return {"metadata": {"name": "a", "namespace": "ns", **metadata}, "spec": spec}


CATALOG_REF = {"type": "olm.catalog", "value": {"name": "c", "package": "etcd"}}
WRONG_SPECS: list[tuple[str, Callable[[], Any], str]] = []


def wrong(name: str, field: str) -> Callable[[Callable[[], Any]], Callable[[], Any]]:
    def register(call: Callable[[], Any]) -> Callable[[], Any]:
        WRONG_SPECS.append((name, call, field))
        return call

    return register


def _requests() -> Any:
    from deppy.controller.resolving import requests

    return requests


def _empty_catalogs() -> Any:
    from deppy.catalog.catalog_set import CatalogSet

    return CatalogSet([])


def _ar(spec: Any) -> Any:
    from deppy.resolution.request import ClusterFacts

    body = input_body(spec)
    return _requests().active_resolution_request(body, ClusterFacts(None, None))


AR = {"constraints": ['required("etcd")']}
for label, spec_value, field_name in [
    ("timeoutSeconds text", {**AR, "timeoutSeconds": "ten"}, "spec.timeoutSeconds"),
    ("timeoutSeconds inf", {**AR, "timeoutSeconds": float("inf")}, "spec.timeoutSeconds"),
    ("timeoutSeconds bool", {**AR, "timeoutSeconds": True}, "spec.timeoutSeconds"),
    ("spec a list", [], "ActiveResolution ns/a: spec"),
]:
    wrong(f"ActiveResolution {label}", field_name)(lambda s=spec_value: _ar(s))
for label, spec_value, field_name in [
    ("spec a list", [], "Input ns/a: spec"),
    ("inputClass a list", {"inputClass": ["x"], "constraints": [CATALOG_REF]}, "spec.inputClass"),
]:
    wrong(f"Input class name, {label}", field_name)(
        lambda s=spec_value: _requests().input_class_name(input_body(s))
    )
for label, spec_value, field_name in [
    ("spec a list", [], "Input ns/a: spec"),
    ("constraints text", {"constraints": "x"}, "spec.constraints"),
    ("constraints a mapping", {"constraints": {"a": 1}}, "spec.constraints"),
    ("too many", {"constraints": [CATALOG_REF] * 65}, "at most 64"),
]:
    wrong(f"Input {label}", field_name)(
        lambda s=spec_value: _requests().input_requirements(input_body(s), _empty_catalogs())
    )
for label, spec_value, field_name in [
    ("spec a list", [], "Operator ns/a: spec"),
    ("constraints text", {"catalog": {"package": "etcd"}, "constraints": "x"}, "spec.constraints"),
    ("constraint text", {"catalog": {"package": "etcd"}, "constraints": ["x"]}, "constraints[0]"),
    ("catalog text", {"catalog": "etcd"}, "spec.catalog"),
    ("package a list", {"catalog": {"package": ["etcd"]}}, "spec.catalog.package"),
    ("version a mapping", {"catalog": {"package": "etcd"}, "version": {}}, "spec.version"),
]:
    wrong(f"Operator {label}", field_name)(
        lambda s=spec_value: _requests().operator_input_constraints(input_body(s))
    )
for label, params, field_name in [
    ("parameters a list", [], "parameters"),
    ("force text", {"force": "false"}, "parameters.force"),
    ("constraints text", {"constraints": "x"}, "parameters.constraints"),
    ("provisionerClass a list", {"provisionerClass": []}, "parameters.provisionerClass"),
]:
    wrong(f"InputClass {label}", field_name)(
        lambda p=params: _requests().class_parameters({"metadata": {"name": "k"}, "parameters": p})
    )


def _catalog(spec: Any) -> Any:
    from deppy.controller.catalogs.sources import catalog_source

    return catalog_source({"metadata": {"name": "c"}, "spec": spec})


for label, spec_value, field_name in [
    ("spec a list", [], "Catalog c: spec"),
    ("source text", {"source": "x"}, "spec.source"),
    ("http text", {"source": {"http": "x"}}, "spec.source.http"),
    ("url a list", {"source": {"http": {"url": ["x"]}}}, "spec.source.http.url"),
    ("pollInterval number", {"source": {"http": {"url": "http://x", "pollInterval": 5}}},
     "pollInterval"),
    ("names text", {"source": {"configMap": {"namespace": "n", "names": "x"}}}, "names"),
    ("path a list", {"source": {"path": ["x"]}}, "spec.source.path"),
]:  # fmt: skip
    wrong(f"Catalog {label}", field_name)(lambda s=spec_value: _catalog(s))


def _config_map(**fields: Any) -> Any:
    from deppy.controller.catalogs.sources import config_map_files

    return config_map_files([{"metadata": {"name": "m", "namespace": "n"}, **fields}])


for label, fields, field_name in [
    ("data a list", {"data": ["x"]}, "ConfigMap n/m: data"),
    ("data value a list", {"data": {"k": ["x"]}}, "ConfigMap n/m: data.k"),
    ("binaryData not base64", {"binaryData": {"k": "%%%"}}, "binaryData.k: not base64"),
    ("binaryData cut gzip", {"binaryData": {"k": "H4sIAAAA"}}, "binaryData.k: not a whole gzip"),
]:
    wrong(f"ConfigMap {label}", field_name)(lambda f=fields: _config_map(**f))


@pytest.mark.parametrize(
    ("call", "field"), [(c, f) for _, c, f in WRONG_SPECS], ids=[n for n, _, _ in WRONG_SPECS]
)
def test_a_wrongly_typed_field_is_an_input_error_naming_it(
    call: Callable[[], Any], field: str
) -> None:
    from deppy.errors import InputError

    with pytest.raises(InputError) as refused:
        call()
    assert field in str(refused.value), str(refused.value)


def test_inputs_naming_a_class_wrongly_are_errors_of_their_own() -> None:
    from deppy.controller.resolving.units import units_of

    good = input_body({"constraints": [CATALOG_REF]})
    bad = input_body({"inputClass": 7, "constraints": [CATALOG_REF]}, name="b")
    units, errors = units_of([good, bad], {"subscription": {"metadata": {"name": "subscription"}}})
    assert [u.key for u in units] == ["subscription"]
    assert "Input ns/b: spec.inputClass: expected a string" in errors["b"]


# -- catalog streams: a gzip bomb or an endless body stops at the stream limit ------------------


class _StreamHandler(http.server.BaseHTTPRequestHandler):
    """Sends ``payload`` with the ``encoding`` given (a gzip bomb, or more bytes than allowed)."""

    payload = b""
    encoding = ""

    def do_GET(self) -> None:
        self.send_response(200)
        if self.encoding:
            self.send_header("Content-Encoding", self.encoding)
        self.end_headers()
        self.wfile.write(self.payload)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def _serving(payload: bytes, encoding: str = "") -> Iterator[str]:
    handler = type("Handler", (_StreamHandler,), {"payload": payload, "encoding": encoding})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/api/v1/all"
    finally:
        server.shutdown()
        server.server_close()


LIMIT = 1 << 20
BOMB = gzip.compress(b"\n" * (LIMIT * 8))  # 8 KB that inflate to 8 MiB


@pytest.fixture
def small_stream_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from deppy.input_limits import streams

    monkeypatch.setattr(streams, "MAX_STREAM_BYTES", LIMIT)


@pytest.mark.usefixtures("small_stream_limit")
def test_a_gzip_bomb_in_a_config_map_is_refused_naming_its_key() -> None:
    encoded = base64.b64encode(BOMB).decode()
    with pytest.raises(InputError) as refused:
        _config_map(binaryData={"catalog.json.gz": encoded})
    assert "ConfigMap n/m: binaryData.catalog.json.gz" in str(refused.value)
    assert f"more than {LIMIT:,} bytes" in str(refused.value)


@pytest.mark.usefixtures("small_stream_limit")
@pytest.mark.parametrize(("payload", "encoding"), [(BOMB, "gzip"), (b"{}\n" * LIMIT, "")])
def test_an_http_catalog_stream_stops_at_the_limit(payload: bytes, encoding: str) -> None:
    from deppy.cluster.http_catalog import load_http_catalog
    from deppy.controller.catalogs.sources import fetch_http

    with _serving(payload, encoding) as url:
        with pytest.raises(InputError) as refused:
            fetch_http(url)  # the controller's Catalog source
        assert url in str(refused.value) and f"more than {LIMIT:,} bytes" in str(refused.value)
        with pytest.raises(InputError) as refused:
            load_http_catalog(url, name="bomb")  # `--catalog URL`
        assert url in str(refused.value) and f"more than {LIMIT:,} bytes" in str(refused.value)


def test_a_catalog_stream_under_the_limit_inflates_as_gzip_does() -> None:
    from deppy.input_limits.streams import gunzip_capped

    members = gzip.compress(b'{"schema":"olm.package","name":"a"}\n') + gzip.compress(b"\n")
    assert gunzip_capped(members + b"\0\0") == gzip.decompress(members + b"\0\0")
    with pytest.raises(EOFError):
        gunzip_capped(members[:-4])
