"""The image's base layer: a minimal Debian root file system made by mmdebstrap.

Debian's Essential set, python3 and ca-certificates, from the release whose python3 matches
uv.lock's cp311 wheels (bookworm). Left out while dpkg unpacks: documentation (but each
package's copyright), man pages, info, locales. A hook adds the user ``deppy`` (65532:65532)
with its home, the empty virtual environment /opt/deppy (Debian's python3 makes it, so its
``bin/python`` points at /usr/bin/python3), and compiles the standard library's .pyc with
unchecked hashes (they then do not depend on file times, which the layer sets to the commit's).

The home is the one directory deppy writes outside /tmp (its store and parsed-catalog cache):
owned by 65532 and by group 0, group-writable (0770), so the image also works as any uid in
group 0, as OpenShift's restricted SCC runs it (OpenShift's image guidelines). apt's sources
are left out of the layer: the image has no apt, and a mirror's URL ($DEPPY_IMAGE_MIRROR) may
carry credentials that must not be published.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

SUITE = "bookworm"  # python3 3.11: the cp311 wheels of uv.lock
PACKAGES = ["python3", "ca-certificates", "libstdc++6"]  # libstdc++: C++ wheels (google-re2)
MIRROR = os.environ.get("DEPPY_IMAGE_MIRROR", "http://deb.debian.org/debian")
SECURITY_MIRROR = os.environ.get(
    "DEPPY_IMAGE_SECURITY_MIRROR", "http://deb.debian.org/debian-security"
)
USER_ID = 65532
HOME = "/home/deppy"
VENV = "/opt/deppy"

_EXCLUDED = ["/usr/share/doc/*", "/usr/share/man/*", "/usr/share/info/*", "/usr/share/locale/*",
             "/usr/share/lintian/*", "/usr/share/linda/*", "/usr/share/doc-base/*",
             "/usr/share/bug/*", "/usr/share/menu/*"]  # fmt: skip
_INCLUDED = ["/usr/share/doc/*/copyright"]

# $1 is the root file system. Runs as root inside mmdebstrap's namespaces.
_HOOK = f"""set -e
echo 'deppy:x:{USER_ID}:{USER_ID}:deppy:{HOME}:/usr/sbin/nologin' >> "$1/etc/passwd"
echo 'deppy:x:{USER_ID}:' >> "$1/etc/group"
mkdir -p "$1{HOME}" && chown {USER_ID}:0 "$1{HOME}" && chmod 0770 "$1{HOME}"
chroot "$1" /usr/bin/python3 -m venv --without-pip {VENV}
chroot "$1" env PYTHONHASHSEED=0 /usr/bin/python3 -m compileall -q -f \
    --invalidation-mode unchecked-hash /usr/lib/python3.11 /usr/lib/python3/dist-packages
rm -rf "$1"/var/log/* "$1"/var/cache/debconf/*-old "$1"/var/lib/dpkg/*-old \
    "$1"/var/cache/ldconfig/aux-cache "$1"/usr/share/python3/runtime.d \
    "$1"/usr/share/man "$1"/usr/share/info "$1"/usr/share/lintian "$1"/usr/share/linda \
    "$1"/usr/share/doc-base "$1"/usr/share/bug "$1"/usr/share/menu
"""


# mmdebstrap leaves apt's (empty) folders and its sources (the mirrors' URLs) behind whatever the
# hook does; the image has no apt
LEFT_OUT = ("var/lib/apt", "var/cache/apt", "etc/apt")


def recipe() -> list[str]:
    """mmdebstrap's arguments but the mode and the output: what the cache key is made of."""
    arguments = ["--variant=essential", f"--include={','.join(PACKAGES)}"]
    arguments += [f"--dpkgopt=path-exclude={p}" for p in _EXCLUDED]
    arguments += [f"--dpkgopt=path-include={p}" for p in _INCLUDED]
    arguments += [f"--customize-hook={_HOOK}"]
    return [*arguments, SUITE, "-", *sources()]


def sources() -> list[str]:
    return [
        f"deb {MIRROR} {SUITE} main",
        f"deb {MIRROR} {SUITE}-updates main",
        f"deb {SECURITY_MIRROR} {SUITE}-security main",
    ]


def build_base(output: Path, epoch: int) -> None:
    """mmdebstrap's tar of the base at ``output`` (as root: its root mode; otherwise in a user
    namespace, where the kernel allows it)."""
    mode = "root" if os.geteuid() == 0 else "unshare"
    arguments = recipe()
    arguments[arguments.index("-")] = str(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(output.name + ".partial")
    arguments[arguments.index(str(output))] = str(partial)
    environment = {**os.environ, "SOURCE_DATE_EPOCH": str(epoch)}
    completed = subprocess.run(
        ["mmdebstrap", f"--mode={mode}", "--format=tar", "--quiet", *arguments],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, env=environment, timeout=1200,
    )  # fmt: skip
    if completed.returncode != 0:
        raise SystemExit(f"image: mmdebstrap failed:\n{completed.stderr[-4000:]}")
    partial.replace(output)
