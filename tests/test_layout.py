"""The house rules: every room says what it may import, and no module imports itself back.

import-linter (``make lint``) checks the layers between rooms; this test adds what it does not:
no import cycle between any two modules, counting deferred imports inside functions and imports
made only for type checking, and a docstring for every room.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import pkgutil

import grimp

import deppy

ROOMS = [m.name for m in pkgutil.iter_modules(deppy.__path__) if m.ispkg]


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


# The solver's base modules still import each other; the solver rework (issue 12) untangles them.
KNOWN = [
    ["deppy.solver.cnf", "deppy.solver.constraints", "deppy.solver.errors", "deppy.solver.model"]
]


def test_no_module_imports_itself_back() -> None:
    graph = grimp.build_graph("deppy", exclude_type_checking_imports=False)
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    assert _cycles(edges) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_room_says_what_lives_there() -> None:
    assert {"cli", "cluster", "controller", "service", "workflows", "resolution", "catalog"} <= set(
        ROOMS
    )
    for room in ROOMS:
        module = importlib.import_module(f"deppy.{room}")
        assert module.__doc__ and len(module.__doc__.strip()) > 40, room


def test_deppy_offers_every_public_solver_name_lazily() -> None:
    import deppy.solver

    assert set(deppy.__all__) == {*deppy.solver.__all__, "load_problem"}
    for name in deppy.__all__:
        assert getattr(deppy, name) is not None


def test_the_cli_entry_point_does_not_load_the_solver() -> None:
    import subprocess
    import sys

    code = "import sys, deppy.cli.main; print(sorted(sys.modules))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    modules = set(eval(loaded.stdout))
    assert not modules & {"deppy.solver", "deppy.problem", "yaml", "pysat"}


def test_version_and_plain_solve_answer_without_click() -> None:
    """``deppy --version`` and ``deppy solve FILE`` are over before click would have loaded."""
    import subprocess
    import sys

    code = (
        "import sys; sys.argv = ['deppy', '--version']\n"
        "from deppy.cli.main import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    version, modules = loaded.stdout.splitlines()
    assert version == f"deppy, version {importlib.metadata.version('deppy')}"
    assert not set(eval(modules)) & {"click", "importlib.metadata", "deppy.solver", "yaml"}
    problem = '[{"id": "a", "constraints": [{"type": "mandatory"}]}]'
    code = (
        "import sys, tempfile\n"
        "path = tempfile.mktemp(suffix='.json'); open(path, 'w').write(sys.argv[1])\n"
        "sys.argv = ['deppy', 'solve', '-o', 'json', path]\n"
        "from deppy.cli.main import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code, problem], capture_output=True, text=True, check=True
    )
    answer, modules = loaded.stdout.splitlines()
    assert '"satisfiable":true,"selected":["a"]' in answer
    assert not set(eval(modules)) & {"click", "yaml", "rich"}
