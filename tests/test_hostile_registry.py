"""deppy's registry client against registries that misbehave (tests/hostile_registry.py, one
misbehaviour each) and against hostile local files and destinations: each is one line naming
the registry (or file) and what it did, within the deadline, with no credential in it and
nothing half-written; the CLI says it as ``deppy: error:`` and exit 2."""

from __future__ import annotations

import base64
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from deppy.errors import InputError
from deppy.oci import auth_from_files, catalog_image, parse_destination, publish
from deppy.oci.auth import RegistryAuth
from deppy.oci.push import RegistryError
from tests.hostile_registry import TOKEN, hostile_registry
from tests.registry import PASSWORD, USER
from tests.workflow_helpers import run

IMAGE = catalog_image({"pkg/catalog.json": b'{"schema":"olm.package","name":"pkg"}\n'})
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("needs openssl (apt-get install openssl)")
    from tests.registry import _certificate

    return _certificate(tmp_path_factory.mktemp("cert"))


def auth_file(tmp_path: Path, address: str) -> RegistryAuth:
    path = tmp_path / "auth.json"
    path.write_text(f'{{"auths": {{"{address}": {{"auth": "{BASIC}"}}}}}}')
    found = auth_from_files((str(path),))
    assert found is not None
    return found


def failure(behaviour: str, **options: object) -> str:
    """The one line a push to a registry behaving so gives (timed: within the deadline)."""
    with hostile_registry(behaviour) as registry:
        destination = f"docker://{registry.address}/deppy/resolved:t1"
        started = time.monotonic()
        with pytest.raises(RegistryError) as caught:
            publish(IMAGE, parse_destination(destination), tls_verify=False, timeout=1.0, **options)  # type: ignore[arg-type]
        assert time.monotonic() - started < 5
        if behaviour != "wrong-digest":  # (that registry tagged what it stored)
            assert registry.manifests == {}  # nothing tagged
    line = str(caught.value)
    assert line.startswith(f"{destination}: registry {registry.address} ") or line.startswith(
        f"{destination}: "
    )
    assert registry.address in line and "\n" not in line
    return line


def test_the_hostile_registry_works_when_it_behaves() -> None:
    for behaviour in ("well", "bearer"):
        with hostile_registry(behaviour) as registry:
            destination = parse_destination(f"docker://{registry.address}/deppy/resolved:t1")
            assert publish(IMAGE, destination, tls_verify=False, timeout=2).digest == IMAGE.digest
            assert list(registry.manifests) == ["/v2/deppy/resolved/manifests/t1"]


def test_a_ping_body_that_is_not_utf8_is_no_matter() -> None:
    with hostile_registry("ping-not-utf8") as registry:
        destination = parse_destination(f"docker://{registry.address}/deppy/resolved:t1")
        assert publish(IMAGE, destination, tls_verify=False, timeout=2).digest == IMAGE.digest


@pytest.mark.parametrize(
    ("behaviour", "words"),
    [
        ("ping-500-not-utf8", "answered 500 Internal Server Error to GET /v2/"),
        ("upload-no-location", "answered 202 to a blob upload without a Location header"),
        ("upload-bad-location", "answered a blob upload with an unusable Location"),
        ("redirect-loop", "redirected more than 10 times (a redirect loop)"),
        ("redirect-ftp", 'redirected to "ftp://127.0.0.1/v2/", which is not an http(s) URL'),
        ("401-no-challenge", "answered 401 without a WWW-Authenticate header"),
        ("bearer-no-realm", "sent a Bearer challenge without a realm"),
        ("bearer-unparsable", "sent a WWW-Authenticate header that does not parse"),
        ("token-html", "answered something that is not JSON ('text/html')"),
        ("token-list", "answered a list, not a JSON object"),
        ("token-no-token", "answered JSON without a token"),
        ("token-number", "answered a number, not a JSON object"),
        ("trickle-headers", "did not finish answering GET /v2/ within 1 s"),
        ("trickle-body", "did not finish answering GET /v2/ within 1 s"),
        ("endless-body", "sent an answer longer than 4,194,304 bytes"),
        ("wrong-digest", f"under digest sha256:{'0' * 64}, not deppy's {IMAGE.digest}"),
    ],
)
def test_an_odd_registry_is_one_line_naming_it_and_what_it_did(behaviour: str, words: str) -> None:
    line = failure(behaviour)
    assert words in line, line


@needs_openssl
@pytest.mark.parametrize("behaviour", ["echo-basic", "echo-bearer"])
def test_credentials_a_registry_echoes_are_taken_out(
    behaviour: str, certificate: tuple[Path, Path], tmp_path: Path
) -> None:
    with hostile_registry(behaviour, tls=True, certificate=certificate) as registry:
        destination = parse_destination(f"docker://{registry.address}/deppy/resolved:t1")
        auth = auth_file(tmp_path, registry.address)
        with pytest.raises(RegistryError) as caught:
            publish(IMAGE, destination, tls_verify=False, timeout=2, auth=auth)
    line = str(caught.value)
    assert "answered 400 Bad Request: DENIED denied: you sent Authorization: " in line, line
    for secret in (PASSWORD, BASIC, f"{USER}:{PASSWORD}", TOKEN):
        assert secret not in line
    assert "<redacted>" in line


@pytest.fixture
def request_file(tmp_path: Path) -> Path:
    from tests.olmv1_objects import TOPOLOGY

    path = tmp_path / "topology.yaml"
    path.write_text(TOPOLOGY, encoding="utf-8")
    return path


