"""Resolved catalogs: the FBC of a plan's bundles OLM v1 would refuse, each resolved dependency
replaced by the record of what satisfied it, and its image (byte for byte the same for the same
plan). Catalogs are written in tmp_path and resolved by deppy itself."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path
from typing import Any

import pytest

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.oci import CONFIGS_LABEL, catalog_image
from deppy.resolution.answer import Resolution
from deppy.workflows.olmv1.resolved_catalog import (
    LOWEST_PRIORITY,
    RESOLVED_DEPENDENCY,
    RefusedBundle,
    cluster_catalog_object,
    refused_bundles,
    resolved_catalog,
)
from tests.olm_builders import (
    bundle,
    channel,
    constraint,
    deprecations,
    entry,
    make_catalog,
    max_ocp,
    needs_api,
    needs_label,
    needs_package,
    package,
    provides,
    run,
    simple_package,
)

NEEDS_DB = needs_package("db", ">=1.0.0")
NEEDS_CACHE = needs_api("Cache")
NEEDS_QUEUE = constraint(
    {"failureMessage": "a queue", "package": {"packageName": "queue", "versionRange": ">=2.0.0"}}
)


def keys_reversed(value: Any) -> Any:
    """The same JSON value with every object's keys in the opposite order."""
    if isinstance(value, dict):
        return {k: keys_reversed(v) for k, v in reversed(value.items())}
    if isinstance(value, list):
        return [keys_reversed(v) for v in value]
    return value


def app_catalog(tmp_path: Path, *, reverse: bool = False) -> CatalogSet:
    """app 1.1.0 needs db (package), a Cache (API) and queue (olm.constraint); it sits in
    channels fast and stable, the default channel beta does not hold it."""
    app = [
        package("app", "beta"),
        channel("app", "beta", entry("app.v1.0.0")),
        channel("app", "stable", entry("app.v1.0.0"), entry("app.v1.1.0", "app.v1.0.0")),
        channel("app", "fast", entry("app.v1.1.0", "app.v1.0.0", skips=["app.v1.0.1"],
                                     skipRange="<1.1.0")),
        bundle("app", "1.0.0"),
        bundle("app", "1.1.0", NEEDS_DB, max_ocp("4.20"), NEEDS_CACHE, needs_label("x"),
               NEEDS_QUEUE, provides("App")),
        deprecations("app", ("olm.channel", "stable", "use fast"), ("olm.channel", "beta", "gone")),
    ]  # fmt: skip
    others = [
        *simple_package("db", "0.9.0", "1.2.0"),
        *simple_package("cache", "3.0.0", props=[provides("Cache")]),
        *simple_package("queue", "2.1.0"),
        *simple_package(
            "labelled", "1.0.0", props=[{"type": "olm.label", "value": {"label": "x"}}]
        ),
    ]
    objects = [*app, *others]
    if reverse:
        objects = keys_reversed(objects)
    return CatalogSet([make_catalog(tmp_path, objects, name="main")])


def resolve_app(catalogs: CatalogSet) -> Resolution:
    resolution = run(catalogs, ["app@1.1.0"])
    assert resolution.selection is not None
    return resolution


def by_schema(documents: Any, schema: str) -> list[dict[str, Any]]:
    return [d for d in documents if d["schema"] == schema]


def test_the_refused_bundles_are_those_declaring_a_dependency(tmp_path: Path) -> None:
    resolution = resolve_app(app_catalog(tmp_path))
    assert refused_bundles(resolution) == (
        RefusedBundle(
            "app.v1.1.0", "app", "1.1.0", "main",
            ("olm.constraint", "olm.gvk.required", "olm.package.required"),
        ),
    )  # fmt: skip


def test_each_dependency_becomes_the_record_of_what_satisfied_it(tmp_path: Path) -> None:
    catalogs = app_catalog(tmp_path)
    found = resolved_catalog(resolve_app(catalogs), catalogs)
    assert found is not None
    assert (found.bundles, found.packages) == (("app.v1.1.0",), ("app",))
    (written,) = by_schema(found.documents, "olm.bundle")
    assert written["image"] == "registry.example/app-bundle:1.1.0"
    properties = written["properties"]
    # in place, in the catalog's order; every other property verbatim
    assert [p["type"] for p in properties] == [
        "olm.package", RESOLVED_DEPENDENCY, "olm.maxOpenShiftVersion", RESOLVED_DEPENDENCY,
        "olm.label.required", RESOLVED_DEPENDENCY, "olm.gvk",
    ]  # fmt: skip
    records = [p["value"] for p in properties if p["type"] == RESOLVED_DEPENDENCY]
    assert records == [
        {"property": NEEDS_DB, "satisfiedBy": {"package": "db", "bundle": "db.v1.2.0",
                                               "version": "1.2.0"}},
        {"property": NEEDS_CACHE, "satisfiedBy": {"package": "cache", "bundle": "cache.v3.0.0",
                                                  "version": "3.0.0"}},
        {"property": NEEDS_QUEUE, "satisfiedBy": {"package": "queue", "bundle": "queue.v2.1.0",
                                                  "version": "2.1.0"}},
    ]  # fmt: skip
    assert properties[2] == max_ocp("4.20")


