"""The limits themselves and the errors that name them (see :mod:`deppy.input_limits`)."""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs `deppy solve` start-up (tests/test_solve_startup.py)
if TYPE_CHECKING:
    from typing import Final

MAX_DEPTH: Final = 100
"""Nested lists/mappings in one document. Real catalogs reach 40 (a CRD schema inside a CSV
inside a bundle); 100 keeps every recursive consumer (Python's 1,000 frames, orjson's 254-level
encoder, PyYAML's dumper) far from its own limit."""

MAX_YAML_NODES: Final = 1_000_000
"""Nodes of one YAML document counted with aliases expanded; the largest real document (a
bundle's CSV) has about 15,000."""

MAX_ALIAS_NODES: Final = 100_000
"""Nodes that aliases may add to one YAML stream (a file): billion-laughs documents stop here;
real catalogs use no aliases at all."""


MAX_ALIAS_TEXT: Final = 10_000_000
"""Characters of text (scalars, keys included) that aliases may add to one YAML stream: each
alias of an anchored string or subtree repeats all of its text in the values deppy builds and
in every encoding of them (a cache entry, ``-o json``, a pipeline's spec), so 2,000 aliases
of a 500 KB string in a 1 MB file would be a gigabyte. Real catalogs use no aliases; a
pipeline or request file that reuses a block by alias adds kilobytes."""


class UnsafeInput(ValueError):
    """A document past one of the limits; the message says which (callers add the place)."""


class UnsafeValue(UnsafeInput):
    """A value JSON cannot carry, on a line of the text parsed (``{at}`` in the template)."""

    def __init__(self, template: str, line: int) -> None:
        super().__init__(template.format(at=f" at line {line}"))
        self.template = template
        self.line = line

    def shifted(self, lines: int) -> UnsafeValue:
        """The same refusal for text that started ``lines`` lines further down its file."""
        return UnsafeValue(self.template, self.line + lines)


def too_deep_message() -> str:
    return f"nested more than {MAX_DEPTH} levels deep (deppy's limit)"
