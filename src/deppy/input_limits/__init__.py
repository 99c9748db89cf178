"""Parsing what comes from outside: every JSON and YAML document deppy reads passes here.

Catalogs, bundle manifests, request, pipeline and problem files are untrusted: a 100 KB file can
nest 50,000 levels (libyaml's composer recurses in C and kills the process), a 3 KB file can
alias its way to millions of nodes (every later walk of the tree — an error message, a store
write, an encoder — pays for all of them), and a value nested past the recursion limits of the
encoders and of Python fails far from where it entered. One guard here, at the door, refuses
such documents with a message naming the file, before anything else sees them:

* depth: at most :data:`MAX_DEPTH` nested lists/mappings (JSON and YAML);
* YAML node count: at most :data:`MAX_YAML_NODES` nodes in one document, aliases expanded;
* YAML alias expansion: aliases may add at most :data:`MAX_ALIAS_NODES` nodes and at most
  :data:`MAX_ALIAS_TEXT` characters of text in one stream (a 1 MB file of a few thousand
  aliases to one large string is few nodes but gigabytes once encoded), and an alias may not
  point into its own anchor (a recursive structure);
* YAML mapping keys become strings, as Kubernetes' YAML-to-JSON conversion (which
  operator-registry reads catalogs with) makes them: ``1: x`` has the key ``"1"``.

JSON is read by orjson, which refuses lone surrogates and invalid UTF-8; YAML by libyaml's
parser (which refuses both too). A plain YAML stream (no anchors, aliases, tags or merge keys:
every real catalog) is built straight from libyaml's events with the limits checked on the way
(:mod:`deppy.input_limits.yaml_events`); any other goes through a first pass over its events
that enforces the limits (:func:`check_yaml`), then PyYAML's loader. Both stop at the first
excess, so a hostile file costs no more than a normal one, and both give only JSON values.
"""

from __future__ import annotations

import gc
import os

from deppy.errors import InputError, excerpt
from deppy.input_limits.limits import (
    MAX_ALIAS_NODES,
    MAX_ALIAS_TEXT,
    MAX_DEPTH,
    MAX_YAML_NODES,
    UnsafeInput,
    UnsafeValue,
    too_deep_message,
)
from deppy.input_limits.regular_files import read_regular_file
from deppy.input_limits.small_json import UNSURE, scanned_json
from deppy.input_limits.yaml_events import built_documents, key_text, yaml_loader

TYPE_CHECKING = False  # typing and contextlib cost `deppy solve` start-up (test_solve_startup)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, Final

__all__ = [
    "MAX_ALIAS_NODES",
    "MAX_ALIAS_TEXT",
    "MAX_DEPTH",
    "MAX_YAML_NODES",
    "UnsafeInput",
    "UnsafeValue",
    "built_documents",
    "key_text",
    "too_deep_message",
]

_BRACKETS: Final = (b"[", b"{")


# ---------------------------------------------------------------------------------------------
# JSON


def json_value(data: bytes | str, *, small: bool = False) -> Any:
    """One JSON document, with the depth limit; raises orjson.JSONDecodeError (a ValueError)
    or UnsafeInput. orjson is imported here, not above, and a ``small`` file read at start-up
    (`deppy solve`'s problem) is read without it when it can be: orjson's own imports cost
    ~23 ms (:mod:`deppy.input_limits.small_json`)."""
    if small:
        value = scanned_json(data)
        if value is not UNSURE:
            check_depth(value, data)
            return value
    import orjson

    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        if "depth limit" in str(error):  # orjson's own limit (1,024), far past deppy's
            raise UnsafeInput(too_deep_message()) from None
        raise
    check_depth(value, data)
    return value


def check_depth(value: Any, raw: bytes | str | None = None) -> None:
    """Raise UnsafeInput when ``value`` nests deeper than MAX_DEPTH; ``raw`` (the text it was
    parsed from) lets the common shallow case skip the walk: fewer brackets than the limit.

    The walk goes level by level and does not look inside a dict the cyclic collector does
    not track: CPython tracks a dict once a list or dict is stored in it, so an untracked one
    holds only scalars (most of a catalog's dicts) — half the time of a walk over every value.
    """
    if raw is not None and len(raw) < _SHORT:
        if isinstance(raw, str):
            count = raw.count("[") + raw.count("{")
        else:
            count = raw.count(_BRACKETS[0]) + raw.count(_BRACKETS[1])
        if count <= MAX_DEPTH:
            return
    tracked = gc.is_tracked
    level = [value]
    depth = 1
    while level:
        deeper = []
        for item in level:
            if type(item) is dict:
                if not tracked(item):
                    continue
                children: Iterable[Any] = item.values()
            elif type(item) is list:
                children = item
            else:
                continue
            for child in children:
                if type(child) is dict or type(child) is list:
                    deeper.append(child)
        if deeper and depth >= MAX_DEPTH:
            raise UnsafeInput(too_deep_message())
        level = deeper
        depth += 1


