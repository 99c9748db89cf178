"""The image's Python layers: uv.lock's runtime wheels, then deppy's own wheel, installed into
the virtual environment /opt/deppy that the base layer made.

The wheels are the exact ones of uv.lock (``uv export --frozen`` with their hashes, fetched by
pip with ``--require-hashes``, wheels only); pypa's ``installer`` unpacks each into a staging
tree as if it were /opt/deppy (scripts start with ``#!/opt/deppy/bin/python``), so nothing runs
inside the image to install them. Bytecode is compiled here with unchecked hashes and
PYTHONHASHSEED=0: deterministic, and nothing needs writing at run time on a read-only root.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from installer import install
from installer.destinations import SchemeDictionaryDestination
from installer.sources import WheelFile

VENV = "/opt/deppy"
SITE = f"{VENV}/lib/python3.11/site-packages"


def _run(command: list[str], what: str, **options: object) -> str:
    completed = subprocess.run(command, capture_output=True, text=True, **options)  # type: ignore[call-overload]
    if completed.returncode != 0:
        raise SystemExit(
            f"image: {what} failed ({' '.join(command[:3])} …):\n{completed.stderr[-4000:]}"
        )
    return str(completed.stdout)


def locked_requirements(repository: Path, uv: Path) -> str:
    """deppy's runtime dependencies as uv.lock pins them, with hashes (no dev extras)."""
    return _run(
        [str(uv), "export", "--frozen", "--no-dev", "--no-emit-project", "--no-header",
         "--format", "requirements.txt"],
        "uv export", cwd=repository,
    )  # fmt: skip


def download_wheels(requirements: str, into: Path) -> list[Path]:
    """The locked wheels, each checked against uv.lock's hash (pip's cache spares repeats); the
    one locked as a source archive only (www-authenticate, pure Python) is built into a wheel."""
    into.mkdir(parents=True, exist_ok=True)
    listed = into / "requirements.txt"
    listed.write_text(requirements)
    _run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--require-hashes",
         "--wheel-dir", str(into), "-r", str(listed)],
        "downloading uv.lock's wheels",
    )  # fmt: skip
    return sorted(into.glob("*.whl"))


def build_deppy_wheel(repository: Path, uv: Path, into: Path) -> Path:
    shutil.rmtree(into, ignore_errors=True)
    _run([str(uv), "build", "--wheel", "--quiet", "--out-dir", str(into)], "building deppy's wheel",
         cwd=repository)  # fmt: skip
    (wheel,) = into.glob("deppy-*.whl")
    return wheel


def install_wheels(wheels: list[Path], staging: Path) -> Path:
    """The wheels unpacked into ``staging`` as /opt/deppy's files; returns the tree that stands
    for /opt/deppy."""
    shutil.rmtree(staging, ignore_errors=True)
    scheme = {
        "purelib": SITE, "platlib": SITE, "headers": f"{VENV}/include",
        "scripts": f"{VENV}/bin", "data": VENV,
    }  # fmt: skip
    destination = SchemeDictionaryDestination(
        scheme, interpreter=f"{VENV}/bin/python", script_kind="posix", destdir=str(staging)
    )
    for wheel in wheels:
        with WheelFile.open(wheel) as source:
            install(source, destination, additional_metadata={"INSTALLER": b"deppy-image\n"})
    tree = staging / VENV.lstrip("/")
    compile_bytecode(tree, staging)
    return tree


def compile_bytecode(tree: Path, staging: Path) -> None:
    """.pyc beside every module, naming its path in the image, valid whatever the file times."""
    if sys.version_info[:2] != (3, 11):
        raise SystemExit("image: compile with Python 3.11 (the image's python3); run with it")
    _run(
        [sys.executable, "-m", "compileall", "-q", "-f", "-j", "0", "--invalidation-mode",
         "unchecked-hash", "-s", str(staging), "-p", "/", str(tree)],
        "compiling bytecode", env={**os.environ, "PYTHONHASHSEED": "0"},
    )  # fmt: skip
