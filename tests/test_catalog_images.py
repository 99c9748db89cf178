"""Catalog images as catalogs (issue 46): ``--catalog docker://…`` and ``oci:DIR`` read from
Debian's docker-registry on 127.0.0.1 (plain HTTP, and TLS with an htpasswd login) and from OCI
layouts, images built in the tests and pushed with skopeo: the community catalog over several
layers with a whiteout, gzip, zstd and plain layers, OCI and Docker schema 2 media types, an
index with two platforms, digest references; the same catalog as the directory, compared whole.
Then the cache (a tag asks one question, a digest none, an unreachable registry the last read),
``catalog add|refresh`` and every bad reference or answer as one line, exit 2."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deppy.catalog.model import Catalog
from deppy.errors import InputError
from deppy.oci.reference import LayoutReference, RegistryReference, parse_reference
from deppy.resolution.request_parsing import CatalogSpec
from deppy.workflows.catalog_loading import load_catalogs
from tests.catalog_images import (
    DOCKER,
    OCI,
    Entry,
    Layer,
    Layout,
    split_catalog,
)
from tests.conftest import shared_path
from tests.registry import PASSWORD, USER, Registry, registry_for_tests, registry_missing, skopeo
from tests.workflow_helpers import run

COMMUNITY = shared_path("catalogs", "community-operators-prod-v4.18")
needs_registry = pytest.mark.skipif(registry_missing() is not None, reason=str(registry_missing()))
SMALL = [
    Entry("configs", kind="dir"),
    Entry("configs/one", kind="dir"),
    Entry(
        "configs/one/catalog.json",
        b'{"schema":"olm.package","name":"one","defaultChannel":"stable"}\n'
        b'{"schema":"olm.channel","package":"one","name":"stable","entries":[{"name":"one.v1.0.0"}]}\n'
        b'{"schema":"olm.bundle","name":"one.v1.0.0","package":"one","image":"x/one:1",'
        b'"properties":[{"type":"olm.package","value":{"packageName":"one","version":"1.0.0"}}]}\n',
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("docker://127.0.0.1:5000/c/community:v4.18", ("127.0.0.1:5000", "c/community", "v4.18")),
        ("docker://quay.io/team/catalog", ("quay.io", "team/catalog", "latest")),
        (f"docker://localhost/c@sha256:{'a' * 64}", ("localhost", "c", "latest")),
        ("oci:/tmp/layout:t1", ("/tmp/layout", "t1")),
    ],
)
def test_references_in_skopeos_syntax(text: str, expected: tuple[str, ...]) -> None:
    found = parse_reference(text)
    if isinstance(found, RegistryReference):
        assert (found.registry, found.repository, found.tag) == expected
        assert (found.digest is not None) == ("@" in text)
    else:
        assert isinstance(found, LayoutReference)
        assert (found.directory, found.tag) == expected


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("docker://127.0.0.1:5000/c@sha256:abc", "digest 'sha256:abc' is not a sha256 digest"),
        ("docker://127.0.0.1:5000", "no repository"),
        ("docker://127.0.0.1:99999/c", "port 99999 is not a port"),
        ("oci:", "no directory"),
    ],
)
def test_a_bad_reference_is_one_line_naming_it(text: str, words: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_reference(text)
    assert words in str(caught.value)
    code, out, err = run("search", "--catalog", text, "x")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("deppy: error:") and words in err


def test_catalog_add_of_an_unreachable_registry_names_it_with_both_slashes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bug of the issue: the reference was taken for a path (``docker:/REGISTRY``)."""
    from tests.ports import free_port

    monkeypatch.setenv("DEPPY_HOME", str(tmp_path))
    reference = f"docker://127.0.0.1:{free_port()}/catalogs/community:v4.18"
    code, _, err = run("catalog", "add", "community", reference, "--registry-timeout", "5")
    assert code == 2 and err.count("\n") == 1, err
    assert reference in err and "cannot reach registry" in err and "docker:/1" not in err
    code, out, _ = run("catalog", "list", "-o", "name")
    assert code == 0 and out == ""  # nothing stored


