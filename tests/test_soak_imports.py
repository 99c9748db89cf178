"""``python benchmarks/soak.py`` runs after the quick start's ``make install`` alone (issue 26,
"Also"): the soak lives in tests/, but nothing it imports may need a development tool — it
failed at once on a missing pytest. Checked by loading the script with every dev-only package
made unimportable, as in a runtime-only .venv."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

DEV_ONLY = ("pytest", "_pytest", "hypothesis", "httpx", "selenium", "schemathesis", "grpc_tools")
LOAD = f"""
import importlib.util, sys
for name in {DEV_ONLY!r}:
    sys.modules[name] = None  # import fails, as where make install put only deppy's own needs
spec = importlib.util.spec_from_file_location("soak", {str(ROOT / "benchmarks" / "soak.py")!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
print(callable(module.main))
"""


def test_the_soak_script_needs_no_development_tool() -> None:
    done = subprocess.run(
        [sys.executable, "-c", LOAD], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.strip() == "True", done.stderr[-3000:]