@pytest.fixture
def no_logins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("REGISTRY_AUTH_FILE", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "DOCKER_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    return home


def resolve(request_file: Path, *options: str) -> tuple[int, str, str]:
    from tests.test_cli_resolved_catalog import COMMUNITY

    return run(
        "resolve", "-f", str(request_file), "--catalog", COMMUNITY, "-o", "clusterextensions",
        *options,
    )  # fmt: skip


def one_error_line(code: int, out: str, err: str) -> str:
    assert code == 2, err
    assert out == "" and "Traceback" not in err
    (line,) = [text for text in err.splitlines() if text.startswith("deppy: error:")]
    return line


@pytest.mark.parametrize(
    ("behaviour", "words"),
    [
        ("trickle-headers", "did not finish answering GET /v2/ within 1 s"),
        ("token-html", "answered something that is not JSON"),
        ("endless-body", "sent an answer longer than"),
    ],
)
def test_the_cli_says_a_hostile_registry_in_one_line_and_exit_2(
    request_file: Path, no_logins: Path, behaviour: str, words: str
) -> None:
    with hostile_registry(behaviour) as registry:
        dest = f"docker://{registry.address}/deppy/resolved:t1"
        started = time.monotonic()
        found = resolve(request_file, "--resolved-catalog", dest, "--tls-verify=false",
                        "--registry-timeout", "1")  # fmt: skip
        assert time.monotonic() - started < 30  # the catalog loads; the registry takes ≤ 1 s
        assert registry.manifests == {}
    line = one_error_line(*found)
    assert line.startswith(f"deppy: error: {dest}: registry {registry.address} "), line
    assert words in line, line


def test_the_registry_timeout_must_be_a_positive_number(request_file: Path) -> None:
    code, _, err = run("resolve", "-f", str(request_file), "--registry-timeout", "0")
    assert code == 2 and "--registry-timeout" in err


# -- files and destinations


def special_files(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    yield fifo, "is a FIFO (named pipe), not a regular file"
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    yield zero, "is a character device, not a regular file"


def test_a_credentials_file_that_is_no_file_is_refused_at_once(
    tmp_path: Path, no_logins: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for path, words in special_files(tmp_path):
        monkeypatch.setenv("REGISTRY_AUTH_FILE", str(path))
        with pytest.raises(InputError) as caught:
            auth_from_files()
        assert str(caught.value).startswith(f"{path}: {words}")
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (5 << 20))
    with pytest.raises(InputError, match="is larger than 4,194,304 bytes"):
        auth_from_files((str(big),))


def test_a_layout_whose_index_is_no_file_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    for path, words in special_files(tmp_path):
        layout = tmp_path / f"layout-{path.name}"
        layout.mkdir()
        (layout / "oci-layout").write_text('{"imageLayoutVersion":"1.0.0"}')
        (layout / "index.json").symlink_to(path)
        with pytest.raises(InputError) as caught:
            publish(IMAGE, parse_destination(f"oci:{layout}:t1"))
        assert words in str(caught.value)
        assert sorted(p.name for p in layout.iterdir()) == ["index.json", "oci-layout"]


def test_an_empty_directory_or_a_link_to_one_becomes_a_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    assert publish(IMAGE, parse_destination("oci:.:t1")).reference == f"oci:.@{IMAGE.digest}"
    assert (here / "index.json").is_file() and (here / "oci-layout").is_file()
    target = tmp_path / "target"
    target.mkdir()
    (tmp_path / "link").symlink_to(target)
    publish(IMAGE, parse_destination(f"oci:{tmp_path / 'link'}:t1"))
    assert (tmp_path / "link").is_symlink() and (target / "index.json").is_file()


@pytest.mark.parametrize(
    ("dest", "words"),
    [
        ("docker://127.0.0.1:99999/deppy/x", "port 99999 is not a port (1 to 65535)"),
        ("docker://127.0.0.1:0/deppy/x", "port 0 is not a port"),
        ("docker://me:hunter2-pw@127.0.0.1:5000/deppy/x", "credentials do not belong in the"),
        ("docker://me:hunter2@pw@127.0.0.1:5000/deppy/x", "credentials do not belong in the"),
        ("dockr://me:hunter2@pw@127.0.0.1:5000/deppy/x", "unknown transport 'dockr'"),
    ],
)
def test_a_bad_registry_destination_is_refused_before_any_work(dest: str, words: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_destination(dest)
    assert words in str(caught.value)
    assert "hunter2" not in str(caught.value)
    if dest.startswith("docker://me"):
        assert "auth file" in str(caught.value) and "digest" not in str(caught.value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, 60.0), (1, 1.0), (2.5, 2.5), (0, None), (-1, None), (True, None), ("10", None),
     (1e9, None)],
)  # fmt: skip
def test_the_provisioner_class_takes_a_registry_timeout(
    value: object, expected: float | None
) -> None:
    from deppy.controller.olmv1.resolved_catalogs import settings_of

    resolved: dict[str, object] = {"ref": "docker://127.0.0.1:5000/deppy/resolved"}
    if value is not None:
        resolved["registryTimeout"] = value
    class_body = {"parameters": {"resolvedCatalog": resolved}}
    if expected is None:
        with pytest.raises(InputError) as caught:
            settings_of(class_body, "olm-v1")
        assert str(caught.value).startswith(
            "ProvisionerClass olm-v1: parameters.resolvedCatalog.registryTimeout: "
        )
        return
    found = settings_of(class_body, "olm-v1")
    assert found is not None and found.timeout == expected