# -- images of the community catalog in a plain registry --------------------------------------


ROOTS: dict[str, Path] = {}  # where each test registry stores its blobs


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registry]:
    root = tmp_path_factory.mktemp("registry")
    for running in registry_for_tests(root):
        ROOTS[running.address] = root
        yield running


def _push(registry: Registry, layout: Path, tag: str, repository: str, *extra: str) -> str:
    target = f"docker://{registry.address}/{repository}:{tag}"
    copied = skopeo("copy", "--dest-tls-verify=false", *extra, f"oci:{layout}:{tag}", target)
    assert copied.returncode == 0, copied.stderr
    return target


@pytest.fixture(scope="module")
def images(registry: Registry, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """References of the community catalog as images, each a different way."""
    root = tmp_path_factory.mktemp("layouts")
    layout = Layout(root / "layout")
    layers = split_catalog(COMMUNITY)
    layout.tag(layout.image(layers), "gzip")
    mixed = [Layer(layer.entries, ("none", "gzip")[n % 2]) for n, layer in enumerate(layers)]
    layout.tag(layout.image(mixed), "mixed")
    layout.tag(layout.image([Layer(layer.entries, "zstd") for layer in layers]), "zstd")
    amd64 = layout.image(layers, platform=("linux", "amd64"))
    arm64 = layout.image([Layer(SMALL)], platform=("linux", "arm64"))
    layout.tag(layout.index([arm64, amd64]), "multi")
    found = {
        tag: _push(registry, root / "layout", tag, "catalogs/community") for tag in ("gzip", "zstd")
    }
    found["multi"] = _push(registry, root / "layout", "multi", "catalogs/community", "--all")
    docker = _push(registry, root / "layout", "mixed", "catalogs/docker", "--format", "v2s2")
    manifest = skopeo("inspect", "--raw", "--tls-verify=false", docker).stdout
    assert json.loads(manifest)["mediaType"] == DOCKER["manifest"]
    found["docker"] = docker
    found["oci"] = f"oci:{root / 'layout'}:mixed"  # plain and gzip layers, read from disk
    inspected = skopeo("inspect", "--tls-verify=false", found["gzip"])
    found["digest"] = (
        f"docker://{registry.address}/catalogs/community@" + json.loads(inspected.stdout)["Digest"]
    )
    return found


def _loaded(spec: str) -> Catalog:
    source = load_catalogs([CatalogSpec(spec, "community", 0)], one_shot=False)
    return source.catalog("community")  # type: ignore[attr-defined,no-any-return]


def _whole(catalog: Catalog) -> tuple[Any, ...]:
    return (
        catalog.packages,
        catalog.channels,
        catalog.bundles,
        catalog.deprecations,
        catalog.others,
        len(catalog.problems),
    )


@pytest.fixture(scope="module")
def directory_catalog() -> tuple[Any, ...]:
    return _whole(_loaded(str(COMMUNITY)))


@needs_registry
@pytest.mark.parametrize("kind", ["gzip", "docker", "zstd", "multi", "oci", "digest"])
def test_an_image_is_the_catalog_its_directory_is(
    images: dict[str, str],
    directory_catalog: tuple[Any, ...],
    kind: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path))
    from deppy.catalog.image_catalog import use_pull_options
    from deppy.oci.pull import PullOptions

    use_pull_options(PullOptions(tls_verify=False))
    try:
        found = _loaded(images[kind])
    finally:
        use_pull_options(PullOptions())
    assert "zz-removed" not in found.packages  # the whiteout of the last layer
    assert _whole(found) == directory_catalog
    unpacked = list((tmp_path / "cache" / "images").iterdir())
    assert not [p for p in unpacked if p.name.startswith(".partial")]
    assert not (tmp_path / "cache" / "images" / "etc").exists()


