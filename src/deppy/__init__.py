"""deppy: a dependency and constraint resolver.

The domain-agnostic solver is the public core: ``from deppy import Variable, Mandatory,
Dependency, solve``. The OLM domain lives in ``deppy.olm`` (``deppy.resolution.resolver.resolve``).
"""

from deppy import solver
from deppy.problem import load_problem
from deppy.solver import *  # noqa: F403  (the solver's public names are deppy's)

__all__ = [*solver.__all__, "load_problem"]
