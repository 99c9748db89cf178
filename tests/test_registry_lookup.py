"""A registry whose name never resolves: the lookup is part of the exchange's one deadline
(issue 39: "a deadline for the whole exchange"). ``getaddrinfo`` takes no timeout, and a DNS
server that never answers held a push for the system resolver's retries (here 30 s).

The test needs a DNS server that says nothing, and no other: it runs the push in its own user,
network and mount namespaces (``unshare``), where loopback is the only network, a silent UDP
socket listens on 127.0.0.1:53 and /etc/resolv.conf names it. Nothing outside is touched."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

RESOLVER_WAITS_S = 30  # the resolv.conf below: one try, 30 s
CANNOT = 77  # the namespace could not be set up (no /etc/resolv.conf to cover, …): a skip

PUSH = """
import json, socket, sys, time
silent = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
silent.bind(("127.0.0.1", 53))  # reads nothing, answers nothing
from deppy.oci import catalog_image, parse_destination, publish
from deppy.oci.push import RegistryError
image = catalog_image({"pkg/catalog.json": b'{"schema":"olm.package","name":"pkg"}\\n'})
started = time.monotonic()
try:
    publish(image, parse_destination("docker://registry.deppy.test/deppy/resolved:t1"),
            tls_verify=False, timeout=1.0)
    line = "pushed"
except RegistryError as error:
    line = str(error)
print(json.dumps({"line": line, "seconds": time.monotonic() - started}))
"""


def _in_namespaces(tmp_path: Path) -> list[str]:
    """The command that runs PUSH behind a silent DNS server, or a skip saying what is missing."""
    for tool in ("unshare", "ip", "mount"):
        if shutil.which(tool) is None:
            pytest.skip(f"needs {tool} (util-linux, iproute2) for a network namespace of its own")
    probe = subprocess.run(
        ["unshare", "-r", "-n", "-m", "true"], capture_output=True, text=True, timeout=30
    )
    if probe.returncode != 0:
        pytest.skip(f"needs user namespaces (unshare -r -n -m: {probe.stderr.strip()})")
    resolv = tmp_path / "resolv.conf"
    resolv.write_text(f"nameserver 127.0.0.1\noptions timeout:{RESOLVER_WAITS_S} attempts:1\n")
    (tmp_path / "push.py").write_text(PUSH)
    script = (
        f"ip link set lo up && mount --bind {resolv} /etc/resolv.conf || exit {CANNOT}; "
        f"exec {sys.executable} {tmp_path / 'push.py'}"
    )
    return ["unshare", "-r", "-n", "-m", "sh", "-c", script]


def test_a_name_lookup_that_never_answers_ends_at_the_deadline(tmp_path: Path) -> None:
    done = subprocess.run(
        _in_namespaces(tmp_path), capture_output=True, text=True, timeout=RESOLVER_WAITS_S * 3
    )
    if done.returncode == CANNOT:
        pytest.skip(f"cannot set up loopback and /etc/resolv.conf there: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said["seconds"] < RESOLVER_WAITS_S / 3, said  # the 1 s deadline, not the resolver's
    assert said["line"] == (
        "docker://registry.deppy.test/deppy/resolved:t1: registry registry.deppy.test had no "
        "address within 1 s: the lookup of its name (DNS) did not answer; check the registry "
        "and the proxies in front of it, or give it longer (--registry-timeout; a "
        "ProvisionerClass's resolvedCatalog.registryTimeout)"
    ), said
