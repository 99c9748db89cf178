"""Publishing catalog images: DEST syntax, credentials from auth files and Secrets, OCI layouts
read back by skopeo, pushes to Debian's docker-registry (plain HTTP, and TLS with a login),
and each failure as one line naming the destination, with no credential in any output."""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from deppy.errors import InputError
from deppy.oci import (
    CONFIGS_LABEL,
    LayoutDestination,
    RegistryDestination,
    auth_file_paths,
    auth_from_dockerconfigjson,
    auth_from_files,
    catalog_image,
    default_tag,
    parse_destination,
    publish,
)
from deppy.oci.push import RegistryError
from tests.registry import (
    PASSWORD,
    USER,
    Registry,
    registry_for_tests,
    registry_missing,
    running_registry,
    skopeo,
    unpacked_configs,
)

IMAGE_FILE = b'{"schema":"olm.package","name":"pkg"}\n'
IMAGE = catalog_image({"pkg/catalog.json": IMAGE_FILE})
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
needs_registry = pytest.mark.skipif(registry_missing() is not None, reason=str(registry_missing()))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("docker://127.0.0.1:5000/deppy/resolved:t1", ("127.0.0.1:5000", "deppy/resolved", "t1")),
        ("docker://quay.io/team/catalog", ("quay.io", "team/catalog", None)),
        ("docker://localhost/c:v1.0", ("localhost", "c", "v1.0")),
        ("docker://busybox", ("docker.io", "library/busybox", None)),
        ("docker://me/catalog:x", ("docker.io", "me/catalog", "x")),
        ("oci:/tmp/layout:t1", ("/tmp/layout", "t1")),
        ("oci:relative", ("relative", None)),
    ],
)
def test_destinations_in_skopeos_syntax(text: str, expected: tuple[str | None, ...]) -> None:
    found = parse_destination(text)
    if isinstance(found, RegistryDestination):
        assert (found.registry, found.repository, found.tag) == expected
    else:
        assert isinstance(found, LayoutDestination)
        assert (found.directory, found.tag) == expected
    assert str(found) == text
    assert found.tagged("set-1").tag == "set-1"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("docker://127.0.0.1:5000", "no repository"),
        ("docker://127.0.0.1:5000/", "no repository"),
        ("docker://", "no repository"),
        ("docker://127.0.0.1:5000/Deppy/x", "repository 'Deppy/x' is not a valid name"),
        ("docker://127.0.0.1:5000/deppy:-bad", "tag '-bad' is not a valid tag"),
        ("docker://127.0.0.1:5000/deppy@sha256:" + "a" * 64, "a digest cannot be pushed to"),
        ("oci:", "no directory"),
        ("dir:/tmp/x", "unknown transport 'dir'"),
        ("containers-storage:x", "unknown transport 'containers-storage'"),
        ("quay.io/team/catalog", "no transport"),
    ],
)
def test_a_bad_destination_is_one_line_naming_it(text: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_destination(text, where="parameters.resolvedCatalog.ref")
    line = str(caught.value)
    assert line.startswith("parameters.resolvedCatalog.ref ")
    assert message in line and "\n" not in line
    if "transport" in message or "no repository" in message:
        assert "docker://HOST[:PORT]/REPO[:TAG] or oci:DIR[:TAG]" in line


def test_a_tag_given_later_is_checked_too() -> None:
    with pytest.raises(InputError, match="tag '-x' is not a valid tag"):
        parse_destination("docker://127.0.0.1:5000/deppy").tagged("-x")


def docker_config(registry: str, **entry: str) -> bytes:
    return json.dumps({"auths": {registry: entry or {"auth": BASIC}}}).encode()


@pytest.fixture
def auth_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home with no login anywhere (and no REGISTRY_AUTH_FILE, XDG_* or DOCKER_CONFIG)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("REGISTRY_AUTH_FILE", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "DOCKER_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    return home


def test_auth_files_are_read_in_containers_order(
    auth_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert auth_from_files() is None
    docker = auth_home / ".docker" / "config.json"
    docker.parent.mkdir()
    docker.write_bytes(docker_config("https://reg.example:5000/v2/", username="d", password="p"))
    containers = auth_home / ".config" / "containers" / "auth.json"
    containers.parent.mkdir(parents=True)
    containers.write_bytes(docker_config("other.example"))
    explicit = tmp_path / "explicit.json"
    explicit.write_bytes(docker_config("reg.example:5000/team"))
    monkeypatch.setenv("REGISTRY_AUTH_FILE", str(explicit))
    assert auth_file_paths() == (str(explicit), str(containers), str(docker))
    auth = auth_from_files()
    assert auth is not None
    team = auth.for_registry("reg.example:5000", "team/catalog")
    assert team is not None and (team.username, team.secret, team.origin) == (
        USER, PASSWORD, str(explicit)
    )  # fmt: skip
    elsewhere = auth.for_registry("reg.example:5000", "other/catalog")
    assert elsewhere is not None and (elsewhere.username, elsewhere.origin) == ("d", str(docker))
    assert auth.for_registry("nobody.example", "x") is None


def test_a_broken_auth_file_is_one_line_naming_it(auth_home: Path, tmp_path: Path) -> None:
    broken = tmp_path / "auth.json"
    broken.write_text('{"auths": {"reg.example": {"auth": "not base64!"}}}')
    with pytest.raises(InputError, match=r"auth\.json: auths: reg\.example: auth is not base64"):
        auth_from_files((str(broken),))
    broken.write_text("{nope")
    with pytest.raises(InputError, match=r"auth\.json: invalid JSON"):
        auth_from_files((str(broken),))


def test_no_credential_shows_in_a_repr() -> None:
    auth = auth_from_dockerconfigjson(docker_config("reg.example"), "Secret deppy/pull")
    credential = auth.for_registry("reg.example", "x")
    assert credential is not None and credential.secret == PASSWORD
    for text in (repr(auth), repr(credential), str(auth), str(credential)):
        assert PASSWORD not in text and BASIC not in text and USER not in text


def test_an_oci_layout_is_what_skopeo_reads(tmp_path: Path) -> None:
    if registry_missing():
        pytest.skip(str(registry_missing()))
    layout = tmp_path / "out" / "layout"
    published = publish(IMAGE, parse_destination(f"oci:{layout}:t1"))
    assert (published.digest, published.tag) == (IMAGE.digest, "t1")
    found = skopeo("inspect", f"oci:{layout}:t1")
    assert found.returncode == 0, found.stderr
    facts = json.loads(found.stdout)
    assert (facts["Digest"], facts["Labels"]) == (IMAGE.digest, {CONFIGS_LABEL: "/configs"})
    # a second image joins the layout; the first keeps its name
    other = catalog_image({"other/catalog.json": b"{}\n"})
    assert publish(other, parse_destination(f"oci:{layout}")).tag == default_tag(other)
    assert json.loads(skopeo("inspect", f"oci:{layout}:t1").stdout)["Digest"] == (IMAGE.digest)
    configs = unpacked_configs(layout, default_tag(other), tmp_path / "unpacked")
    assert (configs / "other" / "catalog.json").read_bytes() == b"{}\n"
    # an empty directory (made for it) takes a layout too
    empty = tmp_path / "empty"
    empty.mkdir()
    publish(IMAGE, parse_destination(f"oci:{empty}:t1"))
    assert json.loads(skopeo("inspect", f"oci:{empty}:t1").stdout)["Digest"] == IMAGE.digest


def test_an_unusable_layout_directory_is_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "notes.txt").write_text("mine")
    a_file = tmp_path / "file"
    a_file.write_text("x")
    for destination, message in (
        (f"oci:{occupied}:t1", "the directory exists and is not an OCI image layout"),
        (f"oci:{a_file}/layout:t1", f"{a_file} is a file, not a directory"),
        (f"oci:{a_file}:t1", f"{a_file} is a file, not a directory"),
        ("oci:/proc/deppy-layout:t1", "cannot write the OCI layout ("),
    ):
        with pytest.raises(InputError) as caught:
            publish(IMAGE, parse_destination(destination))
        assert str(caught.value).startswith(destination + ": ")
        assert message in str(caught.value) and "\n" not in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "occupied"]
    assert [p.name for p in occupied.iterdir()] == ["notes.txt"]


@pytest.fixture(scope="module")
def plain_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registry]:
    yield from registry_for_tests(tmp_path_factory.mktemp("plain-registry"))