@needs_registry
def test_answers_from_an_image_are_the_directorys(
    images: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path))
    asked = ("resolve", "--require", "rabbitmq-messaging-topology-operator", "-o", "json")
    from_directory = run(*asked, "--catalog", f"{COMMUNITY}=community")
    image = images["gzip"]
    first = run(*asked, "--catalog", f"{image}=community", "--tls-verify=false")
    again = run(*asked, "--catalog", f"{image}=community", "--tls-verify=false")
    assert from_directory[0] == 0, from_directory[2]
    assert first == again
    # the same answer, its warnings naming the image where they name the directory
    assert image in first[1] and image in first[2]
    named = tuple(str(part).replace(image, str(COMMUNITY)) for part in first)
    assert named == tuple(str(part) for part in from_directory)


@needs_registry
def test_the_platform_is_chosen_from_an_index(
    images: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path))
    multi = images["multi"]
    code, out, err = run("search", "--catalog", multi, "--tls-verify=false", "--platform",
                         "linux/arm64", "one", "-o", "json")  # fmt: skip
    assert code == 0, err
    assert [p["package"] for p in json.loads(out)] == ["one"]
    code, _, err = run("search", "--catalog", multi, "--tls-verify=false", "--platform",
                       "linux/s390x", "one")  # fmt: skip
    assert (
        code == 2 and "no image for platform linux/s390x (it has: linux/amd64, linux/arm64)" in err
    )


# -- the cache: one question for a tag, none for a digest, the last read when unreachable ------


def _requests(log: Path) -> list[str]:
    """The requests a registry's access log holds, as ``METHOD PATH``."""
    import re

    asked = re.findall(r'"(GET|HEAD|PUT|POST|PATCH) (/v2/[^ ?]*)', log.read_text())
    return [f"{method} {path}" for method, path in asked]


def _renamed(package: str) -> list[Entry]:
    """The small catalog, its package named ``package``."""
    return [
        Entry(e.name.replace("one", package), e.data.replace(b"one", package.encode()), e.kind)
        for e in SMALL
    ]


def _small_layout(root: Path, tag: str, package: str = "one") -> Path:
    layout = Layout(root)
    layout.tag(layout.image([Layer(_renamed(package))]), tag)
    return root


@needs_registry
def test_a_tag_read_before_is_used_when_the_registry_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.registry import running_registry

    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    layout = _small_layout(tmp_path / "layout", "v1")
    log = tmp_path / "registry" / "registry.log"
    with running_registry(tmp_path / "registry", access_log=True) as short_lived:
        tag = _push(short_lived, layout, "v1", "catalogs/small")
        digest = json.loads(skopeo("inspect", "--tls-verify=false", tag).stdout)["Digest"]
        by_digest = tag.rsplit(":", 1)[0] + "@" + digest
        for reference in (tag, by_digest):
            code, out, err = run("search", "--catalog", reference, "--tls-verify=false", "one")
            assert code == 0 and "one" in out, err
        before = _requests(log)
        code, out, err = run("search", "--catalog", tag, "--tls-verify=false", "one")
        assert code == 0 and "one" in out, err
        assert _requests(log)[len(before) :] == ["HEAD /v2/catalogs/small/manifests/v1"]
        code, out, err = run("search", "--catalog", by_digest, "--tls-verify=false", "one")
        assert code == 0 and "one" in out, err
        assert len(_requests(log)) == len(before) + 1  # a digest read before asks nothing
        code, _, err = run("catalog", "add", "small", tag, "--tls-verify=false")
        assert code == 0, err
    code, out, err = run("search", "--catalog", by_digest, "--tls-verify=false", "one")
    assert code == 0 and err == "", err  # a digest asks nothing
    code, out, err = run("search", "--catalog", tag, "--tls-verify=false", "one")
    assert code == 0 and "one" in out
    assert err.startswith("deppy: warning: catalog") and "cannot reach registry" in err
    assert "using the image read less than a minute ago" in err
    code, out, err = run("search", "--catalog", tag, "--offline", "one")
    assert code == 0 and err == ""
    code, out, err = run("catalog", "add", "other", tag, "--tls-verify=false")
    assert code == 2 and "cannot reach registry" in err  # add reads the registry, or fails
    code, out, err = run("catalog", "refresh", "small")
    assert code == 2 and err.count("\n") == 1 and "cannot reach registry" in err
    assert run("catalog", "list", "-o", "name")[1] == "small\n"  # kept as it was
    never = tag.replace("small", "never")
    code, _, err = run("search", "--catalog", never, "--offline", "one")
    assert code == 2 and "was never read, and --offline asks no registry" in err


