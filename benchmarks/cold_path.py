"""The cold path of issue 21: what a new user waits for, first run and repeat, whole process.

Each row is one command run as a subprocess the way a script runs it: its output through pipes,
timed until the output ends (end of file on stdout and stderr) and the command is reaped, so a
helper process still holding the output would count. "first" is the median of runs each with an
empty DEPPY_HOME (no store, no parsed-catalog cache; files already in the OS page cache), "again"
the median of the runs after them with the same DEPPY_HOME (the cache warm). Peak memory is
the largest resident set of the command's processes (its worker included). The load average
is printed beside every row: the machine is shared, so compare on a quiet machine or run again.

  resolve --catalog community v4.18                 first ≤ 1.0 s, again ≤ 0.4 s
  resolve --catalog a YAML-heavy catalog            first ≤ 1.5 s, again ≤ 0.4 s
  catalog add community v4.18                       ≤ 5 s
  solve benchmark-256.json                          ≤ 50 ms
  resolve --catalog 10x community (~700 MB)         ≤ 4 s, ≤ 300 MB (requiring c3-etcd)
  back to back: two community runs, an empty home    second ≤ 0.4 s (issue 36)

"back to back" is what a script running deppy twice sees: the second run starts the moment the
first one's output ends, while the first run's cache writer is still at work; it waits for
that writer when the writer should be done sooner than a parse, and never writes a second
entry. Each pair is printed (first, second, and whether a second writer ran).

The YAML-heavy catalog stands in for certified-operators v4.18 (23 MB of YAML of 51 MB): the
community catalog with its largest JSON files written out again as YAML until 23 MB of it is
YAML. It and the 10x catalog (benchmarks/build_large_catalog.py) are built once under
--work (default: the system's temporary directory) and reused.

Commands run with Python's bytecode cache, as an installed deppy does (an environment with
PYTHONDONTWRITEBYTECODE gets a private cache through PYTHONPYCACHEPREFIX, as startup.py does).

Usage: python benchmarks/cold_path.py [--repeats N] [--work DIR] [--skip-large] [--only ROW]...
"""

from __future__ import annotations

import argparse
import os
import selectors
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from store_resolve import DEFAULT_CATALOG, DEPPY, PYTHON, ROOT

BENCHMARK_256 = ROOT.parent / "shared" / "conformance" / "deppy-go" / "perf" / "benchmark-256.json"
YAML_HEAVY_BYTES = 23_000_000
ROWS = ("community", "yaml-heavy", "catalog-add", "solve", "large", "back-to-back")


