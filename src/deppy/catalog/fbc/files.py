"""Which files of a File-Based Catalog are read, and how each becomes a stream of documents.

operator-registry reads every regular file under the root except ``.indexignore`` files and what
they ignore (gitignore semantics, as go-git implements them); a file whose first non-blank byte
is ``{`` is a JSON stream, any other a YAML stream. Each document keeps where it starts, so a
problem can name the file and line.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import yaml

from deppy.catalog.model import LoadProblem
from deppy.errors import special_file
from deppy.input_limits import (
    UnsafeInput,
    UnsafeValue,
    json_value,
    too_deep_message,
    yaml_documents,
)
from deppy.input_limits.yaml_events import NOTES

INDEX_IGNORE = ".indexignore"
_NON_BLANK = re.compile(rb"\S")
_BOM = b"\xef\xbb\xbf"


# ---------------------------------------------------------------------------------------------
# Which files: a gitignore-style matcher with the semantics of go-git's gitignore package, which
# operator-registry uses for .indexignore (a pattern applies below the directory of its file, the
# last matching pattern wins, a name without "/" matches any path component).


def _component_regex(glob: str) -> re.Pattern[str] | None:
    """Go's filepath.Match for one path component, as a regex; None for a malformed pattern."""
    out, i, n = [], 0, len(glob)
    while i < n:
        c = glob[i]
        i += 1
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "\\" and i < n:
            out.append(re.escape(glob[i]))
            i += 1
        elif c == "[":
            end = glob.find("]", i + 1 if i < n and glob[i] in "^!" else i)
            if end < 0:
                return None
            body = glob[i:end]
            negate = body[:1] in ("^", "!")
            body = body[1:] if negate else body
            out.append("[" + ("^" if negate else "") + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(c))
    try:
        return re.compile("".join(out) + r"\Z")
    except re.error:
        return None


@dataclass(frozen=True, slots=True)
class _IgnorePattern:
    domain: tuple[str, ...]
    parts: tuple[re.Pattern[str] | None, ...]  # None for "**" or a malformed component
    raw_parts: tuple[str, ...]
    include: bool
    dir_only: bool
    anchored: bool

    @classmethod
    def parse(cls, line: str, domain: tuple[str, ...]) -> _IgnorePattern:
        include = line.startswith("!")
        if include:
            line = line[1:]
        if not line.endswith("\\ "):
            line = line.rstrip(" ")
        dir_only = line.endswith("/")
        if dir_only:
            line = line[:-1]
        raw = tuple(line.split("/"))
        parts = tuple(None if p == "**" else _component_regex(p) for p in raw)
        return cls(domain, parts, raw, include, dir_only, "/" in line)

    def matches(self, path: tuple[str, ...]) -> bool:
        """Whether a file path (components) matches; the path is a file, never a directory."""
        if len(path) <= len(self.domain) or path[: len(self.domain)] != self.domain:
            return False
        rest = path[len(self.domain) :]
        return self._glob(rest) if self.anchored else self._name(rest)

    def _name(self, path: tuple[str, ...]) -> bool:
        regex, last = self.parts[0], len(path) - 1
        for i, name in enumerate(path):
            if regex is None or not regex.match(name):
                continue
            # A directory-only pattern cannot match the file itself, only a directory above it;
            # a negation re-includes the file it names, not a whole directory.
            if self.dir_only and i == last:
                return False
            if i < last and self.include:
                continue
            return True
        return False

    def _glob(self, path: tuple[str, ...]) -> bool:
        matched = traverse = trailing = False
        last = len(self.raw_parts) - 1
        for i, (raw, regex) in enumerate(zip(self.raw_parts, self.parts, strict=True)):
            if raw == "":
                traverse = False
                continue
            if raw == "**":
                if i == last:
                    matched = trailing = bool(path)
                    break
                traverse = True
                continue
            if regex is None or not path:
                return False
            if traverse:
                traverse = False
                while path:
                    name, path = path[0], path[1:]
                    if regex.match(name):
                        matched = True
                        break
                    if not path:
                        return False
            else:
                if not regex.match(path[0]):
                    return False
                matched, path = True, path[1:]
                if not path and i < last:
                    matched = False
        if matched and (not path or trailing):
            return not self.dir_only
        return matched and not self.include


def _ignored(path: tuple[str, ...], patterns: list[_IgnorePattern]) -> bool:
    for pattern in reversed(patterns):
        if pattern.matches(path):
            return not pattern.include
    return False


def _not_a_file(entry: os.DirEntry[str]) -> str | None:
    """Why a directory entry cannot be read as a file, seen without opening it: a FIFO blocks
    the read until a writer comes, a link to ``/dev/zero`` never ends it, a link loop fails it;
    None for a regular file (or a link to one)."""
    if entry.is_file(follow_symlinks=False):
        return None  # known from the listing, no system call
    try:
        mode = os.stat(entry.path).st_mode
    except OSError as error:
        return f"cannot read: {error.strerror}"
    if stat.S_ISREG(mode):
        return None
    kind = special_file(mode)
    return f"is {kind}, not a file" if kind else "is a directory (reached through a link)"