@pytest.fixture(scope="module")
def login_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registry]:
    yield from registry_for_tests(tmp_path_factory.mktemp("login-registry"), secure=True)


@needs_registry
def test_a_push_is_read_back_by_skopeo(plain_registry: Registry, tmp_path: Path) -> None:
    destination = parse_destination(f"docker://{plain_registry.address}/deppy/resolved:t1")
    published = publish(IMAGE, destination, tls_verify=False)
    assert published.reference == f"{plain_registry.address}/deppy/resolved@{IMAGE.digest}"
    found = plain_registry.skopeo("inspect", f"docker://{plain_registry.address}/deppy/resolved:t1")
    assert found.returncode == 0, found.stderr
    facts = json.loads(found.stdout)
    assert (facts["Digest"], facts["Labels"]) == (IMAGE.digest, {CONFIGS_LABEL: "/configs"})
    copied = plain_registry.skopeo(
        "copy", f"docker://{published.reference}", f"oci:{tmp_path / 'copy'}:t1"
    )
    assert copied.returncode == 0, copied.stderr
    configs = unpacked_configs(tmp_path / "copy", "t1", tmp_path / "unpacked")
    assert (configs / "pkg" / "catalog.json").read_bytes() == IMAGE_FILE
    # again: the blobs are there already, the tag moves to the same digest
    assert publish(IMAGE, destination, tls_verify=False) == published


