"""OLM v0's rules against deppy's own, on community-operators-prod-v4.18, in the same run.

Issue 48's target: ``olm-v0`` answers within 10% of deppy's rules, first and repeat runs.
100 Subscription-like requests (seeded; a third a package alone, a third with its default
channel and catalog, a third an installed bundle, the oldest of its default channel, with its
channel and catalog), each resolved under both rule sets, alternating so load drifts hit both
alike. "first" is each request's first answer, one rule set per fresh process (the catalog
loaded, one unrelated warm-up answer, then the 100 requests once; two processes per rule set),
"repeat" the same requests answered again in one process, R rounds; then ``deppy resolve`` as
a user runs it, a fresh process per answer (the catalog read from disk each time), a few
packages under each rule set. Prints medians, p99, totals and the ratios olm-v0 / deppy.
Usage: python benchmarks/olmv0_resolve.py [--requests N] [--rounds R] [--processes P] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from deppy.catalog.catalog_set import CatalogSet
from deppy.catalog.fbc import load_catalog
from deppy.catalog.model import Catalog
from deppy.resolution.request import ResolutionRequest
from deppy.resolution.request_parsing import parse_installed, parse_require
from deppy.resolution.resolver import resolve

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT.parent / "shared" / "catalogs" / "community-operators-prod-v4.18"
RULES = ("deppy", "olm-v0")


def requests(catalog: Catalog, count: int, seed: int) -> list[tuple[list[str], list[str]]]:
    """(--require values, --installed values) for ``count`` packages."""
    rng = random.Random(seed)
    chosen = rng.sample(sorted(catalog.packages), min(count, len(catalog.packages)))
    out: list[tuple[list[str], list[str]]] = []
    for n, name in enumerate(chosen):
        channel = catalog.packages[name].default_channel
        members = sorted(
            (
                catalog.bundles[(name, e.name)]
                for c in catalog.channels_of(name)
                if c.name == channel
                for e in c.entries
                if (name, e.name) in catalog.bundles
            ),
            key=lambda b: b.version,
        )
        if members and n % 3 == 1:
            out.append(([f"{name},channel={channel},catalog=community"], []))
        elif members and n % 3 == 2:
            old = members[0]
            spec = f"{name}@{old.version},channel={channel},catalog=community,bundle={old.name}"
            out.append(([], [spec]))
        else:
            out.append(([name], []))
    return out


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def answer_times(
    catalogs: CatalogSet, cases: list[tuple[list[str], list[str]]], rules: str
) -> tuple[list[float], int]:
    """Each case resolved once under ``rules``: the seconds each took, how many resolved."""
    times, resolved = [], 0
    for require, installed in cases:
        request = ResolutionRequest(
            required=tuple(parse_require(s) for s in require),
            installed=tuple(parse_installed(s) for s in installed),
            rules=rules,
        )
        started = time.perf_counter()
        answer = resolve(catalogs, request)
        times.append(time.perf_counter() - started)
        resolved += answer.resolved
    return times, resolved


def warm_up(catalogs: CatalogSet) -> None:
    """The process's own first resolution (imports, lazy tables) is no request's."""
    for rules in RULES:
        resolve(catalogs, ResolutionRequest(required=(parse_require("etcd"),), rules=rules))


def first_answers(args: argparse.Namespace) -> None:
    """Each request's first answer, one rule set per fresh process (what one rule set warms in
    the catalog's shared tables would otherwise be the other's gain), twice per rule set."""
    times: dict[str, list[float]] = {r: [] for r in RULES}
    resolved: dict[str, int] = {}
    for turn in range(4):
        rules = RULES[turn % 2] if turn < 2 else RULES[1 - turn % 2]
        command = [sys.executable, __file__, "--child", rules, "--requests", str(args.requests),
                   "--seed", str(args.seed)]  # fmt: skip
        found = json.loads(subprocess.run(command, capture_output=True, check=True).stdout)
        times[rules] += found["times"]
        resolved[rules] = found["resolved"]
    for rules in RULES:
        values = times[rules]
        print(
            f"first  {rules:6} {len(values)} answers: median "
            f"{statistics.median(values) * 1000:.2f} ms, p99 {p99(values) * 1000:.2f} ms, "
            f"total {sum(values) * 1000:.0f} ms, {resolved[rules]} of {args.requests} resolved"
        )
    _ratios("first", times["olm-v0"], times["deppy"])


def repeat_answers(
    catalogs: CatalogSet, cases: list[tuple[list[str], list[str]]], rounds: int
) -> None:
    """Every request answered once under each rule set (untimed), then ``rounds`` more times,
    alternating which rule set goes first."""
    for rules in RULES:
        answer_times(catalogs, cases, rules)
    times: dict[str, list[float]] = {r: [] for r in RULES}
    for round_ in range(rounds):
        for rules in RULES if round_ % 2 == 0 else RULES[::-1]:
            times[rules] += answer_times(catalogs, cases, rules)[0]
    for rules in RULES:
        values = times[rules]
        print(
            f"repeat {rules:6} {len(values)} answers: median "
            f"{statistics.median(values) * 1000:.2f} ms, p99 {p99(values) * 1000:.2f} ms, "
            f"total {sum(values) * 1000:.0f} ms"
        )
    _ratios("repeat", times["olm-v0"], times["deppy"])


def _ratios(phase: str, olm: list[float], deppy: list[float]) -> None:
    median = statistics.median(olm) / statistics.median(deppy)
    print(
        f"{phase:6} ratio olm-v0 / deppy: median {median:.3f}, "
        f"p99 {p99(olm) / p99(deppy):.3f}, total {sum(olm) / sum(deppy):.3f}"
    )


def processes(cases: list[tuple[list[str], list[str]]], count: int) -> None:
    """``deppy resolve`` in a fresh process per answer: the first run a user sees."""
    deppy = Path(sys.executable).parent / "deppy"
    times: dict[str, list[float]] = {r: [] for r in RULES}
    for n, (require, installed) in enumerate(cases[:count]):
        flags = [f for s in require for f in ("--require", s)]
        flags += [f for s in installed for f in ("--installed", s)]
        for rules in RULES if n % 2 == 0 else RULES[::-1]:
            command = [str(deppy), "resolve", "--catalog", f"{CATALOG}=community", *flags,
                       "--rules", rules, "-q", "-o", "json"]  # fmt: skip
            started = time.perf_counter()
            subprocess.run(command, capture_output=True, check=False)
            times[rules].append(time.perf_counter() - started)
    for rules in RULES:
        print(f"process {rules:6} {count} answers: median {statistics.median(times[rules]):.2f} s")
    ratio = statistics.median(times["olm-v0"]) / statistics.median(times["deppy"])
    print(f"process ratio olm-v0 / deppy: median {ratio:.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--processes", type=int, default=10)
    parser.add_argument("--seed", type=int, default=48)
    parser.add_argument("--child", choices=RULES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not CATALOG.exists():
        print(f"missing {CATALOG}", file=sys.stderr)
        return 2
    catalog = load_catalog(CATALOG, name="community")
    catalogs = CatalogSet([catalog])
    cases = requests(catalog, args.requests, args.seed)
    if args.child:  # one fresh process's first answers under one rule set, as JSON
        warm_up(catalogs)
        times, resolved = answer_times(catalogs, cases, args.child)
        print(json.dumps({"times": times, "resolved": resolved}))
        return 0
    print(f"load: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} CPUs")
    first_answers(args)
    repeat_answers(catalogs, cases, args.rounds)
    if args.processes:
        processes(cases, args.processes)
    print(f"load: {os.getloadavg()[0]:.2f} (1 min)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
