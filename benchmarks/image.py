"""deppy's container image (issue 41): how long it takes to build, and how soon the controller
started from it answers.

* first build, as on a fresh machine: an empty build cache, pip's and uv's caches off, so the
  Debian packages and every wheel are downloaded (goal ≤ 5 min);
* rebuild after a source change (a comment added to one module, taken back after): only the
  deppy layer is made again (goal ≤ 60 s);
* the controller in the image (tests/image_support.py: bwrap, uid 65532, read-only root) against
  a real kube-apiserver (../shared/k8s), community v4.18 as a Catalog of a mounted directory and
  one ActiveResolution created before it starts: the time from its start to that answer
  (goal ≤ 5 s);
* the image's compressed size, per layer.

Needs root, mmdebstrap, bwrap and ../shared. Usage: python benchmarks/image.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.controller_env import (  # noqa: E402
    Controller,
    catalog_object,
    client,
    condition,
    install,
    wait_for,
)
from tests.image_support import (  # noqa: E402
    CACHE,
    Built,
    build_image,
    image_for_tests,
    image_from,
    image_missing,
    manifest_and_config,
)
from tests.kube import start_cluster  # noqa: E402
from tests.ports import free_port  # noqa: E402

SHARED = Path(os.environ.get("DEPPY_SHARED", ROOT.parent / "shared"))
COMMUNITY = SHARED / "catalogs" / "community-operators-prod-v4.18"
CHANGED = ROOT / "src" / "deppy" / "errors.py"


def timed_build(out: Path, **env: str) -> tuple[float, Built]:
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        started = time.monotonic()
        built = build_image(out)
        return time.monotonic() - started, built
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def first_build(scratch: Path) -> tuple[float, Built]:
    return timed_build_with_cache(scratch / "first", scratch / "cache")


def timed_build_with_cache(out: Path, cache: Path) -> tuple[float, Built]:
    import subprocess

    started = time.monotonic()
    environment = {**os.environ, "PIP_NO_CACHE_DIR": "1", "UV_NO_CACHE": "1"}
    subprocess.run(["make", "-s", "image-tools"], cwd=ROOT, check=True)
    done = subprocess.run(
        [str(ROOT / ".venv-tools/bin/python"), "image/build.py", "--out", str(out),
         "--cache", str(cache)],
        cwd=ROOT, env=environment, capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"the first build failed:\n{done.stderr[-4000:]}")
    print(_step_lines(done.stderr))
    reference, digest = done.stdout.split()[-2:]
    return time.monotonic() - started, Built(out, reference.rsplit(":", 1)[1], digest, done.stderr)


def _step_lines(log: str) -> str:
    return "\n".join("    " + line for line in log.splitlines()
                     if line.startswith("image: ") and line.endswith(" s"))  # fmt: skip


def rebuild_after_change(scratch: Path) -> float:
    """The default cache (warm from a build before), one module changed."""
    image_for_tests()  # the caches of this tree
    original = CHANGED.read_bytes()
    try:
        CHANGED.write_bytes(original + b"\n# benchmarks/image.py: a source change\n")
        spent, built = timed_build(scratch / "rebuilt")
        print(_step_lines(built.log))
        return spent
    finally:
        CHANGED.write_bytes(original)


def first_answer(built: Built, scratch: Path) -> float:
    image = image_from(built.layout, built.tag, scratch / "root")
    with ExitStack() as stack:
        kube = stack.enter_context(contextmanager(start_cluster)(SHARED))
        install(kube)
        api = client(kube)
        api.create("catalogs", catalog_object("community", {"path": {"path": "/tmp/community"}}))
        ns = kube.new_namespace("bench")
        api.create("activeresolutions", {
            "apiVersion": "deppy.io/v1alpha1", "kind": "ActiveResolution",
            "metadata": {"name": "etcd", "namespace": ns},
            "spec": {"sources": ["community"], "constraints": ['required("etcd")']},
        }, ns)  # fmt: skip
        command = image.command(
            "controller", "--standalone", "--kubeconfig", "/tmp/kube/config", "--health-port",
            str(free_port()), host_network=True,
            binds={kube.kubeconfig: "/tmp/kube/config", COMMUNITY: "/tmp/community"},
        )  # fmt: skip
        import subprocess

        log = scratch / "controller.log"
        with log.open("wb") as out:
            started = time.monotonic()
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        running = Controller(process, 0, log)
        try:
            answered: Any = wait_for(
                "the first answer", lambda: condition(api.get("activeresolutions", "etcd", ns),
                                                      "Resolved"), 300, running)  # fmt: skip
            spent = time.monotonic() - started
            assert answered["reason"] == "Resolved", answered
        finally:
            running.stop()
        return spent


def main() -> None:
    missing = image_missing()
    if missing is not None:
        raise SystemExit(f"cannot run: {missing}")
    print(f"machine: {os.cpu_count()} CPUs; load before: {_load()}")
    CACHE.parent.mkdir(parents=True, exist_ok=True)  # build/: none in a fresh checkout
    with tempfile.TemporaryDirectory(dir=CACHE.parent) as folder:
        scratch = Path(folder)
        first, fresh = first_build(scratch)
        print(f"first build, empty caches: {first:.1f} s (goal ≤ 300 s); {fresh.digest}")
        rebuild = rebuild_after_change(scratch)
        print(f"rebuild after a source change: {rebuild:.1f} s (goal ≤ 60 s)")
        built = image_for_tests()
        manifest, _ = manifest_and_config(built.layout, built.tag)
        sizes = [layer["size"] for layer in manifest["layers"]]  # type: ignore[attr-defined]
        each = ", ".join(f"{size / 1e6:.1f}" for size in sizes)
        print(f"compressed: {sum(sizes) / 1e6:.1f} MB (layers: {each} MB)")
        print(
            f"the default cache's build of this tree: {built.digest} "
            f"({'same' if built.digest == fresh.digest else 'NOT the same'} as the first build)"
        )
        answer = first_answer(built, scratch)
        print(f"controller in the image, start → first ActiveResolution answered: {answer:.1f} s "
              "(goal ≤ 5 s)")  # fmt: skip
    print(f"load after: {_load()}")


def _load() -> str:
    return Path("/proc/loadavg").read_text().strip()


if __name__ == "__main__":
    main()
