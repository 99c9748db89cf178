"""Explanations on the whole corpus of unresolvable cases from ../shared (tests/explain_corpus.py).

Prints, for every case (each uninstallable bundle requested at its exact version, from a store of
all shared catalogs, with and without ``--source`` naming its own catalog): how many explanations
fit 10 lines of 100 characters with nothing cut, how many suggestions shown resolve once
applied, the share of cases with at least one suggestion that resolves (the issue asks ≥ 90%),
and the time per case. Usage: python benchmarks/explanations.py [--every N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.explain_corpus import cases, fill_store, run_case, sample  # noqa: E402

SHARED = Path(os.environ.get("DEPPY_SHARED", ROOT.parent / "shared"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=1, help="run every N-th case only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        os.environ["DEPPY_HOME"] = home
        started = time.perf_counter()
        source = fill_store(Path(home), SHARED).source()
        assert source is not None
        corpus = sample(cases(source), args.every)
        print(
            f"store of {len(source.names())} catalogs and {len(corpus)} cases: "
            f"{time.perf_counter() - started:.1f} s"
        )
        times, outcomes = [], []
        for case in corpus:
            began = time.perf_counter()
            outcomes.append(run_case(case, source))
            times.append(time.perf_counter() - began)
    unresolved = [o for o in outcomes if not o.resolved]
    fit = [o for o in unresolved if not o.screen_problems()]
    with_way = [o for o in unresolved if o.resolving]
    shown = sum(len(o.resolving) + len(o.failing) for o in unresolved)
    resolving = sum(len(o.resolving) for o in unresolved)
    heights = Counter(len(o.screen) for o in unresolved)
    n = len(unresolved) or 1
    print(f"unresolvable: {len(unresolved)} of {len(outcomes)} cases")
    print(f"fit 10 x 100, nothing cut: {len(fit)} ({100 * len(fit) / n:.1f}%)")
    print(f"screen heights (lines: cases): {dict(sorted(heights.items()))}")
    print(
        f"suggestions shown that resolve when applied: {resolving} of {shown}"
        f" ({100 * resolving / (shown or 1):.1f}%); advice (no change to try): "
        f"{sum(len(o.advice) for o in unresolved)}"
    )
    print(
        f"cases with a suggestion that resolves: {len(with_way)} ({100 * len(with_way) / n:.1f}%)"
    )
    print(
        f"per case (CLI run + suggestions tried): median {statistics.median(times) * 1000:.0f} ms"
    )
    for outcome in unresolved:
        for problem in outcome.screen_problems():
            print(f"  does not fit: {outcome.case}: {problem}")
        for text in outcome.failing:
            print(f"  does not resolve: {outcome.case}: {text}")
        if not outcome.resolving:
            print(f"  no way out: {outcome.case}")
    print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
