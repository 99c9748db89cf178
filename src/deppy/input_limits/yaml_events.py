"""YAML documents built straight from libyaml's events, the limits checked on the way.

PyYAML's safe loader composes a node graph (in C) and then constructs values with Python calls
per node; deppy's guard first walked the events once more to check its limits. Catalogs are
plain YAML (no anchors, no tags), so one pass over libyaml's events can check the limits *and*
build the values: about twice as fast as the guard plus the loader, with PyYAML's exact values
(its resolver's table decides what a plain scalar is, its constructor builds non-text scalars).

A stream holding anything else — anchors, aliases, explicit tags, merge keys (``<<``), complex
keys — is left to the full loader (``None`` from :func:`built_documents`), which reads it
exactly as before, after the event pass of :func:`deppy.input_limits.check_yaml`.

Merge keys merge, as in PyYAML's safe loader and in the Go YAML operator-registry reads
catalogs with (yaml.v2 through sigs.k8s.io/yaml): ``<<: *defaults`` in a mapping key's place
adds the anchored mapping's keys (the mapping's own keys win); a plain ``<<`` anywhere else is
the text ``<<`` on both paths, whichever one a document takes.

What JSON cannot carry is decided here, for every later stage (writers, the store, the
service), as Kubernetes' YAML-to-JSON conversion (which operator-registry reads catalogs with)
decides it: a timestamp stays the text it was written as; an integer outside 64 bits becomes
the nearest float (as orjson reads the same number in a JSON file), with a note naming its line
for the caller to pass on (:data:`NOTES`); a value that is not a number or infinite, bytes
(``!!binary``) and sets are refused (:class:`~deppy.input_limits.UnsafeInput`) with their line.
"""

from __future__ import annotations

import math
from contextvars import ContextVar

from deppy.input_limits.limits import (
    MAX_DEPTH,
    MAX_YAML_NODES,
    UnsafeInput,
    UnsafeValue,
    too_deep_message,
)

TYPE_CHECKING = False  # typing costs `deppy solve` start-up (tests/test_solve_startup.py)
if TYPE_CHECKING:
    from typing import Any, Final

_TIMESTAMP: Final = "tag:yaml.org,2002:timestamp"
_MERGE: Final = "tag:yaml.org,2002:merge"
_PLAIN_TAGS: Final = (None, "!")
INT_RANGE: Final = (-(2**63), 2**64 - 1)
"""Integers JSON writers and readers carry exactly (orjson writes int64 and uint64)."""


NOTES: ContextVar[list[UnsafeValue] | None] = ContextVar("yaml_notes", default=None)
"""Where the caller of a YAML read hears of values converted for JSON: each an UnsafeValue
(not raised) whose message says what became of the value."""


class _Fallback(Exception):
    """The stream needs PyYAML's full loader (anchors, tags, merge keys, complex keys)."""


def built_documents(data: bytes | str, *, first_only: bool = False) -> list[Any] | None:
    """Every document (or only the first) of a plain YAML stream, within the limits; None when
    the stream holds what only the full loader reads. Raises yaml.YAMLError or UnsafeInput."""
    import yaml

    loader = yaml_loader()
    parser = loader(data)
    try:
        return _build(parser, first_only, yaml)
    except _Fallback:
        return None
    finally:
        parser.dispose()