_SHORT: Final = 4096
"""Below this many characters, counting brackets first may spare the walk; a longer text (a
bundle with its CSV metadata) almost always has more brackets than the limit."""


# ---------------------------------------------------------------------------------------------
# YAML


def check_yaml(data: bytes | str, *, first_only: bool = False) -> None:
    """Raise UnsafeInput when a YAML stream (or only its first document) passes a limit; syntax
    errors are raised as yaml.YAMLError, by this pass over events or later by the loader.

    Aliases are weighed twice: by the nodes they add and by the text they add (the characters
    of every scalar under the anchor, keys included), since a few thousand aliases of one
    large string add few nodes but gigabytes to every later encoding of the document."""
    import yaml

    scalar, alias = yaml.ScalarEvent, yaml.AliasEvent
    opening = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
    closing = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    depth = nodes = added = text = added_text = 0
    sizes: dict[str, tuple[int, int] | None] = {}  # anchor -> (nodes, characters) under it
    open_nodes: list[tuple[str | None, int, int]] = []
    event: Any
    for event in yaml.parse(data, Loader=yaml_loader()):
        kind = type(event)
        if kind is scalar:
            nodes += 1
            text += len(event.value)
            if event.anchor is not None:
                sizes[event.anchor] = (1, len(event.value))
        elif kind in opening:
            depth += 1
            if depth > MAX_DEPTH:
                raise UnsafeInput(too_deep_message())
            nodes += 1
            open_nodes.append((event.anchor, nodes, text))
            if event.anchor is not None:
                sizes[event.anchor] = None
        elif kind in closing:
            depth -= 1
            anchor, first, first_text = open_nodes.pop()
            if anchor is not None:
                sizes[anchor] = (nodes - first + 1, text - first_text)
        elif kind is alias:
            size = sizes.get(event.anchor, (1, 0))
            if size is None:
                raise UnsafeInput(f"alias *{event.anchor} refers to its own anchor (a cycle)")
            nodes += size[0]
            added += size[0]
            text += size[1]
            added_text += size[1]
            if added > MAX_ALIAS_NODES:
                raise UnsafeInput(
                    f"aliases expand to more than {MAX_ALIAS_NODES} nodes (deppy's limit)"
                )
            if added_text > MAX_ALIAS_TEXT:
                raise UnsafeInput(
                    f"aliases expand to more than {MAX_ALIAS_TEXT:,} characters of text "
                    "(deppy's limit)"
                )
        elif kind is yaml.DocumentStartEvent:
            nodes = 0
            sizes.clear()
        elif kind is yaml.DocumentEndEvent and first_only:
            return
        if nodes > MAX_YAML_NODES:
            raise UnsafeInput(f"a document has more than {MAX_YAML_NODES} nodes (deppy's limit)")


