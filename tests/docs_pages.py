"""The documentation's pages as the tests read them: the README and every page of the site,
and the shell examples in them that are marked runnable (docs/contributing/tests.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RUNNABLE = "<!-- runnable -->"
FILE_MARK = re.compile(r"^<!-- file: ([\w.-]+) -->\n```\w*\n(.*?)^```", re.M | re.S)
BLOCK = re.compile(r"^<!-- runnable -->\n```\w*\n(.*?)^```", re.M | re.S)


def pages() -> dict[str, str]:
    """Each page's text by its path from the repository's root: the README first."""
    found = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8")}
    for path in sorted(DOCS.rglob("*.md")):
        if "hooks" not in path.relative_to(DOCS).parts:
            found[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
    return found


def page(name: str) -> str:
    """One page of the site, by its path under docs/."""
    return (DOCS / name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class Step:
    """One ``$ command`` of a runnable example and the output the page shows after it."""

    command: str
    shown: str


@dataclass(frozen=True)
class Example:
    """A runnable block of a page, with the files that page writes for it."""

    where: str  # page:line
    steps: tuple[Step, ...]
    files: tuple[tuple[str, str], ...]


def examples() -> list[Example]:
    found = []
    for name, text in pages().items():
        files = tuple((m.group(1), m.group(2)) for m in FILE_MARK.finditer(text))
        for block in BLOCK.finditer(text):
            line = text.count("\n", 0, block.start()) + 1
            found.append(Example(f"{name}:{line}", tuple(steps(block.group(1))), files))
    return found


def steps(block: str) -> list[Step]:
    """The block's commands, each with the lines up to the next command."""
    found: list[Step] = []
    for line in block.splitlines(keepends=True):
        if line.startswith("$ "):
            found.append(Step(line[2:].rstrip("\n"), ""))
        elif found:
            found[-1] = Step(found[-1].command, found[-1].shown + line)
    return found
