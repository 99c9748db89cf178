"""Traces of real resolutions replay to the same answer, without the catalogs.

Library level: every package of community-operators-prod-v4.18 alone, and requests that use
every kind of fact (installed upgrades, cluster versions, exclusions, two catalogs, sources,
unresolvable requests with their explanations and alternatives). CLI level: the printed
answer of `deppy replay` is byte for byte the one `deppy resolve --trace` printed.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.catalog.model import Catalog
from deppy.cli import resolve_command, trace_command  # noqa: F401  (register the subcommands)
from deppy.cli.main import cli
from deppy.errors import InputError
from deppy.pipeline.replay import replay
from deppy.pipeline.states import NodeState
from deppy.pipeline.trace import FORMAT, VERSION, TraceWriter, parse_trace
from deppy.resolution.answer import Resolution
from deppy.resolution.node_library import DOMAIN
from deppy.resolution.request import ClusterFacts, PropertyRestriction, ResolutionRequest
from deppy.resolution.request_parsing import parse_installed, parse_require, parse_version
from deppy.resolution.resolver import resolution_of, resolve, resolve_in_pipeline
from tests.conftest import shared_path

COMMUNITY = shared_path("catalogs", "community-operators-prod-v4.18")
UPSTREAM = shared_path("catalogs", "operatorhubio-upstream-2021")


@pytest.fixture(scope="module")
def community_catalog() -> Catalog:
    return load_catalog(COMMUNITY, name="community")


@pytest.fixture(scope="module")
def community(community_catalog: Catalog) -> CatalogSet:
    return CatalogSet([community_catalog])


@pytest.fixture(scope="module")
def both(community_catalog: Catalog) -> CatalogSet:
    return CatalogSet([community_catalog, load_catalog(UPSTREAM, name="upstream", priority=-1)])


def traced(catalogs: CatalogSet, request: ResolutionRequest) -> tuple[Resolution, bytes]:
    stream = io.BytesIO()
    resolution = resolve_in_pipeline(catalogs, request, sink=TraceWriter(stream, DOMAIN))
    return resolution, stream.getvalue()


def replayed(data: bytes) -> Resolution:
    return resolution_of(replay(parse_trace(data, "test.jsonl"), DOMAIN))


def same(resolution: Resolution, again: Resolution) -> None:
    first = orjson.dumps(resolution.as_dict(), option=orjson.OPT_INDENT_2)
    assert orjson.dumps(again.as_dict(), option=orjson.OPT_INDENT_2) == first


def request(
    required: list[str] = (),  # type: ignore[assignment]
    installed: list[str] = (),  # type: ignore[assignment]
    *,
    ocp: str | None = None,
    kube: str | None = None,
    exclude: list[tuple[str, str]] = (),  # type: ignore[assignment]
    sources: tuple[str, ...] = (),
) -> ResolutionRequest:
    return ResolutionRequest(
        required=tuple(parse_require(s) for s in required),
        installed=tuple(parse_installed(s) for s in installed),
        cluster=ClusterFacts(
            parse_version(ocp, "ocp", tolerant=True) if ocp else None,
            parse_version(kube, "kube", tolerant=True) if kube else None,
        ),
        sources=sources,
        exclude=tuple(PropertyRestriction(t, v) for t, v in exclude),
    )


def test_every_community_package_replays_to_the_same_answer(community: CatalogSet) -> None:
    unresolvable = 0
    for package in community.package_names():
        resolution, data = traced(community, request([package]))
        same(resolution, replayed(data))
        unresolvable += resolution.explanation is not None
    assert unresolvable >= 5  # the catalog's real failures are among them


@pytest.mark.parametrize(
    "made",
    [
        request(["eclipse-che@>=7.42.0"]),  # missing package; a suggested version that works
        request(["kuadrant-operator@0.7.1"]),  # pins versions the catalog lacks
        request(["kuadrant-operator"]),  # exact pins followed
        request(["apicurio-api-controller", "apicurio-registry-3"]),  # one operator per API
        request(["k8gb", "global-load-balancer-operator"]),
        request(installed=["project-quay@3.17.0,channel=stable-3.17"]),  # upgrade path
        request(installed=["project-quay@3.17.4,channel=stable-3.17"]),  # kept
        request(installed=["etcd@0.0.1"], required=["etcd"]),  # in no catalog: synthetic
        request(["gitlab-operator-kubernetes"], ocp="4.23"),  # cluster too new
        request(["gitlab-operator-kubernetes"], ocp="4.18", kube="1.10.0"),
        request(["datadog-operator"], exclude=[("olm.package", "datadog-operator")]),
    ],
    ids=lambda r: ",".join(p.package for p in (*r.required, *r.installed)),
)
def test_requests_of_every_kind_replay_to_the_same_answer(
    community: CatalogSet, made: ResolutionRequest
) -> None:
    resolution, data = traced(community, made)
    same(resolution, resolve(community, made))  # a trace does not change the answer
    same(resolution, replayed(data))


def test_two_catalogs_and_sources_replay(both: CatalogSet) -> None:
    crossed = request(["node-healthcheck-operator@0.1.1"])
    resolution, data = traced(both, crossed)
    assert resolution.resolved
    same(resolution, replayed(data))
    restricted = request(["node-healthcheck-operator@0.1.1"], sources=("community",))
    resolution, data = traced(both, restricted)
    assert resolution.explanation is not None
    assert "node-healthcheck-operator@0.10.0" in resolution.explanation.suggestions[0].text
    same(resolution, replayed(data))


def test_the_trace_records_the_execution(community: CatalogSet) -> None:
    _, data = traced(community, request(["kuadrant-operator"]))
    lines = [orjson.loads(line) for line in data.splitlines()]
    header = lines[0]
    assert (header["record"], header["format"], header["version"]) == ("header", FORMAT, VERSION)
    assert header["domain"] == "olm" and header["pipeline"] == "olm-default"
    assert header["config"]["spec"]["nodes"][0]["name"] == "required-packages"
    assert header["replayed_nodes"] == ["solver", "output"]
    events = [r for r in lines if r["record"] == "event"]
    assert {e["metadata"]["execution"] for e in events} == {header["execution_id"]}
    assert {e["metadata"]["pipeline"] for e in events} == {header["pipeline_id"]}
    assert len({e["id"] for e in events}) == len(events)
    first = events[0]
    assert first["creator"] == first["sender"] == "required-packages"
    [required] = first["payload"]["variables"]
    assert required["id"] == "required package kuadrant-operator"
    assert required["kind"] == "required"
    assert required["constraints"][0] == {"type": "mandatory"}
    assert required["constraints"][1]["type"] == "dependency"
    assert [f["$t"] for f in required["facts"]] == ["Requested", "Needs"]
    assert all(e["type"] == "data" for e in events)
    # a batch sent to several receivers is written once
    assert sum("payload" in e for e in events) == 6
    assert lines[-2]["record"] == "context" and lines[-1]["record"] == "result"
    result = lines[-1]
    assert result["outcome"] == "succeeded"
    assert {n["state"] for n in result["nodes"]} == {"successful"}


def test_a_trace_written_by_replay_replays_too(community: CatalogSet) -> None:
    resolution, data = traced(community, request(["eclipse-che@>=7.42.0"]))
    again = io.BytesIO()
    result = replay(parse_trace(data, "first"), DOMAIN, sink=TraceWriter(again, DOMAIN))
    assert result.nodes["bundles"].reason == "output replayed from the trace"
    assert set(result.states.values()) == {NodeState.SUCCESSFUL}
    same(resolution, replayed(again.getvalue()))


def test_damaged_traces_are_refused_with_one_line(community: CatalogSet) -> None:
    _, data = traced(community, request(["kuadrant-operator"]))
    lines = data.splitlines()
    with pytest.raises(InputError, match=r"^t: not a deppy trace"):
        parse_trace(b"{}\n", "t")
    with pytest.raises(InputError, match=r"^t:2: not a JSON record"):
        parse_trace(lines[0] + b"\n{oops\n", "t")
    newer = lines[0].replace(b'"version":1', b'"version":99')
    with pytest.raises(InputError, match="format version 99 is not one this deppy reads"):
        parse_trace(newer, "t")
    without_context = b"\n".join(line for line in lines if b'"record":"context"' not in line)
    with pytest.raises(InputError, match="the trace has no context record"):
        replayed(without_context)
    edited = data.replace(b'"name":"olm-default"', b'"name":"olm-edited"', 1)
    with pytest.raises(InputError, match="does not match its configuration"):
        replayed(edited)


def test_a_request_refused_before_the_pipeline_runs_writes_no_events(
    community: CatalogSet,
) -> None:
    # sources name catalogs: an unknown one is the user's mistake, found before any node runs
    stream = io.BytesIO()
    with pytest.raises(InputError, match="no catalog has this name"):
        resolve_in_pipeline(
            community,
            request(["kuadrant-operator"], sources=("nowhere",)),
            sink=TraceWriter(stream, DOMAIN),
        )
    assert stream.getvalue() == b""


# --- the CLI ----------------------------------------------------------------------------------


def invoke(*args: str) -> tuple[int, bytes, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout_bytes, result.stderr


@pytest.mark.parametrize(
    ("args", "output", "code"),
    [
        (["--require", "eclipse-che@>=7.42.0", "--catalog", f"{UPSTREAM}=upstream"], "json", 1),
        (
            ["--installed", "etcd@0.9.0,channel=clusterwide-alpha", "--require", "etcd"],
            "table",
            0,
        ),
        (["--require", "prometheus", "--ocp-version", "4.18"], "yaml", 0),
    ],
    ids=["unresolvable-json", "upgrade-table", "cluster-yaml"],
)
def test_replay_prints_what_resolve_printed(
    tmp_path: Path, args: list[str], output: str, code: int
) -> None:
    trace = tmp_path / "run.jsonl"
    catalog = [] if "--catalog" in args else ["--catalog", f"{UPSTREAM}=upstream"]
    resolved = invoke("resolve", *args, *catalog, "-o", output, "--trace", str(trace))
    assert resolved[0] == code, resolved[2]
    again = invoke("replay", str(trace), "-o", output)
    assert again[0] == code
    assert again[1] == resolved[1]
    assert again[2] == resolved[2]


def test_community_unresolvable_with_explanation_replays_byte_for_byte(tmp_path: Path) -> None:
    trace = tmp_path / "che.jsonl"
    args = ["--catalog", f"{COMMUNITY}=community", "--require", "eclipse-che@>=7.42.0"]
    code, out, _ = invoke("resolve", *args, "-o", "json", "--trace", str(trace))
    assert code == 1 and b"devworkspace-operator" in out
    replayed = invoke("replay", str(trace), "-o", "json")
    assert replayed[0] == 1
    # byte for byte, the catalog's load problems included: a replay reads no catalog, so the
    # trace keeps the warnings resolve added to its answer (its notes record)
    assert replayed[1] == out
    assert any("deppy catalog problems" in w for w in orjson.loads(out)["warnings"])
    code, text, _ = invoke("trace", str(trace))
    assert code == 0
    summary = text.decode()
    for expected in (
        "pipeline olm-default",
        "execution succeeded",
        "required-packages",
        "bundles-and-dependencies",
        "successful",
        "solver solver: unsatisfiable; a minimal core of",
        "required package eclipse-che is mandatory",
    ):
        assert expected in summary, summary


def test_trace_and_replay_refuse_what_is_not_a_trace(tmp_path: Path) -> None:
    path = tmp_path / "not.jsonl"
    path.write_text('{"record": "event"}\n')
    for command in ("trace", "replay"):
        code, out, err = invoke(command, str(path))
        assert code == 2 and out == b""
        assert (
            err.strip()
            == f"deppy: error: {path}: not a deppy trace; write one with deppy resolve --trace FILE"
        )


def _damaged(trace: Path, line: int, change: Callable[[dict[str, Any]], None]) -> Path:
    """``trace`` with its record at ``line`` (1-based) changed, as a new file."""
    records = [orjson.loads(one) for one in trace.read_bytes().splitlines()]
    change(records[line - 1])
    damaged = trace.with_name(f"damaged-{line}.jsonl")
    damaged.write_bytes(b"\n".join(orjson.dumps(r) for r in records) + b"\n")
    return damaged


@pytest.mark.parametrize(
    ("what", "value"),
    [
        ("warnings", [{"an": "object"}]),
        ("warnings", [["a", "list"]]),
        ("payload", ["a", "list"]),
        ("payload", "a string"),
        ("payload", 7),
    ],
)
def test_replay_of_a_record_holding_wrong_values_names_its_line(
    tmp_path: Path, what: str, value: Any
) -> None:
    """A trace whose records are JSON but hold what deppy never writes (issue 45): the
    context's warnings holding an object (TypeError: unhashable, once a notes record joined
    them) or an event's payload that is no object (AttributeError) is one line naming the
    record's line, exit 2."""
    trace = tmp_path / "run.jsonl"
    args = ["--catalog", f"{UPSTREAM}=upstream", "--require", "etcd", "--trace", str(trace)]
    assert invoke("resolve", *args)[0] == 0
    with trace.open("ab") as stream:  # a notes record, as resolve writes one after warnings
        stream.write(orjson.dumps({"record": "notes", "warnings": ["a note"]}) + b"\n")
    kinds = [orjson.loads(one)["record"] for one in trace.read_bytes().splitlines()]
    line = kinds.index("context" if what == "warnings" else "event") + 1

    def change(record: dict[str, Any]) -> None:
        if what == "warnings":
            record["data"]["warnings"] = value
        else:
            record["payload"] = value

    code, out, err = invoke("replay", str(_damaged(trace, line, change)))
    assert code == 2 and out == b"", err
    assert err.startswith(f"deppy: error: {tmp_path}/damaged-{line}.jsonl:{line}: the trace is ")
    assert "the trace is damaged" in err and len(err.splitlines()) == 1, err