class _ValuesAsYamlErrors:
    """A scalar PyYAML resolves but cannot build (an int of 5,000 digits, the 13th month) is a
    YAML error of the document, not a crash."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: BaseException | None, trace: object) -> None:
        if isinstance(error, UnsafeInput) or not isinstance(error, ValueError | OverflowError):
            return
        import yaml

        raise yaml.YAMLError(f"a value cannot be read ({excerpt(str(error))})") from None


def yaml_documents(data: bytes | str) -> list[Any]:
    """Every document of a YAML stream, within the limits; raises yaml.YAMLError or
    UnsafeInput. Mapping keys are strings, values are JSON values."""
    import yaml

    with _ValuesAsYamlErrors():
        documents = built_documents(data)
        if documents is not None:
            return documents
        check_yaml(data)
        return list(yaml.load_all(data, Loader=yaml_loader()))


def yaml_first_document(data: bytes | str) -> Any:
    """The first document of a YAML stream, as operator-registry's decodeFileFS reads a file
    (later documents are not looked at); raises yaml.YAMLError or UnsafeInput."""
    import yaml

    with _ValuesAsYamlErrors():
        documents = built_documents(data, first_only=True)
        if documents is not None:
            return documents[0] if documents else None
        check_yaml(data, first_only=True)
        return next(yaml.load_all(data, Loader=yaml_loader()), None)


def yaml_value(data: bytes | str) -> Any:
    """A YAML stream of one document (None when empty); raises yaml.YAMLError or UnsafeInput."""
    import yaml

    with _ValuesAsYamlErrors():
        documents = built_documents(data)
        if documents is not None and len(documents) <= 1:
            return documents[0] if documents else None
        check_yaml(data)  # several documents: the loader's own error names the second
        return yaml.load(data, Loader=yaml_loader())


# ---------------------------------------------------------------------------------------------
# Files, with the error a user sees


def read_input(path: str | os.PathLike[str], what: str = "the file") -> bytes:
    """The bytes of an input file, or an InputError naming it (``what``: how the error calls
    it). Only a regular file is read: it is opened without blocking and looked at before a
    byte is read, so a FIFO (which would wait for a writer), ``/dev/zero`` (which never ends)
    or a directory is one line saying what it is."""
    where = str(path)
    if where == "-":  # kubectl's and most tools' spelling of standard input: `... | deppy -f -`
        return read_standard_input(what)
    try:
        return read_regular_file(where, _REGULAR_FIX, what=what)
    except FileNotFoundError:
        raise InputError(where, "no such file") from None


_REGULAR_FIX = "give the path of a regular file, or - to read standard input"


STANDARD_INPUT_LIMIT = 64 * 1024 * 1024
_STANDARD_INPUT: list[tuple[str, bytes]] = []  # what read standard input, and what it held


def read_standard_input(what: str = "the file") -> bytes:
    """Standard input, whole, for ``-`` in place of a file's path (what a pipe or ``<(...)``
    hands over). A pipe may never end: at most ``STANDARD_INPUT_LIMIT`` bytes are read, past
    that it is one line, not memory filled. A request, a ClusterExtension or a trace is far
    smaller. Read once and kept: a command may look at its ``-f`` twice (is it ClusterExtensions,
    else an ActiveResolution), and a pipe gives its bytes only once; a second reader of another
    ``what`` (``-f - --cluster -``) is refused, not handed the first one's bytes. A writer
    that never ends the pipe is ended by ``--timeout`` (its watchdog interrupts the read)."""
    import sys

    if _STANDARD_INPUT:
        first, data = _STANDARD_INPUT[0]
        if first != what:  # `-f - --cluster -`: one pipe cannot hold both
            raise InputError(
                "-", f"standard input is read as {first} already, so it cannot be {what} too",
                f"give {what} as a file",
            )  # fmt: skip
        return data
    try:
        if sys.stdin.isatty():  # a user who typed `-f -` at a prompt sees why nothing happens
            sys.stderr.write(f"deppy: reading {what} from standard input (Ctrl-D ends it)\n")
            sys.stderr.flush()
        data = sys.stdin.buffer.read(STANDARD_INPUT_LIMIT + 1)
    except (OSError, AttributeError, ValueError) as error:
        raise InputError("-", f"cannot read {what} from standard input ({error})") from None
    if len(data) > STANDARD_INPUT_LIMIT:
        raise InputError(
            "-", "standard input is longer than 64 MiB (deppy's limit)", "give the path of a file"
        )
    _STANDARD_INPUT.append((what, data))
    return data


def load_yaml_file(path: str | os.PathLike[str]) -> Any:
    """One YAML (or JSON) document from a file, or one InputError naming the file and line."""
    return parse_yaml(read_input(path), str(path))


def parse_yaml(data: bytes | str, where: str) -> Any:
    """One YAML document, or one InputError naming ``where`` (and the line, when known)."""
    import yaml

    try:
        return yaml_value(data)
    except UnsafeInput as error:
        raise InputError(where, str(error), "deppy refuses such input") from None
    except yaml.YAMLError as error:
        raise InputError(where, yaml_problem(error), "fix the syntax") from None


def parse_json(data: bytes | str, where: str, *, small: bool = False) -> Any:
    """One JSON document, or one InputError naming ``where``; ``small``: see json_value."""
    try:
        return json_value(data, small=small)
    except UnsafeInput as error:
        raise InputError(where, str(error), "deppy refuses such input") from None
    except ValueError as error:  # orjson.JSONDecodeError
        raise InputError(where, f"invalid JSON: {error}") from None


def yaml_problem(error: Exception) -> str:
    """A YAML syntax error in one line: what is wrong and on which line."""
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or " ".join(str(error).split())
    if mark is None:
        return f"invalid YAML ({problem})"
    return f"invalid YAML at line {mark.line + 1} ({problem})"
