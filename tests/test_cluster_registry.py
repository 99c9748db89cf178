"""Catalogs over operator-registry's gRPC API and catalogd's HTTP stream: servers on 127.0.0.1
started and stopped by the tests, the real community index, and the catalog commands."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from click.testing import CliRunner

from deppy.catalog.fbc import load_catalog
from deppy.catalog.model import Catalog
from deppy.cli.main import cli
from deppy.cluster import registry_pb2 as pb
from deppy.cluster import registry_pb2_grpc as rpc
from deppy.cluster.remote import load_url_catalog
from deppy.errors import InputError
from tests.cluster_helpers import closed_port, community, http_catalog, registry, subset_catalog


@pytest.fixture(scope="module")
def full() -> Catalog:
    return load_catalog(community(), name="community", priority=3)


def _same(a: Catalog, b: Catalog) -> None:
    assert list(a.packages) == list(b.packages)
    assert {n: p.default_channel for n, p in a.packages.items()} == {
        n: p.default_channel for n, p in b.packages.items()
    }
    assert set(a.channels) == set(b.channels)
    for key, channel in a.channels.items():
        assert sorted(channel.entries, key=lambda e: e.name) == sorted(
            b.channels[key].entries, key=lambda e: e.name
        ), key
    assert set(a.bundles) == set(b.bundles)
    for key, bundle in a.bundles.items():
        other = b.bundles[key]
        assert (bundle.version, bundle.image, bundle.provided_gvks, bundle.required_gvks) == (
            other.version,
            other.image,
            other.provided_gvks,
            other.required_gvks,
        ), key
        assert bundle.required_packages == other.required_packages, key
        assert bundle.max_openshift_version == other.max_openshift_version, key
        assert bundle.min_kube_version == other.min_kube_version, key
        assert bundle.constraints == other.constraints, key


def test_community_over_grpc_and_http_equals_the_directory(full: Catalog) -> None:
    with registry(full) as address:
        over_grpc = load_url_catalog(f"grpc://{address}", name="community", priority=3)
    _same(full, over_grpc)
    assert over_grpc.path == f"grpc://{address}" and over_grpc.priority == 3
    with http_catalog(full) as base:
        over_http = load_url_catalog(f"{base}/api/v1/all", name="community", priority=3)
    _same(full, over_http)


@pytest.fixture(scope="module")
def stub(full: Catalog) -> Iterator[rpc.RegistryStub]:
    with registry(full) as address, grpc.insecure_channel(address) as channel:
        yield rpc.RegistryStub(channel)


def test_registry_answers_as_opm_serve(stub: rpc.RegistryStub, full: Catalog) -> None:
    names = [p.name for p in stub.ListPackages(pb.ListPackageRequest())]
    assert names == sorted(full.packages)
    package = stub.GetPackage(pb.GetPackageRequest(name="node-healthcheck-operator"))
    assert package.defaultChannelName == "stable"
    heads = {c.name: c.csvName for c in package.channels}
    assert heads["stable"] == "node-healthcheck-operator.v0.10.0"
    head = stub.GetBundleForChannel(
        pb.GetBundleInChannelRequest(pkgName="node-healthcheck-operator", channelName="stable")
    )
    assert head.csvName == "node-healthcheck-operator.v0.10.0" and head.replaces == ""
    bundle = stub.GetBundle(
        pb.GetBundleRequest(
            pkgName="node-healthcheck-operator",
            channelName="stable",
            csvName="node-healthcheck-operator.v0.8.0",
        )
    )
    assert [a.kind for a in bundle.requiredApis] == ["SelfNodeRemediation"]
    assert all(p.type != "olm.bundle.object" for p in bundle.properties)
    replacing = list(
        stub.GetChannelEntriesThatReplace(
            pb.GetAllReplacementsRequest(csvName="node-healthcheck-operator.v0.8.0")
        )
    )
    assert {e.bundleName for e in replacing} == {"node-healthcheck-operator.v0.9.0"}
    provider = stub.GetDefaultBundleThatProvides(
        pb.GetDefaultProviderRequest(
            group="remediation.medik8s.io", version="v1alpha1", kind="NodeHealthCheck"
        )
    )
    assert provider.packageName == "node-healthcheck-operator"
    with pytest.raises(grpc.RpcError) as missing:
        stub.GetPackage(pb.GetPackageRequest(name="no-such-package"))
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND


def test_unreachable_endpoints_are_one_message() -> None:
    with pytest.raises(InputError, match="no gRPC registry answered"):
        load_url_catalog(f"grpc://127.0.0.1:{closed_port()}", name="x")
    with pytest.raises(InputError, match="cannot be read"):
        load_url_catalog(f"http://127.0.0.1:{closed_port()}/api/v1/all", name="x")


def test_catalog_add_and_refresh_urls(tmp_path: Path) -> None:
    catalog = load_catalog(subset_catalog(tmp_path / "subset"), name="served")
    runner = CliRunner()
    with registry(catalog) as address, http_catalog(catalog) as base:
        added = runner.invoke(
            cli, ["catalog", "add", "reg", f"grpc://{address}", "--priority", "4"]
        )
        assert added.exit_code == 0, added.output
        assert f"from grpc://{address}" in added.stdout
        web = runner.invoke(cli, ["catalog", "add", "web", f"{base}/api/v1/all"])
        assert web.exit_code == 0, web.output
        refreshed = runner.invoke(cli, ["catalog", "refresh", "reg"])
        assert refreshed.exit_code == 0, refreshed.output
        listed = runner.invoke(cli, ["catalog", "list", "-o", "json"])
        paths = {c["name"]: c["path"] for c in __import__("json").loads(listed.stdout)["catalogs"]}
        assert paths == {"reg": f"grpc://{address}", "web": f"{base}/api/v1/all"}
        resolved = runner.invoke(
            cli, ["resolve", "--catalog", f"grpc://{address}=live", "--require", "eventing-kogito"]
        )
        assert resolved.exit_code == 0, resolved.output
    down = runner.invoke(cli, ["catalog", "refresh", "reg"])
    assert down.exit_code == 2 and "no gRPC registry answered" in down.stderr
    stored = runner.invoke(cli, ["catalog", "list", "-o", "json"])
    assert '"reg"' in stored.stdout  # a failed refresh leaves the stored copy as it was


def test_catalog_serve_command_serves_until_terminated(tmp_path: Path) -> None:
    directory = subset_catalog(tmp_path / "subset")
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "deppy"), "catalog", "serve", str(directory),
         "--grpc", "127.0.0.1:0", "--http", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        grpc_line = process.stdout.readline()
        http_line = process.stdout.readline()
        address = re.search(r"grpc://(\S+)", grpc_line)
        url = re.search(r"(http://\S+)", http_line)
        assert address and url, (
            grpc_line + http_line + (process.stderr.read() if process.poll() else "")
        )
        served = load_url_catalog(f"grpc://{address.group(1)}", name="s")
        assert len(served.bundles) == len(load_url_catalog(url.group(1), name="h").bundles) > 0
    finally:
        process.terminate()
        assert process.wait(timeout=30) == 0


def test_a_registry_that_sends_past_the_stream_limit_is_refused(
    full: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A registry streaming bundles without end stops at the catalog stream limit (here 1 MiB
    of the community catalog's tens of MB), one error naming the registry."""
    from deppy.input_limits import streams

    monkeypatch.setattr(streams, "MAX_STREAM_BYTES", 1 << 20)
    with registry(full) as address, pytest.raises(InputError) as refused:
        load_url_catalog(f"grpc://{address}", name="community")
    assert address in str(refused.value)
    assert "the registry sent more than 1,048,576 bytes" in str(refused.value)
