"""Build the 10x community catalog of issue 11, outside the repository.

Usage: python benchmarks/build_large_catalog.py OUT_DIR [--copies 10]

Copies ../shared/catalogs/community-operators-prod-v4.18 COPIES times under new package names
(c0-…, c1-…): packages, channels, bundles, their olm.package properties, channel entries and
bundle deprecations are renamed, so the copies are distinct packages. One JSON-lines file per
source file and copy. Then: benchmarks/large_catalog.py OUT_DIR.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

import orjson

from deppy.input_limits import yaml_documents

SOURCE = Path(__file__).resolve().parents[2] / "shared" / "catalogs"
COMMUNITY = SOURCE / "community-operators-prod-v4.18"


def renamed(obj: dict[str, Any], prefix: str) -> dict[str, Any]:
    schema = obj.get("schema")
    if schema == "olm.package":
        obj["name"] = prefix + obj["name"]
        return obj
    if schema not in ("olm.channel", "olm.bundle", "olm.deprecations"):
        return obj
    obj["package"] = prefix + obj["package"]
    if schema == "olm.bundle":
        obj["name"] = prefix + obj["name"]
        for prop in obj.get("properties") or []:
            if prop.get("type") == "olm.package":
                prop["value"]["packageName"] = prefix + prop["value"]["packageName"]
    elif schema == "olm.channel":
        for entry in obj.get("entries") or []:
            entry["name"] = prefix + entry["name"]
            if entry.get("replaces"):
                entry["replaces"] = prefix + entry["replaces"]
            if entry.get("skips"):
                entry["skips"] = [prefix + s for s in entry["skips"]]
    else:
        for entry in obj.get("entries") or []:
            ref = entry.get("reference") or {}
            if ref.get("schema") == "olm.bundle" and ref.get("name"):
                ref["name"] = prefix + ref["name"]
    return obj


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--copies", type=int, default=10)
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    for directory, _, names in sorted(os.walk(COMMUNITY)):
        for name in sorted(names):
            path = Path(directory) / name
            data = path.read_bytes()
            if data.lstrip().startswith(b"{"):
                objects = [orjson.loads(line) for line in data.splitlines() if line.strip()]
            else:
                objects = [o for o in yaml_documents(data) if o]
            stem = str(path.relative_to(COMMUNITY).with_suffix("")).replace("/", "_")
            for copy in range(options.copies):
                prefix = f"c{copy}-"
                with (options.out / f"{prefix}{stem}.json").open("wb") as out:
                    for obj in objects:
                        fresh = orjson.loads(orjson.dumps(obj, default=str))
                        out.write(orjson.dumps(renamed(fresh, prefix)) + b"\n")


if __name__ == "__main__":
    main()
