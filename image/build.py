"""Build deppy's container image as an OCI layout: ``make image`` → ``oci:dist/image:VERSION``.

Three layers, each cached apart so a source change rebuilds only the last one:

1. base: Debian (mmdebstrap, see base.py), keyed by its recipe; files dated by the last commit
   that changed the recipe;
2. deps: uv.lock's runtime wheels in /opt/deppy (python_env.py), keyed by the locked
   requirements; dated by the last commit that changed uv.lock;
3. deppy: deppy's wheel built from the checkout, and the SBOM (sbom.py, made again only when
   what it lists changed); dated by HEAD.

Nothing is pulled from an image registry. Same checkout, same caches or not: same manifest
digest. Prints each step as it starts, every half minute while it runs, and its time
(progress.py), and the image's reference and digest last. The source label is a URL without
credentials, or absent (provenance.py).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import tomllib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import base
import layers
import progress
import provenance
import python_env
import sbom
from progress import step

REPOSITORY = Path(__file__).resolve().parent.parent
SBOM_LABEL = "deppy.image.sbom"
OCI = "application/vnd.oci.image"


def git(*arguments: str) -> str:
    return subprocess.run(
        ["git", *arguments], cwd=REPOSITORY, capture_output=True, text=True, check=True
    ).stdout.strip()


def commit_time(*paths: str) -> int:
    """When ``paths`` last changed in a commit (HEAD's time when they never did)."""
    found = git("log", "-1", "--format=%ct", "--", *paths) if paths else ""
    return int(found or git("log", "-1", "--format=%ct"))


def check_requirements() -> None:
    """mmdebstrap and git on PATH; installed with apt when root, else named."""
    missing = [tool for tool in ("mmdebstrap", "git") if shutil.which(tool) is None]
    if missing and os.geteuid() == 0:
        environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=environment)
        subprocess.run(["apt-get", "install", "-y", "-qq", *missing], check=True, env=environment)
    elif missing:
        raise SystemExit(f"image: needs {', '.join(missing)}: apt-get install {' '.join(missing)}"
                         " (as root), or run make image as root, which installs them")  # fmt: skip


def _cached(path: Path, make: Callable[[Path], None]) -> Path:
    if not path.exists():
        make(path)
    return path


def _layer_from_cache(cache: Path, key: str, make: Callable[[], layers.Blob]) -> layers.Blob:
    """A layer made once per key: its descriptor in ``cache``/layers, its bytes in the blobs
    (made again when $DEPPY_IMAGE_FRESH_LAYERS is set: the reproducibility check)."""
    record = cache / "layers" / f"{key}.json"
    if record.exists() and not os.environ.get("DEPPY_IMAGE_FRESH_LAYERS"):
        known = json.loads(record.read_text())
        path = cache / "blobs" / "sha256" / known["digest"].split(":")[1]
        if path.exists():
            return layers.Blob(path, known["digest"], known["diff_id"], known["size"])
    blob = make()
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(
        json.dumps({"digest": blob.digest, "diff_id": blob.diff_id, "size": blob.size})
    )
    return blob


