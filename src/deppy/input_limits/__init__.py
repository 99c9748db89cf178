"""Parsing what comes from outside: every JSON and YAML document deppy reads passes here.

Catalogs, bundle manifests, request, pipeline and problem files are untrusted: a 100 KB file can
nest 50,000 levels (libyaml's composer recurses in C and kills the process), a 3 KB file can
alias its way to millions of nodes (every later walk of the tree — an error message, a store
write, an encoder — pays for all of them), and a value nested past the recursion limits of the
encoders and of Python fails far from where it entered. One guard here, at the door, refuses
such documents with a message naming the file, before anything else sees them:

* depth: at most :data:`MAX_DEPTH` nested lists/mappings (JSON and YAML);
* YAML node count: at most :data:`MAX_YAML_NODES` nodes in one document, aliases expanded;
* YAML alias expansion: aliases may add at most :data:`MAX_ALIAS_NODES` nodes in one stream,
  and an alias may not point into its own anchor (a recursive structure);
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

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

from deppy.errors import InputError, excerpt

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

_BRACKETS: Final = (b"[", b"{")


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


# ---------------------------------------------------------------------------------------------
# JSON


def json_value(data: bytes | str) -> Any:
    """One JSON document, with the depth limit; raises orjson.JSONDecodeError (a ValueError)
    or UnsafeInput. orjson is imported here, not above: `deppy solve` reads small problem files
    and pays ~10 ms of start-up for orjson's own imports."""
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
    parsed from) lets the common shallow case skip the walk: fewer brackets than the limit."""
    if raw is not None:
        if isinstance(raw, str):
            count = raw.count("[") + raw.count("{")
        else:
            count = raw.count(_BRACKETS[0]) + raw.count(_BRACKETS[1])
        if count <= MAX_DEPTH:
            return
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if type(item) is dict else item
        for child in children:
            if type(child) is dict or type(child) is list:
                if depth >= MAX_DEPTH:
                    raise UnsafeInput(too_deep_message())
                stack.append((child, depth + 1))


def too_deep_message() -> str:
    return f"nested more than {MAX_DEPTH} levels deep (deppy's limit)"


# ---------------------------------------------------------------------------------------------
# YAML


def _loader() -> type[Any]:
    global _LOADER
    if _LOADER is None:
        _LOADER = _make_loader()
    return _LOADER


_LOADER: type[Any] | None = None


def _make_loader() -> type[Any]:
    import yaml  # deferred: most commands read no YAML

    base: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class KeysAsText(base):  # type: ignore[misc]
        """libyaml's safe loader, with mapping keys turned to strings as Kubernetes does, and
        only values JSON can carry (see :mod:`deppy.input_limits.yaml_events`)."""

        def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
            self.flatten_mapping(node)  # merge keys (<<)
            mapping: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key = self.construct_object(key_node, deep=deep)
                if isinstance(key, list | dict | set):
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        "found a key that is a list or a mapping",
                        key_node.start_mark,
                    )
                mapping[key_text(key)] = self.construct_object(value_node, deep=deep)
            return mapping

        def construct_yaml_timestamp(self, node: Any) -> str:
            return str(node.value)  # the text, as Kubernetes' YAML-to-JSON conversion keeps it

        def construct_yaml_int(self, node: Any) -> int | float:
            return _checked(super().construct_yaml_int(node), node)  # type: ignore[no-any-return]

        def construct_yaml_float(self, node: Any) -> float:
            return _checked(super().construct_yaml_float(node), node)  # type: ignore[no-any-return]

        def construct_not_json(self, node: Any) -> Any:
            what = node.tag.rsplit(":", 1)[-1]
            raise UnsafeValue(
                f"a !!{what} value{{at}}, which JSON cannot carry; "
                "write it as text (base64 for bytes), a list or a mapping",
                node.start_mark.line + 1,
            )

    for tag, method in (
        ("timestamp", KeysAsText.construct_yaml_timestamp),
        ("int", KeysAsText.construct_yaml_int),
        ("float", KeysAsText.construct_yaml_float),
        ("binary", KeysAsText.construct_not_json),
        ("set", KeysAsText.construct_not_json),
        ("omap", KeysAsText.construct_not_json),
        ("pairs", KeysAsText.construct_not_json),
    ):
        KeysAsText.add_constructor(f"tag:yaml.org,2002:{tag}", method)
    return KeysAsText


def _checked(value: Any, node: Any) -> Any:
    from deppy.input_limits.yaml_events import json_scalar

    return json_scalar(value, node.start_mark.line + 1)


def key_text(key: Any) -> str:
    """A mapping key as sigs.k8s.io/yaml writes it into JSON."""
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, float):
        return str(int(key)) if key.is_integer() and abs(key) < 1e21 else repr(key)
    if hasattr(key, "isoformat"):
        return str(key.isoformat())
    return str(key)


def check_yaml(data: bytes | str, *, first_only: bool = False) -> None:
    """Raise UnsafeInput when a YAML stream (or only its first document) passes a limit; syntax
    errors are raised as yaml.YAMLError, by this pass over events or later by the loader."""
    import yaml

    scalar, alias = yaml.ScalarEvent, yaml.AliasEvent
    opening = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
    closing = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    depth = nodes = added = 0
    sizes: dict[str, int | None] = {}
    open_nodes: list[tuple[str | None, int]] = []
    event: Any
    for event in yaml.parse(data, Loader=_loader()):
        kind = type(event)
        if kind is scalar:
            nodes += 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
        elif kind in opening:
            depth += 1
            if depth > MAX_DEPTH:
                raise UnsafeInput(too_deep_message())
            nodes += 1
            open_nodes.append((event.anchor, nodes))
            if event.anchor is not None:
                sizes[event.anchor] = None
        elif kind in closing:
            depth -= 1
            anchor, first = open_nodes.pop()
            if anchor is not None:
                sizes[anchor] = nodes - first + 1
        elif kind is alias:
            size = sizes.get(event.anchor, 1)
            if size is None:
                raise UnsafeInput(f"alias *{event.anchor} refers to its own anchor (a cycle)")
            nodes += size
            added += size
            if added > MAX_ALIAS_NODES:
                raise UnsafeInput(
                    f"aliases expand to more than {MAX_ALIAS_NODES} nodes (deppy's limit)"
                )
        elif kind is yaml.DocumentStartEvent:
            nodes = 0
            sizes.clear()
        elif kind is yaml.DocumentEndEvent and first_only:
            return
        if nodes > MAX_YAML_NODES:
            raise UnsafeInput(f"a document has more than {MAX_YAML_NODES} nodes (deppy's limit)")


@contextmanager
def _values_as_yaml_errors() -> Iterator[None]:
    """A scalar PyYAML resolves but cannot build (an int of 5,000 digits, the 13th month) is a
    YAML error of the document, not a crash."""
    import yaml

    try:
        yield
    except UnsafeInput:
        raise
    except (ValueError, OverflowError) as error:
        raise yaml.YAMLError(f"a value cannot be read ({excerpt(str(error))})") from None


def yaml_documents(data: bytes | str) -> list[Any]:
    """Every document of a YAML stream, within the limits; raises yaml.YAMLError or
    UnsafeInput. Mapping keys are strings, values are JSON values."""
    import yaml

    from deppy.input_limits.yaml_events import built_documents

    with _values_as_yaml_errors():
        documents = built_documents(data)
        if documents is not None:
            return documents
        check_yaml(data)
        return list(yaml.load_all(data, Loader=_loader()))


def yaml_first_document(data: bytes | str) -> Any:
    """The first document of a YAML stream, as operator-registry's decodeFileFS reads a file
    (later documents are not looked at); raises yaml.YAMLError or UnsafeInput."""
    import yaml

    from deppy.input_limits.yaml_events import built_documents

    with _values_as_yaml_errors():
        documents = built_documents(data, first_only=True)
        if documents is not None:
            return documents[0] if documents else None
        check_yaml(data, first_only=True)
        return next(yaml.load_all(data, Loader=_loader()), None)


def yaml_value(data: bytes | str) -> Any:
    """A YAML stream of one document (None when empty); raises yaml.YAMLError or UnsafeInput."""
    import yaml

    from deppy.input_limits.yaml_events import built_documents

    with _values_as_yaml_errors():
        documents = built_documents(data)
        if documents is not None and len(documents) <= 1:
            return documents[0] if documents else None
        check_yaml(data)  # several documents: the loader's own error names the second
        return yaml.load(data, Loader=_loader())


# ---------------------------------------------------------------------------------------------
# Files, with the error a user sees


def read_input(path: str | os.PathLike[str]) -> bytes:
    """The bytes of an input file, or an InputError naming it."""
    where = str(path)
    try:
        with open(path, "rb") as file:  # plain open(): pathlib costs start-up time
            return file.read()
    except FileNotFoundError:
        raise InputError(where, "no such file") from None
    except OSError as error:
        raise InputError(where, f"cannot read the file ({error.strerror})") from None


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


def parse_json(data: bytes | str, where: str) -> Any:
    """One JSON document, or one InputError naming ``where``."""
    try:
        return json_value(data)
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
