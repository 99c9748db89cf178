"""A cluster's catalogs read from their images (issue 47): an export names its catalogs only as
images (a CatalogSource's ``spec.image``, a ClusterCatalog's ``spec.source.image.ref`` and the
digest catalogd serves, ``status.resolvedSource.image.ref``), read from Debian's docker-registry
on 127.0.0.1 with no ``--catalog`` and no port-forward; a live cluster's catalog whose address
cannot be reached is read from its image; an image that cannot be read is one warning naming
the object and the reference, and the other catalogs are used."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deppy.cluster import ClusterState, catalog_endpoints, load_cluster_catalogs
from deppy.cluster.catalogs import IMAGE_ID_ANNOTATION, image_reference
from deppy.workflows.cluster_input import load_cluster_image
from tests.catalog_images import Entry, Layer, Layout
from tests.cluster_helpers import OLM_CRDS, closed_port
from tests.kube import KubeCluster
from tests.registry import Registry, registry_for_tests, registry_missing, skopeo
from tests.workflow_helpers import run

DIGEST = "sha256:" + "a" * 64
needs_registry = pytest.mark.skipif(registry_missing() is not None, reason=str(registry_missing()))


def _package(name: str) -> list[Entry]:
    """A File-Based Catalog of one package ``name`` with one bundle."""
    return [
        Entry("configs", kind="dir"),
        Entry(f"configs/{name}", kind="dir"),
        Entry(
            f"configs/{name}/catalog.json",
            (
                f'{{"schema":"olm.package","name":"{name}","defaultChannel":"stable"}}\n'
                f'{{"schema":"olm.channel","package":"{name}","name":"stable",'
                f'"entries":[{{"name":"{name}.v1.0.0"}}]}}\n'
                f'{{"schema":"olm.bundle","name":"{name}.v1.0.0","package":"{name}",'
                f'"image":"x/{name}:1","properties":[{{"type":"olm.package",'
                f'"value":{{"packageName":"{name}","version":"1.0.0"}}}}]}}\n'
            ).encode(),
        ),
    ]


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's own store and cache: what one pulled, another must pull again."""
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registry]:
    yield from registry_for_tests(tmp_path_factory.mktemp("registry"))


def _push(
    registry: Registry, root: Path, repository: str, tag: str, package: str | list[Entry]
) -> str:
    """The one-package catalog image (or one of ``entries``) pushed as ``repository:tag``;
    its digest reference."""
    layout = Layout(root)
    entries = _package(package) if isinstance(package, str) else package
    layout.tag(layout.image([Layer(entries)]), tag)
    target = f"docker://{registry.address}/{repository}:{tag}"
    copied = skopeo("copy", "--dest-tls-verify=false", f"oci:{root}:{tag}", target)
    assert copied.returncode == 0, copied.stderr
    digest = json.loads(skopeo("inspect", "--tls-verify=false", target).stdout)["Digest"]
    return f"{registry.address}/{repository}@{digest}"


def _catalog_source(name: str, image: str, **annotations: str) -> dict[str, Any]:
    return {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "CatalogSource",
        "metadata": {"name": name, "namespace": "olm", "annotations": annotations},
        "spec": {"sourceType": "grpc", "image": image, "priority": 0},
        # what OLM reports on a real cluster: an in-cluster Service, never reachable from here
        "status": {
            "registryService": {
                "serviceName": name,
                "serviceNamespace": "olm",
                "port": "50051",
                "protocol": "grpc",
            }
        },
    }


def _cluster_catalog(name: str, tag: str, resolved: str | None) -> dict[str, Any]:
    catalog: dict[str, Any] = {
        "apiVersion": "olm.operatorframework.io/v1",
        "kind": "ClusterCatalog",
        "metadata": {"name": name},
        "spec": {"source": {"type": "Image", "image": {"ref": tag}}, "priority": 0},
        "status": {"urls": {"base": f"https://catalogd-service.olmv1-system.svc/catalogs/{name}"}},
    }
    if resolved is not None:
        catalog["status"]["resolvedSource"] = {"type": "Image", "image": {"ref": resolved}}
    return catalog


