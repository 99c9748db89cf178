"""The short profile of the lifecycle soak (benchmarks/soak.py runs the full one): on the test
API server, two controller replicas, ten namespaces, 25 seeded steps and five faults (one of
each kind); it fails on any invariant violation, listing them."""

from __future__ import annotations

from pathlib import Path

from tests.kube import KubeCluster
from tests.soak.run import SHORT, Soak, print_report


def test_short_soak_keeps_every_invariant(kube: KubeCluster, tmp_path: Path) -> None:
    lines: list[str] = []

    def out(text: str) -> None:
        lines.append(text)
        print(text, flush=True)  # shown with -s as it happens

    soak = Soak(kube, tmp_path, SHORT, out)
    with soak.running():
        report = soak.run()
    print_report(report, out)
    assert report.steps >= SHORT.steps and report.faults >= 5
    assert not report.violations, "\n".join([*report.violations[:40], report.summary()])