def catalog_files(root: Path, problems: list[LoadProblem]) -> list[str]:
    """Relative paths (with "/") of the files to read, in the lexical order of Go's fs.WalkDir."""
    if root.is_file():
        return [""]
    files: list[str] = []

    def visit(directory: str, prefix: str) -> None:
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as err:
            problems.append(LoadProblem(directory, "", f"cannot list directory: {err.strerror}"))
            return
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                visit(entry.path, f"{prefix}{entry.name}/")
                continue
            odd = _not_a_file(entry)
            if odd is None:
                files.append(prefix + entry.name)
            else:
                problems.append(LoadProblem(entry.path, "", f"{odd}; skipped"))

    visit(str(root), "")
    patterns: list[_IgnorePattern] = []
    for rel in files:
        parts = tuple(rel.split("/"))
        if parts[-1] == INDEX_IGNORE:
            try:
                text = (root / rel).read_text(encoding="utf-8", errors="replace")
            except OSError as err:
                problems.append(LoadProblem(str(root / rel), "", f"cannot read: {err.strerror}"))
                continue
            for line in text.splitlines():
                line = line.strip()
                if line and not line.startswith("#"):
                    patterns.append(_IgnorePattern.parse(line, parts[:-1]))
    return [
        rel
        for rel in files
        if rel.rsplit("/", 1)[-1] != INDEX_IGNORE
        and not (patterns and _ignored(tuple(rel.split("/")), patterns))
    ]


# ---------------------------------------------------------------------------------------------
# Which objects: JSON and YAML streams, each object with the line it starts on.


@dataclass(slots=True)
class Doc:
    where: str  # "line 12" or "document 3", for messages
    line: int | None
    obj: Any
    span: tuple[int, int] | None = None  # where a JSON object's text lies in its file's bytes


def _line_of(data: bytes, pos: int) -> int:
    return data.count(b"\n", 0, pos) + 1


def _refused(line: int, err: UnsafeInput) -> tuple[str, str]:
    return (f"object at line {line}", f"{err}; the object is skipped")


def _json_lines(data: bytes, problems: list[tuple[str, str]], base: int) -> list[Doc] | None:
    """The fast path for one compact object per line (what ``opm render`` writes); ``base``:
    where ``data`` starts in its file. Only lines with content are looked at, found by a search
    over the bytes: splitting the stream into a list of every line cost 8 bytes a line, nine
    times the size of a stream of blank lines."""
    docs: list[Doc] = []
    pos, lineno, counted = 0, 1, 0
    while True:
        found = _NON_BLANK.search(data, pos)
        if found is None:
            return docs
        start = data.rfind(b"\n", 0, found.start()) + 1
        end = data.find(b"\n", found.start())
        end = len(data) if end < 0 else end
        lineno += data.count(b"\n", counted, start)
        counted = start
        try:
            value = json_value(data[start:end])
            docs.append(Doc(f"line {lineno}", lineno, value, (base + start, base + end)))
        except orjson.JSONDecodeError:
            return None
        except UnsafeInput as err:
            problems.append(_refused(lineno, err))
        pos = end


def _json_pretty(data: bytes, problems: list[tuple[str, str]], base: int) -> list[Doc] | None:
    """The fast path for indented objects, each closed by a "}" alone at the start of a line."""
    docs: list[Doc] = []
    start, line = 0, 1
    for match in re.finditer(rb"^\}[ \t\r]*$", data, re.M):
        end = match.end()
        first = _NON_BLANK.search(data, start, end)
        if first is None:
            return None
        line += data.count(b"\n", start, first.start())
        try:
            value = json_value(data[start:end])
            docs.append(Doc(f"line {line}", line, value, (base + start, base + end)))
        except orjson.JSONDecodeError:
            return None
        except UnsafeInput as err:
            problems.append(_refused(line, err))
        line += data.count(b"\n", first.start(), end)
        start = end
    if _NON_BLANK.search(data, start):
        return None
    return docs