def _export(path: Path, sources: list[Any], catalogs: list[Any] = ()) -> Path:  # type: ignore[assignment]
    path.write_text(
        json.dumps(
            {
                "apiVersion": "deppy.io/v1alpha1",
                "kind": "ClusterExport",
                "cluster": {"source": "https://api.example:6443", "kubernetesVersion": "v1.31.2"},
                "catalogSources": sources,
                "clusterCatalogs": list(catalogs),
            }
        )
    )
    return path


def _packages(out: str) -> list[str]:
    return sorted(b["package"] for b in json.loads(out)["selection"])


def _resolve(export: Path, package: str, *extra: str) -> tuple[int, list[str], str]:
    """``deppy resolve --cluster EXPORT --require PACKAGE``: exit code, packages, stderr."""
    code, out, err = run(
        "resolve", "--cluster", str(export), "--tls-verify=false", "-o", "json",
        "--require", package, *extra,
    )  # fmt: skip
    return code, _packages(out) if code == 0 else [], err


@pytest.mark.parametrize(
    ("image", "expected"),
    [
        ("quay.io/org/catalog:v4.18", "docker://quay.io/org/catalog:v4.18"),
        (f"127.0.0.1:5000/c/catalog@{DIGEST}", f"docker://127.0.0.1:5000/c/catalog@{DIGEST}"),
        (f"docker-pullable://quay.io/org/c@{DIGEST}", f"docker://quay.io/org/c@{DIGEST}"),
        ("localhost/catalog:1", "docker://localhost/catalog:1"),
        ("operatorhubio/catalog:latest", "docker://docker.io/operatorhubio/catalog:latest"),
        ("catalog", "docker://docker.io/library/catalog"),
        ("  ", None),
    ],
)  # fmt: skip
def test_a_clusters_image_names_are_read_as_the_runtimes_read_them(
    image: str, expected: str | None
) -> None:
    assert image_reference(image) == expected


@needs_registry
def test_an_export_whose_only_catalog_is_a_catalogsource_image_resolves_with_no_catalog(
    registry: Registry, tmp_path: Path
) -> None:
    _push(registry, tmp_path / "layout", "catalogs/only", "v1", "one")
    export = _export(
        tmp_path / "export.json", [_catalog_source("only", f"{registry.address}/catalogs/only:v1")]
    )
    code, packages, err = _resolve(export, "one")
    assert code == 0 and packages == ["one"], err
    assert "none of its" not in err and "CatalogSource" not in err
    # the exported registry pod's image digest wins over the tag: the tag moved, the pod did not
    digest = _push(registry, tmp_path / "layout-a", "catalogs/pod", "v1", "one")
    _push(registry, tmp_path / "layout-b", "catalogs/pod", "v1", "two")
    source = _catalog_source(
        "pod",
        f"{registry.address}/catalogs/pod:v1",
        **{"deppy.io/registry-image-id": f"docker-pullable://{digest}"},
    )
    export = _export(tmp_path / "pod.json", [source])
    assert _resolve(export, "one")[:2] == (0, ["one"])
    assert _resolve(export, "two")[0] == 1  # the tag's content now, not what the pod runs


@needs_registry
def test_a_clustercatalog_resolves_against_the_digest_catalogd_serves_after_the_tag_moved(
    registry: Registry, tmp_path: Path
) -> None:
    served = _push(registry, tmp_path / "a", "catalogs/moving", "v1", "one")
    _push(registry, tmp_path / "b", "catalogs/moving", "v1", "two")  # the tag moved since
    tag = f"{registry.address}/catalogs/moving:v1"
    export = _export(tmp_path / "export.json", [], [_cluster_catalog("moving", tag, served)])
    assert _resolve(export, "one")[:2] == (0, ["one"])
    assert _resolve(export, "two")[0] == 1
    # with no resolved digest recorded, the tag is read: its content now
    export = _export(tmp_path / "tag.json", [], [_cluster_catalog("moving", tag, None)])
    assert _resolve(export, "two")[:2] == (0, ["two"])


