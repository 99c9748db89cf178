"""The image's software bill of materials: one CycloneDX JSON document listing every Debian
package (from the base's dpkg status) and every Python distribution in /opt/deppy.

The Python part is cyclonedx-py's (``environment``, reproducible: no serial number, the
commit's time as its timestamp), run on a stand-in environment holding the image's .dist-info
directories; the Debian packages are added to it as ``pkg:deb`` components, and the result is
checked against CycloneDX's schema by cyclonedx-python-lib before it goes in.

The root component (what the document describes) is deppy, named by the Python distribution
it is, ``pkg:pypi/deppy@VERSION``: the image's own name, ``pkg:oci/deppy@sha256:…``, would need
the image's digest, which cannot be known inside the image (the digest covers this document).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator

PATH_IN_IMAGE = "/opt/deppy/share/sbom/deppy-image.cdx.json"
DISTRO = "debian-12"


def debian_packages(dpkg_status: str) -> list[dict[str, str]]:
    """Installed packages of a dpkg status file: name, version, architecture."""
    found = []
    for stanza in dpkg_status.split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in stanza.splitlines() if ": " in line and line[0] != " "
        )
        if fields.get("Status", "").endswith(" installed"):
            found.append(
                {k: fields[k] for k in ("Package", "Version", "Architecture")}
                | {"Source": fields.get("Source", fields["Package"]).split(" ")[0]}
            )
    return sorted(found, key=lambda p: p["Package"])


def _debian_component(package: dict[str, str]) -> dict[str, Any]:
    name, version = package["Package"], package["Version"]
    purl = (
        f"pkg:deb/debian/{name}@{quote(version, safe='')}"
        f"?arch={package['Architecture']}&distro={DISTRO}"
    )
    return {"type": "library", "bom-ref": purl, "name": name, "version": version, "purl": purl}


def python_bom(site_packages: list[Path], pyproject: Path, epoch: int) -> dict[str, Any]:
    """cyclonedx-py's document for the distributions under ``site_packages``."""
    with tempfile.TemporaryDirectory() as scratch:
        venv = Path(scratch) / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        target = venv / "lib" / "python3.11" / "site-packages"
        for directory in site_packages:
            for info in directory.glob("*.dist-info"):
                (target / info.name).symlink_to(info)
        completed = subprocess.run(
            [str(Path(sys.executable).with_name("cyclonedx-py")), "environment",
             "--output-reproducible", "--pyproject", str(pyproject), "--of", "JSON",
             "-o", "-", str(venv / "bin" / "python")],
            capture_output=True, text=True, env={**os.environ, "SOURCE_DATE_EPOCH": str(epoch)},
        )  # fmt: skip
    if completed.returncode != 0:
        raise SystemExit(f"image: cyclonedx-py failed:\n{completed.stderr[-4000:]}")
    document: dict[str, Any] = json.loads(completed.stdout)
    return document


def tool_version() -> str:
    """cyclonedx-py's version: part of what the document depends on (build.py's cache key)."""
    return importlib.metadata.version("cyclonedx-bom")


def image_bom(site_packages: list[Path], pyproject: Path, dpkg_status: str, epoch: int) -> bytes:
    """The whole document, validated, as stable bytes."""
    document = python_bom(site_packages, pyproject, epoch)
    root = document["metadata"]["component"]
    root.setdefault("purl", f"pkg:pypi/{root['name']}@{quote(root['version'], safe='')}")
    components = document.setdefault("components", [])
    components += [_debian_component(p) for p in debian_packages(dpkg_status)]
    components.sort(key=lambda c: (c.get("purl", ""), c["name"]))
    text = json.dumps(document, indent=2, sort_keys=True) + "\n"
    errors = JsonStrictValidator(SchemaVersion.V1_6).validate_str(text)
    if errors is not None:
        raise SystemExit(f"image: the SBOM is not valid CycloneDX 1.6: {errors}")
    return text.encode()