@needs_registry
def test_catalog_add_keeps_the_reference_and_refresh_keeps_a_moved_digest_as_name_at_1(
    registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    first = _push(registry, _small_layout(tmp_path / "a", "v1"), "v1", "catalogs/moving")
    code, out, err = run("catalog", "add", "moving", first, "--tls-verify=false")
    assert code == 0, err
    assert f"from {first}" in out
    code, out, err = run("catalog", "refresh", "moving")  # TLS setting kept by add
    assert code == 0 and "unchanged" in out, err
    _push(registry, _small_layout(tmp_path / "b", "v1", "two"), "v1", "catalogs/moving")
    code, out, err = run("catalog", "refresh", "moving")
    assert code == 0 and "kept as moving@1" in out, err
    code, out, _ = run("search", "--catalog", "moving@1", "one", "-o", "json")
    assert code == 0 and [p["package"] for p in json.loads(out)] == ["one"]
    code, out, _ = run("search", "two", "-o", "json")
    assert code == 0 and [p["package"] for p in json.loads(out)] == ["two"]
    settings = tmp_path / "home" / "image-sources.json"
    assert json.loads(settings.read_text()) == {"moving": {"platform": None, "tls_verify": False}}
    assert run("catalog", "remove", "moving")[0] == 0
    assert json.loads(settings.read_text()) == {}


@needs_registry
@pytest.mark.parametrize(
    ("suffix", "words"),
    [
        ("catalogs/community:nope", "has no manifest nope in catalogs/community"),
        ("catalogs/absent:v1", "has no manifest v1 in catalogs/absent"),
    ],
)
def test_a_missing_image_is_one_line_and_stores_nothing(
    registry: Registry, suffix: str, words: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path))
    reference = f"docker://{registry.address}/{suffix}"
    code, _, err = run("catalog", "add", "c", reference, "--tls-verify=false")
    assert code == 2 and err.count("\n") == 1 and words in err and reference in err
    assert run("catalog", "list", "-o", "name")[1] == ""
    code, _, err = run("search", "--catalog", reference, "x")  # TLS verified: plain HTTP fails
    assert code == 2 and "TLS failure talking to registry" in err


