"""``deppy catalog diff OLD NEW``: what changed between two releases of a catalog.

``sides`` (each side read as release facts, from the cache, the store or the files),
``compare`` (the diff of two such values, :class:`CatalogDiff`), ``text`` (the diff for people).
"""

from typing import TYPE_CHECKING

from deppy.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from deppy.workflows.catalog_diff.compare import (
        CatalogDiff,
        diff_catalogs,
        diff_facts,
    )
    from deppy.workflows.catalog_diff.sides import (
        load_side,
    )
    from deppy.workflows.catalog_diff.text import (
        diff_lines,
    )

# Loaded on first use (deppy.lazy_exports): a name -> the module of this package defining it
_LATER = {
    "CatalogDiff": "compare",
    "diff_catalogs": "compare",
    "diff_facts": "compare",
    "load_side": "sides",
    "diff_lines": "text",
}

__all__ = [
    "CatalogDiff",
    "diff_catalogs",
    "diff_facts",
    "diff_lines",
    "load_side",
]


__getattr__ = lazy_exports(__name__, _LATER)
