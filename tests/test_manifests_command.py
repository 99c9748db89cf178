"""``deppy manifests`` (issue 45, items 8-10): the image is the one the admin pushed, checked as a
kubelet reads a reference before anything is printed; the namespace a DNS label; plain YAML;
and a Deployment OpenShift's restricted SCC admits with ``--openshift``."""

from __future__ import annotations

import re
import subprocess
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deppy.controller.install.manifests import all_manifests
from deppy.errors import InputError
from deppy.oci.pod_reference import image_reference
from tests.controller_env import DEPPY

DIGEST = "sha256:" + "ab" * 32


def manifests(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([DEPPY, "manifests", *args], capture_output=True, text=True, timeout=60)


def refused(done: subprocess.CompletedProcess[str]) -> str:
    """The one error line of a refused run (exit 2, nothing on stdout)."""
    assert done.returncode == 2, (done.returncode, done.stdout[:300], done.stderr)
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("deppy: error: ") and "Traceback" not in done.stderr
    return line


def test_the_objects_need_the_pushed_image_the_definitions_do_not() -> None:
    line = refused(manifests())
    assert "--image: not given" in line and "--only crds" in line
    assert "@sha256:DIGEST" in line
    line = refused(manifests("--only", "objects"))
    assert "--image: not given" in line
    crds = manifests("--only", "crds")
    assert crds.returncode == 0, crds.stderr
    kinds = {d["kind"] for d in yaml.safe_load_all(crds.stdout)}
    assert kinds == {"CustomResourceDefinition"}


@pytest.mark.parametrize(
    ("image", "said"),
    [
        # skopeo's spelling on the same docs page, and the layout make image writes
        ("docker://registry.example.com/deppy:0.1.0",
         "skopeo's transport syntax, not an image reference; leave out 'docker://': "
         "'registry.example.com/deppy:0.1.0'"),
        ("oci:dist/image:0.1.0", "an image on this machine, which a cluster cannot pull; push it"),
        ("containers-storage:localhost/deppy:0.1.0", "an image on this machine"),
        # the docs' placeholder, a short digest, an upper-case one
        ("registry.example.com/deppy@sha256:…", "digest 'sha256:…' is not sha256: and 64"),
        ("registry.example.com/deppy@sha256:abc", "is not sha256: and 64"),
        ("registry.example.com/deppy@sha256:" + "AB" * 32, "is not sha256: and 64"),
        ("not an image!", "white space"),
        ("registry.example.com/deppy:0.1.0 ", "white space"),
        (" deppy", "white space"),
        ("deppy\n", "white space or control characters"),
        ("", "--image '': empty; give the pushed image's reference"),
        ("not_an_image!", "repository 'not_an_image!' is not a valid name"),
        ("Registry/Deppy", "is not a valid name"),
        ("registry.example.com/", "repository '' is not a valid name"),
        ("registry.example.com:99999/deppy", "port 99999 is not a port"),
        ("registry.example.com/deppy:-bad", "tag '-bad' is not a valid tag"),
        ("registry.example.com/deppy:" + "t" * 129, "is not a valid tag"),
    ],
)  # fmt: skip
def test_an_image_that_is_no_reference_is_refused_with_what_to_give(image: str, said: str) -> None:
    line = refused(manifests("--image", image))
    assert said in line, line
    assert line.startswith("deppy: error: --image ")


@pytest.mark.parametrize(
    "image",
    [
        "deppy",
        "deppy:0.1.0",
        "registry.example.com/deppy:0.1.0",
        f"registry.example.com/team/deppy@{DIGEST}",
        f"registry.example.com:5000/deppy:0.1.0@{DIGEST}",
        "localhost:5000/deppy:latest",
        "localhost/deppy",
        "127.0.0.1:5000/deppy_x/a__b/c-d.e:V1.0_rc-1",
        f"[::1]:5000/deppy@{DIGEST}",
    ],
)
def test_a_reference_is_written_as_given(image: str) -> None:
    done = manifests("--only", "objects", "--image", image)
    assert done.returncode == 0, done.stderr
    (deployment,) = [d for d in yaml.safe_load_all(done.stdout) if d["kind"] == "Deployment"]
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == image


@pytest.mark.parametrize("namespace", ["Bad_NS", "-ns", "ns-", "a" * 64, "deppy.system", "ns "])
def test_a_namespace_must_be_a_dns_label(namespace: str) -> None:
    line = refused(manifests("--namespace", namespace, "--image", f"r.example/deppy@{DIGEST}"))
    assert "--namespace " in line and "is not a DNS-1123 label" in line


def test_the_manifests_are_plain_yaml_without_anchors_or_aliases() -> None:
    done = manifests("--image", f"registry.example.com/deppy@{DIGEST}")
    assert done.returncode == 0, done.stderr
    assert "&id0" not in done.stdout and "*id0" not in done.stdout
    events = list(yaml.parse(done.stdout))
    assert not any(isinstance(e, yaml.AliasEvent) for e in events)
    assert all(getattr(e, "anchor", None) is None for e in events)
    shared = [d for d in yaml.safe_load_all(done.stdout) if d["kind"] == "Deployment"]
    assert shared[0]["spec"]["selector"]["matchLabels"] == {
        "app.kubernetes.io/name": "deppy-controller"
    }


def _deployment(documents: list[dict[str, Any]]) -> dict[str, Any]:
    (found,) = [d for d in documents if d["kind"] == "Deployment"]
    return found


def test_openshift_leaves_the_user_and_group_to_the_scc() -> None:
    """The restricted SCC (restricted-v2) refuses a runAsUser outside the namespace's range and
    picks the uid, group 0 and the fsGroup itself; everything else stays locked down."""
    image = f"registry.example.com/deppy@{DIGEST}"
    done = manifests("--only", "objects", "--image", image, "--openshift")
    assert done.returncode == 0, done.stderr
    pod = _deployment(list(yaml.safe_load_all(done.stdout)))["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["securityContext"] == {
        "runAsNonRoot": True,
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    assert "securityContext" not in pod  # no fsGroup, supplementalGroups or runAsUser
    assert {v["name"]: v for v in pod["volumes"]} == {
        "tmp": {"name": "tmp", "emptyDir": {}},
        "home": {"name": "home", "emptyDir": {}},
    }
    # without --openshift: the image's own user, as before
    plain = _deployment(all_manifests(image=image))["spec"]["template"]["spec"]
    security = plain["containers"][0]["securityContext"]
    assert (security["runAsUser"], security["runAsGroup"]) == (65532, 65532)
    assert all_manifests(image=image, openshift=True)[:-2] == all_manifests(image=image)[:-2]


# The distribution reference grammar as docker's reference package writes it (regexp.go): the
# oracle every accepted --image must match (deppy's check is stricter on digests and ports).
_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"(?:{_COMPONENT}(?:\.{_COMPONENT})*|\[[0-9a-fA-F:.]+\])(?::[0-9]+)?"
_NAME = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
REFERENCE = re.compile(
    rf"(?:{_DOMAIN}/)?{_NAME}(?:/{_NAME})*(?::\w[\w.-]{{0,127}})?"
    r"(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,})?"
)
SEEDS = [
    "registry.example.com:5000/team/deppy:0.1.0@" + DIGEST,
    "docker://quay.io/acme/deppy:1",
    "oci:dist/image:0.1.0",
    "localhost/deppy@sha256:…",
    "deppy",
]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.text(max_size=80),
        st.sampled_from(SEEDS).flatmap(
            lambda seed: st.tuples(
                st.integers(0, len(seed)), st.integers(0, 3), st.text(max_size=4)
            ).map(lambda cut: seed[: cut[0]] + cut[2] + seed[cut[0] + cut[1] :])
        ),
    )
)
def test_any_image_text_is_a_reference_or_one_line(text: str) -> None:
    """The campaign's --image inputs as a generator: accepted only what the grammar allows,
    anything else one printable line naming --image, never another exception."""
    try:
        assert image_reference(text) == text
    except InputError as error:
        message = str(error)
        assert message.startswith("--image ") and message.isprintable(), message
    else:
        assert REFERENCE.fullmatch(text), text
