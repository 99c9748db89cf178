"""Problem files: the conformance format (JSON or YAML) and DIMACS CNF."""

from deppy.problem.load import load_problem

__all__ = ["load_problem"]