def one_line_error(destination: str, **options: object) -> str:
    with pytest.raises(RegistryError) as caught:
        publish(IMAGE, parse_destination(destination), **options)  # type: ignore[arg-type]
    line = str(caught.value)
    assert line.startswith(destination + ": ") and "\n" not in line
    return line


@needs_registry
def test_a_login_registry_takes_the_credentials_of_the_auth_files(
    login_registry: Registry,
    auth_home: Path,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    caplog.set_level(logging.DEBUG)
    destination = f"docker://{login_registry.address}/deppy/resolved:t2"
    messages = []
    # no login anywhere: the files looked at are named
    missing = one_line_error(destination, tls_verify=False, auth=auth_from_files())
    assert "asks for credentials (401) and none were found" in missing
    assert str(auth_home / ".docker" / "config.json") in missing
    messages.append(missing)
    # a wrong password, from an auth file: that file is named
    wrong_file = tmp_path / "wrong.json"
    wrong = base64.b64encode(f"{USER}:not-{PASSWORD}".encode()).decode()
    wrong_file.write_bytes(docker_config(login_registry.address, auth=wrong))
    refused = one_line_error(
        destination, tls_verify=False, auth=auth_from_files((str(wrong_file),))
    )
    assert f"refused the credentials from {wrong_file} (401)" in refused
    messages.append(refused)
    # TLS checked: the self-signed certificate fails, and the way out is said
    tls = one_line_error(destination, auth=auth_from_files((str(wrong_file),)))
    assert "TLS failure talking to registry" in tls and "certificate verify failed" in tls
    assert "--tls-verify=false (for a plain-HTTP or loopback registry only)" in tls
    messages.append(tls)
    good = tmp_path / "good.json"
    good.write_bytes(docker_config(login_registry.address))
    monkeypatch.setenv("REGISTRY_AUTH_FILE", str(good))
    published = publish(
        IMAGE, parse_destination(destination), tls_verify=False, auth=auth_from_files()
    )
    found = login_registry.skopeo("inspect", f"docker://{login_registry.address}/deppy/resolved:t2")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["Digest"] == published.digest == IMAGE.digest
    logged = caplog.text + "".join(messages)
    assert PASSWORD not in logged and BASIC not in logged and wrong not in logged


@needs_registry
def test_an_unreachable_or_plain_registry_is_one_line(plain_registry: Registry) -> None:
    from tests.ports import free_port

    nobody = f"docker://127.0.0.1:{free_port()}/deppy/resolved"
    down = one_line_error(nobody, tls_verify=False)
    assert "cannot reach registry" in down and "Connection refused" in down
    with pytest.raises(RegistryError) as caught:
        publish(IMAGE, parse_destination(nobody))
    assert caught.value.retriable
    plain = one_line_error(f"docker://{plain_registry.address}/deppy/resolved")
    assert "TLS failure talking to registry" in plain


@needs_registry
def test_a_registry_that_refuses_the_push_is_one_line_with_its_answer(tmp_path: Path) -> None:
    with running_registry(tmp_path / "read-only", read_only=True) as registry:
        line = one_line_error(f"docker://{registry.address}/deppy/resolved:t1", tls_verify=False)
    assert f"registry {registry.address} answered 405 Method Not Allowed" in line
