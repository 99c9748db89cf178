"""Debian's docker-registry (the CNCF distribution registry) on 127.0.0.1, and skopeo to read
back what deppy pushed: for the tests and the benchmarks (imports no test tool at the top).

Two kinds: a plain-HTTP registry anyone may push to, and one served over TLS (a self-signed
certificate made with openssl) that asks for a user and password (an htpasswd file, bcrypt as
the registry requires, hashed with libcrypt through Python's crypt module or with apache2's
htpasswd). Tests using them are skipped, with a message, where docker-registry, skopeo or
openssl is not installed (CI installs them).
"""

from __future__ import annotations

import shutil
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.ports import free_port

DOCKER_REGISTRY = Path("/usr/bin/docker-registry")
SKOPEO = Path("/usr/bin/skopeo")
MISSING = (
    "registry tests need /usr/bin/docker-registry, /usr/bin/skopeo and openssl "
    "(apt-get install docker-registry skopeo openssl)"
)
USER = "deppy-pusher"
PASSWORD = "s3cret-Pa55-for-the-test-registry"


def registry_missing() -> str | None:
    """Why the registry tests cannot run here, or None."""
    if not (DOCKER_REGISTRY.exists() and SKOPEO.exists() and shutil.which("openssl")):
        return MISSING
    return None


@dataclass(frozen=True)
class Registry:
    """A running registry: ``address`` is 127.0.0.1:PORT; ``secure`` ones speak TLS and ask
    for ``USER``/``PASSWORD``."""

    address: str
    secure: bool

    def skopeo(self, *args: str) -> subprocess.CompletedProcess[str]:
        """skopeo with what this registry needs (no TLS check; the login when it asks)."""
        extra = ["--tls-verify=false"]
        if self.secure:
            extra.append(f"--creds={USER}:{PASSWORD}")
        command, rest = args[0], args[1:]
        if command == "copy":
            extra = [e.replace("--", "--src-", 1) for e in extra]
        return skopeo(command, *extra, *rest)


def skopeo(*args: str) -> subprocess.CompletedProcess[str]:
    """skopeo's output and status (for ``oci:`` layouts, which need no registry options)."""
    return subprocess.run([str(SKOPEO), *args], capture_output=True, text=True, timeout=60)


def _bcrypt_line(user: str, password: str) -> str:
    """An htpasswd line with a bcrypt hash (the only kind docker-registry reads)."""
    import warnings

    try:
        with warnings.catch_warnings():  # deprecated; gone in Python 3.13 (then htpasswd)
            warnings.simplefilter("ignore", DeprecationWarning)
            import crypt  # libcrypt (libxcrypt) does bcrypt
    except ImportError:
        crypt = None  # type: ignore[assignment]
    if crypt is not None:
        return f"{user}:{crypt.crypt(password, crypt.mksalt(crypt.METHOD_BLOWFISH))}"
    htpasswd = shutil.which("htpasswd")
    if htpasswd is None:
        raise RuntimeError("no bcrypt: install apache2-utils (htpasswd)")
    found = subprocess.run([htpasswd, "-nbB", user, password], capture_output=True, text=True)
    return found.stdout.strip()


def _certificate(directory: Path) -> tuple[Path, Path]:
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def _config(
    directory: Path, port: int, secure: bool, read_only: bool, access_log: bool = False
) -> Path:
    maintenance = ", maintenance: {readonly: {enabled: true}}" if read_only else ""
    lines = [
        "version: 0.1",
        f"log: {{level: error, accesslog: {{disabled: {'false' if access_log else 'true'}}}}}",
        f"storage: {{filesystem: {{rootdirectory: {directory / 'data'}}}{maintenance}}}",
        "http:",
        f"  addr: 127.0.0.1:{port}",
    ]
    if secure:
        cert, key = _certificate(directory)
        (directory / "htpasswd").write_text(_bcrypt_line(USER, PASSWORD) + "\n")
        lines += [
            f"  tls: {{certificate: {cert}, key: {key}}}",
            f"auth: {{htpasswd: {{realm: deppy-test, path: {directory / 'htpasswd'}}}}}",
        ]
    path = directory / "config.yml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _wait_until_up(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    import ssl

    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"docker-registry exited: {log.read_text()[-2000:]}")
        try:
            urllib.request.urlopen(url, timeout=2, context=context)
            return
        except urllib.error.HTTPError:
            return  # 401: up, asking for a login
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"docker-registry did not answer at {url}: {log.read_text()[-2000:]}")


@contextmanager
def running_registry(
    directory: Path, *, secure: bool = False, read_only: bool = False, access_log: bool = False
) -> Iterator[Registry]:
    """A registry storing under ``directory`` for as long as the block runs (``read_only``:
    one that refuses every push, in its maintenance mode; ``access_log``: each request a line
    of ``directory/registry.log``, to count what a client asked)."""
    directory.mkdir(parents=True, exist_ok=True)
    port = free_port()
    config = _config(directory, port, secure, read_only, access_log)
    log = directory / "registry.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(DOCKER_REGISTRY), "serve", str(config)], stdout=out, stderr=subprocess.STDOUT
        )
    try:
        scheme = "https" if secure else "http"
        _wait_until_up(f"{scheme}://127.0.0.1:{port}/v2/", process, log)
        yield Registry(f"127.0.0.1:{port}", secure)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def registry_for_tests(
    directory: Path, *, secure: bool = False, read_only: bool = False
) -> Iterator[Registry]:
    """A registry for a pytest fixture to ``yield from``: skips the test, saying what to
    install, where docker-registry or skopeo is missing."""
    missing = registry_missing()
    if missing is not None:
        import pytest

        pytest.skip(missing)
    with running_registry(directory, secure=secure, read_only=read_only) as registry:
        yield registry


def unpacked_configs(layout: Path, tag: str, into: Path) -> Path:
    """The /configs directory of the image ``tag`` in an OCI layout, unpacked with tar."""
    import json
    import tarfile

    index = json.loads((layout / "index.json").read_text())
    (manifest_entry,) = [
        m for m in index["manifests"]
        if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == tag
    ]  # fmt: skip
    blobs = layout / "blobs" / "sha256"
    manifest = json.loads((blobs / manifest_entry["digest"].split(":")[1]).read_text())
    into.mkdir(parents=True, exist_ok=True)
    for layer in manifest["layers"]:
        with tarfile.open(blobs / layer["digest"].split(":")[1]) as tar:
            tar.extractall(into, filter="data")
    return into / "configs"