@needs_registry
def test_an_image_that_cannot_be_read_is_a_warning_naming_it_and_the_others_are_used(
    registry: Registry, tmp_path: Path
) -> None:
    _push(registry, tmp_path / "layout", "catalogs/good", "v1", "one")
    missing = f"{registry.address}/catalogs/absent:v1"
    sources = [
        _catalog_source("good", f"{registry.address}/catalogs/good:v1"),
        _catalog_source("gone", missing),
    ]
    code, packages, err = _resolve(_export(tmp_path / "e.json", sources), "one")
    assert code == 0 and packages == ["one"], err
    line = " ".join(err.split())  # one warning, wrapped for the terminal
    assert line.count("deppy: warning:") == 1, err
    assert "CatalogSource olm/gone" in line and f"docker://{missing}" in line
    assert "has no manifest v1 in catalogs/absent" in line
    code, _, err = _resolve(_export(tmp_path / "n.json", sources[1:]), "one")
    assert code == 2 and "none of its 1 catalogs could be read" in err
    assert err.count("\n") == 1 and "Traceback" not in err


@needs_registry
def test_a_live_clusters_catalog_is_read_from_its_image_when_its_address_cannot_be_reached(
    registry: Registry, tmp_path: Path
) -> None:
    from dataclasses import replace

    from deppy.catalog.image_catalog import pull_options, use_pull_options

    _push(registry, tmp_path / "layout", "catalogs/live", "v1", "one")
    source = _catalog_source("live", f"{registry.address}/catalogs/live:v1")
    source["spec"]["address"] = f"127.0.0.1:{closed_port()}"
    before = pull_options()
    use_pull_options(replace(before, tls_verify=False))
    try:
        state = ClusterState("cluster test", catalog_sources=(source,), live=True)
        (endpoint,) = catalog_endpoints(state)
        assert endpoint.url == f"grpc://{source['spec']['address']}"  # tried first, live
        catalogs, warnings = load_cluster_catalogs([endpoint], load_image=load_cluster_image)
        assert [c.name for c in catalogs] == ["live"] and warnings == []
        assert sorted(catalogs[0].packages) == ["one"]
        exported = ClusterState("export.json", catalog_sources=(source,))
        assert catalog_endpoints(exported)[0].url is None  # an export's address: never tried
    finally:
        use_pull_options(before)


@needs_registry
def test_an_export_records_the_digest_a_catalogsources_registry_pod_runs(
    registry: Registry, kube: KubeCluster, tmp_path: Path
) -> None:
    """``deppy cluster export`` of a live cluster: the registry pod's imageID (its status, as
    the kubelet writes it) is kept on the CatalogSource, and a resolution from the export reads
    that digest after the tag has moved."""
    from kubernetes import client

    from deppy.cluster.kubeconfig import kube_configuration

    crd = OLM_CRDS / "catalogsources.operators.coreos.com.yaml"
    kube.kubectl("apply", "-f", str(crd))
    kube.kubectl(
        "wait",
        "--for=condition=established",
        "--timeout=60s",
        "crd/catalogsources.operators.coreos.com",
    )
    digest = _push(registry, tmp_path / "a", "catalogs/live-pod", "v1", "one")
    _push(registry, tmp_path / "b", "catalogs/live-pod", "v1", "two")  # moved after the pod
    namespace = kube.new_namespace("pods")
    source = _catalog_source("podded", f"{registry.address}/catalogs/live-pod:v1")
    source["metadata"]["namespace"] = namespace
    source["metadata"].pop("annotations")
    del source["status"]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "podded-x1", "namespace": namespace,
                     "labels": {"olm.catalogSource": "podded"}},
        "spec": {"containers": [{"name": "registry-server", "image": source["spec"]["image"]}]},
    }  # fmt: skip
    kube.kubectl(
        "apply",
        "-f",
        "-",
        input=json.dumps({"kind": "List", "apiVersion": "v1", "items": [source, pod]}),
    )
    with client.ApiClient(kube_configuration(str(kube.kubeconfig), None)) as api:
        client.CoreV1Api(api).patch_namespaced_pod_status(
            "podded-x1",
            namespace,
            {"status": {"phase": "Running", "containerStatuses": [{
                "name": "registry-server", "ready": True, "restartCount": 0,
                "image": source["spec"]["image"], "imageID": f"docker-pullable://{digest}",
                "state": {"running": {}},
            }]}},
        )  # fmt: skip
    export = tmp_path / "export.json"
    code, _, err = run(
        "cluster", "export", "--kubeconfig", str(kube.kubeconfig), "-o", "json", "-f", str(export)
    )
    assert code == 0, err
    (exported,) = [
        s for s in json.loads(export.read_text())["catalogSources"]
        if s["metadata"]["namespace"] == namespace
    ]  # fmt: skip
    assert exported["metadata"]["annotations"][IMAGE_ID_ANNOTATION] == f"docker-pullable://{digest}"
    assert _resolve(export, "one", "--namespace", namespace)[:2] == (0, ["one"])


