"""deppy's container image for the tests and benchmarks/image.py: built once per source tree
(``make image``'s builder, cached under build/image/tests-TREE), unpacked into a root file system
and run there with bubblewrap, the way a cluster runs it: uid 65532 in its own user, mount, PID,
IPC and UTS namespaces, the image's environment and working directory, a read-only root with
empty /tmp and home (the Deployment's emptyDirs), no network but its own loopback unless a test
names the host's (to reach the test API server).

Needs root (mmdebstrap's root mode; the layers' owners kept when unpacking), mmdebstrap and
bwrap; the tests skip saying so where any is missing. Each phase is timed (:class:`Steps`), so
a failure says which step failed and how long every step took.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "build" / "image"
TOOLS_PYTHON = ROOT / ".venv-tools" / "bin" / "python"
USER = 65532
HOME = "/home/deppy"
# What the test builds take as the source (issue 45: a CI clone's URL carries a token); the label
# must carry only the scheme, host and path
TOKEN = "glpat-IMAGE-TEST-TOKEN"
SOURCE_WITH_TOKEN = f"https://gitlab-ci-token:{TOKEN}@gitlab.example.com/deppy/deppy.git?ref=main"
SOURCE_LABEL = "https://gitlab.example.com/deppy/deppy.git"


def image_missing() -> str | None:
    """Why the image cannot be built and run here, or None."""
    if os.geteuid() != 0:
        return "image tests need root (mmdebstrap's root mode, the layers' owners); CI runs as root"
    absent = [t for t in ("mmdebstrap", "bwrap", "git", "make") if shutil.which(t) is None]
    if absent:
        return f"image tests need {', '.join(absent)} (apt-get install mmdebstrap bubblewrap)"
    return None


@dataclass
class Steps:
    """What a test did, with each step's time; a failing step is named with all the times."""

    done: list[tuple[str, float]] = field(default_factory=list)

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        started = time.monotonic()
        try:
            yield
        except BaseException as failure:
            spent = time.monotonic() - started
            raise AssertionError(
                f"step '{name}' failed after {spent:.1f} s (before it: {self.summary()}): "
                f"{type(failure).__name__}: {failure}"
            ) from failure
        self.done.append((name, time.monotonic() - started))

    def summary(self) -> str:
        return ", ".join(f"{name} {spent:.1f} s" for name, spent in self.done) or "nothing"


def tree_key() -> str:
    """The checkout's state: HEAD, the uncommitted changes, the untracked files."""

    def git(*arguments: str) -> bytes:
        return subprocess.run(["git", *arguments], cwd=ROOT, capture_output=True, check=True).stdout

    digest = hashlib.sha256(git("rev-parse", "HEAD") + git("diff", "HEAD", "--binary"))
    for name in sorted(git("ls-files", "--others", "--exclude-standard", "-z").split(b"\0")):
        if name and (ROOT / name.decode()).is_file():
            digest.update(name + b"\0" + (ROOT / name.decode()).read_bytes())
    return digest.hexdigest()[:20]


@dataclass(frozen=True)
class Built:
    layout: Path
    tag: str
    digest: str
    log: str


def build_image(out: Path, *extra: str) -> Built:
    """``make image``'s builder writing ``out`` (its tools installed first, as make does), its
    source given with a token in it (SOURCE_WITH_TOKEN)."""
    subprocess.run(["make", "-s", "image-tools"], cwd=ROOT, check=True, capture_output=True)
    done = subprocess.run(
        [str(TOOLS_PYTHON), "image/build.py", "--out", str(out), *extra],
        cwd=ROOT, capture_output=True, text=True, timeout=1800,
        env={**os.environ, "DEPPY_IMAGE_SOURCE": SOURCE_WITH_TOKEN},
    )  # fmt: skip
    if done.returncode != 0:
        raise AssertionError(f"the image build failed:\n{done.stderr[-6000:]}")
    reference, digest = done.stdout.split()[-2:]
    return Built(out, reference.rsplit(":", 1)[1], digest, done.stderr)


