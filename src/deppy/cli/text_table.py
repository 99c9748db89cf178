"""Plain aligned tables for the terminal, the same bytes whatever the terminal is, and the
cell formats every table shares: an empty value is ``—``, an image digest is shortened."""

from __future__ import annotations

from collections.abc import Sequence

from deppy.terminal_text import terminal_text

EMPTY = "—"
DIGEST_SHOWN = 12  # hex digits of a sha256 digest kept in a table (docker's short id)


def columns(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> list[str]:
    """Aligned columns, two spaces apart; the last column is not padded. Cells are made
    printable first (as :func:`deppy.cli.data_output.say` would), so the columns line up."""
    rows = [tuple(terminal_text(cell) for cell in row) for row in rows]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    return [
        "  ".join([*(cell.ljust(w) for cell, w in zip(row, widths, strict=False)), row[-1]])
        for row in [header, *rows]
    ]


def cell(value: str | None) -> str:
    return value if value else EMPTY


def short_image(image: str) -> str:
    """``quay.io/x/op@sha256:0123456789ab…`` for a pinned image; ``—`` when there is none
    (JSON keeps the whole reference)."""
    if not image:
        return EMPTY
    name, at, digest = image.partition("@")
    algorithm, colon, hexits = digest.partition(":")
    if at and colon and len(hexits) > DIGEST_SHOWN:
        return f"{name}@{algorithm}:{hexits[:DIGEST_SHOWN]}…"
    return image