def _build(parser: Any, first_only: bool, yaml: Any) -> list[Any]:
    scalar_event, end_events = yaml.ScalarEvent, (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    mapping_start, sequence_start = yaml.MappingStartEvent, yaml.SequenceStartEvent
    document_end, stream_end = yaml.DocumentEndEvent, yaml.StreamEndEvent
    resolvers = parser.yaml_implicit_resolvers
    special = _special_scalar
    no_key: Final = _NO_KEY
    documents: list[Any] = []
    containers: list[Any] = []  # the open lists and dicts, innermost last
    keys: list[Any] = []  # for each open dict, its key waiting for a value (no_key when none)
    nodes = 0
    root: Any = None
    get_event = parser.get_event
    while True:
        event = get_event()
        kind = type(event)
        if kind is scalar_event:
            if event.anchor is not None or event.tag not in _PLAIN_TAGS:
                raise _Fallback
            value = event.value
            if event.implicit[0]:
                found = resolvers.get(value[0] if value else "")
                if found is not None:
                    value = special(parser, found, event)
        elif kind is mapping_start or kind is sequence_start:
            if event.anchor is not None or event.tag not in _PLAIN_TAGS:
                raise _Fallback
            if len(containers) >= MAX_DEPTH:
                raise UnsafeInput(too_deep_message())
            value = {} if kind is mapping_start else []
        elif kind in end_events:
            containers.pop()
            keys.pop()
            continue
        elif kind is document_end:
            documents.append(root)
            root = None
            nodes = 0
            if first_only:
                return documents
            continue
        elif kind is stream_end:
            return documents
        elif kind is yaml.AliasEvent:
            raise _Fallback
        else:  # stream and document starts
            continue
        nodes += 1
        if nodes > MAX_YAML_NODES:
            raise UnsafeInput(f"a document has more than {MAX_YAML_NODES} nodes (deppy's limit)")
        if containers:  # placed in the innermost open list or dict (the hot path, inline)
            top = containers[-1]
            if type(top) is list:
                top.append(value)
            elif keys[-1] is no_key:
                keys[-1] = value if type(value) is str and value != "<<" else _key(value)
            else:
                top[keys[-1]] = value
                keys[-1] = no_key
        else:
            root = value
        if kind is not scalar_event:
            containers.append(value)
            keys.append(no_key)


_NO_KEY: Final = object()


def _key(value: Any) -> str:
    """A mapping key that is not plain text: made text as Kubernetes makes keys; a complex key
    or a merge key (``<<``) is left to the loader (its message, its merge)."""
    if type(value) is dict or type(value) is list or value == "<<":
        raise _Fallback
    return key_text(value)


def _special_scalar(parser: Any, found: list[tuple[str, Any]], event: Any) -> Any:
    """A plain scalar whose first character may make it more than text: PyYAML's resolver
    decides, its safe constructor builds (timestamps stay text; see the module docstring)."""
    value = event.value
    tag = next((tag for tag, regexp in found if regexp.match(value)), None)
    if tag is None:
        return value
    if tag in (_TIMESTAMP, _MERGE):
        return value  # a merge key is text here: _key sends it to the loader
    constructor = parser.yaml_constructors.get(tag)
    if constructor is None or tag in ("tag:yaml.org,2002:value", "tag:yaml.org,2002:yaml"):
        raise _Fallback  # the loader's own error
    import yaml

    built = constructor(parser, yaml.ScalarNode(tag, value, event.start_mark, event.end_mark))
    return json_scalar(built, event.start_mark.line + 1)


def json_scalar(value: Any, line: int) -> Any:
    """A built scalar JSON can carry (an integer past 64 bits as a float, with a note), or
    UnsafeValue naming the line."""
    if type(value) is int and not INT_RANGE[0] <= value <= INT_RANGE[1]:
        number = float(value)  # OverflowError past ~1e308: a YAML error of the document
        notes = NOTES.get()
        if notes is not None:
            notes.append(
                UnsafeValue(
                    f"the integer{{at}} does not fit in 64 bits; it is read as the number "
                    f"{number!r} (as Kubernetes reads it); quote it to keep its digits",
                    line,
                )
            )
        return number
    if type(value) is float and not math.isfinite(value):
        raise UnsafeValue(
            f"the number{{at}} is not finite ({value!r}), which JSON cannot carry; "
            "quote it to keep it as text",
            line,
        )
    return value


def yaml_loader() -> type[Any]:
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

        def construct_merge_text(self, node: Any) -> str:
            """A plain ``<<`` anywhere but a mapping's key (``flatten_mapping`` merges those)
            is the text ``<<``, as Go's YAML (sigs.k8s.io/yaml) and deppy's fast path read it."""
            return str(node.value)

        def construct_not_json(self, node: Any) -> Any:
            what = node.tag.rsplit(":", 1)[-1]
            raise UnsafeValue(
                f"a !!{what} value{{at}}, which JSON cannot carry; "
                "write it as text (base64 for bytes), a list or a mapping",
                node.start_mark.line + 1,
            )

    for tag, method in (
        ("timestamp", KeysAsText.construct_yaml_timestamp),
        ("merge", KeysAsText.construct_merge_text),
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