def test_the_channels_keep_the_bundles_entries_and_a_default_it_is_in(tmp_path: Path) -> None:
    catalogs = app_catalog(tmp_path)
    found = resolved_catalog(resolve_app(catalogs), catalogs)
    assert found is not None
    (header,) = by_schema(found.documents, "olm.package")
    assert header == {"schema": "olm.package", "name": "app", "defaultChannel": "fast"}
    assert by_schema(found.documents, "olm.channel") == [
        channel("app", "fast", entry("app.v1.1.0", "app.v1.0.0", skips=["app.v1.0.1"],
                                     skipRange="<1.1.0")),
        channel("app", "stable", entry("app.v1.1.0", "app.v1.0.0")),
    ]  # fmt: skip
    # the deprecation of a channel the resolved catalog has, not of one it lacks
    assert by_schema(found.documents, "olm.deprecations") == [
        deprecations("app", ("olm.channel", "stable", "use fast"))
    ]


def test_the_catalog_is_valid_fbc_that_offers_the_bundle_without_dependencies(
    tmp_path: Path,
) -> None:
    catalogs = app_catalog(tmp_path)
    found = resolved_catalog(resolve_app(catalogs), catalogs)
    assert found is not None
    root = tmp_path / "resolved"
    for path, content in found.files().items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(content)
    loaded = load_catalog(root, name="resolved")
    assert loaded.problems == ()
    (again,) = loaded.bundles.values()
    assert (again.name, again.required_packages, again.required_gvks, again.constraints) == (
        "app.v1.1.0", (), (), ()
    )  # fmt: skip
    assert again.required_labels == ("x",)  # OLM v1 does not check olm.label.required: kept


def test_a_plan_without_dependencies_has_no_resolved_catalog(tmp_path: Path) -> None:
    catalogs = CatalogSet([make_catalog(tmp_path, simple_package("db", "1.0.0"), name="main")])
    resolution = run(catalogs, ["db"])
    assert refused_bundles(resolution) == ()
    assert resolved_catalog(resolution, catalogs) is None


def test_the_same_plan_gives_the_same_bytes_and_digest(tmp_path: Path) -> None:
    """Also when a catalog writes the same values with their keys in another order."""
    first_catalogs = app_catalog(tmp_path / "a")
    second_catalogs = app_catalog(tmp_path / "b", reverse=True)
    first = resolved_catalog(resolve_app(first_catalogs), first_catalogs)
    second = resolved_catalog(resolve_app(second_catalogs), second_catalogs)
    assert first is not None and second is not None
    assert first.files() == second.files()
    assert first.image().digest == second.image().digest
    assert first.image().manifest == second.image().manifest


def test_a_plan_from_the_store_gives_the_same_digest_as_from_files(tmp_path: Path) -> None:
    from deppy.resolution.request import ResolutionRequest
    from deppy.resolution.request_parsing import parse_require
    from deppy.resolution.resolver import resolve
    from deppy.store import Store

    files = app_catalog(tmp_path / "files")
    store = Store(tmp_path / "home")
    store.add(files.catalog("main"))
    stored = store.source()
    assert stored is not None
    from_files = resolved_catalog(resolve_app(files), files)
    request = ResolutionRequest(required=(parse_require("app@1.1.0"),))
    from_store = resolved_catalog(resolve(stored, request), stored)
    assert from_files is not None and from_store is not None
    assert from_store.files() == from_files.files()
    assert from_store.image().digest == from_files.image().digest


def test_the_image_is_laid_out_as_opm_does_without_times(tmp_path: Path) -> None:
    files = {"b/catalog.json": b'{"b": 1}\n', "a/catalog.json": b'{"a": 1}\n'}
    image = catalog_image(files)
    assert image.digest == catalog_image(dict(reversed(files.items()))).digest
    manifest = json.loads(image.manifest)
    assert manifest["mediaType"] == "application/vnd.oci.image.manifest.v1+json"
    assert manifest["config"]["digest"] == image.config.digest
    config = json.loads(image.config.data)
    assert config["config"]["Labels"] == {CONFIGS_LABEL: "/configs"}
    assert "created" not in config and "history" not in config
    (layer,) = image.layers
    assert layer.data[4:8] == b"\0\0\0\0"  # gzip's time field
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(layer.data))) as tar:
        members = tar.getmembers()
        assert [m.name for m in members] == [
            "configs", "configs/a", "configs/a/catalog.json", "configs/b", "configs/b/catalog.json"
        ]  # fmt: skip
        assert {(m.mtime, m.uid, m.gid, m.uname, m.gname) for m in members} == {(0, 0, 0, "", "")}
        extracted = tar.extractfile("configs/b/catalog.json")
        assert extracted is not None and extracted.read() == b'{"b": 1}\n'


def test_the_cluster_catalog_is_pinned_and_below_every_other() -> None:
    ref = "127.0.0.1:5000/deppy/resolved@sha256:" + "a" * 64
    obj = cluster_catalog_object("deppy-unit", ref, labels={"deppy.io/unit": "u"})
    assert obj == {
        "apiVersion": "olm.operatorframework.io/v1",
        "kind": "ClusterCatalog",
        "metadata": {
            "name": "deppy-unit",
            "labels": {"deppy.io/unit": "u", "deppy.io/resolved-catalog": "true"},
        },
        "spec": {
            "priority": -2147483648,
            "source": {"type": "Image", "image": {"ref": ref}},
        },
    }
    assert LOWEST_PRIORITY == -(2**31)
    with pytest.raises(ValueError, match="not pinned by digest"):
        cluster_catalog_object("x", "127.0.0.1:5000/deppy/resolved:t1")