@needs_registry
def test_an_image_without_a_catalog_is_one_line(
    registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    layout = Layout(tmp_path / "layout")
    layout.tag(layout.image([Layer([Entry("etc/os-release", b"ID=none\n")])]), "v1")
    reference = _push(registry, tmp_path / "layout", "v1", "catalogs/empty")
    code, _, err = run("search", "--catalog", reference, "--tls-verify=false", "x")
    assert code == 2 and err.count("\n") == 1
    assert "the image has no catalog: no files under /configs" in err


# -- TLS and a login ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def login_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registry]:
    yield from registry_for_tests(tmp_path_factory.mktemp("login-registry"), secure=True)


@needs_registry
def test_a_registry_asking_for_a_login_is_read_with_the_auth_files_credentials(
    login_registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("REGISTRY_AUTH_FILE", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "DOCKER_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    layout = _small_layout(tmp_path / "layout", "v1")
    target = f"docker://{login_registry.address}/catalogs/small:v1"
    copied = skopeo("copy", "--dest-tls-verify=false", f"--dest-creds={USER}:{PASSWORD}",
                    f"oci:{layout}:v1", target)  # fmt: skip
    assert copied.returncode == 0, copied.stderr
    code, _, err = run("search", "--catalog", target, "--tls-verify=false", "one")
    assert code == 2 and "asks for credentials (401) and none were found for it" in err
    basic = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    auth = tmp_path / "auth.json"
    auth.write_text(json.dumps({"auths": {login_registry.address: {"auth": basic}}}))
    monkeypatch.setenv("REGISTRY_AUTH_FILE", str(auth))
    code, _, err = run("search", "--catalog", target, "one")
    assert code == 2 and "certificate verify failed" in err
    code, out, err = run("search", "--catalog", target, "--tls-verify=false", "one")
    assert code == 0 and "one" in out, err
    assert PASSWORD not in err and basic not in err


# -- hostile layers ----------------------------------------------------------------------------


def _hostile_layout(root: Path, entries: list[Entry], how: str = "gzip") -> str:
    layout = Layout(root)
    layout.tag(layout.image([Layer(SMALL), Layer(entries, how)]), "v1")
    return f"oci:{root}:v1"


def test_entries_leading_outside_are_skipped_never_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    outside = tmp_path / "outside"
    reference = _hostile_layout(
        tmp_path / "layout",
        [
            Entry("configs/../../../../outside/escaped", b"x"),
            Entry(f"{outside}/absolute", b"x"),
            Entry("configs/link", kind="symlink", link="/etc/passwd"),
            Entry("configs/one/hard", kind="hardlink", link="etc/passwd"),
            Entry("configs/fifo", kind="fifo"),
            Entry("configs/tty", kind="chardev"),
        ],
    )
    code, out, err = run("search", "--catalog", reference, "one")
    assert code == 0 and "one" in out
    said = " ".join(err.split())  # wrapped to the screen's width
    assert said.startswith("deppy: warning: catalog") and "6 entries skipped, never written" in said
    assert not outside.exists()
    images = tmp_path / "home" / "cache" / "images"
    written = {p.relative_to(images).as_posix().split("/", 1)[-1] for p in images.rglob("*")}
    assert {"catalog/link", "catalog/fifo", "catalog/tty", "catalog/one/hard"}.isdisjoint(written)


@pytest.mark.parametrize("how", ["gzip", "zstd"])
def test_a_compression_bomb_stops_with_one_line(
    how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    zeros = bytes(1 << 20)
    bomb = [Entry(f"configs/bomb/{n}.json", zeros) for n in range(100)]  # 100 MiB, ~100 KiB
    reference = _hostile_layout(tmp_path / "layout", bomb, how)
    code, _, err = run("search", "--catalog", reference, "one")
    assert code == 2 and err.count("\n") == 1, err
    assert "inflates to more than" in err
    assert not list((tmp_path / "home" / "cache" / "images").glob("[0-9a-f]*"))


def test_a_blob_that_is_not_its_digest_is_one_line_and_nothing_is_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    reference = _hostile_layout(tmp_path / "layout", [Entry("configs/x", b"x")])
    manifest = json.loads((tmp_path / "layout" / "index.json").read_text())["manifests"][0]
    blobs = tmp_path / "layout" / "blobs" / "sha256"
    layers = json.loads((blobs / manifest["digest"].split(":")[1]).read_text())["layers"]
    victim = blobs / layers[-1]["digest"].split(":")[1]
    data = bytearray(victim.read_bytes())
    data[-1] ^= 1
    victim.write_bytes(bytes(data))
    code, _, err = run("catalog", "add", "c", reference)
    assert code == 2 and err.count("\n") == 1
    assert f"blob {layers[-1]['digest']} has the digest sha256:" in err
    assert run("catalog", "list", "-o", "name")[1] == ""


@needs_registry
def test_a_registry_serving_other_bytes_is_refused(
    registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The registry's own storage changed under it: deppy checks what it is sent."""
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    layout = _small_layout(tmp_path / "layout", "v1", "tampered")
    reference = _push(registry, layout, "v1", "catalogs/tampered")
    manifest = json.loads((layout / "index.json").read_text())["manifests"][0]
    blobs = layout / "blobs" / "sha256"
    layer = json.loads((blobs / manifest["digest"].split(":")[1]).read_text())["layers"][0]
    hexdigest = layer["digest"].split(":")[1]
    (stored,) = ROOTS[registry.address].rglob(f"blobs/sha256/{hexdigest[:2]}/{hexdigest}/data")
    data = bytearray(stored.read_bytes())
    data[-1] ^= 1
    stored.write_bytes(bytes(data))
    code, _, err = run("search", "--catalog", reference, "--tls-verify=false", "tampered")
    assert code == 2 and err.count("\n") == 1
    assert f"blob {layer['digest']} has the digest" in err


@needs_registry
def test_a_fleet_plan_reads_the_image_once_for_its_workers(
    images: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command reads the image with its registry options; workers get its directory."""
    from benchmarks.fleet_exports import write_fleet

    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    fleet = tmp_path / "fleet"
    fleet.mkdir()
    write_fleet(load_catalogs([CatalogSpec(str(COMMUNITY), None, 0)]), fleet, 4, low=2, high=4)
    asked = ("fleet", "plan", str(fleet), "--ocp-version", "4.20", "-o", "json")
    from_directory = run(*asked, "--catalog", f"{COMMUNITY}=community", "--workers", "0")
    from_image = run(*asked, "--catalog", f"{images['gzip']}=community", "--workers", "1",
                     "--tls-verify=false")  # fmt: skip
    assert from_directory[0] == 0, from_directory[2]
    assert from_image == from_directory


# -- older index images: the SQLite database ---------------------------------------------------


def _sqlite_index(path: Path) -> bytes:
    """A small index database in operator-registry's schema (one package, one bundle)."""
    import sqlite3

    connection = sqlite3.connect(path)
    connection.executescript(
        """
        CREATE TABLE package (name TEXT PRIMARY KEY, default_channel TEXT);
        CREATE TABLE channel (name TEXT, package_name TEXT, head_operatorbundle_name TEXT,
                              PRIMARY KEY (name, package_name));
        CREATE TABLE operatorbundle (name TEXT PRIMARY KEY, csv TEXT, bundle TEXT,
                                     bundlepath TEXT, version TEXT, skiprange TEXT,
                                     replaces TEXT, skips TEXT, substitutesfor TEXT);
        CREATE TABLE channel_entry (entry_id INTEGER PRIMARY KEY, channel_name TEXT,
                                    package_name TEXT, operatorbundle_name TEXT,
                                    replaces INTEGER, depth INTEGER);
        CREATE TABLE properties (type TEXT, value TEXT, operatorbundle_name TEXT,
                                 operatorbundle_version TEXT, operatorbundle_path TEXT);
        CREATE TABLE related_image (image TEXT, operatorbundle_name TEXT);
        INSERT INTO package VALUES ('legacy', 'stable');
        INSERT INTO channel VALUES ('stable', 'legacy', 'legacy.v1.0.0');
        INSERT INTO operatorbundle VALUES ('legacy.v1.0.0', NULL, NULL, 'x/legacy:1', '1.0.0',
                                           NULL, NULL, NULL, NULL);
        INSERT INTO channel_entry VALUES (1, 'stable', 'legacy', 'legacy.v1.0.0', NULL, 0);
        INSERT INTO properties VALUES ('olm.package',
            '{"packageName":"legacy","version":"1.0.0"}', 'legacy.v1.0.0', '1.0.0', 'x/legacy:1');
        """
    )
    connection.commit()
    connection.close()
    return path.read_bytes()


def _sqlite_image(root: Path) -> tuple[str, bytes]:
    database = _sqlite_index(root.parent / "index.db")
    layout = Layout(root)
    entries = [Entry("database", kind="dir"), Entry("database/index.db", database)]
    labels = {"operators.operatorframework.io.index.database.v1": "/database/index.db"}
    layout.tag(layout.image([Layer(entries)], labels=labels), "v1")
    return f"oci:{root}:v1", database


def test_an_older_images_sqlite_index_is_taken_alone_into_the_cache(tmp_path: Path) -> None:
    from deppy.oci.pull import PullOptions, pull_catalog

    reference, database = _sqlite_image(tmp_path / "layout")
    pulled = pull_catalog(reference, cache_dir=tmp_path / "cache", options=PullOptions())
    assert pulled.kind == "sqlite" and pulled.name == "layout"
    assert pulled.path.read_bytes() == database
    assert [p.name for p in pulled.path.parent.iterdir()] == ["index.db"]


def test_an_older_image_is_the_catalog_its_sqlite_index_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deppy.catalog.sqlite_index import load_sqlite_catalog

    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    reference, _ = _sqlite_image(tmp_path / "layout")
    direct = load_sqlite_catalog(
        tmp_path / "index.db", name="legacy", priority=0, where=str(tmp_path / "index.db")
    )
    from_image = load_catalogs([CatalogSpec(reference, "legacy", 0)], one_shot=False)
    assert _whole(from_image.catalog("legacy")) == _whole(direct)  # type: ignore[attr-defined]


def test_catalog_render_of_an_image_is_the_render_of_what_it_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``deppy catalog render IMAGE``: an older image prints its SQLite index as the index
    file does, an FBC image as its directory does (opm render's use: look inside an image)."""
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    reference, _ = _sqlite_image(tmp_path / "layout")
    code, from_image, err = run("catalog", "render", reference)
    assert code == 0, err
    assert '"name": "legacy"' in from_image
    assert run("catalog", "render", str(tmp_path / "index.db"))[1] == from_image
    fbc = _small_layout(tmp_path / "fbc", "v1")
    directory = tmp_path / "small"
    for entry in SMALL:
        if entry.kind == "dir":
            (directory / entry.name).mkdir(parents=True, exist_ok=True)
        else:
            (directory / entry.name).parent.mkdir(parents=True, exist_ok=True)
            (directory / entry.name).write_bytes(entry.data)
    code, fbc_render, err = run("catalog", "render", f"oci:{fbc}:v1")
    assert code == 0, err
    assert fbc_render == run("catalog", "render", str(directory / "configs"))[1]


# -- a registry that misbehaves ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("behaviour", "words"),
    [
        ("pull-other-blob", "has the digest sha256:"),
        ("pull-endless-blob", "sent an answer longer than"),
        ("pull-manifest-not-json", "invalid JSON"),
        ("pull-manifest-500", "answered 500"),
    ],
)
def test_a_registry_answering_oddly_is_one_line_and_stores_nothing(
    behaviour: str, words: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deppy.oci import catalog_image, parse_destination, publish
    from tests.hostile_registry import hostile_registry

    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    image = catalog_image({"one/catalog.json": SMALL[2].data})
    with hostile_registry(behaviour) as hostile:
        reference = f"docker://{hostile.address}/catalogs/odd:v1"
        publish(image, parse_destination(reference), tls_verify=False)
        code, out, err = run("catalog", "add", "odd", reference, "--tls-verify=false")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("deppy: error:") and reference in err and words in err
    assert "Traceback" not in err
    assert run("catalog", "list", "-o", "name")[1] == ""
    images = tmp_path / "home" / "cache" / "images"
    assert not list(images.glob("[0-9a-f]*")) if images.exists() else True


def test_a_bearer_login_asks_for_a_pull_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deppy.oci import catalog_image, parse_destination, publish
    from tests.hostile_registry import hostile_registry

    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    image = catalog_image({"one/catalog.json": SMALL[2].data})
    with hostile_registry("bearer") as hostile:
        reference = f"docker://{hostile.address}/catalogs/tokens:v1"
        publish(image, parse_destination(reference), tls_verify=False)
        del hostile.scopes[:]
        code, out, err = run("search", "--catalog", reference, "--tls-verify=false", "one")
        scopes = list(hostile.scopes)
    assert code == 0 and "one" in out, err
    assert scopes == ["repository:catalogs/tokens:pull"]


def test_catalog_serve_serves_an_image(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from deppy.workflows.catalog_serving import load_served_catalog

    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    _small_layout(tmp_path / "layout", "v1")
    served = load_served_catalog(f"oci:{tmp_path / 'layout'}:v1")
    assert (served.name, list(served.packages)) == ("layout", ["one"])


def test_an_opaque_directory_hides_what_the_layers_below_put_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    old = [
        Entry(e.name.replace("one", "old"), e.data.replace(b"one", b"old"), e.kind) for e in SMALL
    ]
    layout = Layout(tmp_path / "layout")
    opaque = Layer([Entry("configs", kind="dir"), Entry("configs/.wh..wh..opq"), *SMALL[1:]])
    layout.tag(layout.image([Layer(old), opaque]), "v1")
    code, out, err = run("search", "--catalog", f"oci:{tmp_path / 'layout'}:v1", "o", "-o", "json")
    assert code == 0, err
    assert [p["package"] for p in json.loads(out)] == ["one"]


def test_catalog_check_and_diff_read_images(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    _small_layout(tmp_path / "a", "v1")
    _small_layout(tmp_path / "b", "v1", "two")
    first, second = f"oci:{tmp_path / 'a'}:v1", f"oci:{tmp_path / 'b'}:v1"
    code, out, err = run("catalog", "check", first)
    assert code == 0, err
    code, out, err = run("catalog", "diff", first, second, "-o", "json")
    assert code == 0, err
    assert "two" in out and "one" in out


def test_a_registry_trickling_its_answer_is_cut_off_at_the_registry_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The push path's deadline: one for the whole exchange, not one per read."""
    import time

    from tests.hostile_registry import hostile_registry

    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    with hostile_registry("trickle-body") as hostile:
        reference = f"docker://{hostile.address}/catalogs/slow:v1"
        started = time.monotonic()
        code, _, err = run("search", "--catalog", reference, "--tls-verify=false",
                           "--registry-timeout", "1.5", "x")  # fmt: skip
        took = time.monotonic() - started
    assert code == 2 and err.count("\n") == 1, err
    assert "did not finish answering GET /v2/ within 1.5 s" in err
    assert took < 10


def _with_raw_layer(root: Path, data: bytes, media_type: str) -> str:
    """The small catalog's image with a last layer of exactly ``data`` (made by no tar tool)."""
    layout = Layout(root)
    good = layout.image([Layer(SMALL)])
    manifest_path = root / "blobs" / "sha256" / str(good["digest"]).split(":")[1]
    manifest = json.loads(manifest_path.read_text())
    manifest["layers"].append(layout.blob(data, media_type))
    layout.tag(layout.blob(json.dumps(manifest).encode(), OCI["manifest"]), "v1")
    return f"oci:{root}:v1"


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"\x1f\x8b" + bytes(range(256)) * 4, "is no readable tar"),  # gzip that is not
        (b"\x28\xb5\x2f\xfd" + bytes(range(256)) * 4, "is no readable tar"),  # zstd that is not
        (bytes(range(256)) * 4, "is no readable tar"),  # no tar at all
    ],
)
def test_a_layer_that_is_no_tar_is_one_line(
    data: bytes, words: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    reference = _with_raw_layer(tmp_path / "layout", data, OCI["gzip"])
    code, _, err = run("search", "--catalog", reference, "one")
    assert code == 2 and err.count("\n") == 1, err
    assert words in err and "layer sha256:" in err


def test_a_file_past_the_per_file_bound_is_refused_at_its_header(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A header claiming 600 MiB (the data need not follow: deppy stops at the claim)."""
    import tarfile

    monkeypatch.setenv("DEPPY_HOME", str(tmp_path / "home"))
    header = tarfile.TarInfo("configs/huge/catalog.json")
    header.size = 600 << 20
    reference = _with_raw_layer(tmp_path / "layout", header.tobuf() + bytes(1024), OCI["none"])
    code, _, err = run("search", "--catalog", reference, "one")
    assert code == 2 and err.count("\n") == 1, err
    assert "is 629,145,600 bytes, more than 536,870,912 (deppy's limit for one catalog file)" in err
