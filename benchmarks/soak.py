"""The lifecycle soak (issue 18): deppy's controller on a real API server for a few hundred seeded
steps — Operators, Inputs and ActiveResolutions created, edited and deleted in 12 namespaces, a
catalog that changes under them, an admin approving proposals — and 21 faults (catalog source
down, API server and etcd frozen, the controller killed -9, a standby replica taking over), with
the invariants of tests/soak/invariants.py checked and printed after every step.

It ends with ``soak: N steps, F faults, V invariant violations`` and exits 1 when V > 0.
tests/test_soak.py runs the short profile in ``make test``.

Usage: python benchmarks/soak.py   (no arguments; 17.5 minutes on 2 cores busy with other work)
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.kube import start_cluster  # noqa: E402
from tests.soak.run import FULL, Soak, print_report  # noqa: E402

SHARED = Path(os.environ.get("DEPPY_SHARED", ROOT.parent / "shared"))


def main() -> int:
    logs = Path(tempfile.mkdtemp(prefix="deppy-soak-"))
    with contextmanager(start_cluster)(SHARED) as kube:
        soak = Soak(kube, logs, FULL, lambda text: print(text, flush=True))
        with soak.running():
            report = soak.run()
    print_report(report, lambda text: print(text, flush=True))
    print(f"load average at the end: {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores")
    if report.violations:
        print(f"controller logs kept in {logs}")
        return 1
    shutil.rmtree(logs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
