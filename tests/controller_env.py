"""deppy on the test API server: manifests applied, catalogs created, `deppy controller` running
as a subprocess (the way a cluster runs it), and helpers that wait for what it writes."""

from __future__ import annotations

import base64
import gzip
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deppy.controller.kube import Kube, kind
from deppy.controller.runner import api_client
from tests.kube import KubeCluster, fail_test
from tests.ports import free_port, shared_path

ROOT = Path(__file__).resolve().parents[1]
DEPPY = str(Path(sys.executable).with_name("deppy"))
WAIT = 90.0
# The Deployment's image (no kubelet runs it here: the tests start the controller themselves)
TEST_IMAGE = "registry.example:5000/deppy@sha256:" + "0f" * 32


def install(kube: KubeCluster) -> None:
    """``deppy manifests``: definitions, wait until established, then the rest."""
    crds = subprocess.run(
        [DEPPY, "manifests", "--only", "crds"], check=True, capture_output=True, text=True
    ).stdout
    kube.kubectl("apply", "-f", "-", input=crds)
    kube.kubectl("wait", "--for", "condition=established", "crd", "--all", "--timeout=120s")
    objects = subprocess.run(
        [DEPPY, "manifests", "--only", "objects", "--image", TEST_IMAGE],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    kube.kubectl("apply", "-f", "-", input=objects)


@dataclass
class Controller:
    process: subprocess.Popen[bytes]
    health_port: int
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self, timeout: float = 30.0, how: signal.Signals = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(how)
            try:
                return self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                return -9
        return int(self.process.returncode)


@contextmanager
def run_controller(
    kube: KubeCluster, log: Path, *extra: str, priority: int | None = None
) -> Iterator[Controller]:
    port = free_port()
    args = [DEPPY, "controller", "--kubeconfig", str(kube.kubeconfig), "--health-port", str(port)]
    if priority is not None:
        args += ["--priority", str(priority)]
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*args, *extra],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ},
        )
    controller = Controller(process, port, log)
    try:
        yield controller
    finally:
        controller.stop()


def client(kube: KubeCluster) -> Kube:
    return Kube(api_client(str(kube.kubeconfig)))


def wait_for(
    what: str, probe: Callable[[], Any], timeout: float = WAIT, log: Controller | None = None
) -> Any:
    """Poll ``probe`` until it returns something truthy; fail naming ``what``."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(0.25)
    tail = log.log_text()[-3000:] if log is not None else ""
    fail_test(f"timed out waiting for {what} (last: {last!r})\n{tail}")


def condition(body: dict[str, Any] | None, kind: str) -> dict[str, Any] | None:
    for found in ((body or {}).get("status") or {}).get("conditions") or ():
        if found.get("type") == kind:
            return dict(found)
    return None


def config_map_catalog(name: str, namespace: str, files: dict[str, Path]) -> dict[str, Any]:
    """A ConfigMap holding an FBC: ``.gz`` keys compressed into binaryData, others as data."""
    data: dict[str, str] = {}
    binary: dict[str, str] = {}
    for key, path in files.items():
        raw = path.read_bytes()
        if key.endswith(".gz"):
            binary[key] = base64.b64encode(gzip.compress(raw, mtime=0)).decode()
        else:
            data[key] = raw.decode()
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace},
        "data": data,
        "binaryData": binary,
    }


def catalog_object(name: str, source: dict[str, Any], priority: int = 0) -> dict[str, Any]:
    return {
        "apiVersion": "deppy.io/v1alpha1",
        "kind": "Catalog",
        "metadata": {"name": name},
        "spec": {"priority": priority, "source": source},
    }


def input_class(api: Kube, name: str, parameters: dict[str, Any]) -> None:
    api.create(
        "inputclasses",
        {
            "apiVersion": "deppy.io/v1alpha1",
            "kind": "InputClass",
            "metadata": {"name": name},
            "parameters": parameters,
        },
    )


def approval_classes(
    api: Kube,
    name: str,
    policy: str,
    provisioner: str = "deppy.io/resolver",
    **parameters: Any,
) -> None:
    """A ProvisionerClass ``name`` with approval ``policy`` (of ``provisioner``; deppy.io/olm-v1
    writes ClusterExtensions), and an InputClass ``name`` using it (more ``parameters``)."""
    api.create(
        "provisionerclasses",
        {
            "apiVersion": "deppy.io/v1alpha1",
            "kind": "ProvisionerClass",
            "metadata": {"name": name},
            "provisioner": provisioner,
            "parameters": {"approval": policy},
        },
    )
    input_class(api, name, {"provisionerClass": name, **parameters})


# -- OLM v1: the test plays catalogd and operator-controller -------------------------------------
OLM_V1_CRDS = (
    "clusterextensions.olm.operatorframework.io",
    "clustercatalogs.olm.operatorframework.io",
)


def install_olm_v1(kube: KubeCluster) -> None:
    """OLM v1's CRDs (../shared/olm-v1; --validate=false: Kubernetes 1.20 has no CEL rules)."""
    kube.kubectl("apply", "--validate=false", "-f", str(shared_path("olm-v1", "crds")))
    kube.kubectl("wait", "--for", "condition=established", "crd", *OLM_V1_CRDS, "--timeout=120s")


def write_status(api: Kube, plural: str, name: str, status: dict[str, Any]) -> None:
    """What catalogd / operator-controller write (a merge patch of the status subresource)."""
    api.call(
        "PATCH",
        kind(plural).path(None, name) + "/status",
        {"status": status},
        content_type="application/merge-patch+json",
    )


def serve_as_catalogd(api: Kube, name: str, url: str, ref: str) -> None:
    """catalogd serves the ClusterCatalog ``name``: its content at ``url`` (…/api/v1/all), named
    by ``ref`` (the image digest)."""
    base = url.split("?", 1)[0].removesuffix("/api/v1/all")
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    write_status(
        api,
        "clustercatalogs",
        name,
        {
            "conditions": [
                {
                    "type": "Serving",
                    "status": "True",
                    "reason": "Available",
                    "message": "Serving desired content from resolved source",
                    "lastTransitionTime": stamp,
                },
            ],
            "urls": {"base": base},
            "resolvedSource": {"type": "Image", "image": {"ref": ref}},
            "lastUnpacked": stamp,
        },
    )
