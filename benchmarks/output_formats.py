"""What ``-o yaml`` costs beside ``-o json`` (issue 26, group 14: within a small factor).

The answers are ``deppy show`` of real packages of community v4.18 (CSV descriptions of a few
KB; the catalog read from a warm parsed-catalog cache) and of a package whose description and
annotations are long strings (tests/test_yaml_output.py's: a 270 KB answer, what a generated
catalog holds). For each: the whole command with ``-o json`` and with ``-o yaml`` (medians of
--repeats runs, output through a pipe; the ratio is the one a user sees), then the printer alone
in this process: libyaml's emitter (``-o yaml`` now) and PyYAML's pure-Python one (``-o yaml``
before). The load average is beside each row: the machine is shared.

  whole command, -o yaml / -o json                  ≤ 1.5× (was 10–20× on long strings)

Usage: python benchmarks/output_formats.py [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import orjson
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cluster_input import median
from store_resolve import DEFAULT_CATALOG, DEPPY, ROOT

sys.path.insert(0, str(ROOT))
from tests.test_yaml_output import long_catalog

from deppy.input_limits.yaml_writer import yaml_text

PACKAGES = ("etcd", "prometheus", "strimzi-kafka-operator")
PRINTERS: dict[str, Callable[[Any], object]] = {
    "libyaml": yaml_text,
    "pure Python": lambda d: yaml.safe_dump(d, sort_keys=False, width=100),
}


def row(package: str, catalog: Path, home: Path, repeats: int, label: str = "") -> None:
    """``deppy show PACKAGE`` whole with each -o, then its data through each YAML printer."""
    env = dict(os.environ, DEPPY_HOME=str(home))
    argv = [str(DEPPY), "show", package, "--catalog", str(catalog), "-o"]
    # the first run also warms the parsed-catalog cache
    data = orjson.loads(subprocess.run([*argv, "json"], env=env, capture_output=True).stdout)
    json_s, yaml_s = (
        median(partial(subprocess.run, [*argv, form], env=env, capture_output=True), repeats)
        for form in ("json", "yaml")
    )
    printed = [median(partial(write, data), repeats) * 1e3 for write in PRINTERS.values()]
    size = len(orjson.dumps(data, option=orjson.OPT_INDENT_2))
    print(
        f"{label or package:<28}{size:>9}   {json_s:13.2f} s{yaml_s:8.2f} s{yaml_s / json_s:6.2f}×"
        f"   {printed[0]:13.1f} ms{printed[1]:10.1f} ms  {os.getloadavg()[0]:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    repeats = parser.parse_args().repeats
    print(f"python {sys.version.split()[0]}, libyaml {yaml.__with_libyaml__}")
    print(
        f"{'answer':<28}{'bytes':>9}   {'command -o json':>15}{'-o yaml':>10}{'ratio':>7}"
        f"   {'printer: libyaml':>16}{'pure Python':>13}  load"
    )
    with tempfile.TemporaryDirectory(prefix="deppy-output-bench-") as tmp:
        home = Path(tmp) / "home"
        for package in PACKAGES:
            row(package, DEFAULT_CATALOG, home, repeats)
        row("demo", long_catalog(Path(tmp) / "long-strings"), home, repeats, "demo (long strings)")


if __name__ == "__main__":
    main()