def image_for_tests() -> Built:
    """The image of this checkout, built once per tree."""
    out = CACHE / f"tests-{tree_key()}" / "image"
    record = out.parent / "built.json"
    if record.exists() and (out / "index.json").exists():
        known = json.loads(record.read_text())
        return Built(out, known["tag"], known["digest"], "(built before, same tree)")
    built = build_image(out)
    record.write_text(json.dumps({"tag": built.tag, "digest": built.digest}))
    return built


def manifest_and_config(layout: Path, tag: str) -> tuple[dict[str, object], dict[str, object]]:
    index = json.loads((layout / "index.json").read_text())
    (entry,) = [m for m in index["manifests"]
                if m["annotations"]["org.opencontainers.image.ref.name"] == tag]  # fmt: skip
    manifest = json.loads(blob(layout, entry["digest"]).read_text())
    config = json.loads(blob(layout, manifest["config"]["digest"]).read_text())
    return manifest, config


def blob(layout: Path, digest: str) -> Path:
    return layout / "blobs" / "sha256" / digest.split(":")[1]


def unpack(layout: Path, tag: str, into: Path) -> Path:
    """The layers extracted in order with their owners (GNU tar, numeric ids)."""
    manifest, _ = manifest_and_config(layout, tag)
    into.mkdir(parents=True, exist_ok=True)
    for layer in manifest["layers"]:  # type: ignore[attr-defined]
        subprocess.run(["tar", "-xzf", str(blob(layout, layer["digest"])), "-C", str(into),
                        "--numeric-owner"], check=True)  # fmt: skip
    return into


@dataclass(frozen=True)
class Image:
    """An unpacked image, ready to run commands in."""

    rootfs: Path
    env: list[str]
    workdir: str
    user: str

    def command(
        self,
        *args: str,
        host_network: bool = False,
        binds: dict[Path, str] | None = None,
        env: dict[str, str] | None = None,
        workdir: str | None = None,
        program: str = "deppy",
        user: str | None = None,
        home: Path | None = None,
    ) -> list[str]:
        """bwrap's command line running ``args`` (after the entrypoint) in the image;
        ``binds``: host paths mounted read-only at paths under /tmp; ``env`` on top of the
        image's; ``workdir`` instead of its own; ``program`` instead of the entrypoint;
        ``user`` (UID:GID) instead of the image's; ``home``: a host directory mounted writable
        at the home instead of an empty one (a copy of the image's own, with its owner and
        mode: the home a container runtime gives without a volume there)."""
        uid, gid = (user or self.user).split(":")
        own_home = ["--bind", str(home), self.workdir] if home else ["--tmpfs", self.workdir]
        line = ["bwrap", "--ro-bind", str(self.rootfs), "/", "--proc", "/proc", "--dev", "/dev",
                "--tmpfs", "/tmp", *own_home, "--unshare-all", "--uid", uid,
                "--gid", gid, "--cap-drop", "ALL", "--die-with-parent", "--chdir",
                workdir or self.workdir,
                "--clearenv"]  # fmt: skip
        if host_network:
            line.append("--share-net")
        variables = dict(v.split("=", 1) for v in self.env) | (env or {})
        for name, value in variables.items():
            line += ["--setenv", name, value]
        for source, target in (binds or {}).items():
            line += ["--ro-bind", str(source), target]
        return [*line, program, *args]

    def run(
        self, *args: str, timeout: float = 120, **options: object
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.command(*args, **options),  # type: ignore[arg-type]
                              capture_output=True, text=True, timeout=timeout)  # fmt: skip


def image_from(layout: Path, tag: str, into: Path) -> Image:
    _, config = manifest_and_config(layout, tag)
    settings = config["config"]
    assert isinstance(settings, dict)
    return Image(
        unpack(layout, tag, into), settings["Env"], settings["WorkingDir"], settings["User"]
    )


def process_in_sandbox(bwrap_pid: int) -> int:
    """The host PID of the command bwrap runs (the child of its PID-namespace init): SIGTERM
    goes to it, as a kubelet's goes to a container's process."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for found in _descendants(bwrap_pid):
            if Path(f"/proc/{found}/comm").read_text().strip() not in ("bwrap",):
                return found
        time.sleep(0.05)
    raise AssertionError("no process inside the sandbox")


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, queue = [], [pid]
    while queue:
        for child in children.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found


def host_deppy() -> str:
    return str(Path(sys.executable).with_name("deppy"))