def _json_stream(data: bytes, problems: list[tuple[str, str]]) -> list[Doc]:
    """Any JSON stream, decoding errors included: after a broken object, go on at the next line
    that starts with "{" (where the next top-level object starts in both layouts). The standard
    library only finds where each object ends; orjson parses it, within deppy's limits."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        problems.append(
            ("", f"not UTF-8 text ({err.reason} at byte {err.start}); the file is skipped")
        )
        return []
    decoder = json.JSONDecoder()
    docs: list[Doc] = []
    pos, n, line, counted = 0, len(text), 1, 0
    while True:
        while pos < n and text[pos] in " \t\r\n":
            pos += 1
        if pos >= n:
            return docs
        line += text.count("\n", counted, pos)
        counted = start = pos
        try:
            _, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as err:
            why = f"invalid JSON at line {err.lineno} column {err.colno} ({err.msg})"
        except ValueError:  # Python reads integers of at most 4,300 digits
            why = "a number of more than 4,300 digits"
        except RecursionError:
            why = too_deep_message()
        else:
            try:
                docs.append(Doc(f"line {line}", line, json_value(text[start:pos])))
            except (orjson.JSONDecodeError, UnsafeInput) as err:
                problems.append((f"object at line {line}", f"{err}; the object is skipped"))
            continue
        problems.append(
            (f"object at line {line}", f"{why}; fix or remove this object, it is skipped")
        )
        nxt = text.find("\n{", pos)
        if nxt < 0:
            return docs
        pos = nxt + 1


def _yaml_doc_starts(data: bytes) -> list[tuple[int, int]]:
    """(offset, line) of each YAML document, numbered as libyaml yields documents: every "---"
    starts one, and the text before the first "---" counts only if it holds more than comments."""
    markers: list[int] = [0] if data.startswith(b"---") else []
    pos = data.find(b"\n---")
    while pos >= 0:
        markers.append(pos + 1)
        pos = data.find(b"\n---", pos + 4)
    markers = [m for m in markers if data[m + 3 : m + 4] in (b"", b" ", b"\t", b"\r", b"\n")]
    starts: list[tuple[int, int]] = []
    head_end = markers[0] if markers else len(data)
    pos = 0
    while (found := _NON_BLANK.search(data, pos, head_end)) is not None:  # lines with content
        start = data.rfind(b"\n", 0, found.start()) + 1
        if data[found.start() : found.start() + 1] not in (b"#", b"%"):
            starts.append((0, data.count(b"\n", 0, start) + 1))
            break
        pos = data.find(b"\n", found.start(), head_end)
        if pos < 0:
            break
    line, prev = 1, 0
    for marker in markers:
        line += data.count(b"\n", prev, marker)
        prev = marker
        # Point at the document's first line rather than at a bare "---".
        eol = data.find(b"\n", marker)
        bare = eol >= 0 and not data[marker + 3 : eol].strip()
        starts.append((marker, line + 1 if bare else line))
    return starts


def _yaml_stream(data: bytes, problems: list[tuple[str, str]]) -> list[Doc]:
    starts = _yaml_doc_starts(data)
    try:
        with _noted(problems, 0):
            objs = yaml_documents(data)
    except (yaml.YAMLError, UnsafeInput):
        return _yaml_by_document(data, starts, problems)
    if len(objs) != len(starts):
        return [Doc(f"document {i}", None, obj) for i, obj in enumerate(objs, 1)]
    return [Doc(f"line {line}", line, obj) for (_, line), obj in zip(starts, objs, strict=True)]


@contextmanager
def _noted(problems: list[tuple[str, str]], shift: int) -> Iterator[None]:
    """Values converted for JSON while parsing (text starting ``shift`` lines down its file)
    become one problem each, the object kept — when the parse succeeds."""
    notes: list[UnsafeValue] = []
    token = NOTES.set(notes)
    try:
        yield
    finally:
        NOTES.reset(token)
    problems.extend(("", f"{note.shifted(shift)}; the object is kept") for note in notes)


def _yaml_by_document(
    data: bytes, starts: list[tuple[int, int]], problems: list[tuple[str, str]]
) -> list[Doc]:
    """A YAML stream with a broken document: parse documents one by one to keep the good ones."""
    docs: list[Doc] = []
    for i, (offset, line) in enumerate(starts or [(0, 1)]):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(data)
        shift = _line_of(data, offset) - 1
        try:
            with _noted(problems, shift):
                objs = yaml_documents(data[offset:end])
        except UnsafeInput as err:
            if isinstance(err, UnsafeValue):  # its line, counted in the whole file
                err = err.shifted(shift)
            problems.append((f"document at line {line}", f"{err}; the document is skipped"))
            continue
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None)
            at = shift + 1 + mark.line if mark is not None else line
            why = getattr(err, "problem", None) or str(err).splitlines()[0]
            problems.append(
                (
                    f"document at line {line}",
                    f"invalid YAML at line {at} ({why}); fix or "
                    "remove this document, it is skipped",
                )
            )
            continue
        docs.extend(Doc(f"line {line}", line, obj) for obj in objs)
    return docs


def read_docs(data: bytes, hint: str, problems: list[tuple[str, str]]) -> list[Doc]:
    """The objects of one file, as Kubernetes' YAMLOrJSONDecoder would split them."""
    base = 0
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
        base = len(_BOM)
    first = _NON_BLANK.search(data)
    if first is None:
        return []
    if data[first.start()] == ord("{"):
        fast_problems: list[tuple[str, str]] = []
        docs = _json_lines(data, fast_problems, base)
        if docs is None:
            fast_problems.clear()
            docs = _json_pretty(data, fast_problems, base)
        if docs is not None:
            problems.extend(fast_problems)
        else:
            json_problems: list[tuple[str, str]] = []
            docs = _json_stream(data, json_problems)
            # A .yaml file may hold a YAML flow mapping; let YAML have a go before complaining.
            if json_problems and hint in (".yaml", ".yml"):
                yaml_problems: list[tuple[str, str]] = []
                yaml_docs = _yaml_stream(data, yaml_problems)
                if not yaml_problems:
                    return yaml_docs
            problems.extend(json_problems)
        return docs
    return _yaml_stream(data, problems)
