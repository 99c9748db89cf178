"""A package's names loaded on first use (PEP 562): the package exports them, but importing it,
or one of its modules, loads no other module of it, so a command pays only for what it uses.

In the package's ``__init__.py``: the names imported under ``TYPE_CHECKING`` (for the type
checker), a map of each name to the module of the package that defines it, and
``__getattr__ = lazy_exports(__name__, THAT_MAP)``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, modules: Mapping[str, str]) -> Callable[[str], Any]:
    """The package's ``__getattr__``: ``name`` from ``package.<modules[name]>``, imported then."""

    def __getattr__(name: str) -> Any:
        if name not in modules:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{modules[name]}"), name)

    return __getattr__