def timed(
    argv: list[str], env: dict[str, str], *, wait_for_writer: bool = True
) -> tuple[float, float, int]:
    """Wall seconds as a script sees them (``out=$(deppy …)``, a subprocess capture): stdout
    and stderr are pipes read until both end, and the command is reaped; peak resident MB (the
    process or any child it waited for), exit code. CPU seconds (the process and its YAML
    worker) go to CPU_SECONDS: on a busy machine they swing less than wall time."""
    started = time.perf_counter()
    process = subprocess.Popen(
        argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    read_to_end(process)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    CPU_SECONDS.append(usage.ru_utime + usage.ru_stime)
    if wait_for_writer:
        writers_done(Path(env["DEPPY_HOME"]) / "cache")
    return wall, usage.ru_maxrss / 1024, process.returncode


def read_to_end(process: subprocess.Popen[bytes]) -> None:
    """Read (and drop) the command's stdout and stderr until both reach end of file: until
    every process holding them, the command's own helpers included, has let go."""
    with selectors.DefaultSelector() as selector:
        for pipe in (process.stdout, process.stderr):
            assert pipe is not None
            selector.register(pipe, selectors.EVENT_READ)
        while selector.get_map():
            for key, _ in selector.select():
                if not os.read(key.fd, 1 << 16):
                    selector.unregister(key.fileobj)
                    key.fileobj.close()  # type: ignore[union-attr]


def writers_done(cache: Path, limit: float = 30.0) -> None:
    """Wait for the command's background cache writer (its temporary file) to finish, so the
    next run sees what a user's next command would see a moment later."""
    time.sleep(0.2)  # the writer creates its temporary file right after the command forks it
    waited = 0.2
    while waited < limit and cache.is_dir() and any(cache.glob(".tmp-*")):
        time.sleep(0.1)
        waited += 0.1


CPU_SECONDS: list[float] = []


def load() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def shown(seconds: float) -> str:
    """Seconds as 8 characters; under 0.1 s in milliseconds (the solve row's scale)."""
    return f"{seconds * 1e3:5.1f} ms" if seconds < 0.1 else f"{seconds:6.2f} s"


def row(label: str, argv: list[str], home: Path, repeats: int, goals: tuple[str, str]) -> None:
    """The median of ``repeats`` first runs, each with an empty home, then the median of
    ``repeats`` runs with the home the last one left (the cache warm)."""
    env = dict(os.environ, DEPPY_HOME=str(home))
    first_load = load()
    firsts = []
    for _ in range(repeats):
        shutil.rmtree(home, ignore_errors=True)
        firsts.append(timed(argv, env))
    first = statistics.median(r[0] for r in firsts)
    first_cpu = statistics.median(CPU_SECONDS[-repeats:])
    first_mb = max(r[1] for r in firsts)
    code = max(r[2] for r in firsts)
    again_load = load()
    runs = [timed(argv, env) for _ in range(repeats)]
    again = statistics.median(r[0] for r in runs)
    again_cpu = statistics.median(CPU_SECONDS[-repeats:])
    again_mb = max(r[1] for r in runs)
    status = "" if code in (0, 1) else f"  (exit {code})"
    print(
        f"{label:<36}{shown(first)} ({shown(first_cpu)} cpu) {first_mb:4.0f} MB load {first_load}"
        f" {shown(again)} ({shown(again_cpu)} cpu) {again_mb:4.0f} MB load {again_load}"
        f"   {goals[0]} / {goals[1]}{status}"
    )


def back_to_back_row(argv: list[str], home: Path, repeats: int) -> None:
    """Two runs with an empty home, the second started as the first one's output ends."""
    env = dict(os.environ, DEPPY_HOME=str(home))
    pairs = []
    for _ in range(repeats):
        shutil.rmtree(home, ignore_errors=True)
        started_load = load()
        first = timed(argv, env, wait_for_writer=False)[0]
        second = timed(argv, env, wait_for_writer=False)[0]
        writers_done(home / "cache")
        entries = len(list((home / "cache").glob("catalog-*")))
        pairs.append((second, first, started_load, entries))
    for second, first, started_load, entries in pairs:
        print(
            f"{'back to back: community v4.18':<36}first {shown(first)}, second {shown(second)}"
            f", {entries} entry written, load {started_load}   second ≤ 0.4 s"
        )
    print(f"{'back to back: median second run':<36}{shown(statistics.median(p[0] for p in pairs))}")


def catalog_add_row(catalog: Path, home: Path, repeats: int) -> None:
    """`catalog add` into an empty home, then into a fresh store beside a warm cache."""
    shutil.rmtree(home, ignore_errors=True)
    env = dict(os.environ, DEPPY_HOME=str(home))
    argv = [str(DEPPY), "catalog", "add", "community", str(catalog)]
    first_load = load()
    first, first_mb, code = timed(argv, env)
    first_cpu = CPU_SECONDS[-1]
    again_load = load()
    runs = []
    for _ in range(repeats):
        for stored in home.glob("catalogs.sqlite3*"):
            stored.unlink()
        runs.append(timed(argv, env))
    again = statistics.median(r[0] for r in runs)
    again_cpu = statistics.median(CPU_SECONDS[-repeats:])
    print(
        f"{'catalog add community v4.18':<36}{first:6.2f} s ({first_cpu:5.2f} cpu) "
        f"{first_mb:4.0f} MB load {first_load}{again:7.2f} s ({again_cpu:5.2f} cpu) "
        f"{max(r[1] for r in runs):4.0f} MB load {again_load}   ≤ 5 s"
        + ("" if code == 0 else f"  (exit {code})")
    )


def yaml_heavy(work: Path) -> Path:
    """The community catalog with JSON files rewritten as YAML up to YAML_HEAVY_BYTES of YAML."""
    target = work / "deppy-yaml-heavy-catalog"
    if (target / ".complete").exists():
        return target
    import orjson
    import yaml

    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(DEFAULT_CATALOG, target)
    yaml_bytes = sum(p.stat().st_size for p in target.rglob("*.yaml"))
    for path in sorted(target.rglob("*.json"), key=lambda p: -p.stat().st_size):
        if yaml_bytes >= YAML_HEAVY_BYTES:
            break
        docs = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
        text = yaml.dump_all(docs, Dumper=yaml.CSafeDumper, sort_keys=False)
        path.unlink()
        out = path.with_suffix(".yaml")
        if out.exists():  # a package with both: keep both, under another name
            out = path.with_name("rendered.yaml")
        out.write_text(text)
        yaml_bytes += out.stat().st_size
    (target / ".complete").write_text("")
    return target


def large(work: Path) -> Path:
    target = work / "deppy-10x-community"
    if not (target / ".complete").exists():
        shutil.rmtree(target, ignore_errors=True)
        builder = Path(__file__).resolve().parent / "build_large_catalog.py"
        subprocess.run([str(PYTHON), str(builder), str(target)], check=True)
        (target / ".complete").write_text("")
    return target


def size_mb(root: Path, suffix: str | None = None) -> float:
    files = [p for p in root.rglob("*") if p.is_file() and not p.name.startswith(".")]
    return sum(p.stat().st_size for p in files if suffix is None or p.suffix == suffix) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--skip-large", action="store_true", help="leave out the 10x row")
    parser.add_argument(
        "--only", action="append", choices=ROWS, help="run only this row (repeatable)"
    )
    args = parser.parse_args()
    rows = set(args.only or ROWS) - ({"large"} if args.skip_large else set())
    for needed in (BENCHMARK_256, DEFAULT_CATALOG):
        if not needed.exists():
            sys.exit(f"{needed}: missing (the shared data beside the repository)")
    heavy = yaml_heavy(args.work) if "yaml-heavy" in rows else None
    big = large(args.work) if "large" in rows else None
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs"
        + ("" if heavy is None else f"; YAML-heavy catalog: {size_mb(heavy, '.yaml'):.0f} MB ")
        + ("" if heavy is None else f"of YAML of {size_mb(heavy):.0f} MB")
        + ("" if big is None else f"; 10x community: {size_mb(big):.0f} MB")
    )
    print(f"{'':<36}{'first run':<38}{'again (median)':<38}goal")
    with tempfile.TemporaryDirectory(prefix="deppy-cold-bench-") as tmp:
        if os.environ.pop("PYTHONDONTWRITEBYTECODE", None):  # row() copies os.environ
            os.environ["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        home = Path(tmp) / "home"
        resolve = [str(DEPPY), "resolve", "--require", "etcd", "-o", "json", "--catalog"]
        if "community" in rows:
            row(
                "resolve --catalog community v4.18",
                [*resolve, str(DEFAULT_CATALOG)],
                home,
                args.repeats,
                ("≤ 1.0 s", "≤ 0.4 s"),
            )
        if "back-to-back" in rows:
            back_to_back_row([*resolve, str(DEFAULT_CATALOG)], home, args.repeats)
        if heavy is not None:
            row(
                "resolve --catalog YAML-heavy",
                [*resolve, str(heavy)],
                home,
                args.repeats,
                ("≤ 1.5 s", "≤ 0.4 s"),
            )
        if "catalog-add" in rows:
            catalog_add_row(DEFAULT_CATALOG, home, args.repeats)
        if "solve" in rows:
            row(
                "solve benchmark-256.json",
                [str(DEPPY), "solve", str(BENCHMARK_256)],
                home,
                max(args.repeats, 11),
                ("≤ 50 ms", "≤ 50 ms"),
            )
        if big is not None:  # its packages are c0-… to c9-… (etcd alone would be a typo)
            row(
                "resolve --catalog 10x community",
                [*resolve[:3], "c3-etcd", *resolve[4:], str(big)],
                home,
                args.repeats,
                ("≤ 4 s, ≤ 300 MB", ""),
            )
    print(f"load average at the end: {load()}")


if __name__ == "__main__":
    main()
