"""The controller's Catalog of kind ``image`` (issue 47) against ../shared/k8s and Debian's
docker-registry on 127.0.0.1: it loads, polls the tag's digest (one HEAD a poll, nothing
pulled while it stays), reloads once when the tag moves, names the digest it serves as
catalogd does (``status.resolvedSource.image.ref``), keeps serving through a registry outage
(``Stale``), and pulls with a ``kubernetes.io/dockerconfigjson`` Secret of deppy's namespace;
a pull Secret that is missing or of another type is a condition naming it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from deppy.controller.kube import Kube
from tests.catalog_images import Entry, Layer, Layout
from tests.controller_env import (
    catalog_object,
    client,
    condition,
    install,
    run_controller,
    wait_for,
)
from tests.kube import KubeCluster
from tests.registry import PASSWORD, USER, Registry, registry_missing, running_registry, skopeo

pytestmark = pytest.mark.skipif(registry_missing() is not None, reason=str(registry_missing()))
NAMESPACE = "deppy-system"  # deppy's own (the controller runs without POD_NAMESPACE here)


def _package(name: str) -> list[Entry]:
    body = (
        f'{{"schema":"olm.package","name":"{name}","defaultChannel":"stable"}}\n'
        f'{{"schema":"olm.channel","package":"{name}","name":"stable",'
        f'"entries":[{{"name":"{name}.v1.0.0"}}]}}\n'
        f'{{"schema":"olm.bundle","name":"{name}.v1.0.0","package":"{name}","image":"x/{name}:1",'
        f'"properties":[{{"type":"olm.package","value":{{"packageName":"{name}",'
        f'"version":"1.0.0"}}}}]}}\n'
    )
    return [
        Entry("configs", kind="dir"),
        Entry(f"configs/{name}", kind="dir"),
        Entry(f"configs/{name}/catalog.json", body.encode()),
    ]


def _push(registry: Registry, root: Path, repository: str, packages: list[str]) -> str:
    """A catalog of ``packages`` pushed as ``repository:v1``; its digest reference."""
    layout = Layout(root)
    layout.tag(layout.image([Layer([e for p in packages for e in _package(p)][1:])]), "v1")
    target = f"docker://{registry.address}/{repository}:v1"
    login = [f"--dest-creds={USER}:{PASSWORD}"] if registry.secure else []
    copied = skopeo("copy", "--dest-tls-verify=false", *login, f"oci:{root}:v1", target)
    assert copied.returncode == 0, copied.stderr
    digest = json.loads(registry.skopeo("inspect", target).stdout)["Digest"]
    return f"{registry.address}/{repository}@{digest}"


def _status(api: Kube, name: str) -> dict[str, Any]:
    return dict((api.get("catalogs", name) or {}).get("status") or {})


def _reason(api: Kube, name: str, kind: str) -> str | None:
    found = condition(api.get("catalogs", name), kind)
    return f"{found['status']}/{found['reason']}" if found else None


def _message(api: Kube, name: str) -> str:
    return str((condition(api.get("catalogs", name), "Ready") or {}).get("message"))


def _refused(api: Kube, name: str) -> Callable[[], bool]:
    return lambda: _reason(api, name, "Ready") == "False/PullSecretInvalid"


def _served(api: Kube, name: str) -> str | None:
    return ((_status(api, name).get("resolvedSource") or {}).get("image") or {}).get("ref")


def _blobs(log: Path) -> int:
    return len(re.findall(r'"GET /v2/[^ ]+/blobs/', log.read_text()))


def _heads(log: Path) -> int:
    return len(re.findall(r'"HEAD /v2/[^ ]+/manifests/v1', log.read_text()))


@pytest.fixture(scope="module")
def env(kube: KubeCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The controller, run with a home of its own: no login but the pull Secrets."""
    root = tmp_path_factory.mktemp("catalog-images")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(root / "home"))
        patch.setenv("DEPPY_HOME", str(root / "deppy"))
        for name in (
            "REGISTRY_AUTH_FILE",
            "XDG_RUNTIME_DIR",
            "XDG_CONFIG_HOME",
            "DOCKER_CONFIG",
            "POD_NAMESPACE",
        ):
            patch.delenv(name, raising=False)
        install(kube)
        kube.kubectl("create", "namespace", NAMESPACE, check=False)
        with run_controller(kube, root / "controller.log") as controller:
            yield {"api": client(kube), "kube": kube, "controller": controller, "root": root}


