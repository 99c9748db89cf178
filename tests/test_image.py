"""deppy's container image (``make image``; image/README.md), built once per source tree and
run the way a cluster runs it (tests/image_support.py): as uid 65532 on a read-only root, in
its own namespaces, with only its own loopback unless a test needs the host's.

Each test times its steps; a failure names the step and every step's time. Skipped, with the
reason, where root, mmdebstrap or bwrap is missing (CI runs as root and installs them).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from benchmarks.fleet_exports import write_fleet

from deppy.resolution.request_parsing import parse_catalog
from deppy.workflows.catalog_loading import load_catalogs
from tests.conftest import free_port, shared_path
from tests.controller_env import Controller, catalog_object, client, condition, install, wait_for
from tests.image_support import (
    SOURCE_LABEL,
    TOKEN,
    Built,
    Image,
    Steps,
    build_image,
    host_deppy,
    image_for_tests,
    image_from,
    image_missing,
    manifest_and_config,
    process_in_sandbox,
)
from tests.kube import KubeCluster
from tests.registry import Registry, registry_for_tests

JAEGER = shared_path("catalogs", "redhat-operator-index-excerpts", "jaeger-product")
SBOM_LABEL = "deppy.image.sbom"


@pytest.fixture(scope="session")
def built() -> Built:
    missing = image_missing()
    if missing is not None:
        pytest.skip(missing)
    steps = Steps()
    with steps.step("build the image (make image's builder)"):
        return image_for_tests()


@pytest.fixture(scope="session")
def image(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Image:
    with Steps().step("unpack the layers"):
        return image_from(built.layout, built.tag, tmp_path_factory.mktemp("rootfs") / "root")


def test_version_and_every_manifest_as_outside(image: Image) -> None:
    steps = Steps()
    with steps.step("deppy --version"):
        done = image.run("--version")
        assert done.returncode == 0, done.stderr
        outside = subprocess.run([host_deppy(), "--version"], capture_output=True, text=True)
        assert done.stdout == outside.stdout and "0.1.0" in done.stdout
    with steps.step("deppy manifests"):
        reference = "registry.example:5000/deppy@sha256:" + "0f" * 32
        done = image.run("manifests", "--image", reference)
        assert done.returncode == 0, done.stderr
        outside = subprocess.run([host_deppy(), "manifests", "--image", reference],
                                 capture_output=True, text=True)  # fmt: skip
        assert done.stdout == outside.stdout
        assert done.stdout.count("\nkind: ") + done.stdout.startswith("kind: ") >= 20
        assert f"image: {reference}" in done.stdout


def test_every_module_of_deppy_and_its_dependencies_loads(image: Image) -> None:
    """Every deppy module imports (the C extensions of the wheels find their libraries in the
    image: libstdc++ for google-re2 was missing once), and nothing writes bytecode."""
    script = (
        "import importlib, pkgutil, deppy, sys\n"
        "names = [m.name for m in pkgutil.walk_packages(deppy.__path__, 'deppy.')]\n"
        "for name in names: importlib.import_module(name)\n"
        "print(len(names), sys.dont_write_bytecode)\n"
    )
    done = image.run("-c", script, program="python3", timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    count, no_bytecode = done.stdout.split()
    assert int(count) > 100 and no_bytecode == "True"


def test_serve_answers_healthz_and_resolves_the_embedded_example(image: Image) -> None:
    steps = Steps()
    port = free_port()
    command = image.command("serve", "--port", str(port), host_network=True)
    with steps.step("deppy serve starts"):
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        with steps.step("GET /api/v1/healthz"):
            _wait_http(f"http://127.0.0.1:{port}/api/v1/healthz", process, 60)
        with steps.step("POST /api/v1/resolve (the embedded example)"):
            example = Path(__file__).parents[1] / "src/deppy/data/request.yaml"
            request = yaml.safe_load(example.read_text())
            del request["spec"]["catalogs"]  # the service names its loaded catalogs instead
            request["spec"]["sources"] = ["embedded"]
            answer = urllib.request.urlopen(urllib.request.Request(
                f"http://127.0.0.1:{port}/api/v1/resolve", data=json.dumps(request).encode(),
                headers={"Content-Type": "application/json"}), timeout=60)  # fmt: skip
            body = json.loads(answer.read())
            outside = subprocess.run([host_deppy(), "resolve", "-f", str(example), "-o", "json"],
                                     capture_output=True, text=True, check=True)  # fmt: skip
            assert body["resolved"] is True, body
            assert body["selection"] == json.loads(outside.stdout)["selection"]
    finally:
        process.terminate()
        output = process.communicate(timeout=30)[0].decode(errors="replace")
    assert "Traceback" not in output, output[-3000:]


def _wait_http(url: str, process: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"exited {process.returncode}: {process.stdout.read()!r}")  # type: ignore[union-attr]
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                assert answer.status == 200
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"no answer at {url} in {timeout} s")


def test_controller_answers_an_active_resolution_and_stops_on_sigterm(
    image: Image, kube: KubeCluster, tmp_path: Path
) -> None:
    steps = Steps()
    with steps.step("install the CRDs and objects (deppy manifests)"):
        install(kube)
        api = client(kube)
        name = f"mounted-{os.getpid()}"
        api.create("catalogs", catalog_object(name, {"path": {"path": "/tmp/catalogs/jaeger"}}))
    log = tmp_path / "controller.log"
    command = image.command(
        "controller", "--kubeconfig", "/tmp/kube/config", "--health-port", str(free_port()),
        host_network=True,
        binds={kube.kubeconfig: "/tmp/kube/config", JAEGER: "/tmp/catalogs/jaeger"},
    )  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    running = Controller(process, 0, log)  # its log's tail in a failure
    try:
        with steps.step("the mounted Catalog Ready"):
            wait_for("Catalog Ready", lambda: _ready(api, name), 120, running)
        with steps.step("an ActiveResolution answered"):
            ns = kube.new_namespace("image")
            api.create("activeresolutions", {
                "apiVersion": "deppy.io/v1alpha1", "kind": "ActiveResolution",
                "metadata": {"name": "jaeger", "namespace": ns},
                "spec": {"sources": [name], "constraints": ['required("jaeger-product")']},
            }, ns)  # fmt: skip
            answered = wait_for("Resolved", lambda: _resolved(api, ns), 120, running)
            assert condition(answered, "Resolved")["reason"] == "Resolved", answered["status"]
            assert any(":jaeger-product:" in s for s in answered["status"]["selection"])
        with steps.step("SIGTERM: a clean stop"):
            os.kill(process_in_sandbox(process.pid), signal.SIGTERM)
            assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    text = log.read_text(errors="replace")
    assert "Traceback" not in text, text[-3000:]


def _ready(api: Any, name: str) -> bool:
    found = condition(api.get("catalogs", name), "Ready")
    return found is not None and found["status"] == "True"


def _resolved(api: Any, ns: str) -> dict[str, Any] | None:
    found = api.get("activeresolutions", "jaeger", ns)
    return found if condition(found, "Resolved") else None


def test_fleet_plan_gives_the_same_bytes_as_outside(image: Image, tmp_path: Path) -> None:
    steps = Steps()
    with steps.step("four cluster exports of the jaeger catalog"):
        shutil.copytree(JAEGER, tmp_path / "catalog")
        source = load_catalogs([parse_catalog(str(tmp_path / "catalog"))])
        write_fleet(source, tmp_path / "exports", 4, low=1, high=1)
    arguments = ("fleet", "plan", "exports", "--catalog", "catalog", "--workers", "0", "-o", "json")
    with steps.step("deppy fleet plan outside"):
        outside = subprocess.run([host_deppy(), *arguments], cwd=tmp_path, capture_output=True,
                                 env={**os.environ, "DEPPY_CACHE": "off"})  # fmt: skip
        assert outside.returncode == 0, outside.stderr
    with steps.step("deppy fleet plan in the image"):
        # records name the export's absolute path: the same one inside (under its empty /tmp)
        assert tmp_path.is_relative_to("/tmp"), tmp_path
        command = image.command(*arguments, binds={tmp_path: str(tmp_path)},
                                env={"DEPPY_CACHE": "off"}, workdir=str(tmp_path))  # fmt: skip
        inside = subprocess.run(command, capture_output=True, timeout=300)
        assert inside.returncode == 0, inside.stderr
    assert inside.stdout == outside.stdout and outside.stdout.count(b'"cluster"') >= 4


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[Registry]:
    yield from registry_for_tests(tmp_path / "registry")


def test_pushed_image_config_user_entrypoint_labels_and_sbom(
    built: Built, image: Image, registry: Registry
) -> None:
    steps = Steps()
    target = f"docker://{registry.address}/deppy:{built.tag}"
    with steps.step("skopeo copy to docker-registry"):
        done = registry.skopeo(
            "copy", "--dest-tls-verify=false", f"oci:{built.layout}:{built.tag}", target
        )
        assert done.returncode == 0, done.stderr
    with steps.step("skopeo inspect --config"):
        done = registry.skopeo("inspect", "--tls-verify=false", "--config", target)
        assert done.returncode == 0, done.stderr
        config = json.loads(done.stdout)["config"]
        digest = registry.skopeo("inspect", "--tls-verify=false", "--format", "{{.Digest}}", target)
        assert digest.stdout.strip() == built.digest
    with steps.step("user, entrypoint, labels"):
        assert config["User"] == "65532:65532" and config["Entrypoint"] == ["deppy"]
        assert config["WorkingDir"] == "/home/deppy"
        labels = config["Labels"]
        assert labels["org.opencontainers.image.version"] == built.tag
        head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parents[1]).stdout.strip()  # fmt: skip
        assert labels["org.opencontainers.image.revision"].startswith(head)
        assert labels["org.opencontainers.image.created"].endswith("Z")
    with steps.step("the source label and annotation: the URL without its token (issue 45)"):
        assert labels["org.opencontainers.image.source"] == SOURCE_LABEL
        manifest, whole = manifest_and_config(built.layout, built.tag)
        assert manifest["annotations"]["org.opencontainers.image.source"] == SOURCE_LABEL  # type: ignore[index]
        for path in built.layout.rglob("*"):
            if path.is_file() and path.stat().st_size < 1 << 20:  # index, manifest, config
                assert TOKEN.encode() not in path.read_bytes(), path
        history = [h["created_by"] for h in whole["history"]]  # type: ignore[attr-defined]
        assert "libstdc++6" in history[0] and "python3" in history[0], history
    with steps.step("the SBOM lists every Debian package and Python distribution"):
        document = json.loads((image.rootfs / labels[SBOM_LABEL].lstrip("/")).read_text())
        root = document["metadata"]["component"]  # deppy itself
        assert root["purl"] == f"pkg:pypi/deppy@{built.tag}"
        listed = {(c["name"], c["version"]) for c in [root, *document["components"]]}
        dpkg = subprocess.run(
            ["dpkg-query", f"--admindir={image.rootfs}/var/lib/dpkg", "-W", "-f",
             "${Package} ${Version}\n"],
            capture_output=True, text=True, check=True).stdout  # fmt: skip
        debian = {tuple(line.split(" ", 1)) for line in dpkg.splitlines()}
        assert debian and debian <= listed, debian - listed
        site = image.rootfs / "opt/deppy/lib/python3.11/site-packages"
        python = {_distribution(p) for p in site.glob("*.dist-info")}
        assert ("deppy", built.tag) in python and len(python) > 50
        assert {(n.lower(), v) for n, v in python} <= {(n.lower(), v) for n, v in listed}


def _distribution(info: Path) -> tuple[str, str]:
    fields = dict(line.split(": ", 1) for line in (info / "METADATA").read_text().splitlines()
                  if ": " in line and not line.startswith(" "))  # fmt: skip
    return fields["Name"], fields["Version"]


def test_small_and_without_compilers_docs_or_apt_lists(built: Built, image: Image) -> None:
    manifest, _ = manifest_and_config(built.layout, built.tag)
    compressed = sum(layer["size"] for layer in manifest["layers"])  # type: ignore[attr-defined]
    assert compressed <= 200 * 1024 * 1024, compressed
    for absent in ("usr/bin/gcc", "usr/bin/cc", "usr/bin/apt-get", "usr/share/man",
                   "var/lib/apt/lists", "root/.cache", "etc/apt"):  # fmt: skip
        assert not (image.rootfs / absent).exists(), absent  # etc/apt: the mirrors' URLs
    docs = {p.name for p in (image.rootfs / "usr/share/doc").rglob("*") if p.is_file()}
    assert docs == {"copyright"}, docs
    pyc = list((image.rootfs / "opt/deppy/lib/python3.11/site-packages/deppy").rglob("*.pyc"))
    assert pyc and all(p.read_bytes()[4:8] == b"\x01\x00\x00\x00" for p in pyc)  # unchecked hash


def test_any_uid_in_group_0_writes_its_home_as_openshift_runs_it(
    image: Image, tmp_path: Path
) -> None:
    """OpenShift's restricted SCC runs a pod as an arbitrary uid in group 0: the image's home
    (owned by 65532 and group 0, group-writable) takes its store; a home it may not enter is
    the store's one line, never a PermissionError traceback (issue 45, item 10)."""
    steps = Steps()
    openshift = "1000680000:0"
    inside = image.rootfs / "home/deppy"
    with steps.step("the home: 65532, group 0, 0770"):
        info = inside.stat()
        assert (info.st_uid, info.st_gid, oct(info.st_mode & 0o7777)) == (65532, 0, "0o770")
    home = tmp_path / "home"
    subprocess.run(["cp", "-a", str(inside), str(home)], check=True)  # owner and mode kept
    binds = {JAEGER: "/tmp/catalogs/jaeger"}

    def deppy(
        *args: str, program: str = "deppy", workdir: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        return image.run(
            *args, user=openshift, home=home, binds=binds, program=program, workdir=workdir
        )

    with steps.step("catalog add, list, search and resolve as uid 1000680000:0"):
        for args in (("catalog", "add", "jaeger", "/tmp/catalogs/jaeger"), ("catalog", "list"),
                     ("search", "jaeger"), ("resolve", "--require", "jaeger-product")):  # fmt: skip
            done = deppy(*args)
            assert done.returncode == 0, (args, done.stderr)
            assert "Traceback" not in done.stderr
        assert "jaeger-product" in done.stdout
    with steps.step("deppy approve's name for a uid with no account"):
        script = "from deppy.controller.approval_command import approver; print(approver())"
        done = deppy("-c", script, program="python3")
        assert done.stdout == "uid 1000680000\n", done.stderr
    with steps.step("a home it may not enter (the image's 0750 of before): one line"):
        os.chown(home, 65532, 65532)
        home.chmod(0o750)
        done = deppy("catalog", "list", workdir="/tmp")  # bwrap cannot enter it, podman can
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert done.stderr == (
            "deppy: error: /home/deppy/.local/share/deppy: cannot use the catalog store "
            "directory: Permission denied; set DEPPY_HOME to a writable directory\n"
        )


def test_two_builds_of_one_tree_give_one_digest(built: Built, tmp_path: Path) -> None:
    steps = Steps()
    with steps.step("a build from the caches says each step and keeps the SBOM"):
        cached = build_image(tmp_path / "cached")
        assert cached.digest == built.digest, cached.log
        started = [line for line in cached.log.splitlines() if line.endswith(" …")]
        timed = [line for line in cached.log.splitlines() if line.endswith(" s")]
        assert len(started) >= 8 and len(timed) >= len(started), cached.log
        assert "SBOM: its inputs did not change, the one made before is kept" in cached.log
    with steps.step("a second build, every layer made again"):
        os.environ["DEPPY_IMAGE_FRESH_LAYERS"] = "1"
        try:
            again = build_image(tmp_path / "image")
        finally:
            del os.environ["DEPPY_IMAGE_FRESH_LAYERS"]
    assert again.digest == built.digest, again.log