# -- fleets ------------------------------------------------------------------------------------


def _requests(log: Path) -> list[str]:
    import re

    return re.findall(r'"(?:GET|HEAD) (/v2/[^ ?]+/(?:manifests|blobs)/[^ ?]+)', log.read_text())


@needs_registry
def test_a_fleet_plan_reads_each_image_its_exports_name_once_and_plans_as_the_directory(
    tmp_path: Path,
) -> None:
    """Six exports whose CatalogSource names one image, one naming a missing image: the image
    is pulled once for the run (its blobs fetched once, whatever the workers), the plan is
    byte for byte the plan against the catalog's directory, and the missing image is one
    warning naming the object and the reference; that cluster is an error record."""
    from benchmarks.fleet_exports import write_fleet

    from deppy.catalog.catalog_set import CatalogSet
    from deppy.catalog.fbc import load_catalog
    from tests.catalog_images import catalog_entries
    from tests.cluster_helpers import subset_catalog
    from tests.registry import running_registry

    directory = subset_catalog(tmp_path / "community")
    fleet = tmp_path / "fleet"
    source = CatalogSet([load_catalog(directory, name="community")])
    paths = write_fleet(source, fleet, 6, low=2, high=4)
    with running_registry(tmp_path / "registry", access_log=True) as logged:
        entries = catalog_entries(directory)
        _push(logged, tmp_path / "layout", "catalogs/fleet", "v1", entries)
        for path in paths:
            document = json.loads(path.read_text())
            document["catalogSources"] = [
                _catalog_source("community", f"{logged.address}/catalogs/fleet:v1")
            ]
            path.write_text(json.dumps(document))
        asked = ("fleet", "plan", str(fleet), "--ocp-version", "4.20", "-o", "json")
        from_directory = run(*asked, "--catalog", f"{directory}=community", "--workers", "0")
        assert from_directory[0] == 0, from_directory[2]
        before = len(_requests(tmp_path / "registry" / "registry.log"))
        from_images = run(*asked, "--workers", "2", "--tls-verify=false")
        assert from_images == from_directory
        fetched = _requests(tmp_path / "registry" / "registry.log")[before:]
        blobs = [r for r in fetched if "/blobs/" in r]
        assert len(blobs) == len(set(blobs)) == 2  # the config and the one layer, once each
        missing = f"{logged.address}/catalogs/absent:v1"
        document = json.loads(paths[0].read_text())
        document["catalogSources"] = [_catalog_source("community", missing)]
        paths[0].write_text(json.dumps(document))
        code, out, err = run(*asked, "--workers", "0", "--tls-verify=false")
    said = " ".join(err.split())
    assert code == 0 and said.count(f"docker://{missing}") == 1, err
    assert "CatalogSource olm/community" in said and "has no manifest v1" in said
    records = json.loads(out)["clusters"]
    assert "none of its 1 catalog images could be read" in records[0]["error"]
    assert all("error" not in r for r in records[1:])