def test_an_image_catalog_loads_polls_reloads_once_when_the_tag_moves_and_outlives_an_outage(
    env: dict[str, Any],
) -> None:
    api, controller, root = env["api"], env["controller"], env["root"]
    log = root / "registry" / "registry.log"
    with running_registry(root / "registry", access_log=True) as registry:
        first = _push(registry, root / "a", "catalogs/ctl", ["one"])
        source = {
            "image": {
                "ref": f"{registry.address}/catalogs/ctl:v1",
                "pollInterval": "1s",
                "tlsVerify": False,
            }
        }
        api.create("catalogs", catalog_object("ci-image", source))
        try:
            wait_for(
                "Ready", lambda: _reason(api, "ci-image", "Ready") == "True/Loaded", log=controller
            )
            assert _served(api, "ci-image") == first
            assert _status(api, "ci-image")["packages"] == 1
            loaded_at = _status(api, "ci-image")["lastLoadTime"]
            blobs, heads = _blobs(log), _heads(log)
            wait_for("two polls", lambda: _heads(log) >= heads + 2, log=controller)
            assert _blobs(log) == blobs  # the digest did not move: nothing pulled
            assert _status(api, "ci-image")["lastLoadTime"] == loaded_at
            moved = _push(registry, root / "b", "catalogs/ctl", ["one", "two"])
            wait_for(
                "the moved tag served", lambda: _served(api, "ci-image") == moved, log=controller
            )
            assert _status(api, "ci-image")["packages"] == 2
            reloaded_at = _status(api, "ci-image")["lastLoadTime"]
            pulled, heads = _blobs(log), _heads(log)
            wait_for("two more polls", lambda: _heads(log) >= heads + 2, log=controller)
            assert _blobs(log) == pulled  # reloaded once
            assert _status(api, "ci-image")["lastLoadTime"] == reloaded_at
        except BaseException:
            api.delete("catalogs", "ci-image")
            raise
    try:  # the registry is gone: the last good content keeps serving, Stale says since when
        wait_for(
            "Stale", lambda: _reason(api, "ci-image", "Stale") == "True/LoadFailed", log=controller
        )
        assert _reason(api, "ci-image", "Unavailable") == "False/LoadFailed"
        status = _status(api, "ci-image")
        assert status["packages"] == 2 and status["resolvedSource"]["image"]["ref"] == moved
        assert registry.address in _message(api, "ci-image")
    finally:
        api.delete("catalogs", "ci-image")
    assert "Traceback" not in controller.log_text()


def test_an_image_catalog_pulls_with_its_secret_and_names_a_bad_one(env: dict[str, Any]) -> None:
    api, kube, controller, root = env["api"], env["kube"], env["controller"], env["root"]
    with running_registry(root / "secure", secure=True) as registry:
        served = _push(registry, root / "c", "catalogs/private", ["one"])
        kube.kubectl(
            "create",
            "secret",
            "docker-registry",
            "ci-pull",
            "-n",
            NAMESPACE,
            f"--docker-server={registry.address}",
            f"--docker-username={USER}",
            f"--docker-password={PASSWORD}",
        )
        kube.kubectl(
            "create",
            "secret",
            "generic",
            "ci-opaque",
            "-n",
            NAMESPACE,
            "--from-literal=.dockerconfigjson={}",
        )
        ref = f"{registry.address}/catalogs/private:v1"

        def image(secret: dict[str, str] | None) -> dict[str, Any]:
            found: dict[str, Any] = {"ref": ref, "tlsVerify": False, "pollInterval": "1s"}
            return {"image": {**found, "pullSecret": secret} if secret else found}

        names = ("ci-secret", "ci-nologin", "ci-missing", "ci-opaque")
        api.create("catalogs", catalog_object(names[0], image({"name": "ci-pull"})))
        api.create("catalogs", catalog_object(names[1], image(None)))
        api.create("catalogs", catalog_object(names[2], image({"name": "nope"})))
        api.create(
            "catalogs",
            catalog_object(names[3], image({"namespace": NAMESPACE, "name": "ci-opaque"})),
        )
        try:
            wait_for(
                "Ready with the Secret's login",
                lambda: _reason(api, "ci-secret", "Ready") == "True/Loaded",
                log=controller,
            )
            assert _served(api, "ci-secret") == served
            wait_for(
                "no login refused",
                lambda: _reason(api, "ci-nologin", "Ready") == "False/LoadFailed",
                log=controller,
            )
            for name, words in (
                ("ci-missing", f"Secret {NAMESPACE}/nope: not found"),
                ("ci-opaque", f"Secret {NAMESPACE}/ci-opaque: is of type Opaque"),
            ):
                wait_for(f"{name} PullSecretInvalid", _refused(api, name), log=controller)
                message = _message(api, name)
                assert words in message, message
                assert PASSWORD not in json.dumps(api.get("catalogs", name))
            # the Secret goes away: the last good content keeps serving, the condition says why
            kube.kubectl("delete", "secret", "ci-pull", "-n", NAMESPACE)
            wait_for(
                "Stale naming the Secret",
                lambda: _reason(api, "ci-secret", "Stale") == "True/PullSecretInvalid",
                log=controller,
            )
            assert _status(api, "ci-secret")["packages"] == 1
        finally:
            for name in names:
                api.delete("catalogs", name)
            kube.kubectl(
                "delete",
                "secret",
                "ci-opaque",
                "ci-pull",
                "-n",
                NAMESPACE,
                "--ignore-not-found",
                check=False,
            )
    assert PASSWORD not in controller.log_text()
    assert "Traceback" not in controller.log_text()


def test_the_crd_takes_kind_image() -> None:
    from deppy.controller.catalogs.sources import catalog_source
    from deppy.errors import InputError

    body = catalog_object(
        "x",
        {
            "image": {
                "ref": "quay.io/org/catalog:v4.18",
                "pullSecret": {"name": "pull"},
                "pollInterval": "5m",
            }
        },
    )
    found = catalog_source(body)
    assert (found.kind, found.url, found.pull_secret, found.poll_seconds) == (
        "image",
        "docker://quay.io/org/catalog:v4.18",
        "pull",
        300.0,
    )
    with pytest.raises(InputError, match=r"spec\.source\.image\.ref"):
        catalog_source(catalog_object("x", {"image": {"ref": "quay.io/org/c@sha256:abc"}}))