def _key(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def build(out: Path, cache: Path) -> tuple[str, str]:
    """The image at ``out`` (an OCI layout); returns its tag and manifest digest."""
    step("mmdebstrap and git", check_requirements)
    source = _source()  # before the long steps: a DEPPY_IMAGE_SOURCE that is no URL stops here
    uv = REPOSITORY / ".venv-tools" / "bin" / "uv"
    project = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["project"]
    version = project["version"]
    revision = git("rev-parse", "HEAD")
    if git("status", "--porcelain", "--untracked-files=no"):
        revision += "-dirty"
    epoch = commit_time()
    blobs = cache / "blobs"

    base_key, base_epoch = _key(*base.recipe()), commit_time("image/base.py")
    base_tar = step("Debian base (mmdebstrap)", lambda: _base_tar(cache, base_key, base_epoch))
    base_layer_key = f"base-{base_key}-{_key(*base.LEFT_OUT)}-{base_epoch}"
    base_blob = step("base layer", lambda: _layer_from_cache(
        cache, base_layer_key, lambda: _base_layer(base_tar, base_epoch, blobs)
    ))  # fmt: skip

    requirements = step("uv.lock's requirements",
                        lambda: python_env.locked_requirements(REPOSITORY, uv))  # fmt: skip
    deps_key = _key(requirements, sys.version)
    deps_epoch = commit_time("uv.lock")
    deps_tree = cache / f"deps-{deps_key}" / python_env.VENV.lstrip("/")

    def make_deps() -> None:
        wheels = python_env.download_wheels(requirements, cache / f"wheels-{deps_key}")
        python_env.install_wheels(wheels, cache / f"deps-{deps_key}")

    if not deps_tree.exists():
        step("dependency wheels (download, install, compile)", make_deps)
    deps_entries = lambda: layers.members_of_tree(deps_tree, "opt/deppy")  # noqa: E731
    deps_blob = step("deps layer", lambda: _layer_from_cache(
        cache, f"deps-{deps_key}-{deps_epoch}",
        lambda: layers.write_layer(deps_entries(), deps_epoch, blobs)
    ))  # fmt: skip

    wheel = step(
        "deppy's wheel", lambda: python_env.build_deppy_wheel(REPOSITORY, uv, cache / "wheel")
    )
    app_tree = step("deppy installed", lambda: python_env.install_wheels([wheel], cache / "app"))
    status = _dpkg_status(base_tar)
    sites = [deps_tree / "lib/python3.11/site-packages", app_tree / "lib/python3.11/site-packages"]
    document = step("SBOM (cyclonedx-py + dpkg status)", lambda: _sbom_from_cache(
        cache, sites, REPOSITORY / "pyproject.toml", status, epoch))  # fmt: skip
    sbom_file = app_tree / sbom.PATH_IN_IMAGE.removeprefix(python_env.VENV + "/")
    sbom_file.parent.mkdir(parents=True, exist_ok=True)
    sbom_file.write_bytes(document)
    app_blob = step("deppy layer", lambda: layers.write_layer(
        layers.members_of_tree(app_tree, "opt/deppy"), epoch, blobs))  # fmt: skip

    labels = {
        "org.opencontainers.image.title": "deppy",
        "org.opencontainers.image.version": version,
        "org.opencontainers.image.revision": revision,
        "org.opencontainers.image.created": _iso(epoch),
        "org.opencontainers.image.licenses": str(project.get("license", "NOASSERTION")),
        SBOM_LABEL: sbom.PATH_IN_IMAGE,
    }  # fmt: skip
    if source is not None:  # a clone of a local directory has no URL to give
        labels["org.opencontainers.image.source"] = source
    debian = f"mmdebstrap: Debian {base.SUITE}'s Essential set, {', '.join(base.PACKAGES)}"
    history = [
        (debian, base_epoch),
        ("uv.lock's runtime wheels in /opt/deppy", deps_epoch),
        (f"deppy {version} and its SBOM", epoch),
    ]
    digest = step("OCI layout", lambda: write_layout(
        out, version, labels, [base_blob, deps_blob, app_blob], history, epoch))  # fmt: skip
    return version, digest


def _base_tar(cache: Path, key: str, epoch: int) -> Path:
    return _cached(cache / f"base-{key}.tar", lambda path: base.build_base(path, epoch))


def _base_layer(base_tar: Path, epoch: int, blobs: Path) -> layers.Blob:
    entries = [
        (member, data)
        for member, data in layers.members_of_tar(base_tar)
        if not member.name.startswith(base.LEFT_OUT)
    ]
    return layers.write_layer(entries, epoch, blobs)


def _dpkg_status(base_tar: Path) -> str:
    with tarfile.open(base_tar) as tar:
        member = tar.extractfile("./var/lib/dpkg/status")
        assert member is not None
        return member.read().decode()


def _sbom_from_cache(
    cache: Path, sites: list[Path], pyproject: Path, status: str, epoch: int
) -> bytes:
    """The SBOM, made again only when what it lists changed: every distribution's RECORD (the
    hash of each of its files) and METADATA, dpkg's status, pyproject.toml, the commit's time,
    sbom.py itself and cyclonedx-py's version (an unchanged rebuild spent most of its time
    remaking it)."""
    inputs = hashlib.sha256()
    for path in sorted(p for site in sites for p in site.glob("*.dist-info/*")
                       if p.name in ("RECORD", "METADATA")):  # fmt: skip
        inputs.update(f"{path.parent.name}/{path.name}\0".encode() + path.read_bytes())
    for part in (status.encode(), pyproject.read_bytes(), str(epoch).encode(),
                 Path(sbom.__file__).read_bytes(), sbom.tool_version().encode()):  # fmt: skip
        inputs.update(hashlib.sha256(part).digest())
    kept = cache / "sbom" / f"{inputs.hexdigest()[:24]}.cdx.json"
    if kept.exists() and not os.environ.get("DEPPY_IMAGE_FRESH_LAYERS"):
        progress.say("SBOM: its inputs did not change, the one made before is kept")
        return kept.read_bytes()
    document = sbom.image_bom(sites, pyproject, status, epoch)
    kept.parent.mkdir(parents=True, exist_ok=True)
    partial = kept.with_suffix(".partial")
    partial.write_bytes(document)
    partial.replace(kept)
    return document


def _source() -> str | None:
    """The source label: $DEPPY_IMAGE_SOURCE, else git's origin, as a URL without credentials
    (provenance.py); None when there is no URL to give."""
    origin = provenance.origin_url(REPOSITORY)
    return provenance.source_label(os.environ.get("DEPPY_IMAGE_SOURCE"), origin)


def _iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def write_layout(
    out: Path, tag: str, labels: dict[str, str], blobs: list[layers.Blob],
    history: list[tuple[str, int]], epoch: int,
) -> str:  # fmt: skip
    """config, manifest and index.json beside the layers; ``out`` replaced as a whole."""
    partial = out.with_name(out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    (partial / "blobs" / "sha256").mkdir(parents=True)
    for blob in blobs:
        target = partial / "blobs" / "sha256" / blob.path.name
        try:
            os.link(blob.path, target)
        except OSError:  # another file system
            shutil.copyfile(blob.path, target)
    config = {
        "architecture": "amd64",
        "os": "linux",
        "created": _iso(epoch),
        "config": {
            "User": f"{base.USER_ID}:{base.USER_ID}",
            "Entrypoint": ["deppy"],
            "WorkingDir": base.HOME,
            "Env": [
                f"PATH={python_env.VENV}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                f"HOME={base.HOME}",
                "LANG=C.UTF-8",
                "PYTHONDONTWRITEBYTECODE=1",
                "PYTHONUNBUFFERED=1",
            ],
            "Labels": labels,
        },
        "rootfs": {"type": "layers", "diff_ids": [b.diff_id for b in blobs]},
        "history": [{"created": _iso(when), "created_by": what} for what, when in history],
    }
    config_blob = layers.store_blob(partial / "blobs", _json(config))
    manifest = {
        "schemaVersion": 2,
        "mediaType": f"{OCI}.manifest.v1+json",
        "config": {"mediaType": f"{OCI}.config.v1+json", "digest": config_blob.digest,
                   "size": config_blob.size},
        "layers": [{"mediaType": f"{OCI}.layer.v1.tar+gzip", "digest": b.digest, "size": b.size}
                   for b in blobs],
        "annotations": {k: v for k, v in labels.items() if k.startswith("org.opencontainers")},
    }  # fmt: skip
    manifest_blob = layers.store_blob(partial / "blobs", _json(manifest))
    index = {
        "schemaVersion": 2,
        "mediaType": f"{OCI}.index.v1+json",
        "manifests": [{"mediaType": f"{OCI}.manifest.v1+json", "digest": manifest_blob.digest,
                       "size": manifest_blob.size,
                       "annotations": {"org.opencontainers.image.ref.name": tag}}],
    }  # fmt: skip
    (partial / "index.json").write_bytes(_json(index))
    (partial / "oci-layout").write_bytes(_json({"imageLayoutVersion": "1.0.0"}))
    shutil.rmtree(out, ignore_errors=True)
    partial.replace(out)
    return manifest_blob.digest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPOSITORY / "dist" / "image")
    parser.add_argument("--cache", type=Path, default=REPOSITORY / "build" / "image")
    options = parser.parse_args()
    started = time.monotonic()
    tag, digest = build(options.out.resolve(), options.cache.resolve())
    print(f"image: built in {time.monotonic() - started:.1f} s", file=sys.stderr)
    print(f"oci:{options.out}:{tag} {digest}")


if __name__ == "__main__":
    main()
