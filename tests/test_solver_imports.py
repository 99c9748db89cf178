"""The solver's modules import one another one way, and nothing from the OLM domain."""

from __future__ import annotations

import ast
from pathlib import Path

import deppy
import deppy.solver

SOLVER = Path(deppy.solver.__file__).parent
PUBLIC = [
    "Variable",
    "Mandatory",
    "Prohibited",
    "Dependency",
    "Conflict",
    "AtMost",
    "And",
    "Or",
    "Not",
    "Clause",
    "solve",
    "NotSatisfiable",
    "SolveTimeout",
    "AppliedConstraint",
    "Identifier",
    "DuplicateIdentifier",
    "UnknownIdentifier",
    "Constraint",
]


def _imports(path: Path) -> set[str]:
    """Every deppy module a file imports, including imports made only for type checking."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("deppy"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("deppy"))
    return found


def _graph() -> dict[str, set[str]]:
    graph = {}
    for path in SOLVER.glob("*.py"):
        if path.stem == "__init__":
            continue
        name = f"deppy.solver.{path.stem}"
        graph[name] = {m for m in _imports(path) if m.startswith("deppy.solver.")}
    return graph


def test_solver_imports_form_no_cycle() -> None:
    graph = _graph()
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, f"import cycle: {' -> '.join((*path, module))}"
        if module in done:
            return
        for target in sorted(graph.get(module, ())):
            visit(target, (*path, module))
        done.add(module)

    for module in sorted(graph):
        visit(module, ())


def test_solver_imports_nothing_from_the_domain() -> None:
    for path in SOLVER.glob("*.py"):
        for module in _imports(path):
            allowed = module.startswith("deppy.solver") or module == "deppy.errors"
            assert allowed, f"{path.name} imports {module}"


def test_public_names_are_exported_from_both_packages() -> None:
    for name in PUBLIC:
        assert getattr(deppy.solver, name) is getattr(deppy, name), name
